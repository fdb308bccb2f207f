"""lmms-eval and lm-evaluation-harness `--log_samples` output: one JSON line per document.

Followed writer code:
- lmms-eval: `lmms_eval/loggers/evaluation_tracker.py` (EvolvingLMMs-Lab/lmms-eval at 4eadb30e
  and 75571cfe, `save_results_samples` / `save_results_aggregated`):
  `<model>/<date>_samples_<task>.jsonl` beside `<date>_results.json`; a line holds `doc_id`,
  `target` (str), `filtered_resps`, `resps` (dropped when equal to `filtered_resps`; since 2026
  a one-request line is flattened, `filtered_resps` a bare string), `input`, the hashes and the
  task's metric fields (its `process_results` dict: the doc's id and the task's own parse of the
  reply, e.g. videomme `pred_answer`); `arguments` and `doc` are popped before writing.
- lm-evaluation-harness: `lm_eval/loggers/evaluation_tracker.py` (EleutherAI/lm-evaluation-
  harness): `<model>/samples_<task>_<date>.jsonl` beside `results_<date>.json` (v0.4.3 on, from
  3850e21a, 2024-06-13); from its introduction in May 2024 (f4f59251 and before) the same JSON
  lines were named `samples_<task>_<date>.json`. A line holds `doc_id`, `doc`, `target`,
  `arguments` (`gen_args_i`/`arg_j`), `resps`, `filtered_resps` (every value made a string by
  `sanitize_list`), `filter` (one line per filter) and metrics. The task's `output_type` (which
  says whether `resps` are loglikelihoods or text) is only in the results summary's `configs`.

Linking: `--map question_id=FIELD` (a dotted path into the line), else `doc.question_id`,
`doc.mcq_id`, `doc.id`, then a metric field's `question_id` (lmms-eval tasks return their doc's
id inside their metric dict, e.g. videomme `process_results`), else `doc_id`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from data_access.importers.errors import fail
from data_access.importers.results import formats
from data_access.importers.results.samples import HarnessRun, OpenedResults, ResultSample
from pipelines.results.letters import (
    BARE_LETTER,
    HARNESS_PARSE,
    LMMS_PARSE_KEYS,
    LOGLIKELIHOOD,
    MAPPED_OPTION,
    STORYSCOPE_RULE,
    as_letter,
    loglikelihood_letter,
    plain_letter,
    storyscope_letter,
)
from pipelines.results.options import ReadOptions, check_mapped_places
from pipelines.results.readers import register_reader
from pipelines.results.records import (
    as_id,
    dig,
    first_text,
    iter_jsonl,
    read_json_document,
    read_json_object,
    require,
)

FAILED = "the harness marked it failed (success: false)"
LINK_KEYS = ("question_id", "mcq_id", "id")  # of the line's `doc`, in this order
LOGLIKELIHOOD_TYPES = ("multiple_choice", "loglikelihood")
OUTPUT_TYPES = (*LOGLIKELIHOOD_TYPES, "generate_until", "loglikelihood_rolling")
# GeneralConfigTracker._get_model_name: the model name is the value of the first of these keys
# found in `model_args` (order matters: peft/delta come with pretrained).
_MODEL_ARG_KEYS = ("peft=", "delta=", "pretrained=", "model=", "model_version=", "model_name=",
                   "model_id=", "path=", "engine=")  # fmt: skip


# lm-eval's naming: `samples_<task>_<date>.jsonl` (`.json` in May-June 2024) beside
# `results_<date>.json`; lmms-eval 0.2.3 (2024-09) wrote the same names, lmms-eval 0.2.4 on
# `<date>_samples_<task>.jsonl` beside `<date>_results.json`.
LM_EVAL_NAMING = (
    re.compile(r"^samples_(?P<task>.+)_(?P<date>\d{4}-\d{2}-\d{2}T[\d.\-]+)\.jsonl?$"),
    "results_{date}.json",
)
LMMS_EVAL_NAMING = (
    re.compile(r"^(?P<date>.+?)_samples_(?P<task>.+)\.jsonl$"),
    "{date}_results.json",
)


@dataclass(frozen=True)
class SamplesLayout:
    """How one harness names its files."""

    format: str
    harness: str
    samples_globs: tuple[str, ...]
    namings: tuple[tuple[re.Pattern, str], ...]  # (name pattern: task, date; results name)
    version_keys: tuple[str, ...]

    def match(self, name: str) -> tuple[re.Match, str] | None:
        """The name's (task, date) match and the name of the results summary beside it."""
        for pattern, results_name in self.namings:
            if found := pattern.match(name):
                return found, results_name.format(date=found["date"])
        return None


