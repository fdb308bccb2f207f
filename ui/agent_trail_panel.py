"""The agents' evidence trail on Verdicts: for a question an agent worked on, each loop's tool
calls on the film's timeline beside the claim verdicts (was a missed claim never looked for, or
seen and not stated?); in Metrics, the per-setting trail figures and evidence touched against
recall. Nothing is drawn where no agent setting has a trail.

Tool arguments and results, failures and labels come from models and datasets: they are shown
through `plain` (tables) and `inert` (markdown), never as markup.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from data_access.queries import agent_trail_view, questions_view
from data_access.queries.verdict_counts import verdict_counts
from pipelines.metrics import trail_table
from ui.common import chart, derived, query
from ui.downloads import download_buttons
from ui.safe_text import inert, plain, shown_table
from viz.agent_trail import touched_recall_figure, trail_settings_table, trail_timeline_figure

OUTCOME_WORDS = {
    "answered": "answered",
    "step_limit": "stopped at the step limit, no answer",
    "failed": "failed, no answer",
}


def answer_trails(question_id: str, grid, settings: tuple = ()) -> None:
    """Every agent loop on this question (of the chosen settings; none chosen: all): its trail
    on the timeline, its calls, and the claim verdicts read against the trail (`grid`: the
    Verdicts grid rows shown for the question)."""
    loops = trail_table.in_slice(
        query(agent_trail_view.trail_answers, None, question_id), (), settings
    )
    if loops.empty:
        return
    steps = query(agent_trail_view.trail_steps, question_id)
    evidence = query(agent_trail_view.evidence_scenes, question_id)
    detail = query(questions_view.question_detail, question_id) or {}
    st.markdown(f"**Agent evidence trails** ({len(loops)})")
    for number, loop in enumerate(loops.itertuples(index=False)):
        calls = steps[(steps["run_id"] == loop.run_id) & (steps["setting_id"] == loop.setting_id)]
        title = (
            f"{inert(loop.setting_label)} · {OUTCOME_WORDS.get(loop.outcome, inert(loop.outcome))}"
        )
        with st.expander(f"Trail: {title}", expanded=number == 0):
            _loop_summary(loop)
            seen = trail_table.evidence_touched(evidence, trail_table.loop_intervals(calls))
            chart(
                trail_timeline_figure,
                _figure_calls(calls),
                seen.drop(columns=["claim_ords"]).assign(
                    claim_ords=[tuple(int(c) for c in ords) for ords in seen["claim_ords"]]
                ),
                _number(detail.get("anchor_time_s")),
                _number(detail.get("runtime_s")),
                key=f"agent_trail_{number}",
            )
            _claims_beside(loop, grid, seen)
            _calls_table(calls, number)


def _as_text(frame: pd.DataFrame) -> pd.DataFrame:
    """`frame` for `st.dataframe`: text cells through `plain` (layout controls removed), numbers
    kept as numbers, missing cells as "—"."""
    texts = [
        c
        for c in frame.columns
        if frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c])
    ]
    return shown_table(frame.assign(**{c: frame[c].map(plain, na_action="ignore") for c in texts}))


def _number(value) -> float | None:
    return None if value is None or pd.isna(value) else float(value)


def _figure_calls(calls):
    """The calls as the figure reads them, with hashable cells (the chart cache hashes them)."""
    return calls[["turn", "call_index", "tool", "arguments", "result_chars", "error"]].assign(
        intervals=[
            tuple(tuple(float(x) for x in span) for span in spans) if spans is not None else ()
            for spans in calls["intervals"]
        ]
    )


def _loop_summary(loop) -> None:
    tokens = [t for t in (loop.prompt_tokens, loop.completion_tokens) if pd.notna(t)]
    parts = [
        f"tier {inert(loop.tier)}",
        f"{int(loop.turns)} turns",
        f"{int(loop.tool_calls)} tool calls",
        f"{int(loop.bad_calls)} failed" if loop.bad_calls else "no failed calls",
        f"{int(sum(tokens)):,} tokens" if tokens else "tokens not counted",
        f"tools as {inert(loop.tool_mode)}" if isinstance(loop.tool_mode, str) else "",
    ]
    st.caption(" · ".join(p for p in parts if p))
    if loop.outcome != "answered":
        reason = inert(loop.failure) if isinstance(loop.failure, str) else "no reason recorded"
        st.warning(f"{OUTCOME_WORDS.get(loop.outcome, inert(loop.outcome))}: {reason}")


def _claims_beside(loop, grid, seen) -> None:
    """The answer's claim verdicts with what its trail says about each missed one."""
    if not isinstance(loop.answer_id, str):
        st.caption("No answer to judge: the loop ended without one.")
        return
    claims = grid[grid["answer_id"] == loop.answer_id]
    if claims.empty:
        st.caption("This answer has no verdicts in the grid shown above.")
        return
    table = trail_table.claims_against_trail(claims, seen)
    st.dataframe(_as_text(table), hide_index=True, width="stretch")


def _calls_table(calls, number: int) -> None:
    shown = calls.assign(
        intervals=[
            "; ".join(f"{a:.1f}–{b:.1f} s" for a, b in spans) if spans is not None else ""
            for spans in calls["intervals"]
        ]
    )[
        [
            "turn",
            "call_index",
            "tool",
            "arguments",
            "intervals",
            "result_chars",
            "error",
            "result_text",
        ]
    ]
    st.caption("Tool calls (arguments and results as the model passed and got them)")
    st.dataframe(_as_text(shown), hide_index=True, width="stretch", key=f"agent_calls_{number}")


def setting_figures(
    judge_id: str, film_id: str | None, qtypes: tuple = (), settings: tuple = ()
) -> None:
    """The per-setting trail table and the touched-recall scatter of this film (or all), of the
    chosen question types and settings (none chosen: all), as the Eq. 1 tables above."""
    agents = query(agent_trail_view.agent_settings)
    if agents.empty:
        return
    st.markdown("**Agents: the evidence trail** (per setting; 95% bootstrap intervals)")
    untraced = agents[agents["trail_questions"] == 0]
    if len(untraced):
        st.caption(
            "Agent settings without a recorded trail (answers imported without their tool "
            f"calls): {', '.join(inert(label) for label in untraced['label'])}."
        )
    per_answer = trail_table.in_slice(
        derived(trail_table.with_measures, agent_trail_view.trail_answers, film_id),
        qtypes,
        settings,
    )
    if per_answer.empty:
        return
    recall = derived(trail_table.recall_of_answers, verdict_counts, judge_id)
    per_answer = trail_table.with_recall(per_answer, recall)
    rows = trail_table.trail_setting_rows(per_answer)
    table = trail_settings_table(rows)
    st.dataframe(_as_text(table), hide_index=True, width="stretch", key="agent_trail_table")
    download_buttons(table, "agent_trail_settings", key="agent_trail")
    if per_answer["recall"].isna().all():
        # no point to draw: say why instead of an empty chart
        st.caption(
            f"Evidence touched against recall: no agent answer here is judged by"
            f" {inert(judge_id)}. Choose a judge that graded them under Judge (for metrics), or"
            " judge them (Rerun judge on this slice)."
        )
        return
    chart(
        touched_recall_figure,
        per_answer[["setting_label", "question_id", "touched_share", "recall"]],
        key="agent_touched_recall",
    )
    st.caption(
        f"Each point: one answered question, judged by {inert(judge_id)}. Evidence touched = "
        "share of the question's evidence scenes a tool call overlapped; recall = Eq. 1 "
        "(docs/SETTINGS.md, Agents → “The evidence trail”)."
    )
