"""Distributions: LF-VideoQA question shape (types, claims, cited scenes, spans, anchor fifths,
centers per film) and StoryVideoQA MCQs (14 topics with Gini/entropy, difficulty, accuracy by
bin and topic, reviewer agreement)."""

import pandas as pd
import streamlit as st

from data_access.queries import distributions_view
from pipelines.mcq.reviewers import reviewer_stats
from pipelines.mcq.topics import PAPER_TABLE1, gini_simpson, shannon_entropy_bits, topics_over
from ui.common import chart, query
from ui.downloads import download_buttons
from ui.filters import url_film_or_all, url_radio, url_selectbox
from ui.mcq_methods_panel import methods_section
from ui.type_legend import type_legend
from viz.distributions import (
    QUESTION_TYPE_ORDER,
    accuracy_by_bin_figure,
    accuracy_by_topic_table,
    count_bars,
    difficulty_figure,
    span_histogram,
    topic_bars,
)

ALL = "(all)"


def _or_nan(value: float | None) -> float:
    return float("nan") if value is None or pd.isna(value) else value  # shown as "nan", as before


st.title("Distributions")
# A section switch bound to the URL, not tabs: Streamlit runs every tab, and the MCQ section
# aggregates millions of predictions — only the shown section queries.
OPEN, MCQ = "Open-ended questions (LF-VideoQA)", "Multiple choice (StoryVideoQA)"
section = url_radio("Questions", [OPEN, MCQ], key="view", label_visibility="collapsed")

if section == OPEN:
    film = url_film_or_all(ALL)
    shape = query(distributions_view.question_shape, film)  # counts and bins, counted in the store
    if not shape.questions:
        st.caption("No open-ended questions in this store.")
    else:
        cols = st.columns(4)
        cols[0].metric("Questions", f"{shape.questions:,}")
        cols[1].metric("Claims per question", f"{shape.mean_claims:.1f}")
        cols[2].metric("Cited scenes per question", f"{shape.mean_cited_scenes:.1f}")
        cols[3].metric("Evidence span (min, mean)", f"{_or_nan(shape.mean_span_min):.1f}")
        left, right = st.columns(2)
        types = shape.value_counts("qtype")
        type_legend(types.index)
        chart(
            count_bars,
            types,
            "Question types",
            "type",
            [t for t in QUESTION_TYPE_ORDER if t in set(types.index)],
            key="types",
            into=left,
        )
        chart(
            count_bars,
            shape.value_counts("claims"),
            "Claims per question",
            "claims",
            key="claims",
            into=right,
        )
        chart(
            count_bars,
            shape.value_counts("cited_scenes"),
            "Cited scenes per question",
            "scenes",
            key="cited_scenes",
            into=left,
        )
        chart(span_histogram, shape.span_bins, shape.mean_span_min, key="spans", into=right)
        chart(
            count_bars,
            shape.value_counts("anchor_fifth"),
            "Anchor position by fifth of runtime",
            "fifth",
            [1, 2, 3, 4, 5],
            key="anchor_fifths",
            into=left,
        )
        centers = query(distributions_view.centers_per_film)
        chart(
            count_bars,
            centers.set_index("centers")["films"],
            f"Center characters per film (median {_or_nan(centers['median_centers'].iloc[0]):.1f})",
            "centers",
            y_label="films",
            key="centers",
            into=right,
        )

else:
    facets = query(distributions_view.mcq_facets)
    if facets.empty:
        st.caption("No multiple-choice questions in this store.")
        st.stop()
    left, right = st.columns(2)
    set_name = url_selectbox(
        "MCQ set", [ALL, *sorted(facets["set_name"].unique())], key="set", container=left
    )
    source = url_selectbox(
        "Source", [ALL, *sorted(facets["source"].unique())], key="source", container=right
    )
    set_arg, source_arg = (
        (None if set_name == ALL else set_name),
        (None if source == ALL else source),
    )
    topics = query(distributions_view.mcq_topic_counts, set_arg, source_arg)
    counts = {
        f"{t}-{e}": int(n)
        for t, e, n in zip(topics["question_type"], topics["story_element"], topics["n"])
    }
    cols = st.columns(4)
    cols[0].metric("MCQs", f"{sum(counts.values()):,}")
    cols[1].metric(
        "Gini (topics)", f"{gini_simpson(counts):.3f}", help=f"paper: {PAPER_TABLE1['gini']}"
    )
    cols[2].metric(
        "Entropy (bits)",
        f"{shannon_entropy_bits(counts):.3f}",
        help=f"paper: {PAPER_TABLE1['entropy']}",
    )
    cols[3].metric("Topics over 5%", topics_over(counts))
    st.caption(
        f"StoryVideoQA Table 1 reports Gini {PAPER_TABLE1['gini']} and entropy "
        f"{PAPER_TABLE1['entropy']}"
        " on its full set (higher is more balanced)."
    )
    chart(topic_bars, topics, key="topics")
    download_buttons(topics, "mcq_topics", key="topics")
    buckets = query(distributions_view.difficulty_histograms, set_arg, source_arg)
    if buckets.empty:
        st.caption("No difficulty computed for this slice (`storyscope mcq difficulty`).")
    else:
        chart(difficulty_figure, buckets, key="difficulty")
    by_bin = query(distributions_view.accuracy_by_bin, set_arg, source_arg)
    if not by_bin.empty:
        chart(accuracy_by_bin_figure, by_bin, key="accuracy_by_bin")
    by_topic = query(distributions_view.accuracy_by_topic, set_arg, source_arg)
    if by_topic.empty:
        st.caption("No predictions imported for this slice.")
    else:
        st.markdown("**Accuracy by topic** (%, StoryVideoQA Tables 8–9 layout)")
        st.dataframe(
            accuracy_by_topic_table(by_topic), hide_index=True, width="stretch", key="acc_topic"
        )
    checks = query(distributions_view.review_checks, set_arg, source_arg)
    if not checks.empty:
        summary = reviewer_stats(checks)["sets"][-1]
        st.markdown(
            f"**Reviewer agreement** (StoryVideoQA §3.3, {summary['n']:,} questions"
            + (", a repeatable sample" if summary["n"] >= distributions_view.REVIEW_SAMPLE else "")
            + ")"
        )
        cols = st.columns(3)
        cols[0].metric("Unanimously correct", f"{100 * summary['unanimous_correct']:.1f}%")
        cols[1].metric("Majority answer = GT", f"{100 * summary['majority_answer']:.1f}%")
        cols[2].metric("Kept (both rules)", f"{100 * summary['kept']:.1f}%")
        st.dataframe(
            pd.DataFrame(summary["pairwise"]), hide_index=True, width="stretch", key="reviewers"
        )
    methods_section(set_arg, source_arg)
