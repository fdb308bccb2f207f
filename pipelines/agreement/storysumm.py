"""Import StorySumm (melaniesubbiah/storysumm; SOURCES.md §10): human faithfulness labels per
summary sentence and the recorded predictions of LLM and NLI judges.

Layout: DIR/storysumm.json ({story_id: {label, summary: [sentences], errors: [0/1 per
sentence], ...}}) and DIR/predicted_labels/**.json ({story_id: {label?, sentence_labels?,
claim_labels?, probs?}}). In both, 1 means faithful and 0 unfaithful (the human `errors` list
holds 0 at the sentences the explanations correct). Labels map to verdicts: 1 -> asserted
(the story supports the sentence), 0 -> contradicted.

Two datasets are written: `storysumm` (per summary sentence: the human `errors` against each
predictor's `sentence_labels`, as the issue asks) and `storysumm-summary` (per summary: the
human `label` against each predictor's summary `label`). Predictors with only probabilities
(AlignScore, UniEval) carry no labels and are reported as skipped, not thresholded.

The HEAD storysumm.json is malformed: one summary list has a stray `", "` before a line break
(line ~1455). We repair exactly that defect and say so; any other JSON error is reported with
file, line and column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from data_access.importers.json_files import JsonFileError, decode_utf8, loads_json
from data_access.store import Store
from data_access.store.interrupts import telling_interrupts
from pipelines.agreement.imports import HUMAN, write_judge_labels

_STRAY_QUOTE = re.compile(r'",\s*"[ \t]*\n')
VERDICT = {1: "asserted", 0: "contradicted"}


class ImportError_(ValueError):
    """Bad input: the message names file, record and field."""


@dataclass
class StorySummImport:
    """What an import wrote and what it skipped."""

    summaries: int = 0
    sentence_labels: dict[str, int] = field(default_factory=dict)
    summary_labels: dict[str, int] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def load_json(path: Path, notes: list[str]) -> dict:
    """Parse a StorySumm JSON file, repairing the known stray-quote defect of the HEAD file."""
    try:
        text = decode_utf8(path.read_bytes(), str(path))
        try:
            return loads_json(text, str(path))
        except JsonFileError as first:
            repaired, count = _STRAY_QUOTE.subn('",\n', text)
            if not count:
                raise
            try:
                data = loads_json(repaired, str(path))
            except JsonFileError:
                raise first from None
            notes.append(
                f"{path.name}: repaired {count} stray '\", \"' before a line break "
                f"(known defect, first error at {first.problem.record})"
            )
            return data
    except JsonFileError as exc:
        raise ImportError_(f"malformed JSON: {exc}") from None


def _binary(value, where: str) -> int:
    if value in (0, 1, "0", "1") and not isinstance(value, bool):
        return int(value)
    raise ImportError_(f"{where}: expected 0 or 1, got {value!r}")


def human_rows(path: Path, data: dict) -> tuple[list, list, dict[str, int], list[str]]:
    """Sentence rows, summary rows, sentence counts per story, skipped notes (human labels)."""
    sentences, summaries, lengths, skipped = [], [], {}, []
    for story_id, record in data.items():
        where = f"{path.name}: record {story_id!r}"
        summary, errors = record.get("summary"), record.get("errors")
        if not isinstance(summary, list) or not isinstance(errors, list):
            raise ImportError_(f"{where}: field 'summary' and 'errors' must be lists")
        summaries.append(
            (
                f"storysumm:{story_id}",
                f"storysumm:{story_id}:summary",
                VERDICT[_binary(record.get("label"), f"{where} field 'label'")],
                None,
            )
        )
        if len(errors) != len(summary):
            skipped.append(f"{story_id}: {len(errors)} error labels for {len(summary)} sentences")
            continue
        lengths[story_id] = len(summary)
        sentences += [
            (
                f"storysumm:{story_id}",
                f"storysumm:{story_id}:s{k}",
                VERDICT[_binary(v, f"{where} field 'errors[{k}]'")],
                None,
            )
            for k, v in enumerate(errors)
        ]
    return sentences, summaries, lengths, skipped


def predictor_rows(path: Path, data: dict, lengths: dict[str, int]) -> tuple[list, list]:
    """(sentence rows, summary rows) of one predictor file."""
    sentences, summaries = [], []
    for story_id, record in data.items():
        where = f"{path.name}: record {story_id!r}"
        if not isinstance(record, dict):
            raise ImportError_(f"{where}: expected an object")
        if "label" in record:
            summaries.append(
                (
                    f"storysumm:{story_id}",
                    f"storysumm:{story_id}:summary",
                    VERDICT[_binary(record["label"], f"{where} field 'label'")],
                    None,
                )
            )
        labels = record.get("sentence_labels")
        if isinstance(labels, list) and lengths.get(story_id) == len(labels):
            sentences += [
                (
                    f"storysumm:{story_id}",
                    f"storysumm:{story_id}:s{k}",
                    VERDICT[_binary(v, f"{where} field 'sentence_labels[{k}]'")],
                    None,
                )
                for k, v in enumerate(labels)
            ]
    return sentences, summaries


def _main_file(directory: Path) -> Path:
    for candidate in [directory / "storysumm.json", *sorted(directory.glob("storysumm*.json"))]:
        if candidate.is_file():
            return candidate
    raise ImportError_(f"{directory}: no storysumm.json found")


def import_storysumm(
    store: Store, directory: Path, main_file: Path | None = None
) -> StorySummImport:
    """Import human and predictor labels from a StorySumm checkout in one transaction."""
    directory = Path(directory)
    path = main_file or _main_file(directory)
    report = StorySummImport()
    data = load_json(path, report.notes)
    human_sent, human_summ, lengths, report.skipped = human_rows(path, data)
    report.summaries = len(data)
    judges = {HUMAN: (human_sent, human_summ, "human")}
    for file in sorted((directory / "predicted_labels").rglob("*.json")):
        name = file.relative_to(directory / "predicted_labels").with_suffix("").as_posix()
        sent, summ = predictor_rows(file, load_json(file, report.notes), lengths)
        if not sent and not summ:
            report.skipped.append(f"{name}: no labels (probabilities only)")
            continue
        judges[name] = (sent, summ, "predictor")
    told = telling_interrupts(store, "import.storysumm", None, f"the import of {directory}")
    with told, store.transaction() as cursor:
        for judge_id, (sent, summ, kind) in judges.items():
            for dataset, rows, counts in (
                ("storysumm", sent, report.sentence_labels),
                ("storysumm-summary", summ, report.summary_labels),
            ):
                if rows:
                    write_judge_labels(
                        cursor,
                        dataset,
                        judge_id,
                        kind,
                        str(path if judge_id == HUMAN else directory),
                        rows,
                    )
                    counts[judge_id] = len(rows)
    return report
