"""Questions out: a question set of the store as a task an evaluation harness runs as
it is, with the ids that bring its results back linked (`storyscope import results`).

    from pipelines.export_task import export_task
    report = export_task(store, "inspect", "lfvqa", Path("out/task"), where={"film_id": ["f1"]})
    # inspect eval out/task/task.py --model ...

Harnesses: `inspect` (inspect_ai: `task.py` + `dataset.jsonl`) and `lmms-eval` (`<task>.yaml`
+ `<task>.jsonl` + `utils.py`). Question sets: `lfvqa` (open-ended LF-VideoQA questions, the
reference answer as target, the rubric in the metadata) and `mcq` (StoryVideoQA multiple choice,
the correct letter as target). With `setting="agent"` and a `tier`, the inspect task's solver is
inspect's ReAct agent with StoryScope's five tools over each film's index, written beside the
task (pipelines/export_task/agent.py).
"""

from __future__ import annotations

import keyword
import os
import symtable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from data_access.queries import task_questions
from data_access.store import Store
from pipelines.export_task.agent import (
    AGENT_SETTING,
    INDEX_DIR,
    AgentExportError,
    agent_manifest,
    agent_samples,
    check_tier,
    film_indexes,
    index_names,
    write_indexes,
)
from pipelines.export_task.samples import (
    OPEN_ENDED_INSTRUCTION,
    TaskSample,
    mcq_samples,
    open_ended_samples,
)
from pipelines.export_task.writers import (
    JUDGE_NAME,
    MANIFEST_NAME,
    copy_frames,
    inspect_task_source,
    write_inspect,
    write_lmms_eval,
    write_manifest,
)
from pipelines.output_guard import safe_output_folder

HARNESSES = ("inspect", "lmms-eval")
QUESTION_SETS = {"lfvqa": "open-ended", "mcq": "mcq"}
DEFAULT_TASK_NAMES = {"lfvqa": "storyscope_lfvqa", "mcq": "storyscope_storyvideoqa"}
FILTERS = {"lfvqa": task_questions.OPEN_ENDED_FILTERS, "mcq": task_questions.MCQ_FILTERS}


class ExportTaskError(ValueError):
    """The export cannot be written as asked; the message says why."""


@dataclass
class ExportTaskReport:
    """What `export_task` wrote: the harness, the question set, the files and the sample ids."""

    harness: str
    questions: str
    task: str
    out: Path
    files: dict[str, Path] = field(default_factory=dict)
    sample_ids: list[str] = field(default_factory=list)
    replaced_links: list[str] = field(default_factory=list)  # what `--force` did to links

    @property
    def n_samples(self) -> int:
        return len(self.sample_ids)

    def run_hint(self) -> str:
        """The command that runs the task."""
        if self.harness == "inspect":
            return f"cd {self.out} && inspect eval task.py --model <provider/model>"
        return (
            f"lmms-eval --model <model> --tasks {self.task} --include_path {self.out}"
            " --log_samples --output_path <dir>"
        )


def _samples(
    store: Store, questions: str, where: dict, limit: int | None, setting: str | None, options
) -> list[TaskSample]:
    if questions == "mcq":
        return mcq_samples(task_questions.mcq_questions(store, where, limit))
    rows = task_questions.open_ended_questions(store, where, limit)
    return open_ended_samples(rows, _setting_inputs(store, rows, setting, options))


def _setting_inputs(store: Store, rows, setting: str | None, options) -> dict | None:
    """Each question's input in the setting (the one `storyscope answer` sends), or None."""
    if setting is None:
        return None
    from pipelines.settings import InputBuilder, SettingUnavailable, get_setting

    builder = InputBuilder(store, get_setting(setting), options)
    given, missing = {}, []
    for question in rows.to_dict("records"):
        try:
            given[question["question_id"]] = builder.build(question)
        except SettingUnavailable as exc:
            missing.append(f"{question['question_id']}: {exc}")
    if missing:
        more = f" (and {len(missing) - 3} more)" if len(missing) > 3 else ""
        raise ExportTaskError(
            f"setting {setting!r} cannot be built for {len(missing)} question(s): "
            + "; ".join(missing[:3])
            + more
        )
    return given


