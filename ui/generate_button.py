""" "Generate on this slice", modelled on the judge button: a dry run first
(context-sets, discards, items, cache hits, estimated tokens and cost, endpoint/model), then a
`generate` job started off the script thread through `pipelines.jobs`, its progress polled by a
fragment, the new run written by the job, and on completion a summary of that run (final
statuses, retirement rules, check failures) with links that filter to it.

The panel mechanics are `ui.job_panel`'s. The slice is the Questions page's film, type and
center filters. With no endpoint configured only the offline `template` writer is offered, and it
is labelled as such wherever it shows.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from data_access.queries import qlab_view
from ui.common import read_only, read_only_note
from ui.job_panel import JobPanel, choose_backend, dry_run_start_and_follow

TEMPLATE_LABEL = "template — offline rule-based writer over the belief records (no LLM)"


def _options(film_id: str, qtypes, centers, backend: str, n: int, with_analytics: bool):
    from pipelines.qgen.job import GenerateOptions

    return GenerateOptions(
        film_id=film_id,
        qtypes=list(qtypes),
        centers=list(centers),
        n=int(n),
        backend=backend,
        with_analytics=with_analytics,
    )


def _plan(store, options) -> dict:
    from pipelines.qgen.job import plan_generation

    return plan_generation(store, options)


def _show_plan(plan: dict, endpoint) -> None:
    cols = st.columns(6)
    cols[0].metric("Context-sets", plan["context_sets"])
    cols[1].metric("Kept", plan["kept"])
    cols[2].metric("Items", plan["items"])
    cols[3].metric("Cache hits", plan["cache_hits"])
    cols[4].metric("Est. tokens", f"{plan['est_prompt_tokens'] + plan['est_completion_tokens']:,}")
    cols[5].metric("Est. cost (USD)", f"{plan['est_cost_usd']:.4f}")
    discards = ", ".join(f"{rule} {n}" for rule, n in plan["discards"].items()) or "none"
    types = ", ".join(f"{qtype} {n}" for qtype, n in plan["by_type"].items()) or "none"
    where = (
        TEMPLATE_LABEL
        if plan["backend"] == "template"
        else f"endpoint {plan['endpoint']} · model {plan['model']}"
        " (cache hits count Stage 1 requests)"
    )
    st.caption(f"dry run · {where}  \ndiscarded (App. F.1): {discards} · items by type: {types}")


def _progress(status: dict) -> tuple[float, str]:
    from pipelines.qgen.job import GENERATE_STEPS, STEP_NAMES

    done = int(status["done"] or 0)
    text = (
        f"step {done}/{GENERATE_STEPS}: {STEP_NAMES.get(done, '')} done · {status['failed']} failed"
    )
    return done / GENERATE_STEPS, text


def _show_run_to(run_id: str) -> None:
    """on_click: filter the question list to the new run (before the widget is drawn)."""
    st.session_state["gen_run"] = run_id


def _outcome(started: dict, status: dict) -> None:
    """The finished job: the new run's statuses and check failures, with links to it."""
    from ui.common import current_store

    store = current_store()
    run_id = status["run_id"]
    outcomes = qlab_view.outcomes(store, run_id)
    failures = qlab_view.failure_counts(store, run_id)
    st.success(f"Job {started['job_id']} finished: new run {run_id} ({len(outcomes)} questions).")
    cols = st.columns(2)
    with cols[0]:
        st.markdown("**Final status** (retirement rules of App. F.3)")
        statuses = (
            outcomes.fillna({"retire_rule": ""})
            .groupby(["final_status", "retire_rule"])
            .size()
            .reset_index(name="questions")
        )
        st.dataframe(statuses, hide_index=True, key="gen_statuses")
    with cols[1]:
        st.markdown("**Check failures**")
        if failures.empty:
            st.caption("Every generated question passed the automatic checks.")
        else:
            st.dataframe(
                failures.rename(columns={"n": "questions"}), hide_index=True, key="gen_failures"
            )
    links = st.columns(2)
    links[0].button(
        "Show the new run's questions", key="gen_show_run", on_click=_show_run_to, args=(run_id,)
    )
    # a plain relative link, not st.page_link: it works whether or not the page runs under
    # app.py's st.navigation (AppTest runs pages alone)
    lab = urlencode({"check_run": run_id, "analytics_run": run_id})
    links[1].markdown(f"[Open the run in Question Lab](qlab?{lab})")


def _generation_errors() -> tuple[type[Exception], ...]:
    from pipelines.qgen.generate import GenerationError

    return (GenerationError,)


def _panel() -> JobPanel:
    return JobPanel(
        prefix="gen",
        job_kind="generate",
        noun="Generation",
        verb="generate",
        backend_label="Generation backend",
        offline_backend="template",
        offline_label=TEMPLATE_LABEL,
        offline_name="offline template writer",
        start_label="Start generation job",
        plan=_plan,
        has_work=lambda plan: plan["items"] > 0,
        show_plan=_show_plan,
        progress=_progress,
        show_outcome=_outcome,
        remember=lambda store, options, plan: {"film_id": options.film_id},
        plan_errors=_generation_errors(),
    )


def generate_panel(film_id: str | None, qtypes=(), centers=()) -> None:
    """The panel (drawn inside the caller's "Generate on this slice" expander): backend choice,
    dry run, start, polled progress, the new run's summary."""
    if film_id is None:
        st.caption("Pick a film: generation works over one film's belief records.")
        return
    if read_only():
        read_only_note("Generation (it writes questions and spends API budget)")
        return
    panel = _panel()
    backend, endpoint = choose_backend(panel)
    left, right = st.columns(2)
    n = left.number_input(
        "Context-sets to sample", min_value=1, max_value=500, value=10, key="gen_n"
    )
    with_analytics = right.checkbox(
        "Near-duplicates, map and Self-BLEU (slower)", value=True, key="gen_analytics"
    )
    st.caption(
        f"slice: film **{film_id}** · types {', '.join(qtypes) or 'all'} · "
        f"centers {', '.join(centers) or 'all'}"
    )
    options = _options(film_id, qtypes, centers, backend, n, with_analytics)
    dry_run_start_and_follow(panel, options, endpoint)


def run_filter(film_id: str | None, container=st) -> str | None:
    """The "Written by run" filter (URL key `gen_run`): every run that wrote questions here."""
    from data_access.queries import questions_view
    from ui.common import query
    from ui.filters import url_selectbox

    runs: pd.DataFrame = query(questions_view.question_runs, film_id)
    labels = {
        "any": "any run",
        **{
            r: f"{r} · {b} · {n} q."
            for r, b, n in zip(runs["run_id"], runs["backend"], runs["questions"])
        },
    }
    just_made = st.session_state.get("gen_run")
    if just_made and just_made not in labels:
        # set by "Show the new run's questions" before the cached run list caught up
        labels[just_made] = f"{just_made} · new"
    chosen = url_selectbox(
        "Written by run", list(labels), key="gen_run", format_func=labels.get, container=container
    )
    return None if chosen in (None, "any") else chosen
