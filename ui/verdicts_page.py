"""Verdicts: claims × settings grid, answers side by side, metrics with 95% intervals beside the
paper's figures (Tables 3 and 4), judge agreement, and the diff of two judge runs."""

import streamlit as st

from data_access.formats.question_types import ALL_TYPES, type_label
from data_access.queries import questions_view, verdicts_view
from pipelines import verdict_metrics
from pipelines.metrics import DEFAULT_PRECISION_CONVENTION, precision_convention_note
from ui import agent_trail_panel, compare_panel, review_panel
from ui.answer_panel import answer_slice_panel, given_input_panel
from ui.common import chart, derived, query
from ui.downloads import download_buttons
from ui.filters import url_film_or_all, url_multiselect, url_radio, url_selectbox
from ui.frames import frame_strip
from ui.gold_note import gold_eval_caption
from ui.judge_button import rerun_judge_panel
from ui.review_common import reviewer_sidebar
from ui.safe_text import inert, plain
from ui.storysumm_panel import storysumm_panel
from ui.type_legend import type_legend
from viz.questions import evidence_captions
from viz.verdicts import (
    METRIC_LABELS,
    ZERO_WIDTH_NOTE,
    answer_markdown,
    metrics_figure,
    metrics_table,
    type_table,
    verdict_grid_figure,
)


def _evidence_frames(question_id: str) -> None:
    """The frames at the question's evidence times, when its film has a registered video."""
    detail = query(questions_view.question_detail, question_id)
    if not detail or not detail.get("video_path"):
        return
    evidence = query(questions_view.evidence_map, question_id).dropna(subset=["time_s"])
    with st.expander(f"Evidence frames ({len(evidence)})", expanded=True):
        frame_strip(detail["video_path"], list(evidence["time_s"]), evidence_captions(evidence))


def _coverage_note(judge_id: str, by_setting, reported) -> str:
    """What each column covers: ours over this slice's questions, the paper's over its whole
    benchmark (different questions: a reference point, not a paired comparison)."""
    most = int(by_setting["questions"].max())
    ours = (
        f"Unmarked columns: judge {inert(judge_id)} on this slice, {most} question"
        f"{'' if most == 1 else 's'} per setting at most (see the questions column)."
    )
    # the paper's figures the table shows: whole-benchmark rows (no question type) of a setting
    # in this table
    overall = reported[reported["qtype"].isna()]
    overall = overall[overall["setting_id"].isin(by_setting["setting_id"])]
    if overall.empty:
        return f"{ours} The paper reports none of these settings: no “(paper)” figure to show."
    tables = ", ".join(sorted(inert(t) for t in overall["table_ref"].dropna().unique()))
    return (
        f"{ours} “(paper)” columns: the figures the LF-VideoQA paper reports ({tables}) over its "
        "full benchmark with its own judge — other questions and another judge, so a reference "
        "point, not a like-for-like comparison."
    )


CURRENT = "current"  # the grid's default: the judge's current verdicts, not one of its runs


def _grid_run_picker(runs, judge_id: str) -> str:
    """CURRENT (the chosen judge's current verdict on every claim: per claim and answer, its
    latest finished run that judged it) or one judge run, read as history. A link from Compare
    names its judge; an old link naming a run opens that run."""
    run_labels = dict(zip(runs["run_id"], runs["label"]))
    return url_selectbox(
        "Verdicts shown",
        [CURRENT, *runs["run_id"]],
        key="run",
        default=CURRENT,
        format_func=lambda run: (
            f"current verdicts of {judge_id} (each claim's latest judging)"
            if run == CURRENT
            else f"history: one run, {run_labels.get(run, run)}"
        ),
    )


MAX_BARS = 40  # settings drawn in the metrics chart
ANSWER_WIDTH_PX = 200  # as wide as a quarter of the wide layout on a 1400 px screen