def _check_agent(harness: str, tier: str | None, step_limit: int) -> None:
    if harness != "inspect":
        raise ExportTaskError("--setting agent is exported for inspect (--harness inspect)")
    if step_limit is not None and step_limit < 1:
        raise ExportTaskError(f"--step-limit must be at least 1, got {step_limit}")
    try:
        check_tier(tier)
    except AgentExportError as exc:
        raise ExportTaskError(str(exc)) from None


def _file_names(harness: str, task: str) -> list[str]:
    if harness == "inspect":
        return ["task.py", "dataset.jsonl", JUDGE_NAME, MANIFEST_NAME]
    return [f"{task}.yaml", f"{task}.jsonl", "utils.py", MANIFEST_NAME]


def _names_task_py_uses() -> frozenset[str]:
    """Every module-level name inspect's `task.py` binds or reads besides the task's own (a
    function's own locals aside): a task named after one of them (`Task`, `json_dataset`,
    `MANIFEST`, `str`) would replace it in the module, and the file would fail when run."""
    placeholder = "storyscope_placeholder_task"
    module = symtable.symtable(inspect_task_source(placeholder), "task.py", "exec")
    names = set(module.get_identifiers())
    scopes = list(module.get_children())
    while scopes:
        scope = scopes.pop()
        names |= {symbol.get_name() for symbol in scope.get_symbols() if symbol.is_global()}
        scopes.extend(scope.get_children())
    return frozenset(names - {placeholder})


def check_task_name(task: str, harness: str) -> None:
    """Refuse a task name the harness's files cannot carry.

    The name is a Python identifier for both harnesses (lmms-eval names its files after it;
    inspect's `task.py` defines a function of that name), never a keyword (`class`, `None`: the
    file would not compile) or a dunder (`__file__`: a module attribute Python itself sets), and
    for inspect never a name `task.py` already uses.

    Raises:
        ExportTaskError: the name cannot be used; the message says why.
    """
    hint = "choose another --task name (letters, digits and _, not starting with a digit)"
    if not task.isidentifier():
        raise ExportTaskError(f"task name {task!r}: use letters, digits and _ only")
    if keyword.iskeyword(task):
        raise ExportTaskError(f"task name {task!r} is a Python keyword: {hint}")
    if task.startswith("__") and task.endswith("__"):
        raise ExportTaskError(f"task name {task!r} is a name Python reserves: {hint}")
    if harness == "inspect" and task in _names_task_py_uses():
        raise ExportTaskError(
            f"task name {task!r} is a name inspect's task.py already uses (it would replace it"
            f" there and the task would fail when it runs): {hint}"
        )


def links_in_the_way(folder: Path, names: list[str]) -> list[str]:
    """What `--force` does to each task file that is a link: a new file replaces the link
    itself, never what it points at (pipelines.export_task.writers), and the user is told so."""
    notes = []
    for name in names:
        path = folder / name
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            continue
        if path.is_symlink():
            notes.append(
                f"{name} was a symbolic link to {os.readlink(path)}: replaced the link itself"
                " with the task's file; what it pointed to was not touched"
            )
        elif info.st_nlink > 1:
            notes.append(
                f"{name} was a hard link ({info.st_nlink} names for one file): replaced this"
                " name with the task's file; the file's other names keep their content"
            )
    return notes


