"""The contract between a harness reader (pipelines/results/) and the results write path: the
header of one harness run and its samples, one `ResultSample` per record the harness wrote."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class ResultSample:
    """One per-sample output, as the harness wrote it.

    Attributes:
        record: where it is in the file, for errors and reports (`line 12`, `row 3`,
            `sample 7`).
        sample_id: the harness's own id of the sample (lmms-eval `doc_id`, inspect `id`, ...).
        link_id: the id it is linked to a question or MCQ by (a documented id field of the
            sample's doc / metadata, else `sample_id`); None when the record names none.
        text: the model's answer text (None or blank: nothing to import).
        option: the MCQ letter extracted by the harness's own convention (None: none found).
        error: the harness's error for a failed sample (None: it did not fail).
        repeat: why this is not the sample's first record (`epoch 2`, `filter strict-match`,
            `repeat 2`); None for the first. Two first records of one sample are a fault.
        rule: the rule that read `option` (pipelines/results/letters.py names them), None when
            no letter was looked for; the report counts letters per rule.
        trail: an agent's evidence trail for the sample as JSON text (its tool calls and how
            its loop ended: pipelines/results/inspect_trail.py), None for a non-agent run.
    """

    record: str
    sample_id: str
    link_id: str | None
    text: str | None
    option: str | None = None
    error: str | None = None
    repeat: str | None = None
    rule: str | None = None
    trail: str | None = None


@dataclass
class HarnessRun:
    """What the file says about the run that wrote it (provenance of the imported setting)."""

    harness: str
    harness_version: str | None = None
    model: str | None = None
    model_args: str | None = None
    task: str | None = None
    # the model was named by the user at import, because the file names none
    model_typed: bool = False
    # the accuracy (0-1) the harness's own summary states, and where it says so
    stated_accuracy: float | None = None
    stated_accuracy_in: str | None = None
    # what the reader wants the user to know about the file (a cancelled run, an assumed rule)
    notes: list[str] = field(default_factory=list)
    # what the model saw (the new setting's source), when the file says so (an exported agent
    # task: `agent`), and the agent's tool tier; None: the caller's --source
    setting_source: str | None = None
    tier: str | None = None


@dataclass
class OpenedResults:
    """A results file (or folder) opened by its reader: the header now, the samples streamed.

    Attributes:
        format: the format name the reader implements.
        files: every file the samples come from (hashed, in this order, for provenance).
        label: how errors and reports name the input.
        run: the header.
        samples: the records, read lazily (a 100k-sample file is never held whole).
        id_field: the field that holds `sample_id` (named in errors).
        link_field: the field that holds `link_id` (named in errors).
    """

    format: str
    files: list[Path]
    label: str
    run: HarnessRun
    samples: Iterable[ResultSample] = field(default_factory=list)
    id_field: str = "id"
    link_field: str = "id"
