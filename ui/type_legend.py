"""The legend of the LF-VideoQA question types (Q1–Q8 at one moment, N1–N3 across the film),
shown wherever a page lists type codes, so a code is never left unexplained."""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from data_access.formats.question_types import ALL_TYPES, ARC_TYPES, TYPE_ASKS, TYPE_NAMES


def legend_lines(types: Iterable[str] | None = None) -> list[str]:
    """One markdown line per type shown (every type when None), in the paper's order."""
    wanted = set(ALL_TYPES if types is None else types)
    return [
        f"**{code}** {TYPE_NAMES[code]}: {TYPE_ASKS[code]}"
        + (" (across the film)" if code in ARC_TYPES else "")
        for code in ALL_TYPES
        if code in wanted
    ]


def type_legend(types: Iterable[str] | None = None, container=st) -> None:
    """A closed expander with the types' names and what each asks (LF-VideoQA Table 1, §3.2)."""
    lines = legend_lines(types)
    if not lines:
        return
    with container.expander("Question types Q1–N3 (LF-VideoQA Table 1)"):
        st.markdown(
            "Q1–Q8 ask about the center character at one moment, N1–N3 across the film"
            " (LF-VideoQA §3.2).\n\n" + "\n".join(f"- {line}" for line in lines)
        )
