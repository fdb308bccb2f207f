"""The "Rerun judge on this slice" panel (placeholder until the judge job lands)."""

import streamlit as st


def rerun_judge_panel(film_id, qtypes, settings) -> None:
    """Dry run, then a judge job off the script thread, polled; diff on completion."""
    st.divider()
    st.caption("Rerun judge: waiting for the judge job (pipelines/judge) to land.")