LMMS_EVAL = SamplesLayout(
    "lmms-eval",
    "lmms-eval",
    ("*_samples_*.jsonl", "samples_*.jsonl"),
    (LMMS_EVAL_NAMING, LM_EVAL_NAMING),
    ("lmms_eval_version", "version"),
)
LM_EVAL = SamplesLayout(
    "lm-eval",
    "lm-evaluation-harness",
    ("samples_*.jsonl", "samples_*.json"),
    (LM_EVAL_NAMING,),
    ("lm_eval_version", "version"),
)
OTHER = {"lmms-eval": LM_EVAL, "lm-eval": LMMS_EVAL}


# Before their evaluation trackers both harnesses wrote one JSON document per task beside a
# `results.json`: lm-eval 0.4.0-0.4.2 (lm_eval/__main__.py at v0.4.2) a JSON array of samples
# named `<model_args>_<task>.jsonl`; lmms-eval up to 0.2.2 (lmms_eval/__main__.py at v0.2.0)
# `<task>.json` holding `{"args", "model_configs", "logs": [samples], "time"}`.
DOCUMENT_SUMMARY = "results.json"


def is_document(path: Path) -> bool:
    """True for a samples file that is one JSON document (an array, or an object spread over
    lines), not JSON lines."""
    with path.open("rb") as handle:
        for raw in handle:
            text = raw.strip()
            if text:
                return text.startswith(b"[") or text == b"{"
    return False


def _document_records(path: Path) -> Iterator[tuple[str, dict]]:
    """(record, sample) of a one-document samples file, read whole (these writers predate
    streaming; their files are one task's samples)."""
    value = read_json_document(path)
    items = value.get("logs") if isinstance(value, dict) else value
    if not isinstance(items, list):
        raise fail(path.name, "(file)", "logs", "missing: not a samples file (an array or logs)")
    for number, item in enumerate(items, start=1):
        if not isinstance(item, dict):
            raise fail(path.name, f"item {number}", "-", "must be a JSON object")
        yield f"item {number}", item


def records(path: Path) -> Iterator[tuple[str, dict]]:
    """The samples of a `--log_samples` file, JSON lines or one document."""
    return _document_records(path) if is_document(path) else iter_jsonl(path)


def _samples_file(path: Path, layout: SamplesLayout) -> Path:
    if path.is_file():
        return path
    found = sorted({p for g in layout.samples_globs for p in path.glob(g) if layout.match(p.name)})
    if len(found) == 1:
        return found[0]
    if not found:
        raise fail(str(path), "(folder)", "-", f"no samples file of {layout.format}")
    names = ", ".join(p.name for p in found[:4])
    raise fail(str(path), "(folder)", "-", f"samples of several tasks ({names}): import one file")


def _model_name(model_args: str | None) -> str | None:
    for key in _MODEL_ARG_KEYS:
        if model_args and key in model_args:
            return model_args.split(key, 1)[1].split(",")[0] or None
    return None


def summary_name(samples_name: str, layout: SamplesLayout) -> str:
    """The name the harness gave the results summary of a samples file (its date pairs them)."""
    match = layout.match(samples_name)
    return match[1] if match else DOCUMENT_SUMMARY


SUMMARY_NAMES = re.compile(r"^(results\.json|.+_results\.json|results_.+\.json)$")


def is_summary_name(name: str) -> bool:
    """A name either harness gives its results summary (never a samples file)."""
    return bool(SUMMARY_NAMES.match(name))


def expected_summary(format: str, samples_name: str) -> str | None:
    """The results summary the harness wrote beside `samples_name` (None: not this format's
    samples file, or a name the harness did not give, so nothing pairs with it)."""
    layout = {LMMS_EVAL.format: LMMS_EVAL, LM_EVAL.format: LM_EVAL}.get(format)
    if layout is None:
        return None
    if layout.match(samples_name) is None and not samples_name.endswith(".json"):
        return None
    return summary_name(samples_name, layout)


def _summary(samples: Path, layout: SamplesLayout) -> tuple[Path | None, dict]:
    path = samples.with_name(summary_name(samples.name, layout))
    if not path.is_file() or (layout.match(samples.name) is None and not is_document(samples)):
        return None, {}
    return path, read_json_object(path)


def _no_summary_note(samples: Path, layout: SamplesLayout) -> str:
    """What is missing without the summary, and how to add it (the model is only there)."""
    unknown = "the model is unknown and the harness's own scores are not read"
    if layout.match(samples.name) is None and not is_document(samples):
        return (
            f"{samples.name} is not named as {layout.harness} names its samples files, so no"
            f" results summary can be paired with it: {unknown}; import the files under their"
            " own names, or name the model (--model)"
        )
    name = summary_name(samples.name, layout)
    return (
        f"no results summary beside it ({name}, which {layout.harness} writes with the"
        f" samples): {unknown}; import {samples.name} together with {name}, or name the"
        " model (--model)"
    )


