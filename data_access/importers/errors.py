"""Import results and import errors: every problem names its file, record and field."""

from __future__ import annotations

from dataclasses import dataclass, field

# How many problems one failed import lists before it stops looking.
MAX_PROBLEMS = 10


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input.

    Attributes:
        file: the file name, relative to the imported folder.
        record: `line N` (JSONL, 1-based), `row N` (Parquet, 1-based), or a whole-file label.
        field: the field (or `a+b` for composite keys); `-` when the whole record is at fault.
        message: what is wrong, with the offending value where it helps.
    """

    file: str
    record: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}, {self.record}, field '{self.field}': {self.message}"


class ImportFailure(Exception):
    """The input was rejected; the store was left exactly as it was."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems[:MAX_PROBLEMS]
        super().__init__(self.describe())

    @property
    def first(self) -> Problem:
        return self.problems[0]

    def describe(self) -> str:
        """One line per problem, first problem first."""
        lines = [str(problem) for problem in self.problems]
        head = "import rejected, nothing was written"
        return head + ":\n  " + "\n  ".join(lines)


EMPTY_FILE = "empty: no records (leave the file out when a table has no rows)"


def fail(file: str, record: str, field: str, message: str) -> ImportFailure:
    """An `ImportFailure` with one problem (raise it)."""
    return ImportFailure([Problem(file, record, field, message)])


@dataclass
class ImportReport:
    """What an import wrote: the run, the dataset and the rows per store table."""

    run_id: str
    dataset_id: str
    source: str
    rows: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def total_rows(self) -> int:
        return sum(self.rows.values())

    def as_dict(self) -> dict:
        return {
            "run_id": self.run_id,
            "dataset_id": self.dataset_id,
            "source": self.source,
            "rows": dict(self.rows),
            "total_rows": self.total_rows,
            "notes": list(self.notes),
        }
