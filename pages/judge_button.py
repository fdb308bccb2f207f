""" "Rerun judge on this slice" (issue 8, Buttons): a dry run first (items, cache hits, estimated
tokens and cost, endpoint/model), then a judge job started off the script thread through the
job runner (`pipelines.jobs`), its progress polled by a fragment, the new run written by the job,
and on completion the claims whose verdict flipped against the previous run of the same judge.

With no endpoint configured (STORYSCOPE_LLM_BASE_URL / API key / secrets.toml) only the offline
`lexical` judge is offered, and it is labelled as such wherever it shows.
"""

from __future__ import annotations

import streamlit as st

from data_access import views_verdicts
from pages.common import current_store

OFFLINE_LABEL = "lexical — offline ROUGE-L/MiniLM matcher (no LLM)"


def _endpoint():
    """The configured LLM endpoint, or None when none is configured."""
    from pipelines.llm import load_config

    config = load_config()
    return config if (config.base_url or config.api_key) else None


def _options(backend: str, film_id, qtypes, settings):
    from pipelines.judge.run import JudgeOptions

    where = {
        "films": [film_id] if film_id else [],
        "qtypes": list(qtypes),
        "settings": list(settings),
    }
    return JudgeOptions(backend=backend, where=where)


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


def rerun_judge_panel(film_id, qtypes, settings) -> None:
    """The panel: backend choice, dry run, start, polled progress, diff on completion."""
    st.divider()
    st.subheader("Rerun judge on this slice")
    endpoint = _endpoint()
    backends = (["openai"] if endpoint else []) + ["lexical"]
    backend = st.radio(
        "Judge backend",
        backends,
        key="judge_backend",
        horizontal=True,
        format_func=lambda b: OFFLINE_LABEL if b == "lexical" else f"openai · {endpoint.model}",
    )
    if not endpoint:
        st.caption(
            "No LLM endpoint configured (STORYSCOPE_LLM_BASE_URL, an API key or "
            ".streamlit/secrets.toml): only the offline lexical judge is available."
        )
    options = _options(backend, film_id, qtypes, settings)
    slice_key = repr(options.params())
    if st.button("Dry run", key="judge_dry_run"):
        from pipelines.judge.run import dry_run

        st.session_state["judge_plan"] = (slice_key, dry_run(current_store(), options))
    plan_key, plan = st.session_state.get("judge_plan", (None, None))
    if plan is None or plan_key != slice_key:
        st.caption(
            "Start with a dry run: it shows what the job would judge and cost, and writes nothing."
        )
    else:
        _show_plan(plan, endpoint)
        if st.button(
            "Start judge job", key="judge_start", type="primary", disabled=plan["answers"] == 0
        ):
            _start(options, plan)
    started = st.session_state.get("judge_job")
    if started:
        from pipelines.jobs import job_status

        if job_status(current_store(), started["job_id"])["state"] in ("queued", "running"):
            judge_progress()
        else:
            _outcome(started)


def _start(options, plan: dict) -> None:
    """Start the job; remember the run to diff against: the same judge's latest run, else the
    newest judge run on this film (a different judge, said so on the page)."""
    from pipelines.jobs import start_job

    store = current_store()
    baseline = views_verdicts.latest_run_of_judge(store, plan["judge"])
    same_judge = baseline is not None
    if baseline is None:
        film_runs = views_verdicts.judge_runs(store, (options.where.get("films") or [None])[0])
        baseline = film_runs["run_id"].iloc[0] if not film_runs.empty else None
    job_id = start_job(store, "judge", options.params(), mode="thread")
    st.session_state["judge_job"] = {
        "job_id": job_id,
        "baseline": baseline,
        "same_judge": same_judge,
    }


@st.fragment(run_every=1.0)
def judge_progress() -> None:
    """Polls the job row (uncached: progress moves); reruns the page once the job has ended."""
    from pipelines.jobs import job_status

    started = st.session_state["judge_job"]
    status = job_status(current_store(), started["job_id"])
    total = max(int(status["total"] or 0), 1)
    st.progress(
        min(1.0, int(status["done"] or 0) / total),
        text=f"job {started['job_id']} · {status['state']} · {status['done']}/{status['total']} answers"
        f" · {status['failed']} failed",
    )
    if status["state"] not in ("queued", "running"):
        st.rerun()


def _outcome(started: dict) -> None:
    """The ended job: its state, the new run, and the claims that flipped against the baseline."""
    from pipelines.jobs import job_status

    store = current_store()
    status = job_status(store, started["job_id"])
    if status["state"] != "finished":
        st.error(
            f"Judge job {started['job_id']} ended {status['state']}: {status['error'] or 'no error recorded'}"
        )
        return
    new_run = status["run_id"]
    st.success(f"Job {started['job_id']} finished: new run {new_run} ({status['done']} answers).")
    if not started["baseline"]:
        st.caption("No earlier judge run on this slice: nothing to diff against.")
        return
    flipped = views_verdicts.run_diff(store, started["baseline"], new_run)
    overlap = views_verdicts.run_overlap(store, started["baseline"], new_run)
    st.metric("Flipped against the previous run", f"{len(flipped)} of {overlap}")
    st.caption(
        f"previous run {started['baseline']}"
        + (
            ""
            if started.get("same_judge")
            else " (a different judge: this judge had no earlier run)"
        )
        + f" → new run {new_run}"
    )
    st.dataframe(flipped, hide_index=True, width="stretch", key="judge_job_diff")
