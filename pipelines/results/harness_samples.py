"""lmms-eval and lm-evaluation-harness `--log_samples` output: one JSONL line per document.

Followed writer code:
- lmms-eval: `lmms_eval/loggers/evaluation_tracker.py` (EvolvingLMMs-Lab/lmms-eval at 4eadb30e,
  `save_results_samples` / `save_results_aggregated`): `<model>/<date>_samples_<task>.jsonl`
  beside `<date>_results.json`; a line holds `doc_id`, `target` (str), `filtered_resps`,
  `resps` (dropped when equal to `filtered_resps`), `input`, the hashes and the task's metric
  fields; `doc` is popped before writing there, kept by older versions (lmms_eval/evaluator.py).
- lm-evaluation-harness: `lm_eval/loggers/evaluation_tracker.py` (EleutherAI/lm-evaluation-
  harness at da211969): `<model>/samples_<task>_<date>.jsonl` beside `results_<date>.json`; a
  line holds `doc_id`, `doc`, `target`, `arguments`, `resps`, `filtered_resps` (every value
  made a string by `sanitize_list`), `filter` (newer versions: one line per filter) and metrics.

Linking: `--map question_id=FIELD` (a dotted path into the line), else `doc.question_id`,
`doc.mcq_id`, `doc.id`, then a metric field's `question_id` (lmms-eval tasks return their doc's
id inside their metric dict, e.g. videomme `process_results`), else `doc_id`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from data_access.importers.errors import fail
from data_access.importers.results.samples import HarnessRun, OpenedResults, ResultSample
from pipelines.results.letters import lmms_eval_letter, loglikelihood_letter, plain_letter
from pipelines.results.options import ReadOptions
from pipelines.results.records import as_id, dig, first_text, iter_jsonl, read_json_object, require

FAILED = "the harness marked it failed (success: false)"
LINK_KEYS = ("question_id", "mcq_id", "id")  # of the line's `doc`, in this order
# GeneralConfigTracker._get_model_name: the model name is the value of the first of these keys
# found in `model_args` (order matters: peft/delta come with pretrained).
_MODEL_ARG_KEYS = ("peft=", "delta=", "pretrained=", "model=", "model_version=", "model_name=",
                   "model_id=", "path=", "engine=")  # fmt: skip


@dataclass(frozen=True)
class SamplesLayout:
    """How one harness names its files and reads an answer's letter."""

    format: str
    harness: str
    samples_glob: str
    name_pattern: re.Pattern  # groups: task, date
    results_name: Callable[[str], str]  # date -> the results summary file name
    version_keys: tuple[str, ...]


LMMS_EVAL = SamplesLayout(
    "lmms-eval",
    "lmms-eval",
    "*_samples_*.jsonl",
    re.compile(r"^(?P<date>.+?)_samples_(?P<task>.+)\.jsonl$"),
    lambda date: f"{date}_results.json",
    ("lmms_eval_version", "version"),
)
LM_EVAL = SamplesLayout(
    "lm-eval",
    "lm-evaluation-harness",
    "samples_*.jsonl",
    re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[\d.\-]+)\.jsonl$"),
    lambda date: f"results_{date}.json",
    ("lm_eval_version", "version"),
)


def _samples_file(path: Path, layout: SamplesLayout) -> Path:
    if path.is_file():
        return path
    found = sorted(p for p in path.glob(layout.samples_glob) if layout.name_pattern.match(p.name))
    if len(found) == 1:
        return found[0]
    if not found:
        raise fail(str(path), "(folder)", "-", f"no {layout.samples_glob} file of {layout.format}")
    names = ", ".join(p.name for p in found[:4])
    raise fail(str(path), "(folder)", "-", f"samples of several tasks ({names}): import one file")


def _model_name(model_args: str | None) -> str | None:
    for key in _MODEL_ARG_KEYS:
        if model_args and key in model_args:
            return model_args.split(key, 1)[1].split(",")[0] or None
    return None


def _header(samples: Path, layout: SamplesLayout, task: str | None) -> tuple[HarnessRun, dict]:
    """The run header from the results summary beside the samples file (when it is there)."""
    match = layout.name_pattern.match(samples.name)
    # no model without the summary: the folder name is the model's only when the harness made
    # the folder (an uploaded file sits in a temporary one)
    run = HarnessRun(layout.harness, task=task)
    summary_path = samples.with_name(layout.results_name(match["date"])) if match else None
    if summary_path is None or not summary_path.is_file():
        return run, {}
    summary = read_json_object(summary_path)
    configs = summary.get("configs")
    if task and isinstance(configs, dict) and configs and task not in configs:
        raise fail(
            summary_path.name,
            "(file)",
            "configs",
            f"has no task {task!r} (tasks: {', '.join(sorted(configs)[:5])}): the samples are"
            " of another run",
        )
    config = summary.get("config") if isinstance(summary.get("config"), dict) else {}
    model_args = config.get("model_args")
    if isinstance(model_args, dict):
        model_args = json.dumps(model_args, sort_keys=True)
    run.model_args = model_args
    run.model = summary.get("model_name") or _model_name(model_args) or config.get("model")
    run.harness_version = next(
        (str(summary[k]) for k in layout.version_keys if summary.get(k)), None
    ) or (f"git {summary['git_hash']}" if summary.get("git_hash") else None)
    return run, (configs or {}).get(task, {}) if isinstance(configs, dict) else {}


