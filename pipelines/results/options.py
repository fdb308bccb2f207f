"""What the user tells a reader: the column map (--map FIELD=COLUMN) and a batch input file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from data_access.importers.errors import fail

# The fields a column map (--map FIELD=COLUMN) may name, and what each is.
MAP_FIELDS = {
    "question_id": "the id the sample links to (a question_id or mcq_id of the store)",
    "answer": "the answer text",
    "option": "the chosen MCQ letter, when the file has it apart from the text",
    "id": "the harness's own sample id (reported for samples left out)",
    "error": "a harness error; a sample with one is left out",
}


@dataclass(frozen=True)
class ReadOptions:
    """What the user told the reader: a column map and, for OpenAI Batch output, its input."""

    column_map: dict[str, str] = field(default_factory=dict)
    batch_input: Path | None = None

    def mapped(self, name: str) -> str | None:
        return self.column_map.get(name)


def check_map(label: str, column_map: dict[str, str]) -> None:
    """Refuse a map that names a field no reader knows."""
    for name in column_map:
        if name not in MAP_FIELDS:
            known = ", ".join(MAP_FIELDS)
            raise fail(label, "(option)", "--map", f"unknown field {name!r}; one of {known}")
