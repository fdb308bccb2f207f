"""Questions: a filterable browser and, per question, the rubric (core ■ / context □), the gold
answer and the evidence map of LF-VideoQA Tables 9–11."""

import streamlit as st

from data_access.formats.question_types import type_label
from data_access.queries import questions_view
from data_access.queries.questions_view import facet_values
from ui.common import chart, query
from ui.downloads import download_buttons
from ui.filters import url_film_or_all, url_multiselect, url_selectbox
from ui.frames import frame_strip
from ui.generate_button import generate_panel, run_filter
from ui.question_review import question_review_panel
from ui.review_common import reviewer_sidebar
from ui.safe_text import inert, plain, show_text
from ui.type_legend import type_legend
from viz.questions import (
    checks_in_words,
    evidence_captions,
    evidence_lines,
    evidence_map_figure,
    evidence_summary,
    rubric_markdown,
)

st.title("Questions")
reviewer_sidebar()

film_id = url_film_or_all()

facets = query(questions_view.question_facets, film_id)
GENERATE = "Generate on this slice"
if facets.empty:
    st.info("No open-ended questions here. Import LF-VideoQA questions or generate some.")
    with st.expander(GENERATE, expanded=True):
        generate_panel(film_id)
    st.stop()
columns = st.columns(6)
qtypes = url_multiselect(
    "Type",
    facet_values(facets, "qtype"),
    key="qtype",
    container=columns[0],
    format_func=type_label,
)
centers = url_multiselect(
    "Center character", facet_values(facets, "center"), key="center", container=columns[1]
)
statuses = url_multiselect(
    "Status", facet_values(facets, "status"), key="status", container=columns[2]
)
sources = url_multiselect(
    "Source", facet_values(facets, "source"), key="source", container=columns[3]
)
check_choice = url_selectbox(
    "Checks (latest run)",
    ["any", "passed", "failed", "unchecked"],
    key="checks",
    container=columns[4],
)
run_id = run_filter(film_id, container=columns[5])

listed = query(
    questions_view.questions_list,
    film_id,
    tuple(qtypes),
    tuple(centers),
    tuple(statuses),
    tuple(sources),
    None if check_choice == "any" else check_choice,
    run_id=run_id,
)
st.caption(
    f"{len(listed)} questions"
    + (" (first 500 shown)" if len(listed) >= questions_view.LIST_LIMIT else "")
)
# the question text first and the long generated ids last: with the id first, a real film's
# table showed ids and the film title and cut the questions off at the right edge
shown = listed.drop(columns=["film_id"] + (["title"] if film_id else []))
if "checks_passed" in shown.columns:  # in words: a question no check run saw is "not checked"
    shown = shown.drop(columns=["checks_passed"]).assign(
        checks=checks_in_words(shown["checks_passed"])
    )
first = [c for c in ["qtype", "center", "text", "status", "source"] if c in shown.columns]
st.dataframe(
    shown[first + [c for c in shown.columns if c not in first]],
    hide_index=True,
    width="stretch",
    key="question_table",
    column_config={"text": st.column_config.TextColumn("text", width="large")},
)
type_legend(listed["qtype"].unique())
download_buttons(listed, "questions", key="questions")
with st.expander(
    GENERATE, expanded="gen_plan" in st.session_state or "gen_job" in st.session_state
):
    generate_panel(film_id, qtypes, centers)
if listed.empty:
    st.stop()

texts = dict(zip(listed["question_id"], listed["qtype"] + " · " + listed["text"].map(plain)))
question_id = url_selectbox(
    "Question", list(listed["question_id"]), key="q", format_func=lambda q: f"{q} — {texts[q]}"
)
detail = query(questions_view.question_detail, question_id)
rubric = query(questions_view.rubric, question_id)
evidence = query(questions_view.evidence_map, question_id)

st.subheader(
    f"{detail['qtype']} · {inert(detail['title'])}"
    + (f" ({detail['year']})" if detail["year"] else "")
)
st.markdown(
    f"center character: **{inert(detail['center'])}** · status: **{inert(detail['status'])}** · "
    f"source: {inert(detail['source'])} · {evidence_summary(rubric, evidence)}"
)
show_text(detail["text"], "**question:**")
if detail["gold"]:
    show_text(detail["gold"], "**gold answer:**")
st.markdown("**rubric** (■ core, □ context)")
st.markdown(rubric_markdown(rubric, escape=inert))
if evidence.empty:
    st.caption("No evidence times recorded for this question.")
else:
    chart(evidence_map_figure, evidence, detail["runtime_s"], key="evidence_map")
    st.markdown("**evidence in the film:**  \n" + "  \n".join(map(inert, evidence_lines(evidence))))
    if detail.get("video_path"):
        timed = evidence.dropna(subset=["time_s"])
        frame_strip(detail["video_path"], list(timed["time_s"]), evidence_captions(timed))
question_review_panel(question_id, detail)