def _answers_side_by_side(answers, grid) -> None:
    """Every setting's answer with its verdict chips, side by side (none is dropped).

    One markdown element per answer (its setting, chips and text) in one wrapping row: a grid of
    `st.columns` with a title and a body per answer drew ~110 elements for a 33-setting question,
    most of the browser's time on the page's first render."""
    st.markdown(f"**Answers** ({len(answers)} settings)")
    verdicts_of = dict(tuple(grid.groupby("setting_id", sort=False)))
    empty = grid.iloc[0:0]
    with st.container(horizontal=True, gap="medium"):
        for setting_id, setting, text in zip(
            answers["setting_id"], answers["setting"], answers["text"]
        ):
            chips = answer_markdown(text, verdicts_of.get(setting_id, empty), inert)
            st.markdown(f"**{inert(setting)}**\n\n{chips}", width=ANSWER_WIDTH_PX)


def _why_table(question_id: str, answers) -> None:
    """Every judge's verdict on each claim × setting side by side, each with why: the stored
    rationale, or the lexical judge's matched sentence, score and negation cue."""
    # imported here: the judge package pulls in the LLM client, which a page load never needs
    from pipelines.judge import explain

    judgements = query(verdicts_view.claim_judgements, question_id)
    if chosen_settings:
        judgements = judgements[judgements["setting_id"].isin(chosen_settings)]
    table = explain.side_by_side(judgements, answers)
    judges = judgements["judge_id"].nunique()
    with st.expander(
        f"Why: every judge's verdict and reason ({judges} judge{'' if judges == 1 else 's'})"
    ):
        wanted = url_multiselect(
            "Show only claims where",
            list(explain.FILTERS),
            key="why",
            help=" · ".join(f"{name}: {means}" for name, means in explain.FILTERS.items()),
        )
        shown = explain.filtered(table, wanted)
        st.caption(f"{len(shown)} of {len(table)} claim × setting rows.")
        # the judges' columns first after the claim number and setting: they are what is read
        # side by side; the claim's whole text closes the row (the grid above labels it)
        judge_columns = sorted(judgements["judge_id"].unique())
        paper = _paper_counts(question_id, answers)
        shown = shown.assign(**{PAPER_COLUMN: shown["setting"].map(paper)}) if paper else shown
        columns = ["ord", "setting", *judge_columns, *([PAPER_COLUMN] if paper else [])]
        st.dataframe(
            shown[[*columns, "role", "claim"]].map(plain),
            hide_index=True,
            width="stretch",
            key="why_table",
            # rows taller than 4rem let Streamlit wrap a cell's text: the cue and the matched
            # sentence are read whole, not cut at the column's edge
            row_height=WHY_ROW_PX,
            column_config={
                "setting": st.column_config.TextColumn(width="medium"),
                "claim": st.column_config.TextColumn(width="large"),
                **{j: st.column_config.TextColumn(width="large") for j in judge_columns},
            },
        )


PAPER_COLUMN = "paper's judge (printed)"
WHY_ROW_PX = 96  # four lines of text


def _paper_counts(question_id: str, answers) -> dict[str, str]:
    """setting label -> the paper's judge's printed count for that answer ("1/2 core asserted ·
    LF-VideoQA Table 12"), for the settings the paper printed one for."""
    counts = query(verdicts_view.reported_core_counts, question_id)
    label_of = dict(zip(answers["setting_id"], answers["setting"]))
    return {
        label_of[s]: f"{a}/{'?' if c != c or c is None else int(c)} core asserted · {t}"
        for s, t, a, c in zip(
            counts["setting_id"], counts["table_ref"], counts["core_asserted"], counts["core"]
        )
        if s in label_of
    }


def _lexical_note(judge_id: str) -> None:
    """Say so when the metrics come from the offline lexical judge: word overlap, not meaning,
    scores an answer that contradicts the film as asserting its claims."""
    kinds = dict(zip(judges["judge_id"], judges["kind"]))
    if kinds.get(judge_id) != "lexical":
        return
    only = set(kinds.values()) == {"lexical"}
    st.warning(
        f"{'The only judge here is' if only else 'Judge'} `{inert(judge_id)}`, the offline "
        "lexical judge: it matches words, not meaning, and catches a contradiction only from "
        "negation words, so an answer that contradicts the film can still score its core "
        "claims as asserted. Read these figures as a baseline; the paper's measure needs an "
        "LLM judge (`storyscope judge --backend openai` on your own endpoint)."
    )


