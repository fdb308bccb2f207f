"""A download button for the slice a page shows, as Parquet, CSV or JSONL, written by
the same code as `storyscope export` (`data_access.queries.export_rows.frame_bytes`)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from data_access.queries.export_rows import FORMATS, frame_bytes

_MIME = {
    "parquet": "application/vnd.apache.parquet",
    "csv": "text/csv",
    "jsonl": "application/x-ndjson",
}


def download_buttons(frame: pd.DataFrame, stem: str, key: str) -> None:
    """A format choice and one download button for `frame` (the rows the page shows)."""
    if frame is None or frame.empty:
        return
    left, right = st.columns([1, 3])
    fmt = left.selectbox(
        "Download format", FORMATS, key=f"dl_fmt_{key}", label_visibility="collapsed"
    )
    rows = frame.reset_index(drop=True)
    right.download_button(
        f"Download {len(frame)} rows ({fmt})",
        # deferred: the file is written when the button is clicked, not on every render (writing
        # a film's scenes as Parquet took 0.15 s of each Film page run)
        data=lambda: frame_bytes(rows, fmt),
        file_name=f"{stem}.{fmt}",
        mime=_MIME[fmt],
        key=f"dl_{key}",
    )
