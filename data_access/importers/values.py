"""Value rules every importer shares: what counts as a JSON value and as a number.

RFC 8259 JSON has no `NaN`, `Infinity` or `-Infinity` and no trailing commas, yet Python's
`json` module reads the first three and DuckDB's reader (yyjson, lenient flags) reads all four.
A non-finite number would pass every `> 0` / `≥ 0` bound (DuckDB orders NaN above every
number), so it is refused wherever a number is read:

- Python-side files (manifests, StoryVideoQA golden files, scripts, meta) go through
  `loads_strict`, which refuses the three constants (a trailing comma is already an error).
- JSONL table files: `TRAILING_COMMA_SQL` finds a trailing comma outside strings, and
  `checks.value_faults` refuses non-finite values in number fields (JSONL and Parquet alike).
"""

from __future__ import annotations

import json
import math
from typing import Any

# A comma right before `}` or `]`, once every string literal is blanked (a `,}` inside a
# string is text, not syntax). Used on the raw record text DuckDB keeps in
# `read_ndjson_objects`; the cheap `regexp_matches` on the raw text filters first.
_STRING_LITERAL = r'"(?:[^"\\]|\\.)*"'
TRAILING_COMMA_SQL = (
    "(regexp_matches(json, ',\\s*[}\\]]')"
    f" AND regexp_matches(regexp_replace(json, '{_STRING_LITERAL}', '\"\"', 'g'),"
    " ',\\s*[}\\]]'))"
)


class NotJsonValue(ValueError):
    """A JSON text held `NaN`, `Infinity` or `-Infinity`."""


def _refuse_constant(name: str) -> Any:
    raise NotJsonValue(f"{name} is not a JSON value (JSON numbers are finite)")


def loads_strict(text: str) -> Any:
    """`json.loads` that refuses `NaN`, `Infinity` and `-Infinity` (RFC 8259)."""
    return json.loads(text, parse_constant=_refuse_constant)


def finite_number(value: Any) -> float | None:
    """`value` as a finite float, or None when it is not a number (bools are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None
