"""The CLI's one way to read list-valued and filter options.

`split_list` is the comma-separated list every option like `--types Q1,N2` holds; `parse_where`
is the `--where` filter of `judge` and `check-questions`: `KEY=V1,V2`, several per option joined
by `;` and/or the option repeated (both mean AND). Each command passes the keys it accepts and the
field each key maps to; a bad filter fails with a message naming the filter and the keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pipelines.cli.app import fail


def split_list(value: str | None) -> list[str]:
    """'a, b,,c' -> ['a', 'b', 'c']; None or '' -> []."""
    return [part.strip() for part in (value or "").split(",") if part.strip()]


def parse_where(filters: Iterable[str] | None, keys: Mapping[str, str]) -> dict[str, list[str]]:
    """`["film=a;type=Q1,Q2", "status=kept"]` -> `{keys["film"]: ["a"], keys["type"]: [...], ...}`.

    Raises the CLI's `fail()` exit for a filter without `=`, without values or with an unknown
    key.
    """
    where: dict[str, list[str]] = {}
    for item in (part.strip() for text in filters or [] for part in text.split(";")):
        if not item:
            continue
        key, sep, values = item.partition("=")
        key = key.strip()
        if not sep or not split_list(values):
            raise fail(f"--where {item!r}: expected KEY=V1[,V2...]")
        if key not in keys:
            raise fail(f"--where {item!r}: unknown field {key!r}; use one of {', '.join(keys)}")
        where.setdefault(keys[key], []).extend(split_list(values))
    return where
