""" "Rerun judge on this slice": a dry run first (items, cache hits, estimated
tokens and cost, endpoint/model), then a judge job started off the script thread through the
job runner (`pipelines.jobs`), its progress polled by a fragment, the new run written by the job,
and on completion the claims whose verdict flipped against the previous run of the same judge.
The panel mechanics are `ui.job_panel`'s; this module says what is judge-specific.

With no endpoint configured (STORYSCOPE_LLM_BASE_URL / API key / secrets.toml) only the offline
`lexical` judge is offered, and it is labelled as such wherever it shows.
"""

from __future__ import annotations

import streamlit as st

from data_access.queries import verdicts_view
from ui.job_panel import JobPanel, choose_backend, dry_run_start_and_follow

OFFLINE_LABEL = "lexical — offline ROUGE-L/MiniLM matcher (no LLM)"


def _options(backend: str, film_id, qtypes, settings):
    from pipelines.judge.run import JudgeOptions

    where = {
        "films": [film_id] if film_id else [],
        "qtypes": list(qtypes),
        "settings": list(settings),
    }
    return JudgeOptions(backend=backend, where=where)


def _plan(store, options) -> dict:
    from pipelines.judge.run import dry_run

    return dry_run(store, options)


def _show_plan(plan: dict, endpoint) -> None:
    cols = st.columns(5)
    cols[0].metric("Answers", plan["answers"])
    cols[1].metric("Claims", plan["claims"])
    cols[2].metric("Cache hits", plan["cache_hits"])
    cols[3].metric("Est. tokens", f"{plan['est_prompt_tokens'] + plan['est_completion_tokens']:,}")
    cols[4].metric("Est. cost (USD)", f"{plan['est_cost_usd']:.4f}")
    where = (
        OFFLINE_LABEL
        if plan["backend"] == "lexical"
        else f"endpoint {endpoint.base_url or 'OpenAI default'} · model {endpoint.model}"
    )
    st.caption(f"dry run · judge **{plan['judge']}** · {where}")


def _baseline(store, options, plan: dict) -> dict:
    """The run to diff against: the same judge's latest run over model answers on this film,
    else the newest such run of any judge (a different judge, said so on the page). Gold
    self-checks grade reference answers, never the slice's answers: never a baseline."""
    film_id = (options.where.get("films") or [None])[0]
    baseline = verdicts_view.latest_run_of_judge(store, plan["judge"], film_id)
    same_judge = baseline is not None
    if baseline is None:
        film_runs = verdicts_view.judge_runs(store, film_id)
        baseline = film_runs["run_id"].iloc[0] if not film_runs.empty else None
    return {"baseline": baseline, "same_judge": same_judge}


def _progress(status: dict) -> tuple[float, str]:
    total = max(int(status["total"] or 0), 1)
    text = f"{status['done']}/{status['total']} answers · {status['failed']} failed"
    return int(status["done"] or 0) / total, text


def _outcome(started: dict, status: dict) -> None:
    """The finished job: the new run, and the claims that flipped against the baseline."""
    from ui.common import current_store

    store = current_store()
    new_run = status["run_id"]
    st.success(f"Job {started['job_id']} finished: new run {new_run} ({status['done']} answers).")
    if not started["baseline"]:
        st.caption("No earlier judge run on this slice: nothing to diff against.")
        return
    flipped = verdicts_view.run_diff(store, started["baseline"], new_run)
    overlap = verdicts_view.run_overlap(store, started["baseline"], new_run)
    other = (
        "" if started.get("same_judge") else " (a different judge: this judge had no earlier run)"
    )
    st.caption(f"previous run {started['baseline']}{other} → new run {new_run}")
    if overlap == 0:
        st.caption("The two runs judged no claim in common, so no verdict can have flipped.")
        return
    st.metric("Flipped against the previous run", f"{len(flipped)} of {overlap}")
    st.dataframe(flipped, hide_index=True, width="stretch", key="judge_job_diff")


JUDGE_PANEL = JobPanel(
    prefix="judge",
    job_kind="judge",
    noun="Judge",
    verb="judge",
    backend_label="Judge backend",
    offline_backend="lexical",
    offline_label=OFFLINE_LABEL,
    offline_name="offline lexical judge",
    start_label="Start judge job",
    plan=_plan,
    has_work=lambda plan: plan["answers"] > 0,
    show_plan=_show_plan,
    progress=_progress,
    show_outcome=_outcome,
    remember=_baseline,
)


def rerun_judge_panel(film_id, qtypes, settings) -> None:
    """The panel: backend choice, dry run, start, polled progress, diff on completion."""
    st.divider()
    st.subheader("Rerun judge on this slice")
    backend, endpoint = choose_backend(JUDGE_PANEL)
    options = _options(backend, film_id, qtypes, settings)
    dry_run_start_and_follow(JUDGE_PANEL, options, endpoint)
