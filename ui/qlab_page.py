"""Question Lab: per check run, the failures with reasons, leak scores, name-budget violations;
per analytics run, near-duplicate pairs, the question map, Self-BLEU and opening frames."""

import streamlit as st

from data_access.queries import film_view, qlab_view
from pipelines.qgen.checks import CHECKS_VERSION, LEAK_THRESHOLD
from ui.common import chart, query
from ui.downloads import download_buttons
from ui.filters import url_multiselect, url_radio, url_selectbox
from ui.gold_note import gold_eval_caption
from ui.question_review import qlab_review_summary, question_review_panel
from ui.review_common import reviewer_sidebar
from ui.safe_text import inert, shown_table
from ui.type_legend import type_legend
from viz.qlab import leak_histogram, question_map_figure

# What the automatic checks can and cannot vouch for (docs/QUESTION_CHECKS.md): shown beside
# every check run, so "passed" is never read as "usable".
CHECKS_COVER = (
    "**What the checks cover.** The question's shape (one open question, no yes/no, no "
    "alternatives, anchor length, no evidence tail, no annotation words, no names the film "
    "has not spoken, no verdict or learning route given away, leak score); and, since "
    "checks-v3, a usable question: the centre is a speaking character (not a voice, a crowd or "
    "a role description), the gold states beliefs (not screenplay directions), the question "
    "does not ask itself back, the gold does not say one thing twice, the gold agrees with the "
    "belief record at the anchor, a group question answers each member, and the text is well "
    "formed (pronouns, pasted lines, a topic the gold is about).\n\n"
    "**What they do not.** They read words and the stored records, not the film: a gold that "
    "is consistent with wrong belief records passes; a true but trivial question passes; a "
    "topic that is mentioned by the gold but is not what the question should be about passes; "
    "an answer that needs what a setting cannot see is not judged. Scored against our own "
    "accept/reject of 40 questions on The Keeper's Ledger (docs/QUESTION_CHECKS.md), the "
    "checks missed some rejections we made by reading: a passed question still needs review."
)


def _describe_films(results) -> None:
    """A caption naming the film(s) whose questions the run checked, with that film's own
    gold score when it has one (never the gold film's score under another film)."""
    films = sorted(results["film_id"].dropna().unique().tolist())
    if len(films) == 1:
        header = query(film_view.film_header, films[0]) or {}
        title = header.get("title") or films[0]
        st.caption(inert(f"Questions of {title} ({len(results)} checked in this run)."))
        gold_eval_caption("questions", films[0])
    elif films:
        st.caption(inert(f"Questions of {len(films)} films: {', '.join(films[:6])}"))
    else:
        st.caption("Questions without a film (imported questions).")


st.title("Question Lab")
reviewer_sidebar()
checks_tab, analytics_tab = st.tabs(["Checks", "Near-duplicates, map and diversity"])
check_runs = query(qlab_view.check_runs)
check_run = None

with checks_tab:
    if check_runs.empty:
        st.caption("No question checks yet: run `storyscope check-questions`.")
    else:
        labels = {
            r: f"{r} · {p}/{n} passed"
            for r, p, n in zip(check_runs["run_id"], check_runs["passed"], check_runs["questions"])
        }
        check_run = url_selectbox(
            "Check run", list(check_runs["run_id"]), key="check_run", format_func=labels.get
        )
        results = query(qlab_view.check_results, check_run)
        _describe_films(results)
        version = check_runs.set_index("run_id").loc[check_run, "checks_version"]
        if version != CHECKS_VERSION:
            st.warning(
                inert(
                    f"This run used {version}; the current checks are {CHECKS_VERSION}: its "
                    "'passed' does not include the later checks. Rerun `storyscope "
                    "check-questions` to apply them."
                )
            )
        with st.expander("What these checks cover, and what they do not"):
            st.markdown(CHECKS_COVER)
        violations = query(qlab_view.name_budget_violations, check_run)
        cols = st.columns(4)
        cols[0].metric("Checked", len(results))
        cols[1].metric("Passed", int(results["passed"].sum()))
        cols[2].metric(
            f"Leak ≥ {LEAK_THRESHOLD}", int((results["leak_score"] >= LEAK_THRESHOLD).sum())
        )
        cols[3].metric("Name-budget violations", len(violations))
        counts = query(qlab_view.failure_counts, check_run)
        if counts.empty:
            st.caption("Every question of this run passed every check.")
        else:
            st.dataframe(counts, hide_index=True, key="failure_counts")
            chosen = url_multiselect("Failed check", list(counts["check_name"]), key="check")
            st.dataframe(
                query(qlab_view.check_failures, check_run, tuple(chosen), 500),
                hide_index=True,
                width="stretch",
                key="failures",
            )
        type_legend(results["qtype"].dropna().unique() if "qtype" in results else None)
        download_buttons(results, f"checks_{check_run}", key="checks")
        chart(leak_histogram, results, LEAK_THRESHOLD, key="leak_histogram")
        if not violations.empty:
            st.markdown(
                "**Name-budget violations** (names the film has not yet spoken at the anchor)"
            )
            st.dataframe(
                violations[["question_id", "qtype"]].assign(
                    name_violations=violations["name_violations"].map(", ".join)
                ),
                hide_index=True,
                key="violations",
            )

    st.divider()
    qlab_review_summary(check_run)
    if check_run is not None and not results.empty:
        reviewed = url_selectbox("Review question", list(results["question_id"]), key="review_q")
        question_review_panel(reviewed)

with analytics_tab:
    runs = query(qlab_view.analytics_runs)
    if runs.empty:
        st.caption("No question analytics yet: run `storyscope check-questions` with analytics.")
        st.stop()
    run_id = url_selectbox("Analytics run", list(runs["run_id"]), key="analytics_run")
    pairs = query(qlab_view.near_duplicate_pairs, run_id)
    st.markdown(f"**Near-duplicate pairs**: {len(pairs)}")
    st.dataframe(pairs.round({"cosine": 3}), hide_index=True, width="stretch", key="pairs")
    points = query(qlab_view.question_map, run_id, check_run)
    if not points.empty:
        colour_by = url_radio("Colour the map by", ["qtype", "check_status"], key="colour")
        chart(question_map_figure, points, colour_by, key="question_map")
    type_legend(query(qlab_view.self_bleu, run_id)["qtype"].tolist())
    left, right = st.columns(2)
    with left:
        st.markdown("**Self-BLEU per type** (%, lower is more diverse)")
        diversity = query(qlab_view.self_bleu, run_id)
        st.dataframe(shown_table(diversity), hide_index=True, width="stretch", key="diversity")
        if diversity[["self_bleu_2", "self_bleu_4"]].isna().any(axis=None):
            # Self-BLEU scores each question against the others of its type
            st.caption("— : a type with one question has no other to compare it with.")
    with right:
        kinds = query(qlab_view.self_bleu, run_id)["qtype"].tolist() or ["*"]
        frame_type = url_selectbox(
            "Opening frames of type",
            kinds,
            key="frame_type",
            format_func=lambda t: "all questions" if t == "*" else t,
        )
        st.dataframe(
            query(qlab_view.opening_frames_of_type, run_id, frame_type),
            hide_index=True,
            width="stretch",
            key="frames",
        )