def export_task(
    store: Store,
    harness: str,
    questions: str,
    out: Path,
    *,
    where: dict[str, list[str]] | None = None,
    limit: int | None = None,
    task: str | None = None,
    force: bool = False,
    setting: str | None = None,
    setting_options=None,
    tier: str | None = None,
    step_limit: int | None = None,
) -> ExportTaskReport:
    """Write the questions matching `where` as a task of `harness` into the folder `out`.

    Args:
        store: the store to read the questions from (nothing is written to it).
        harness: `inspect` or `lmms-eval`.
        questions: `lfvqa` (open-ended) or `mcq` (StoryVideoQA multiple choice).
        out: the task folder; created if missing. Files already in it are replaced only with
            `force` (pipelines.output_guard).
        where: column -> allowed values, with the columns of `FILTERS[questions]`.
        limit: at most this many questions (the first by film / video and id).
        task: the task's name in the harness (default `DEFAULT_TASK_NAMES[questions]`).
        force: replace the task's files if they exist. A file that is a symlink or a hard link
            is replaced as a link (a new file takes its name); what it points to, or shares
            its content with, is never written (`ExportTaskReport.replaced_links` says so).
        setting: an LF-VideoQA setting (`pipelines.settings.setting_names()`): each sample's
            input is what `storyscope answer` gives a model in it (the film's screenplay,
            subtitles, captions or frames within the budget); None: the film's title only.
        setting_options: the setting's `SettingOptions` (context window, fps, ...).
        tier: with `setting="agent"` (inspect only): the tools' tier (`regular`, `fast`,
            `oracle`); the task's solver is inspect's ReAct agent with StoryScope's five tools
            over each film's index, written beside the task (pipelines/export_task/agent.py).
        step_limit: the agent's default model-turn limit per question (a task parameter);
            None: StoryScope's loop's (`pipelines.agents.loop.DEFAULT_MAX_TURNS`).

    Raises:
        ExportTaskError: unknown harness or question set, a bad task name (`check_task_name`),
            no question matches.
        OutputRefused: `out` may not be written (the store, an existing file without `force`).
    """
    if harness not in HARNESSES:
        raise ExportTaskError(f"unknown harness {harness!r}; use one of {', '.join(HARNESSES)}")
    if questions not in QUESTION_SETS:
        raise ExportTaskError(
            f"unknown question set {questions!r}; use one of {', '.join(QUESTION_SETS)}"
        )
    if setting is not None and questions != "lfvqa":
        raise ExportTaskError("--setting applies to LF-VideoQA questions (--questions lfvqa)")
    agent = setting == AGENT_SETTING
    if tier is not None and not agent:
        raise ExportTaskError("--tier applies to the agent setting (--setting agent)")
    if agent:
        from pipelines.agents.loop import DEFAULT_MAX_TURNS

        _check_agent(harness, tier, step_limit)
        step_limit = step_limit or DEFAULT_MAX_TURNS
    elif setting is not None:
        from pipelines.settings import SettingOptions, setting_names

        if setting not in setting_names():
            raise ExportTaskError(
                f"unknown setting {setting!r}; use one of {', '.join(setting_names())}"
            )
        setting_options = setting_options or SettingOptions()
    task = task or DEFAULT_TASK_NAMES[questions]
    check_task_name(task, harness)
    names = _file_names(harness, task)
    folder = safe_output_folder(out, names, store=store.path, force=force)
    built_setting = None if agent else setting  # the agent's input is the question itself
    samples = _samples(store, questions, where or {}, limit, built_setting, setting_options)
    if not samples:
        raise ExportTaskError(f"no {questions} question matches the filter {where or {}}")
    agent_entry = None
    if agent:
        try:
            indexes = film_indexes(store, [s.metadata["film_id"] for s in samples], tier)
        except AgentExportError as exc:
            raise ExportTaskError(str(exc)) from None
        samples = agent_samples(samples, tier, indexes)
        names = names + index_names(len(indexes))
        safe_output_folder(out, names, store=store.path, force=force)
        folder.mkdir(parents=True, exist_ok=True)
        agent_entry = agent_manifest(tier, step_limit, write_indexes(folder, indexes))
    folder.mkdir(parents=True, exist_ok=True)
    replaced_links = links_in_the_way(folder, names)
    kind = QUESTION_SETS[questions]
    samples = copy_frames(folder, samples)
    if harness == "inspect":
        files = write_inspect(folder, task, samples, claim_judge=kind == "open-ended")
    else:
        files = write_lmms_eval(folder, task, samples, kind)
    if agent_entry is not None:
        files["indexes"] = folder / INDEX_DIR
    files["manifest"] = write_manifest(
        folder,
        {
            "format": "storyscope-task",
            "version": 1,
            "harness": harness,
            "kind": kind,
            "questions": questions,
            "task": task,
            "dataset": files["dataset"].name,
            "id_field": "mcq_id" if kind == "mcq" else "question_id",
            "instruction": OPEN_ENDED_INSTRUCTION,
            "setting": setting,
            "tier": tier,
            "setting_options": setting_options.public() if setting and not agent else None,
            "agent": agent_entry,
            "where": where or {},
            "limit": limit,
            "n_samples": len(samples),
            "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        },
    )
    sample_ids = [s.id for s in samples]
    return ExportTaskReport(harness, questions, task, folder, files, sample_ids, replaced_links)