def _metric_question_id(line: dict) -> str | None:
    """lmms-eval tasks return the doc's id inside their metric dict (`{"x_score": {...}}`)."""
    for value in line.values():
        if isinstance(value, dict) and "question_id" in value:
            return as_id(value["question_id"])
    return None


def _link(line: dict, options: ReadOptions) -> tuple[str | None, str]:
    mapped = options.mapped("question_id")
    if mapped:
        return as_id(dig(line, mapped)), mapped
    doc = line.get("doc")
    if isinstance(doc, dict):
        for key in LINK_KEYS:
            found = as_id(doc.get(key))
            if found is not None:
                return found, f"doc.{key}"
    found = _metric_question_id(line)
    if found is not None:
        return found, "<metric>.question_id"
    return as_id(line.get("doc_id")), "doc_id"


def _loglikelihoods(responses) -> list[float] | None:
    """`[["-1.2", "False"], ...]` (one [loglikelihood, is_greedy] per choice) as floats."""
    if not isinstance(responses, list) or not responses:
        return None
    try:
        return [float(first_text(item) if isinstance(item, list) else item) for item in responses]
    except (TypeError, ValueError):
        return None


def _answer(line: dict, layout: SamplesLayout, output_type: str | None, options: ReadOptions):
    """(text, letter) of a line: the filtered response, the raw one when filtering left none."""
    mapped = options.mapped("answer")
    responses = dig(line, mapped) if mapped else line.get("filtered_resps")
    if output_type in ("multiple_choice", "loglikelihood"):
        letter = loglikelihood_letter(_loglikelihoods(responses) or [])
        return letter, letter
    text = first_text(responses)
    if text is None and not mapped:
        text = first_text(line.get("resps"))
    if text is None:
        return None, None
    letter_of = lmms_eval_letter if layout is LMMS_EVAL else plain_letter
    return text, letter_of(text)


def _samples(
    samples: Path, layout: SamplesLayout, task: str | None, output_type, options: ReadOptions
) -> Iterator[ResultSample]:
    first_filter = None
    what = f"an {layout.format} samples record"
    for record, line in iter_jsonl(samples):
        sample_id = as_id(require(line, "doc_id", samples.name, record, what))
        if "filtered_resps" not in line and "resps" not in line and not options.mapped("answer"):
            require(line, "filtered_resps", samples.name, record, what)
        if task and isinstance(line.get("task"), str) and line["task"] != task:
            raise fail(samples.name, record, "task", f"{line['task']!r}: a sample of another task")
        repeat = None
        if "filter" in line:
            first_filter = first_filter or line["filter"]
            repeat = None if line["filter"] == first_filter else f"filter {line['filter']}"
        text, letter = _answer(line, layout, output_type, options)
        link_id, _ = _link(line, options)
        failed = FAILED if line.get("success") is False else None
        yield ResultSample(record, sample_id or "?", link_id, text, letter, failed, repeat)


def _open(path: Path, options: ReadOptions, layout: SamplesLayout) -> OpenedResults:
    samples = _samples_file(path, layout)
    match = layout.name_pattern.match(samples.name)
    task = match["task"] if match else None
    run, task_config = _header(samples, layout, task)
    output_type = task_config.get("output_type") if isinstance(task_config, dict) else None
    first = next(iter_jsonl(samples), None)
    link_field = _link(first[1], options)[1] if first else "doc_id"
    return OpenedResults(
        format=layout.format,
        files=[samples],
        label=samples.name,
        run=run,
        samples=_samples(samples, layout, task, output_type, options),
        id_field="doc_id",
        link_field=link_field,
    )


def open_lmms_eval(path: Path, options: ReadOptions) -> OpenedResults:
    """An lmms-eval `--log_samples` file (or the model folder holding one task's samples)."""
    return _open(path, options, LMMS_EVAL)


def open_lm_eval(path: Path, options: ReadOptions) -> OpenedResults:
    """An lm-evaluation-harness `--log_samples` file (or its model folder)."""
    return _open(path, options, LM_EVAL)
