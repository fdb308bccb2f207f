"""What a results import did, or would do (`--dry-run`): the report `import results` prints and
the Runs page's upload panel shows."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

# How many sample ids the report lists per reason (the counts are always complete).
FIRST_IDS = 5

# Why a sample was not imported. A reason is a report, not an error: the other samples import.
UNKNOWN_ID = "unknown id"  # names no question (or MCQ) in the store
EMPTY_ANSWER = "empty answer"  # the harness recorded no text for it
HARNESS_ERROR = "harness error"  # the harness marked the sample as failed
REPEATED_SAMPLE = "repeated sample"  # a second epoch / repeat / filter of a sample already read
WRONG_KIND = "other question kind"  # an MCQ id in an open-ended import, or the other way round
LOOKED_UP = (UNKNOWN_ID, WRONG_KIND)  # reasons that come from looking the link id up


@dataclass
class Unmatched:
    """Samples left out for one reason: how many, and the first few ids (as the harness wrote
    them, so a user can find them in the file)."""

    count: int = 0
    first_ids: list[str] = field(default_factory=list)
    # the ids those samples were looked up by (the link field's values), when they differ
    first_links: list[str] = field(default_factory=list)

    def add(self, sample_id: str) -> None:
        self.count += 1
        if len(self.first_ids) < FIRST_IDS:
            self.first_ids.append(sample_id)


@dataclass
class ResultsReport:
    """The outcome of `import_results`.

    Attributes:
        source: the file (or folder) read.
        format: the format it was read as (`lmms-eval`, `vlmevalkit`, `inspect`, `lm-eval`,
            `openai-batch`, `table`).
        harness, harness_version, model, model_args, task: provenance from the file's header
            (None where the format does not carry it).
        model_typed: the model was named by the user at import (the file names none).
        file_sha256: hash of the file bytes read (every file of a folder, in name order).
        kind: `answers` (open-ended questions) or `predictions` (MCQs); None when no sample
            linked to either.
        setting_id: the setting (answers) or method (predictions) the samples are filed under.
        run_id: the import's run; the earlier run when `already_imported`; None on a dry run.
        n_samples: samples read (every record, repeats included).
        n_matched: samples linked to a question and written (or to be written).
        n_no_letter: MCQ predictions whose text gave no option letter by the harness's rule
            (written with `predicted_option` NULL and `correct` FALSE, as the harness scores
            them).
        unmatched: reason -> the samples left out for it.
        dry_run: nothing was written.
        already_imported: this file was imported before (same bytes, same setting): a no-op.
        notes: anything else the user should know (a derived setting name, a changed file).
        link_field: the field each sample's id was looked up by (`doc.question_id`, `index`).
        letter_rules: for MCQ predictions, rule -> [predictions it read, of which no letter]:
            which rule gave each letter (pipelines/results/letters.py names them).
        harness_accuracy, harness_accuracy_in: the accuracy (0-1) the harness's own summary
            states for this run, and where; None when the file has no summary beside it.
        accuracy: the imported predictions' accuracy (0-1) against the store's answers.
        would_refuse: on a dry run, the error the real import would stop with (None: it would
            import).
        n_trails, n_trail_calls, n_trail_errors, trail_outcomes: an agent run's evidence trail
            (agent_steps, agent_answers): the questions with a trail, their tool calls, the
            calls that failed, and outcome (answered, step_limit, failed) -> questions.
    """

    source: str
    format: str
    harness: str | None = None
    harness_version: str | None = None
    model: str | None = None
    model_args: str | None = None
    task: str | None = None
    model_typed: bool = False
    file_sha256: str | None = None
    kind: str | None = None
    setting_id: str | None = None
    run_id: str | None = None
    n_samples: int = 0
    n_matched: int = 0
    n_no_letter: int = 0
    unmatched: dict[str, Unmatched] = field(default_factory=dict)
    dry_run: bool = False
    already_imported: bool = False
    notes: list[str] = field(default_factory=list)
    link_field: str | None = None
    letter_rules: dict[str, list[int]] = field(default_factory=dict)
    harness_accuracy: float | None = None
    harness_accuracy_in: str | None = None
    accuracy: float | None = None
    would_refuse: str | None = None
    n_trails: int = 0
    n_trail_calls: int = 0
    n_trail_errors: int = 0
    trail_outcomes: dict[str, int] = field(default_factory=dict)

    @property
    def n_unmatched(self) -> int:
        return sum(group.count for group in self.unmatched.values())

    def leave_out(self, reason: str, sample_id: str) -> None:
        """Count one sample as not imported, for `reason`."""
        self.unmatched.setdefault(reason, Unmatched()).add(sample_id)

    def as_dict(self) -> dict:
        data = asdict(self)
        data["n_unmatched"] = self.n_unmatched
        return data

    def lines(self) -> list[str]:
        """The report as text lines (what the CLI prints without --json)."""
        verb = "would import" if self.dry_run else "imported"
        if self.already_imported:
            head = f"already imported as run {self.run_id} (setting {self.setting_id}): no change"
        else:
            what = self.kind or "nothing"
            head = f"{verb} {self.n_matched:,} of {self.n_samples:,} samples as {what}"
            if self.setting_id:
                head += f" of setting {self.setting_id}"
            if self.run_id:
                head += f" (run {self.run_id})"
        lines = [f"{self.source} [{self.format}]: {head}"]
        for label, value in (
            ("harness", _joined(self.harness, self.harness_version)),
            ("model", self._model_line()),
            ("model args", self.model_args),
            ("task", self.task),
            ("sha256", self.file_sha256),
        ):
            if value:
                lines.append(f"  {label:<11} {value}")
        if self.link_field:
            lines.append(f"  {'linked by':<11} {self.link_field}")
        for rule, (n, n_none) in sorted(self.letter_rules.items()):
            none = f", {n_none:,} gave no option letter (scored wrong)" if n_none else ""
            lines.append(f"  letters by {rule}: {n:,}{none}")
        if self.n_no_letter and not self.letter_rules:
            lines.append(f"  {self.n_no_letter:,} predictions gave no option letter (scored wrong)")
        lines.extend(self._accuracy_lines())
        if self.n_trails:
            outcomes = ", ".join(f"{k} {n:,}" for k, n in sorted(self.trail_outcomes.items()))
            errors = f" ({self.n_trail_errors:,} failed)" if self.n_trail_errors else ""
            lines.append(
                f"  agent trail: {self.n_trails:,} questions, {self.n_trail_calls:,} tool"
                f" calls{errors}; {outcomes}"
            )
        for reason, group in sorted(self.unmatched.items()):
            ids = ", ".join(group.first_ids)
            looked = ""
            if reason in LOOKED_UP and group.first_links != group.first_ids:
                looked = f"; looked up by {self.link_field}: {', '.join(group.first_links)}"
            lines.append(f"  not imported, {reason}: {group.count:,} (first: {ids}{looked})")
        lines.extend(f"  note: {note}" for note in self.notes)
        if self.would_refuse:
            lines.append(f"  the import would be refused: {self.would_refuse}")
        return lines

    def _model_line(self) -> str:
        """The model, saying when the user named it and when nobody did."""
        if self.model is None:
            return "unknown: the file does not name it"
        return (
            f"{self.model} (named at import: the file does not name it)"
            if self.model_typed
            else self.model
        )

    def _accuracy_lines(self) -> list[str]:
        """The harness's own accuracy, and StoryScope's when it is not the same figure."""
        if self.harness_accuracy is None:
            return []
        stated = f"{self.harness_accuracy:.2%} ({self.harness_accuracy_in})"
        lines = [f"  {'harness acc':<11} {stated}"]
        if self.accuracy is not None and round(self.accuracy - self.harness_accuracy, 4):
            lines.append(
                f"  note: the imported predictions score {self.accuracy:.2%}, not the harness's"
                f" {self.harness_accuracy:.2%}: {self.n_matched:,} of {self.n_samples:,} samples"
                " linked, scored against the store's answers"
            )
        return lines


def _joined(name: str | None, version: str | None) -> str | None:
    if name and version:
        return f"{name} {version}"
    return name