def _metrics_tables(the_slice: tuple) -> None:
    """Table 3 and Table 4 layouts of the slice's metrics, beside the paper's figures."""
    # only the metrics leave the cache on a rerun, not the slice's answer rows (200K at paper scale)
    by_setting = derived(
        verdict_metrics.metrics_by_setting, verdicts_view.answer_counts, *the_slice
    )
    if by_setting.empty:
        st.caption(f"Judge {judge_id} has no fully judged answers in this slice.")
        return
    _lexical_note(judge_id)
    reported = query(verdicts_view.reported_figures)
    st.markdown(
        f"**By setting** (Table 3 layout; judge `{judge_id}`; percent, 95% bootstrap intervals)"
    )
    st.caption(precision_convention_note(DEFAULT_PRECISION_CONVENTION))
    st.caption(ZERO_WIDTH_NOTE)
    st.caption(_coverage_note(judge_id, by_setting, reported))
    st.dataframe(
        metrics_table(by_setting, reported, order_by),
        hide_index=True,
        width="stretch",
        key="metrics_table",
    )
    # a lab's 330 settings drew 330 bars with intervals (three pixels each, ~1,000 SVG nodes):
    # the chart shows the best MAX_BARS (drawing every bar was most of a first render), the
    # table above every setting
    chart(metrics_figure, by_setting, order_by, reported, limit=MAX_BARS, key="metrics_figure")
    if len(by_setting) > MAX_BARS:
        st.caption(
            f"The chart shows the {MAX_BARS} best of {len(by_setting)} settings by "
            f"{METRIC_LABELS[order_by]}; the table above lists them all."
        )
    st.markdown(f"**By setting × type** (Table 4 layout, {METRIC_LABELS[order_by]})")
    by_type = derived(
        verdict_metrics.metrics_by_setting_and_type, verdicts_view.answer_counts, *the_slice
    )
    st.dataframe(type_table(by_type, order_by), hide_index=True, width="stretch", key="type_table")
    type_legend(by_type["qtype"].unique() if "qtype" in by_type else None)
    download_buttons(by_setting, f"metrics_{judge_id}", key="metrics")


st.title("Verdicts")
reviewer_sidebar()

film_id = url_film_or_all()
gold_eval_caption("judge", film_id)
judges = query(verdicts_view.judge_ids)
if judges.empty:
    st.info("No judged answers here yet. Import answers and verdicts, or run the judge.")
    st.stop()

top = st.columns(4)
judge_id = url_selectbox(
    "Judge (for metrics)", list(judges["judge_id"]), key="judge", container=top[0]
)
settings = query(verdicts_view.settings_list)
labels = dict(zip(settings["setting_id"], settings["label"]))
chosen_settings = url_multiselect(
    "Settings",
    list(settings["setting_id"]),
    key="setting",
    container=top[1],
    format_func=labels.get,
)
qtypes = url_multiselect(
    "Types",
    list(ALL_TYPES),
    key="qtype",
    container=top[2],
    format_func=type_label,
)
order_by = url_selectbox(
    "Order settings by",
    list(METRIC_LABELS),
    key="order",
    default="f1",
    container=top[3],
    format_func=METRIC_LABELS.get,
)

# A section switch bound to the URL rather than tabs: Streamlit runs every tab's code, and the
# agreement and metrics sections aggregate the whole slice — only the shown section queries.
SECTIONS = ["Claims × settings", "Metrics", "Agreement", "Diff of two runs", "Review", "Compare"]
section = url_radio("View", SECTIONS, key="view", label_visibility="collapsed")
runs = query(verdicts_view.judge_runs, film_id)

