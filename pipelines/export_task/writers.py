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
import os
import re
import shutil
from dataclasses import asdict, replace
from importlib import resources
from pathlib import Path
from string import Template

from pipelines.export_task.samples import OPEN_ENDED_INSTRUCTION, TaskSample
from pipelines.output_guard import replace_atomically

MANIFEST_NAME = "storyscope_task.json"
JUDGE_NAME = "storyscope_judge.json"
FRAMES_DIR = "frames"

# lmms-eval's usual multiple-choice instruction (e.g. lmms_eval/tasks/mvbench, longvideobench)
MCQ_POST_PROMPT = "\nAnswer with the option's letter from the given choices directly."


def _template(name: str) -> str:
    return resources.files("pipelines.export_task").joinpath("templates", name).read_text("utf-8")


def _write_text(path: Path, text: str) -> None:
    """Write a task file as a new file moved into place: a symlink or hard link already at
    `path` is replaced itself, never written through (what it points at stays as it was)."""
    replace_atomically(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))


def _write_jsonl(path: Path, records) -> None:
    def write(temporary: Path) -> None:
        with temporary.open("w", encoding="utf-8") as handle:
            for record in records:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")

    replace_atomically(path, write)


def write_manifest(out: Path, manifest: dict) -> Path:
    path = out / MANIFEST_NAME
    _write_text(path, json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return path


def copy_frames(out: Path, samples: list[TaskSample]) -> list[TaskSample]:
    """Copy the frames of video-setting samples into `out/frames/` and point their image parts
    there (relative paths), so the task folder holds everything it needs. Each frame is written
    to a temporary file and renamed into place: an existing link is replaced, never written
    through."""
    if not any(sample.parts for sample in samples):
        return samples
    folder = out / FRAMES_DIR
    if folder.is_symlink():  # a link is replaced, never written through (as the task's files)
        folder.unlink()
    folder.mkdir(exist_ok=True)
    copied: dict[str, str] = {}
    result = []
    for sample in samples:
        if not sample.parts:
            result.append(sample)
            continue
        parts = []
        for part in sample.parts:
            if part["type"] == "image":
                source = str(part["path"])
                if source not in copied:
                    copied[source] = _copy_one(source, folder, len(copied))
                part = {**part, "path": copied[source]}
            parts.append(part)
        result.append(replace(sample, parts=parts))
    return result


def _copy_one(source: str, folder: Path, number: int) -> str:
    name = f"{number:06d}{Path(source).suffix or '.jpg'}"
    temporary = folder / f".{name}.tmp"
    shutil.copyfile(source, temporary)
    os.replace(temporary, folder / name)
    return f"{FRAMES_DIR}/{name}"


def _inspect_input(sample: TaskSample):
    """The sample's input: its text, or one user message of text and image parts in order."""
    if not sample.parts:
        return sample.input
    content = [
        {"type": "image", "image": part["path"]}
        if part["type"] == "image"
        else {"type": "text", "text": part["text"]}
        for part in sample.parts
    ]
    return [{"role": "user", "content": content}]


def _inspect_record(sample: TaskSample) -> dict:
    record = {"id": sample.id, "input": _inspect_input(sample), "target": sample.target}
    if sample.choices is not None:
        record["choices"] = sample.choices
    record["metadata"] = {**sample.metadata, "video": sample.video}
    return record


def inspect_task_source(task: str) -> str:
    """The text of inspect's `task.py` for the task named `task`."""
    return Template(_template("inspect_task.py.txt")).substitute(task=task)


def _judge_spec(version: str) -> dict:
    """The claim judge's prompt for the exported scorer: StoryScope's judge prompt (LF-VideoQA
    App. F.2 / Table 26) with its `{question}`, `{claims}` and `{answer}` slots."""
    from pipelines.judge.prompt import message_templates, shows_roles

    system, user = message_templates(version)
    return {
        "prompt_version": version,
        "system": system,
        "user": user,
        "shows_roles": shows_roles(version),
    }


def write_inspect(
    out: Path, task: str, samples: list[TaskSample], claim_judge: bool = False
) -> dict[str, Path]:
    """`dataset.jsonl`, `task.py` and, for open-ended questions, the claim judge's prompt
    (`storyscope_judge.json`); returns the files by role."""
    dataset = out / "dataset.jsonl"
    _write_jsonl(dataset, (_inspect_record(sample) for sample in samples))
    files = {"dataset": dataset}
    if claim_judge:
        from pipelines.judge.prompt import PROMPT_VERSION

        files["judge"] = out / JUDGE_NAME
        _write_text(
            files["judge"],
            json.dumps(_judge_spec(PROMPT_VERSION), indent=2, ensure_ascii=False) + "\n",
        )
    task_file = out / "task.py"
    # the task's name is its function's name: inspect finds tasks by reading the file's source
    # for @task functions, so the name must be written there, not computed when it runs
    _write_text(task_file, inspect_task_source(task))
    files["task"] = task_file
    return files


def _lmms_doc(sample: TaskSample) -> dict:
    """One lmms-eval document: the sample's fields flat, so `--log_samples` keeps every one; a
    video setting's frames as `frames` (paths relative to the task folder, in order) and their
    times as `frame_times`, for `utils.doc_to_visual`."""
    doc = {key: value for key, value in asdict(sample).items() if key not in ("metadata", "parts")}
    if doc["choices"] is None:
        del doc["choices"]
    if sample.parts:
        images = [part for part in sample.parts if part["type"] == "image"]
        doc["frames"] = [part["path"] for part in images]
        doc["frame_times"] = [part["time_s"] for part in images]
    return {**sample.metadata, **doc}


# What YAML lets stand as it is inside a double-quoted scalar: printable characters as PyYAML
# reads them (YAML 1.1), minus the quote, the backslash, the byte-order mark and what YAML
# takes for a line break (U+0085, U+2028, U+2029), which it would fold; all else is escaped.
_YAML_VERBATIM = re.compile(
    r"[\x20-\x21\x23-\x5b\x5d-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd"
    r"\U00010000-\U0010ffff]"
)


def _yaml_escape(char: str) -> str:
    if char in '"\\':
        return "\\" + char
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def yaml_string(text: str) -> str:
    """`text` as a YAML double-quoted scalar that reads back as exactly `text`.

    Not JSON: JSON writes a character beyond U+FFFF as two `\\u` surrogate escapes, which
    PyYAML (lmms-eval's reader) reads as two lone surrogates, so a path with an emoji named no
    file. Here such a character is written as it is (the file is UTF-8), and a character YAML
    may not hold raw (controls; a lone surrogate, as a path of undecodable bytes holds) as
    YAML's own escape, which reads back as the same character.
    """
    return '"' + "".join(c if _YAML_VERBATIM.match(c) else _yaml_escape(c) for c in text) + '"'


def _yaml_text(task: str, data_file: Path, kind: str) -> str:
    """The task YAML. Strings are written as YAML double-quoted scalars (`yaml_string`)."""
    mcq = kind == "mcq"
    metric = "storyscope_accuracy" if mcq else "storyscope_token_f1"
    pre = "" if mcq else OPEN_ENDED_INSTRUCTION + "\n\n"
    post = MCQ_POST_PROMPT if mcq else ""
    lines = [
        f"# StoryScope {'multiple-choice (StoryVideoQA)' if mcq else 'open-ended (LF-VideoQA)'}"
        " questions, written by `storyscope export-task`; see storyscope_task.json.",
        f"task: {yaml_string(task)}",
        "dataset_path: json",
        "dataset_kwargs:",
        "  data_files:",
        f"    test: {yaml_string(str(data_file))}",
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
        f"    pre_prompt: {yaml_string(pre)}",
        f"    post_prompt: {yaml_string(post)}",
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
    _write_text(config, _yaml_text(task, data_file, kind))
    utils = out / "utils.py"
    _write_text(utils, lmms_eval_utils())
    return {"dataset": data_file, "task": config, "utils": utils}
