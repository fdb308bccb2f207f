""" "Answer this slice in setting …" and "what the model was given" on Verdicts.

The answer panel is the same job as `storyscope answer` (pipelines.answer): a dry run first
(questions, estimated tokens and calls), then a job started off the script thread whose
progress a fragment polls. Answering needs a model: with no endpoint configured, the panel says
how to configure one (there is no offline answerer to pass off as a model). The given-input
panel shows, for an answer StoryScope produced, what exactly the model saw.
"""

from __future__ import annotations

import streamlit as st

from data_access.queries import answer_inputs
from data_access.queries.film_context import film_span
from ui.common import chart, query, read_only, read_only_note
from ui.job_panel import JobPanel, configured_endpoint, dry_run_start_and_follow
from ui.safe_text import inert
from viz.given_input import given_input_figure


def _plan(store, options) -> dict:
    from pipelines.answer import dry_run

    return dry_run(store, options)


def _show_plan(plan: dict, endpoint) -> None:
    cols = st.columns(4)
    cols[0].metric("Questions to answer", plan["calls"] + plan["cache_hits"])
    cols[1].metric("Already answered", plan["already_answered"])
    cols[2].metric("Est. prompt tokens", f"{plan['est_prompt_tokens']:,}")
    cols[3].metric("Calls", plan["calls"])
    st.caption(
        f"dry run · setting {inert(plan['setting_id'])} · endpoint"
        f" {inert(endpoint.base_url or 'OpenAI default')} · film cut to the budget for"
        f" {plan['cut']} question(s)"
    )
    for reason, count in plan["unavailable"].items():
        st.caption(f"not answerable ({count}): {inert(reason)}")


def _progress(status: dict) -> tuple[float, str]:
    total = max(int(status["total"] or 0), 1)
    return int(status["done"] or 0) / total, f"{status['done']}/{status['total']} answered"


def _outcome(started: dict, status: dict) -> None:
    st.success(
        f"Job {started['job_id']} finished: {status['done']} answers, {status['failed']} failed"
        f" (run {status['run_id']}). Judge them with “Rerun judge on this slice” below."
    )


ANSWER_PANEL = JobPanel(
    prefix="answer",
    job_kind="answer",
    noun="Answer",
    verb="answer",
    backend_label="Answering model",
    offline_backend="",
    offline_label="",
    offline_name="",
    start_label="Start answer job",
    plan=_plan,
    has_work=lambda plan: plan["calls"] + plan["cache_hits"] > 0,
    show_plan=_show_plan,
    progress=_progress,
    show_outcome=_outcome,
    plan_errors=(ValueError,),
    dry_run_label="Plan the answers (writes nothing)",
)


def answer_slice_panel(film_id, qtypes) -> None:
    """Choose a setting and a context window, dry-run, start, follow."""
    from pipelines.agents.tools import TIERS
    from pipelines.answer import AnswerOptions
    from pipelines.settings import SETTINGS

    st.divider()
    st.subheader("Answer this slice in a setting")
    if read_only():
        read_only_note("Answering (it calls a model and writes answers)")
        return
    endpoint = configured_endpoint()
    if endpoint is None:
        st.caption(
            "Answering needs a model: set STORYSCOPE_LLM_BASE_URL and STORYSCOPE_LLM_MODEL (and"
            " a key) to any OpenAI-compatible endpoint, or run `storyscope answer --setting …`"
            " (docs/SETTINGS.md)."
        )
        return
    left, right = st.columns(2)
    source = left.selectbox(
        "Setting",
        list(SETTINGS),
        key="answer_setting",
        format_func=lambda s: SETTINGS[s].label,
    )
    window = right.number_input(
        "Model context window (tokens)", 512, 2_000_000, 32768, step=1024, key="answer_ctx"
    )
    st.caption(inert(SETTINGS[source].description))
    tier = "regular"
    if SETTINGS[source].agent:
        tier = st.radio("Agent tier (§4.3)", TIERS, horizontal=True, key="answer_tier")
    where = {"film_id": [film_id]} if film_id else {}
    if qtypes:
        where["qtype"] = list(qtypes)
    options = AnswerOptions(
        setting=source,
        where=where,
        context={"context_tokens": int(window)},
        llm={},
        tier=tier,
    )
    dry_run_start_and_follow(ANSWER_PANEL, options, endpoint)


def given_input_panel(answers) -> None:
    """For the answers StoryScope produced: what each model was given (sizes, budget, what was
    cut, the time ranges covered and the frames), on the film's timeline."""
    if answers.empty:
        return
    given = query(answer_inputs.answer_inputs_of, tuple(answers["answer_id"]))
    if given.empty:
        return
    with st.expander(f"What the model was given ({len(given)} answer(s) made by StoryScope)"):
        setting_of = dict(zip(answers["answer_id"], answers["setting_id"]))
        for number, row in enumerate(given.to_dict("records")):
            _one_input(row, setting_of.get(row["answer_id"], row["setting_id"]), number)


def _one_input(row: dict, setting_id: str, number: int) -> None:
    kept = f"{row['units_kept']:,} of {row['units_total']:,} units"
    cut = "nothing cut" if _missing(row["cut_rule"]) else f"cut by {row['cut_rule']}"
    frames = [] if _missing(row["frame_times"]) else list(row["frame_times"])
    budget = "" if _missing(row["budget_tokens"]) else f" · budget {int(row['budget_tokens']):,}"
    st.markdown(f"**{inert(setting_id)}**")
    st.caption(
        f"{inert(row['source'])} · ~{int(row['est_tokens']):,} prompt tokens{budget} · {kept}"
        f" ({cut}) · {int(row['text_chars']):,} characters · {len(frames)} frame(s)"
    )
    film = query(film_span, row["film_id"])
    covered = _covered(row["covered"])
    if covered or len(frames):
        runtime = film.get("runtime_s") if film else None
        chart(
            given_input_figure,
            covered,
            list(frames),
            runtime,
            key=f"given_{number}",
        )


def _missing(value) -> bool:
    """None, or the NaN a DataFrame puts in an empty cell (lists are never missing)."""
    return value is None or (isinstance(value, float) and value != value)


def _covered(value) -> list[list[float]]:
    import json

    if value is None:
        return []
    return json.loads(value) if isinstance(value, str) else list(value)
