"""Untrusted text inside Plotly figures (dataset text is never markup): one place that escapes it.

Plotly renders a subset of HTML wherever a figure shows text — tick labels, hover text, trace
and legend names, annotations, titles, treemap/icicle labels — so a character name holding
`<a href=…>` became a live link in a chart. Every figure builder in `viz/` is wrapped in
`escapes_untrusted`: before the builder runs, every string it is given (arguments, dict keys and
values, list items, and every string cell, column name and index label of a DataFrame or
Series) is escaped once, so whatever the builder does with it, no tag from a dataset, a model or
a user reaches the figure; the builder's own markup (`<br>`, `<b>`, `<extra>`) is added after.

Only `&`, `<` and `>` are escaped: without a `<` no tag can start, and Plotly turns `&lt;`,
`&gt;` and `&amp;` back into the characters on screen, but not `&quot;` (it would show as is).

A figure's `customdata` and `ids` come back to a page in a selection event escaped too: a page
reading them calls `html.unescape` (identity for our own ids, which hold no `&<>`).
"""

from __future__ import annotations

import functools
import html
from collections.abc import Callable
from typing import Any, TypeVar

import pandas as pd

Builder = TypeVar("Builder", bound=Callable[..., Any])
MARK = "escapes_untrusted"


def plotly_text(text: str) -> str:
    """`text` with `&`, `<` and `>` as entities: shown literally by Plotly, never as markup."""
    return html.escape(text, quote=False)


def shorten(text: str, chars: int) -> str:
    """An escaped `text` cut to `chars` characters as shown, with "…" when cut: cut on the text
    as read, so an entity (`&lt;`) is never cut in half."""
    shown = html.unescape(text)
    if len(shown) <= chars:
        return text
    return plotly_text(shown[: chars - 1].rstrip()) + "…"


def wrapped(text: str, width: int = 80, chars: int = 600) -> str:
    """An escaped `text` for a hover box: at most `chars` characters, broken into `<br>`-joined
    lines of about `width` (a hover box never wraps by itself, so a long claim ran off-screen)."""
    import textwrap

    shown = html.unescape(shorten(text, chars))
    return "<br>".join(plotly_text(line) for line in textwrap.wrap(shown, width)) or ""


def _escape_cell(value: Any) -> Any:
    if isinstance(value, str):
        return plotly_text(value)
    if isinstance(value, list | tuple):
        return type(value)(_escape_cell(v) for v in value)
    return value


def _escape_index(index: pd.Index) -> pd.Index:
    if isinstance(index, pd.MultiIndex):
        return index.set_levels([_escape_index(level) for level in index.levels])
    if index.dtype == object or pd.api.types.is_string_dtype(index.dtype):
        return index.map(_escape_cell)
    return index


def _escape_series(series: pd.Series) -> pd.Series:
    if isinstance(series.dtype, pd.CategoricalDtype):
        return series.cat.rename_categories(_escape_index(series.cat.categories))
    if series.dtype == object or pd.api.types.is_string_dtype(series.dtype):
        # non-strings (None, NaN, numbers) pass through _escape_cell unchanged
        return series.map(_escape_cell)
    return series


def escaped(value: Any) -> Any:
    """`value` with every string inside it escaped for Plotly (a new object; the input is not
    changed). DataFrames and Series keep their dtypes; numbers, None and figures pass as is."""
    if isinstance(value, pd.DataFrame):
        frame = value.copy(deep=False)
        for position in range(frame.shape[1]):
            frame.isetitem(position, _escape_series(frame.iloc[:, position]))
        frame.columns = _escape_index(frame.columns)
        frame.index = _escape_index(frame.index)
        return frame
    if isinstance(value, pd.Series):
        series = _escape_series(value)
        series.index = _escape_index(value.index)
        series.name = _escape_cell(value.name)
        return series
    if isinstance(value, dict):
        return {_escape_cell(k): escaped(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return type(value)(escaped(v) for v in value)
    return _escape_cell(value)


def escapes_untrusted(builder: Builder) -> Builder:
    """Wrap a figure builder so that every string it receives is escaped first (see module)."""

    @functools.wraps(builder)
    def build(*args: Any, **kwargs: Any) -> Any:
        return builder(*(escaped(a) for a in args), **{k: escaped(v) for k, v in kwargs.items()})

    setattr(build, MARK, True)
    return build  # type: ignore[return-value]