def _document_task(samples: Path, summary: dict) -> str | None:
    """The task of a one-document samples file: the summary's task its name ends with."""
    configs = summary.get("configs")
    tasks = sorted(configs, key=len, reverse=True) if isinstance(configs, dict) else []
    stem = samples.stem
    return next((t for t in tasks if stem == t or stem.endswith(f"_{t}")), None)


def _header(summary_path: Path | None, summary: dict, layout, task) -> tuple[HarnessRun, dict]:
    """The run header from the results summary beside the samples file (when it is there)."""
    # no model without the summary: the folder name is the model's only when the harness made
    # the folder (an uploaded file sits in a temporary one)
    run = HarnessRun(layout.harness, task=task)
    if summary_path is None:
        return run, {}
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


def _stated_accuracy(run: HarnessRun, summary: dict, task: str | None, metric: str | None):
    """The harness's own figure for `metric` of `task` (first filter), as 0-1."""
    scores = dig(summary, f"results.{task}") if task and metric else None
    if not isinstance(scores, dict):
        return
    key = next((k for k in scores if k.split(",")[0] == metric), None)
    value = scores.get(key) if key else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        run.stated_accuracy = value / 100 if value > 1 else float(value)
        run.stated_accuracy_in = f"results.{task}.{key}"


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


def _own_parse(line: dict) -> tuple[str, str, object] | None:
    """(metric, key, value) of the task's own parse of the reply in the line's metric dict."""
    for metric, value in line.items():
        if isinstance(value, dict):
            for key in LMMS_PARSE_KEYS:
                if key in value:
                    return metric, key, value[key]
    return None


def _loglikelihoods(responses) -> list[float] | None:
    """`[["-1.2", "False"], ...]` (one [loglikelihood, is_greedy] per choice) as floats."""
    if not isinstance(responses, list) or not responses:
        return None

    def score(item):  # `["-1.2", "False"]` (sanitised) or `[-1.2, false]` (0.4.0-0.4.2)
        while isinstance(item, list) and item:
            item = item[0]
        return float(item)

    try:
        return [score(item) for item in responses]
    except (TypeError, ValueError):
        return None


def _text(line: dict, options: ReadOptions) -> str | None:
    """The filtered response, the raw one when filtering left none."""
    mapped = options.mapped("answer")
    text = first_text(dig(line, mapped) if mapped else line.get("filtered_resps"))
    if text is None and not mapped:
        text = first_text(line.get("resps"))
    return text


def _n_choices(line: dict) -> int:
    choices = dig(line, "doc.choices")
    return len(choices) if isinstance(choices, list) and 1 < len(choices) <= 8 else 5


def _lmms_answer(line: dict, options: ReadOptions):
    """(text, letter, rule): the task's own parse when the line has one, else StoryScope's."""
    text = _text(line, options)
    mapped = options.mapped("option")
    if mapped:
        return text, as_letter(dig(line, mapped)), MAPPED_OPTION
    parse = _own_parse(line)
    if parse is not None:
        return text, as_letter(parse[2]), f"{HARNESS_PARSE} ({parse[1]})"
    if text is None:
        return None, None, None
    return text, storyscope_letter(text, _n_choices(line)), STORYSCOPE_RULE


def _lm_eval_answer(line: dict, output_type: str, options: ReadOptions):
    if output_type in LOGLIKELIHOOD_TYPES:
        mapped = options.mapped("answer")
        responses = dig(line, mapped) if mapped else line.get("filtered_resps")
        letter = loglikelihood_letter(_loglikelihoods(responses) or [])
        return letter, letter, LOGLIKELIHOOD
    text = _text(line, options)
    return (text, plain_letter(text), BARE_LETTER) if text is not None else (None, None, None)


def _samples(samples: Path, layout, task, output_type, options) -> Iterator[ResultSample]:
    first_filter = None
    what = f"an {layout.format} samples record"
    for record, line in records(samples):
        sample_id = as_id(require(line, "doc_id", samples.name, record, what))
        if "filtered_resps" not in line and "resps" not in line and not options.mapped("answer"):
            require(line, "filtered_resps", samples.name, record, what)
        if task and isinstance(line.get("task"), str) and line["task"] != task:
            raise fail(samples.name, record, "task", f"{line['task']!r}: a sample of another task")
        repeat = None
        if "filter" in line:
            first_filter = first_filter or line["filter"]
            repeat = None if line["filter"] == first_filter else f"filter {line['filter']}"
        if layout is LMMS_EVAL:
            text, letter, rule = _lmms_answer(line, options)
        else:
            text, letter, rule = _lm_eval_answer(line, output_type, options)
        link_id, _ = _link(line, options)
        failed = FAILED if line.get("success") is False else None
        yield ResultSample(record, sample_id or "?", link_id, text, letter, failed, repeat, rule)


