"""Runs: every run and job with progress, failures (raw replies visible), tokens, cost and cache
hits. Running jobs refresh themselves every two seconds. In local mode, "Import results" brings a
harness's results file in (ui.import_panel)."""

import streamlit as st

from data_access.queries import runs_view
from ui.common import query
from ui.downloads import download_buttons
from ui.filters import url_multiselect, url_selectbox
from ui.import_panel import import_results_panel
from ui.run_failures import failures_by_run, run_failure_summary
from ui.safe_text import inert, shown_table
from ui.scale_panel import batches_panel


def _count(value) -> str:
    """A run's item or failure count; a run that did not record one says so, not "None"."""
    return "not recorded" if value is None or value != value else f"{int(value):,}"


st.title("Runs")


# A running job's counters are polled every 2 s; with no job running the panel only looks for a
# new one every 10 s, so ten researchers idling on this page do not keep two cores busy.
POLL_RUNNING_S, POLL_IDLE_S = 2.0, 10.0


def _active(jobs) -> bool:
    return bool(not jobs.empty and jobs["state"].isin(["queued", "running"]).any())


def _jobs():
    from ui.common import current_store

    return runs_view.jobs_table(current_store())  # uncached on purpose: progress moves


polling_running = _active(_jobs())


@st.fragment(run_every=POLL_RUNNING_S if polling_running else POLL_IDLE_S)
def jobs_panel() -> None:
    """Jobs with progress; polled so a running job's counters move without a click."""
    jobs = _jobs()
    if _active(jobs) != polling_running:
        st.rerun()  # a job started or ended: redraw the page (runs table, poll interval)
    st.subheader("Jobs")
    if jobs.empty:
        st.caption(
            "No jobs yet. Judge and generation jobs started from the CLI or the app show here."
        )
        return
    st.dataframe(
        jobs,
        hide_index=True,
        width="stretch",
        key="jobs_table",
        column_config={
            "progress": st.column_config.ProgressColumn("progress", min_value=0, max_value=1),
            "cost_usd": st.column_config.NumberColumn("cost (USD)", format="%.4f"),
        },
    )


jobs_panel()
batches_panel(POLL_RUNNING_S)
import_results_panel()

st.subheader("Runs")
facets = query(runs_view.run_facets)
left, right = st.columns(2)
steps = url_multiselect("Step", sorted(facets["step"].unique()), key="step", container=left)
statuses = url_multiselect(
    "Status", sorted(facets["status"].unique()), key="status", container=right
)
runs = query(runs_view.runs_table, tuple(steps), tuple(statuses))
cols = st.columns(4)
cols[0].metric("Runs shown", len(runs))
cols[1].metric("Tokens", f"{int(runs['tokens'].sum()):,}")
cols[2].metric("Cost (USD)", f"{runs['cost_usd'].sum():.4f}")
cols[3].metric("Cache hits", f"{int(runs['cache_hits'].sum())} of {int(runs['calls'].sum())} calls")
st.dataframe(
    # a run with no model (an offline judge), no failure count or no note: a dash, not "None"
    shown_table(runs, [c for c in ("model", "n_failed", "note") if c in runs.columns]),
    hide_index=True,
    width="stretch",
    key="runs_table",
    column_config={"cost_usd": st.column_config.NumberColumn("cost (USD)", format="%.4f")},
)
download_buttons(runs, "runs", key="runs")
if runs.empty:
    st.stop()
failures_by_run(list(runs["run_id"]))

# The picker shows the run id alone: its label is what a shared link holds, and a run's status
# changes (running -> finished), which would break a link made while it ran. The status is on
# the detail line below.
run_id = url_selectbox("Run", list(runs["run_id"]), key="run")
detail = query(runs_view.run_detail, run_id)
st.markdown(
    f"**{detail['step']}** · backend `{detail['backend']}`"
    + (f" · model `{detail['model']}`" if detail["model"] else "")
    + f" · {detail['status']} · items {_count(detail['n_items'])}"
    + f" · failed {_count(detail['n_failed'])}"
)
st.json(detail["params"] or "{}", expanded=False)
calls = query(runs_view.run_calls, run_id)
if calls.empty:
    st.caption("This run made no LLM calls.")
else:
    failed = calls[calls["status"] != "ok"]
    run_failure_summary(run_id)
    st.markdown(
        f"**LLM calls**: {len(calls)} ({int(calls['cached'].sum())} cache hits, "
        f"{len(failed)} failed)"
    )
    for _, call in failed.iterrows():
        with st.expander(f"failed: {inert(call['item_id'])} — {inert(call['error'])}"):
            st.code(call["raw_reply"] or "(no reply)", language="json")
    # whole milliseconds (a ten-thousandth of a ms was noise on screen); a call that failed
    # before a reply has no tokens, cost or latency, and no error when it succeeded: a dash,
    # not the word "None"
    table = calls.drop(columns=["raw_reply"])
    table["latency_ms"] = table["latency_ms"].round().astype("Int64")
    missing_shown = ["error", "prompt_tokens", "completion_tokens", "cost_usd", "latency_ms"]
    st.dataframe(
        shown_table(table, missing_shown), hide_index=True, width="stretch", key="calls_table"
    )
