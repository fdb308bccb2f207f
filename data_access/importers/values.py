"""Value rules every importer shares: what counts as a JSON value and as a number.

RFC 8259 JSON has no `NaN`, `Infinity` or `-Infinity` and no trailing commas, yet Python's
`json` module reads the first three and DuckDB's reader (yyjson, lenient flags) reads all four.
A non-finite number would pass every `> 0` / `≥ 0` bound (DuckDB orders NaN above every
number), so it is refused wherever a number is read:

- Python-side files (manifests, StoryVideoQA golden files, scripts, meta) go through
  `json_files.read_json_file`, which refuses the three constants (and a trailing comma, a key
  given twice, nesting past its depth limit).
- JSONL table files: `TRAILING_COMMA_SQL` finds a trailing comma outside strings, and
  `checks.value_faults` refuses non-finite values in number fields (JSONL and Parquet alike).
"""

from __future__ import annotations

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


def finite_number(value: Any) -> float | None:
    """`value` as a finite float, or None when it is not a number (bools are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    number = float(value)
    return number if math.isfinite(number) else None