def document_shape(path: Path) -> str | None:
    """`array` (lm-eval 0.4.0-0.4.2), `logs` (lmms-eval to 0.2.2) or None (JSON lines)."""
    if not is_document(path):
        return None
    with path.open("rb") as handle:
        head = handle.read(1 << 12).lstrip()
    return "array" if head.startswith(b"[") else "logs"


def written_by(name: str, first: dict | None, document: str | None = None) -> str | None:
    """The harness whose writer shaped a samples file, by its name and first line; None if
    unsure. lmms-eval's own naming is its alone. lm-eval's naming and its `arguments`
    (`gen_args_0`...) are lmms-eval 0.2.3's too; what tells them apart is the task's metric
    value: a dict (the doc's id, the task's parse) only lmms-eval tasks return."""
    first = first or {}
    if document == "logs" or (
        LMMS_EVAL_NAMING[0].match(name) and not LM_EVAL_NAMING[0].match(name)
    ):
        return LMMS_EVAL.format
    if any(isinstance(v, dict) for k, v in first.items() if k not in ("doc", "arguments")):
        return LMMS_EVAL.format
    arguments = first.get("arguments")
    lm_eval_line = isinstance(arguments, dict) and any(k.startswith("gen_args_") for k in arguments)
    if LM_EVAL_NAMING[0].match(name) or lm_eval_line or document == "array":
        return LM_EVAL.format
    return None


def _refuse_other_harness(samples: Path, first: dict | None, layout: SamplesLayout) -> None:
    other = written_by(samples.name, first, document_shape(samples))
    if other is not None and other != layout.format:
        raise fail(
            samples.name,
            "line 1" if first else "(file)",
            "-",
            f"written by {OTHER[layout.format].harness}, not {layout.harness}: use"
            f" --format {other}",
        )


def _output_type(samples: Path, task_config: dict, options: ReadOptions, has_summary) -> str:
    mapped = options.mapped("output_type")
    if mapped:
        if mapped not in OUTPUT_TYPES:
            raise fail(samples.name, "(option)", "--map", f"output_type one of {OUTPUT_TYPES}")
        return mapped
    found = task_config.get("output_type") if isinstance(task_config, dict) else None
    if isinstance(found, str):
        return found
    where = "its results summary has no output_type" if has_summary else "no results summary"
    raise fail(
        samples.name,
        "(file)",
        "output_type",
        f"cannot tell the task's output type ({where} beside it): the answers would be"
        " loglikelihoods or text; put results_<date>.json beside it or give"
        " --map output_type=multiple_choice (or generate_until)",
    )


def _open(path: Path, options: ReadOptions, layout: SamplesLayout) -> OpenedResults:
    samples = _samples_file(path, layout)
    first = next(records(samples), None)
    _refuse_other_harness(samples, first[1] if first else None, layout)
    if first is not None:
        require(first[1], "doc_id", samples.name, first[0], f"an {layout.format} samples record")
        check_mapped_places(samples.name, first[0], first[1], options)
    match = layout.match(samples.name)
    summary_path, summary = _summary(samples, layout)
    task = match[0]["task"] if match else _document_task(samples, summary)
    run, task_config = _header(summary_path, summary, layout, task)
    if summary_path is None:
        run.notes.append(_no_summary_note(samples, layout))
    output_type = None
    if layout is LM_EVAL:
        output_type = _output_type(samples, task_config, options, summary_path is not None)
        metric = "acc" if output_type in LOGLIKELIHOOD_TYPES else None
    else:
        parse = _own_parse(first[1]) if first else None
        metric = parse[0] if parse else None
    _stated_accuracy(run, summary, task, metric)
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


@register_reader(formats.LMMS_EVAL)
def open_lmms_eval(path: Path, options: ReadOptions) -> OpenedResults:
    """An lmms-eval `--log_samples` file (or the model folder holding one task's samples)."""
    return _open(path, options, LMMS_EVAL)


@register_reader(formats.LM_EVAL)
def open_lm_eval(path: Path, options: ReadOptions) -> OpenedResults:
    """An lm-evaluation-harness `--log_samples` file (or its model folder)."""
    return _open(path, options, LM_EVAL)
