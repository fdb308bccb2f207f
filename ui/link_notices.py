"""The notice a page shows when its link asks for a value it does not have (a film, scene,
character or store not in this store): named, with what is shown instead, never silent.
Apart from `ui.filters` so that `ui.common` (the store picker) can use it too."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st


def unknown_url_value(key: str, wanted: Sequence[str], shown: object) -> None:
    """A notice that the URL asked for values this page does not have, naming them and what is
    shown instead: a shared link to a film, scene or character that is not in this store (or
    was renamed) must not open another view silently."""
    from ui.safe_text import inert

    named = ", ".join(f"“{inert(v)}”" for v in wanted)
    instead = inert(shown) if shown not in (None, "", []) else "the page's default"
    st.warning(
        f"The link asks for {key} {named}, which this page does not have: showing {instead}"
        " instead.",
        icon=":material/link_off:",
    )
