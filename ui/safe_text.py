"""Untrusted text on screen: one place that turns text from a model, a dataset or a user into
markdown that renders as exactly that text (DESIGN.md, "Data": untrusted text is shown as text).

`st.markdown` would turn a model answer's `![x](http://host/p.png)` into an image every viewer's
browser fetches, and `[..](..)`, `# ..` or `<b>` would rewrite the page. Our own chips and labels
stay markdown; every untrusted piece goes through `inert` before it is joined to them.

Written here rather than taken from a library: CommonMark guarantees that a backslash before any
ASCII punctuation character yields that character literally (spec §2.4), so escaping all of them
is complete for markdown syntax; Streamlit's extras (`$` math, `:red[...]` colours, `:icon:`
shortcodes) start with punctuation too and are disabled by the same escapes.
"""

from __future__ import annotations

import re
import string

import streamlit as st

# Every ASCII punctuation character (CommonMark "backslash escapes").
_MARKDOWN_SPECIAL = re.compile("([" + re.escape(string.punctuation) + "])")
# Bidi embeddings/overrides/isolates (U+202A–202E, U+2066–2069) let a string flip the text that
# follows it on screen ("Trojan Source"); C0/C1 controls other than newline and tab draw boxes.
# Right-to-left script itself (Hebrew, Arabic) needs none of them and is kept as is.
_LAYOUT_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069\x00-\x08\x0b-\x1f\x7f-\x9f]")
# A markdown line break inside one paragraph ("two spaces, newline" escaped safely).
_LINE_BREAK = "  \n"
# GitHub-flavoured markdown turns bare `http://…`, `www.…` and `name@host` into links while
# parsing, before escapes count; an invisible WORD JOINER (U+2060) after the scheme / before the
# "@" keeps the text as it reads but stops the match.
_AUTOLINK_START = re.compile(r"(?i)(\b(?:https?|ftp|mailto|www)|(?=@))(?=[:.@])")
WORD_JOINER = "\u2060"


def inert(text: object) -> str:
    """`text` as markdown source that renders as the literal text: no links (also none from
    bare URLs), images, HTML, headings, emphasis, math or colour directives; line breaks kept;
    bidi controls removed.

    Args:
        text: anything; None and NaN render as an empty string.
    """
    if text is None or (isinstance(text, float) and text != text):
        return ""
    cleaned = _LAYOUT_CONTROLS.sub("", str(text))
    cleaned = _AUTOLINK_START.sub(lambda m: m.group(1) + WORD_JOINER, cleaned)
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", cleaned)
    # leading spaces would make an indented code block; newlines become in-paragraph breaks
    lines = [line.strip(" ") for line in escaped.replace("\r\n", "\n").split("\n")]
    return _LINE_BREAK.join(line for line in lines)


def plain(text: object) -> str:
    """`text` for places Streamlit renders as plain text anyway (option labels, tables), with
    the layout controls removed so a label cannot reorder its neighbours."""
    if text is None or (isinstance(text, float) and text != text):
        return ""
    return _LAYOUT_CONTROLS.sub("", str(text))


def show_text(text: object, label: str | None = None, container=st, caption: bool = False) -> None:
    """Render untrusted `text`, after our own markdown `label` (e.g. "**question:**").

    Args:
        text: the untrusted text (answer, question, claim, summary, screenplay line...).
        label: our own markdown put before it, or None.
        container: where to draw (st, st.sidebar, a column).
        caption: draw as a caption (small grey) instead of body text.
    """
    body = inert(text) or "—"
    source = f"{label} {body}" if label else body
    (container.caption if caption else container.markdown)(source)


MISSING = "—"


def shown_table(frame, columns=None):
    """A copy of `frame` for `st.dataframe` with missing cells drawn as "—" instead of "None" /
    "nan" (a told_by of a witnessed belief, a time of a story without times): a missing value
    read as the word None looked like a name. `columns`: only these (None: every column)."""
    out = frame.copy()
    for column in out.columns if columns is None else columns:
        values = out[column]
        if not values.isna().any() or values.map(lambda v: isinstance(v, list)).any():
            continue
        # one type per column (Arrow needs it): numbers become their text beside the dash
        missing = values.isna()
        out[column] = [MISSING if gone else _cell(v) for v, gone in zip(values, missing)]
    return out


def _cell(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}" if value != int(value) else str(int(value))
    return str(value)
