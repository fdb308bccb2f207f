"""The files each harness runs: inspect_ai's task file + dataset, lmms-eval's task YAML + data
file + `utils.py`. Both get `storyscope_task.json`, which says what was exported and how.

inspect_ai: `dataset.jsonl` holds one line per `Sample` with the field names `json_dataset`
reads by default (`id`, `input`, `target`, `choices`, `metadata`), and `task.py` is a `@task`
over it (templates/inspect_task.py.txt).

lmms-eval: the YAML follows its task schema (docs/task_guide.md and the loader in
lmms_eval/api/task.py `ConfigurableTask.download`, EvolvingLMMs-Lab/lmms-eval at 00dfe290): a
local JSONL file is a Hugging Face `json` dataset (`dataset_path: json`,
`dataset_kwargs.data_files`), prompts, video and scoring are `!function utils.<name>` as in
lmms_eval/tasks/videomme/videomme.yaml.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from importlib import resources
from pathlib import Path
from string import Template

from pipelines.export_task.samples import OPEN_ENDED_INSTRUCTION, TaskSample

MANIFEST_NAME = "storyscope_task.json"
# lmms-eval's usual multiple-choice instruction (e.g. lmms_eval/tasks/mvbench, longvideobench)
MCQ_POST_PROMPT = "\nAnswer with the option's letter from the given choices directly."


def _template(name: str) -> str:
    return resources.files("pipelines.export_task").joinpath("templates", name).read_text("utf-8")


def _write_jsonl(path: Path, records) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def write_manifest(out: Path, manifest: dict) -> Path:
    path = out / MANIFEST_NAME
    path.write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _inspect_record(sample: TaskSample) -> dict:
    record = {"id": sample.id, "input": sample.input, "target": sample.target}
    if sample.choices is not None:
        record["choices"] = sample.choices
    record["metadata"] = {**sample.metadata, "video": sample.video}
    return record


def write_inspect(out: Path, task: str, samples: list[TaskSample]) -> dict[str, Path]:
    """`dataset.jsonl` and `task.py`; returns the files by role."""
    dataset = out / "dataset.jsonl"
    _write_jsonl(dataset, (_inspect_record(sample) for sample in samples))
    task_file = out / "task.py"
    # the task's name is its function's name: inspect finds tasks by reading the file's source
    # for @task functions, so the name must be written there, not computed when it runs
    task_file.write_text(
        Template(_template("inspect_task.py.txt")).substitute(task=task), encoding="utf-8"
    )
    return {"dataset": dataset, "task": task_file}


def _lmms_doc(sample: TaskSample) -> dict:
    """One lmms-eval document: the sample's fields flat, so `--log_samples` keeps every one."""
    doc = {key: value for key, value in asdict(sample).items() if key != "metadata"}
    if doc["choices"] is None:
        del doc["choices"]
    return {**sample.metadata, **doc}


def _yaml_text(task: str, data_file: Path, kind: str) -> str:
    """The task YAML. Strings are written as JSON, which YAML reads as the same strings."""
    mcq = kind == "mcq"
    metric = "storyscope_accuracy" if mcq else "storyscope_token_f1"
    pre = "" if mcq else OPEN_ENDED_INSTRUCTION + "\n\n"
    post = MCQ_POST_PROMPT if mcq else ""
    lines = [
        f"# StoryScope {'multiple-choice (StoryVideoQA)' if mcq else 'open-ended (LF-VideoQA)'}"
        " questions, written by `storyscope export-task`; see storyscope_task.json.",
        f"task: {json.dumps(task)}",
        "dataset_path: json",
        "dataset_kwargs:",
        "  data_files:",
        f"    test: {json.dumps(str(data_file.resolve()))}",
        "test_split: test",
        "output_type: generate_until",
        "doc_to_visual: !function utils.doc_to_visual",
        "doc_to_text: !function utils.doc_to_text",
        "doc_to_target: target",
        "generation_kwargs:",
        f"  max_new_tokens: {16 if mcq else 512}",
        "  temperature: 0",
        "  do_sample: false",
        "process_results: !function utils.process_results",
        "metric_list:",
        f"  - metric: {metric}",
        "    aggregation: !function utils.aggregate_score",
        "    higher_is_better: true",
        "lmms_eval_specific_kwargs:",
        "  default:",
        f"    pre_prompt: {json.dumps(pre)}",
        f"    post_prompt: {json.dumps(post)}",
        "metadata:",
        "  version: 0.0",
        f"  storyscope_kind: {kind}",
    ]
    return "\n".join(lines) + "\n"


def lmms_eval_utils() -> str:
    """The task's utils.py, its letter rule copied from the one the import reads replies with
    (so an exported task scores a reply as `import results` reads it back)."""
    from inspect import getsource

    from pipelines.results.letters import storyscope_letter

    return _template("lmms_eval_utils.py.txt").replace(
        "$storyscope_letter", getsource(storyscope_letter).rstrip()
    )


def write_lmms_eval(out: Path, task: str, samples: list[TaskSample], kind: str) -> dict[str, Path]:
    """`<task>.jsonl`, `<task>.yaml` and `utils.py`; returns the files by role."""
    data_file = out / f"{task}.jsonl"
    _write_jsonl(data_file, (_lmms_doc(sample) for sample in samples))
    config = out / f"{task}.yaml"
    config.write_text(_yaml_text(task, data_file, kind), encoding="utf-8")
    utils = out / "utils.py"
    utils.write_text(lmms_eval_utils(), encoding="utf-8")
    return {"dataset": data_file, "task": config, "utils": utils}
