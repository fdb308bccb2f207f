"""What each interchange field is, read once from the pydantic models (the single source of truth).

The vectorised importer never hand-lists columns: every staging type, every extraction
expression and every SQL check is derived from a `FieldSpec`, and a `FieldSpec` is derived
from the model's annotation and its `Field(...)` constraints (`ge`, `gt`, `le`, `lt`,
`min_length`, `Literal` enums, required vs defaulted, optional vs not).
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

import annotated_types
from pydantic import BaseModel
from pydantic_core import PydanticUndefined

# kind -> (DuckDB column type, JSON value types DuckDB's json_type() may report for it)
KINDS: dict[str, tuple[str, tuple[str, ...]]] = {
    "str": ("VARCHAR", ("VARCHAR",)),
    "int": ("BIGINT", ("BIGINT", "UBIGINT")),
    "float": ("DOUBLE", ("BIGINT", "UBIGINT", "DOUBLE")),
    "bool": ("BOOLEAN", ("BOOLEAN",)),
    "list_str": ("VARCHAR[]", ("ARRAY",)),
    "list_int": ("BIGINT[]", ("ARRAY",)),
}
# The range of every integer field (stored as BIGINT), as a user reads it.
INT64_RANGE = "-9223372036854775808 to 9223372036854775807"
# What a user is told a kind is, in error messages.
KIND_WORDS = {
    "str": "a string",
    "int": "an integer",
    "float": "a number",
    "bool": "true or false",
    "list_str": "a list of strings",
    "list_int": "a list of integers",
}
# Element JSON types allowed inside list kinds.
LIST_ITEMS = {"list_str": ("VARCHAR",), "list_int": ("BIGINT", "UBIGINT")}
# What JSON type names mean to a user.
JSON_TYPE_WORDS = {
    "VARCHAR": "a string",
    "BIGINT": "an integer",
    "UBIGINT": "an integer",
    "DOUBLE": "a number",
    "BOOLEAN": "a boolean",
    "ARRAY": "a list",
    "OBJECT": "an object",
    "NULL": "null",
}


@dataclass(frozen=True)
class FieldSpec:
    """One field of a record model, reduced to what the SQL checks need."""

    name: str
    kind: str
    required: bool
    nullable: bool
    default: Any = None
    enum: tuple | None = None
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    min_length: int | None = None

    @property
    def sql_type(self) -> str:
        """The DuckDB column type this field is staged and checked as."""
        return KINDS[self.kind][0]

    @property
    def json_types(self) -> tuple[str, ...]:
        """The JSON value types accepted for this field."""
        return KINDS[self.kind][1]

    @property
    def is_list(self) -> bool:
        return self.kind.startswith("list_")


def _strip_optional(annotation: Any) -> tuple[Any, bool]:
    """`X | None` -> (X, True); anything else -> (annotation, False)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(args) == 1 and len(typing.get_args(annotation)) == 2:
            return args[0], True
        raise TypeError(f"unsupported union {annotation!r}")
    return annotation, False


def _kind_of(annotation: Any) -> tuple[str, tuple | None]:
    """The field kind and, for `Literal[...]`, its allowed values."""
    origin = typing.get_origin(annotation)
    if origin is Literal:
        values = typing.get_args(annotation)
        first = type(values[0])
        kind = {str: "str", int: "int", bool: "bool"}[first]
        return kind, tuple(values)
    if origin is list:
        (item,) = typing.get_args(annotation)
        return {str: "list_str", int: "list_int"}[item], None
    scalar = {str: "str", int: "int", float: "float", bool: "bool"}.get(annotation)
    if scalar is None:
        raise TypeError(f"unsupported field type {annotation!r}")
    return scalar, None


def _bounds(metadata: list) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for item in metadata:
        for name, cls in (
            ("ge", annotated_types.Ge),
            ("gt", annotated_types.Gt),
            ("le", annotated_types.Le),
            ("lt", annotated_types.Lt),
            ("min_length", annotated_types.MinLen),
        ):
            if isinstance(item, cls):
                found[name] = getattr(item, name)
    return found


@cache
def field_specs(model: type[BaseModel]) -> tuple[FieldSpec, ...]:
    """Every field of `model` as a `FieldSpec`, in declaration order."""
    specs = []
    for name, info in model.model_fields.items():
        inner, nullable = _strip_optional(info.annotation)
        kind, enum = _kind_of(inner)
        if info.default_factory is not None:
            default = info.default_factory()
        else:
            default = None if info.default is PydanticUndefined else info.default
        specs.append(
            FieldSpec(
                name=name,
                kind=kind,
                required=info.is_required(),
                nullable=nullable,
                default=default,
                enum=enum,
                **_bounds(info.metadata),
            )
        )
    return tuple(specs)


def type_words(spec: FieldSpec) -> str:
    """How a field's type reads in an error message and in docs/FORMAT.md."""
    if spec.enum is not None:
        return "one of " + ", ".join(repr(v) for v in spec.enum)
    return KIND_WORDS[spec.kind]
