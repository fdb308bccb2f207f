"""What the user tells a reader: the column map (--map FIELD=COLUMN) and a batch input file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from data_access.importers.errors import fail
from data_access.importers.results.formats import MAP_FIELDS, RESULTS_FORMATS


@dataclass(frozen=True)
class ReadOptions:
    """What the user told the reader: a column map and, for OpenAI Batch output, its input."""

    column_map: dict[str, str] = field(default_factory=dict)
    batch_input: Path | None = None

    def mapped(self, name: str) -> str | None:
        return self.column_map.get(name)


def check_map(label: str, column_map: dict[str, str], format: str | None = None) -> None:
    """Refuse a map that names a field no reader knows, or one `format`'s reader does not use
    (a field silently ignored would import other numbers than the user asked for)."""
    for name in column_map:
        if name not in MAP_FIELDS:
            known = ", ".join(MAP_FIELDS)
            raise fail(label, "(option)", "--map", f"unknown field {name!r}; one of {known}")
        spec = RESULTS_FORMATS.get(format or "")
        if spec is not None and name not in spec.map_fields:
            used = ", ".join(spec.map_fields)
            raise fail(
                label,
                "(option)",
                "--map",
                f"the {format} reader does not use {name!r} (it uses {used})",
            )


# --map fields whose value is a place in the record, not a setting (letters, output_type)
PLACE_FIELDS = ("question_id", "answer", "option", "id", "error")


def check_mapped_places(label: str, record: str, first: dict, options: ReadOptions) -> None:
    """Refuse a mapped field that the file's first record does not have (a misspelt path would
    otherwise read as "no id" or "no answer" for every sample)."""
    from pipelines.results.records import dig

    for name in PLACE_FIELDS:
        place = options.mapped(name)
        if place is not None and dig(first, place) is None and place not in first:
            raise fail(label, record, place, f"missing (mapped to {name} by --map)")