if section == "Claims × settings":
    questions = query(verdicts_view.answered_questions, film_id, tuple(qtypes))
    if questions.empty:
        st.caption("No answered questions in this slice.")
    else:
        texts = dict(zip(questions["question_id"], questions["qtype"] + " · " + questions["text"]))
        question_id = url_selectbox(
            "Question",
            list(questions["question_id"]),
            key="q",
            format_func=lambda q: f"{q} — {texts[q]}",
        )
        type_legend(questions["qtype"].unique())
        run_id = _grid_run_picker(runs, judge_id)
        grid = (
            query(verdicts_view.judge_grid, question_id, judge_id)
            if run_id == CURRENT
            else query(verdicts_view.verdict_grid, question_id, run_id)
        )
        if chosen_settings:
            grid = grid[grid["setting_id"].isin(chosen_settings)]
        cores = verdict_metrics.core_counts(grid)
        core_labels = dict(zip(cores["setting"], cores["label"]))
        chart(verdict_grid_figure, grid, core_labels, key="verdict_grid")
        st.caption(  # the grid's columns are numbered in this order, their titles cut short
            " · ".join(
                f"{number}\\. {inert(setting)}: {core_labels.get(setting, 'no core claims')}"
                for number, setting in enumerate(sorted(grid["setting"].unique()), start=1)
            )
        )
        _evidence_frames(question_id)
        answers = query(verdicts_view.answers_of_question, question_id)
        if chosen_settings:
            answers = answers[answers["setting_id"].isin(chosen_settings)]
        _why_table(question_id, answers)
        _answers_side_by_side(answers, grid)
        agent_trail_panel.answer_trails(question_id, grid, tuple(chosen_settings))
        given_input_panel(answers)
        download_buttons(grid, f"grid_{question_id}", key="grid")
        review_panel.grid_labels(question_id, grid)
        review_panel.answer_tags(question_id, answers)

elif section == "Metrics":
    the_slice = (judge_id, film_id, tuple(qtypes), tuple(chosen_settings))
    judged = query(verdicts_view.slice_answers, *the_slice)
    # a large slice's bootstrap takes about a minute: computed when asked for, not by default
    if judged > verdicts_view.LARGE_SLICE_ANSWERS and not st.toggle(
        "Compute the metrics of this whole slice", key="metrics_whole"
    ):
        st.info(
            f"This slice holds {judged:,} judged answers: its bootstrap intervals take about a "
            "minute at this size. Pick a film, types or settings above to narrow it, or compute "
            "it whole."
        )
    else:
        _metrics_tables(the_slice)
    agent_trail_panel.setting_figures(judge_id, film_id, tuple(qtypes), tuple(chosen_settings))
    review_panel.tag_counts(film_id)

elif section == "Agreement":
    confusions = query(verdicts_view.agreement_confusions, film_id)
    if confusions.empty:
        st.caption("Agreement needs at least two judges on the same claims.")
    else:
        pairs = verdict_metrics.kappa_pairs(confusions)
        alpha = verdict_metrics.alpha_from_patterns(
            query(verdicts_view.agreement_patterns, film_id)
        )
        st.metric("Krippendorff's α (nominal, all judges)", f"{alpha:.3f}")
        st.dataframe(pairs.round(3), hide_index=True, width="stretch", key="kappa_table")
    review_panel.human_agreement(film_id)
    storysumm_panel()

elif section == "Review":
    review_panel.review_queue(film_id, tuple(qtypes), tuple(chosen_settings))

elif section == "Compare":
    compare_panel.compare_section(judge_id, film_id, tuple(qtypes))

else:
    if len(runs) < 2:
        st.caption("A diff needs two judge runs.")
    else:
        run_labels = dict(zip(runs["run_id"], runs["label"]))
        left, right = st.columns(2)
        run_a = url_selectbox(
            "Run A",
            list(runs["run_id"]),
            key="run_a",
            default=runs["run_id"].iloc[1],
            format_func=run_labels.get,
            container=left,
        )
        run_b = url_selectbox(
            "Run B",
            list(runs["run_id"]),
            key="run_b",
            default=runs["run_id"].iloc[0],
            format_func=run_labels.get,
            container=right,
        )
        flipped = query(verdicts_view.run_diff, run_a, run_b)
        overlap = query(verdicts_view.run_overlap, run_a, run_b)
        st.metric("Flipped claims", f"{len(flipped)} of {overlap}")
        st.dataframe(flipped, hide_index=True, width="stretch", key="diff_table")
        type_legend(flipped["qtype"].unique() if "qtype" in flipped else None)
        download_buttons(flipped, f"diff_{run_a}_{run_b}", key="diff")

answer_slice_panel(film_id, tuple(qtypes))
rerun_judge_panel(film_id, tuple(qtypes), tuple(chosen_settings))
