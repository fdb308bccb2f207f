"""Questions out (issue 26): a question set of the store as a task an evaluation harness runs as
it is, with the ids that bring its results back linked (`storyscope import results`).

    from pipelines.export_task import export_task
    report = export_task(store, "inspect", "lfvqa", Path("out/task"), where={"film_id": ["f1"]})
    # inspect eval out/task/task.py --model ...

Harnesses: `inspect` (inspect_ai: `task.py` + `dataset.jsonl`) and `lmms-eval` (`<task>.yaml`
+ `<task>.jsonl` + `utils.py`). Question sets: `lfvqa` (open-ended LF-VideoQA questions, the
reference answer as target, the rubric in the metadata) and `mcq` (StoryVideoQA multiple choice,
the correct letter as target).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from data_access.queries import task_questions
from data_access.store import Store
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


def _file_names(harness: str, task: str) -> list[str]:
    if harness == "inspect":
        return ["task.py", "dataset.jsonl", JUDGE_NAME, MANIFEST_NAME]
    return [f"{task}.yaml", f"{task}.jsonl", "utils.py", MANIFEST_NAME]


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
        force: replace the task's files if they exist.
        setting: an LF-VideoQA setting (`pipelines.settings.setting_names()`): each sample's
            input is what `storyscope answer` gives a model in it (the film's screenplay,
            subtitles, captions or frames within the budget); None: the film's title only.
        setting_options: the setting's `SettingOptions` (context window, fps, ...).

    Raises:
        ExportTaskError: unknown harness or question set, a bad task name, no question matches.
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
    if setting is not None:
        from pipelines.settings import SettingOptions, setting_names

        if setting not in setting_names():
            raise ExportTaskError(
                f"unknown setting {setting!r}; use one of {', '.join(setting_names())}"
            )
        setting_options = setting_options or SettingOptions()
    task = task or DEFAULT_TASK_NAMES[questions]
    if not task.isidentifier():
        raise ExportTaskError(f"task name {task!r}: use letters, digits and _ only")
    folder = safe_output_folder(out, _file_names(harness, task), store=store.path, force=force)
    samples = _samples(store, questions, where or {}, limit, setting, setting_options)
    if not samples:
        raise ExportTaskError(f"no {questions} question matches the filter {where or {}}")
    folder.mkdir(parents=True, exist_ok=True)
    kind = QUESTION_SETS[questions]
    samples = copy_frames(folder, samples)
    if harness == "inspect":
        files = write_inspect(folder, task, samples, claim_judge=kind == "open-ended")
    else:
        files = write_lmms_eval(folder, task, samples, kind)
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
            "setting_options": setting_options.public() if setting else None,
            "where": where or {},
            "limit": limit,
            "n_samples": len(samples),
            "exported_at": datetime.now(UTC).isoformat(timespec="seconds"),
        },
    )
    return ExportTaskReport(harness, questions, task, folder, files, [s.id for s in samples])
