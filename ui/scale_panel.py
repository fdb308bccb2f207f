"""The Runs page's panel of scaled-out batches (pipelines.scale): units done / failed / total
per batch, and each failed unit with its reason. Reasons come from workers and may quote
input text, so they are shown as plain text."""

from __future__ import annotations

import streamlit as st

from data_access.queries import runs_view


def _batches():
    from ui.common import current_store

    frame = runs_view.batch_progress(current_store())  # uncached on purpose: progress moves
    frame["progress"] = (frame["done"] / frame["total"].clip(lower=1)).astype(float)
    return frame


def _failures(batch_id: str):
    from ui.common import current_store

    return runs_view.unit_failures(current_store(), batch_id)


def batches_panel(poll_s: float = 2.0) -> None:
    """Batches run on an executor (local or Ray), refreshed while one is running."""
    batches = _batches()
    if batches.empty:
        return
    running = bool((batches["state"] == "running").any())

    @st.fragment(run_every=poll_s if running else None)
    def panel() -> None:
        frame = _batches()
        st.subheader("Scaled-out batches")
        st.caption(
            "Work units of `--executor local|ray` runs. A batch left running was interrupted "
            "or had failures: the same command resumes it and retries its failed units."
        )
        st.dataframe(
            frame,
            hide_index=True,
            width="stretch",
            key="batches_table",
            column_config={
                "progress": st.column_config.ProgressColumn("progress", min_value=0, max_value=1)
            },
        )
        for row in frame[frame["failed"] > 0].itertuples():
            with st.expander(f"{row.batch_id}: {row.failed} failed units"):
                for unit in _failures(row.batch_id).itertuples():
                    st.text(f"{unit.unit_key}: {unit.error}")

    panel()
