"""inspect_ai eval logs (`.eval` and `.json`), read with inspect_ai's own reader.

`inspect_ai.log.read_eval_log(path, header_only=True)` gives the eval spec (task, model,
model_args, the inspect_ai version in `packages`) without the samples. An `.eval` log is a zip
of one JSON file per sample: its samples are streamed one at a time as inspect's `EvalSample`
(a 100k-sample log is never held whole); a `.json` log is one JSON document, which
`read_eval_log` reads whole. Per sample: `id`, `epoch`,
`output.completion`, `scores`, `metadata`, `error` (inspect_ai/log/_log.py, EvalSample).

Linking: `--map question_id=FIELD` (a dotted path into the sample), else `metadata.question_id`,
`metadata.mcq_id` (what `storyscope export-task --harness inspect` writes), else the sample `id`.
MCQ letter: the answer a scorer recorded (`choice()` stores the chosen letters in
`Score.answer`), else inspect's own `ANSWER: X` parsing of the completion (letters.py).

A log of StoryScope's exported agent task (its task metadata says `setting: agent`) also gives
each sample's evidence trail: its tool calls, their results and intervals, and how its loop
ended (inspect_trail.py); a question the agent never answered keeps its trail, not an answer.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from data_access.importers.errors import ImportFailure, fail
from data_access.importers.results import formats
from data_access.importers.results.samples import HarnessRun, OpenedResults, ResultSample
from pipelines.results.inspect_trail import agent_notes, agent_task, sample_trail
from pipelines.results.letters import (
    INSPECT_PARSE,
    INSPECT_SCORE,
    LETTERS,
    inspect_letter,
    inspect_rule,
)
from pipelines.results.options import ReadOptions
from pipelines.results.readers import register_reader
from pipelines.results.records import as_id, dig

LINK_FIELDS = ("question_id", "mcq_id")
NEEDS_LIBRARY = (
    "reading inspect logs needs the inspect_ai package: pip install 'storyscope[harness]'"
)


def _library():
    try:
        from inspect_ai import log
    except ImportError:
        return None
    return log


def _read_log(path: Path, header_only: bool):
    log = _library()
    if log is None:
        raise fail(path.name, "(file)", "-", NEEDS_LIBRARY)
    try:
        return log.read_eval_log(str(path), header_only=header_only)
    except Exception as exc:  # inspect raises zip, JSON and validation errors alike
        raise fail(path.name, "(file)", "-", f"not a readable inspect log: {_short(exc)}") from None


def _short(exc: Exception) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__


def _scored_letter(scores: dict | None) -> str | None:
    for score in (scores or {}).values():
        answer = (getattr(score, "answer", None) or "").strip().upper()
        if len(answer) == 1 and answer in LETTERS:
            return answer
    return None


def _link(sample, options: ReadOptions) -> str | None:
    mapped = options.mapped("question_id")
    if mapped:
        return as_id(dig(sample.model_dump(), mapped))
    metadata = sample.metadata or {}
    for field in LINK_FIELDS:
        found = as_id(metadata.get(field))
        if found is not None:
            return found
    return as_id(sample.id)


def _text(sample, options: ReadOptions) -> str | None:
    mapped = options.mapped("answer")
    if mapped:
        value: Any = dig(sample.model_dump(), mapped)
        return value if isinstance(value, str) else None
    return sample.output.completion if sample.output is not None else None


def _eval_samples(path: Path) -> Iterator:
    """Samples of an `.eval` log one at a time, read as inspect_ai reads a whole log
    (inspect_ai/log/_recorders/eval.py `_read_log_from_bytes`: each `samples/*.json` member of
    the zip, once, validated as `EvalSample`) but without holding them all. inspect's own
    `read_eval_log_samples` reopens the archive for every sample, which is quadratic in a
    100k-sample log."""
    from inspect_ai.log import EvalSample

    try:  # what inspect passes when it deserialises a sample (a message cache)
        from inspect_ai._util.constants import get_deserializing_context
    except ImportError:  # a future inspect_ai without it: plain validation
        get_deserializing_context = dict

    with zipfile.ZipFile(path) as archive:
        for name in dict.fromkeys(archive.namelist()):
            if name.startswith("samples/") and name.endswith(".json"):
                with archive.open(name) as member:
                    data = json.load(member)
                yield EvalSample.model_validate(data, context=get_deserializing_context())


def _samples(
    path: Path, samples: Iterator, options: ReadOptions, version: str | None, agent: dict | None
):
    rule = inspect_rule(version)
    parsing = f"{INSPECT_PARSE} (inspect_ai {rule}+ rule)"
    try:
        for number, sample in enumerate(samples, start=1):
            text = _text(sample, options)
            letter, how = _scored_letter(sample.scores), INSPECT_SCORE
            if letter is None and text and agent is None:
                letter, how = inspect_letter(text, rule), parsing
            error = sample.error.message if sample.error is not None else None
            repeat = f"epoch {sample.epoch}" if (sample.epoch or 1) > 1 else None
            record = f"sample {number}"
            trail = None
            if agent is not None and repeat is None:
                found = sample_trail(sample, agent, text, path.name, record)
                if found["outcome"] != "answered":  # a question the agent never answered
                    text = None
                trail = json.dumps(found, ensure_ascii=False)
            yield ResultSample(
                record, str(sample.id), _link(sample, options), text, letter, error,
                repeat, how if (letter or text) else None, trail,
            )  # fmt: skip
    except ImportFailure:
        raise
    except Exception as exc:  # a sample the library cannot read: a damaged log
        raise fail(path.name, "(samples)", "-", f"unreadable sample: {_short(exc)}") from None


def _n_samples(path: Path, header) -> int:
    if path.suffix != ".eval":
        return len(header.samples or [])
    with zipfile.ZipFile(path) as archive:
        return sum(n.startswith("samples/") and n.endswith(".json") for n in archive.namelist())


def _refuse_unfinished_without_samples(path: Path, header) -> None:
    """A log inspect wrote for a run that stopped (`cancelled`, `error`, `started`) before any
    sample finished is an inspect log, just one without results: say so."""
    if header.status != "success" and _n_samples(path, header) == 0:
        why = f": {header.error.message}" if getattr(header, "error", None) else ""
        raise fail(
            path.name,
            "(file)",
            "status",
            f"{header.status}: the inspect run stopped before any sample finished{why};"
            " nothing to import",
        )


@register_reader(formats.INSPECT)
def open_inspect(path: Path, options: ReadOptions) -> OpenedResults:
    """An inspect_ai log file (`.eval` or `.json`), or a folder holding exactly one."""
    if path.is_dir():
        logs = sorted(p for p in path.iterdir() if p.suffix in (".eval", ".json"))
        if len(logs) != 1:
            raise fail(str(path), "(folder)", "-", f"{len(logs)} inspect logs: import one file")
        path = logs[0]
    # a .json log is one JSON document, which inspect_ai reads whole; an .eval log is streamed
    header = _read_log(path, header_only=path.suffix == ".eval")
    _refuse_unfinished_without_samples(path, header)
    samples = _eval_samples(path) if path.suffix == ".eval" else iter(header.samples or [])
    spec = header.eval
    run = HarnessRun(
        "inspect_ai",
        harness_version=(spec.packages or {}).get("inspect_ai"),
        model=spec.model,
        model_args=json.dumps(spec.model_args, sort_keys=True) if spec.model_args else None,
        task=spec.task,
    )
    if header.status != "success":
        run.notes.append(f"the inspect run ended {header.status}: its finished samples are read")
    agent = agent_task(spec.metadata)
    if agent is not None:
        run.setting_source, run.tier = "agent", agent.get("tier")
        run.notes.extend(agent_notes(agent))
    mapped = options.mapped("question_id")
    return OpenedResults(
        format="inspect",
        files=[path],
        label=path.name,
        run=run,
        samples=_samples(path, samples, options, run.harness_version, agent),
        id_field="id",
        link_field=mapped or "metadata.question_id",
    )
