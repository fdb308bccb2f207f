"""Question decisions on Questions and Question Lab: accept, reject with reasons, or
edit (a new revision; the original is kept), each saved as a run; and on Question Lab the reject
reasons per generator run and how well the automatic checks predict the decisions.

Question, gold and claim texts are untrusted: shown in dataframes and text areas, never markdown.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from data_access.queries import review_view
from data_access.tables import review_labels
from data_access.tables.review_labels import REJECT_REASONS, ClaimEdit
from pipelines.review_stats import check_prediction, per_check_rejections
from ui.common import query
from ui.review_common import need_reviewer, save
from ui.safe_text import inert


def _history(question_id: str) -> None:
    history = query(review_view.question_decision, question_id)
    revisions = query(review_view.question_revisions, question_id)
    if not history.empty:
        st.caption("Decisions (newest first)")
        st.dataframe(history, hide_index=True, width="stretch", key=f"qr_hist_{question_id}")
    if len(revisions) > 1:
        st.caption("Revisions (0 is the original)")
        st.dataframe(revisions, hide_index=True, width="stretch", key=f"qr_rev_{question_id}")


def _edit_form(reviewer: str, question_id: str, detail: dict) -> None:
    claims = query(review_view.current_claim_texts, question_id)
    revisions = query(review_view.question_revisions, question_id)
    latest = revisions.iloc[-1]
    with st.form(f"qr_edit_{question_id}"):
        text = st.text_area("Question", value=latest["text"], key=f"qr_text_{question_id}")
        gold = st.text_area("Gold answer", value=latest["gold"] or "", key=f"qr_gold_{question_id}")
        edits = []
        for claim in claims.itertuples():
            new_text = st.text_input(
                inert(f"Claim {claim.ord} ({claim.role})"),
                value=claim.text,
                key=f"qr_c_{claim.claim_id}",
            )
            if new_text != claim.text:
                edits.append(ClaimEdit(claim.claim_id, new_text, claim.role))
        note = st.text_input("Why (optional)", key=f"qr_edit_note_{question_id}")
        submitted = st.form_submit_button("Save as new revision")
    if submitted and save(
        lambda store: review_labels.revise_question(
            store, reviewer, question_id, text, gold or None, edits, note or None
        ),
        done=f"Saved a new revision of {question_id}",
    ):
        st.rerun()


def _what_is_decided(question_id: str) -> None:
    """The question, its gold answer and its rubric, as plain text: what a decision is about."""
    revisions = query(review_view.question_revisions, question_id)
    claims = query(review_view.current_claim_texts, question_id)
    if revisions.empty:
        st.caption(inert(f"No text stored for {question_id}."))
        return
    latest = revisions.iloc[-1]
    st.text(f"Question: {latest['text']}")
    st.text(f"Gold answer: {latest['gold'] or '(none)'}")
    if claims.empty:
        st.caption("No rubric claims.")
    else:
        st.caption("Rubric")
        st.dataframe(
            claims[["ord", "role", "text"]],
            hide_index=True,
            width="stretch",
            key=f"qr_rubric_{question_id}",
        )


def question_review_panel(question_id: str, detail: dict | None = None) -> None:
    """Accept / reject (reasons + free text) / edit one question, and its decision history.
    The question, gold and rubric are shown first; no decision is chosen until the reviewer
    chooses one (a preselected "accept" would be saved by a reviewer who read nothing)."""
    st.markdown("**Review this question**")
    if detail is None:  # the Questions page shows them just above, with the detail
        _what_is_decided(question_id)
    reviewer = need_reviewer()
    if reviewer is None:
        _history(question_id)
        return
    action = st.radio(
        "Decision",
        ["accept", "reject", "edit"],
        index=None,
        horizontal=True,
        key=f"qr_action_{question_id}",
    )
    if action is None:
        st.caption("Choose accept, reject or edit after reading the question, gold and rubric.")
    elif action == "edit":
        _edit_form(reviewer, question_id, detail or {})
    else:
        with st.form(f"qr_decide_{question_id}"):
            reasons = (
                st.multiselect("Reasons", REJECT_REASONS, key=f"qr_reasons_{question_id}")
                if action == "reject"
                else []
            )
            note = st.text_input("Note", key=f"qr_note_{question_id}")
            submitted = st.form_submit_button(f"Save: {action}")
        if submitted and save(
            lambda store: review_labels.decide_question(
                store, reviewer, question_id, action, reasons, note or None
            ),
            done=f"{question_id}: {action}",
        ):
            st.rerun()
    _history(question_id)


def qlab_review_summary(check_run: str | None) -> None:
    """Reject reasons per generator run, and the check run's checks against human decisions."""
    st.markdown("**Human decisions: reject reasons per generator run**")
    reasons = query(review_view.reject_reasons_by_run)
    if reasons.empty:
        st.caption("No question decisions yet: accept or reject questions below or on Questions.")
        return
    st.dataframe(reasons, hide_index=True, width="stretch", key="qr_reasons_by_run")
    if check_run is None:
        return
    decided = query(review_view.checks_and_decisions, check_run)
    if decided.empty:
        st.caption("No decided question was checked by this run.")
        return
    stats = check_prediction(decided)
    st.markdown(
        f"**Do the automatic checks predict the decisions?** ({stats['n']} decided questions; "
        "'checks failed' as a prediction of 'rejected')"
    )
    cols = st.columns(4)
    for col, name in zip(cols, ("precision", "recall", "accuracy", "kappa")):
        value = stats[name]
        col.metric(
            name if name != "kappa" else "Cohen's κ", "—" if pd.isna(value) else f"{value:.2f}"
        )
    st.caption(
        f"failed & rejected {stats['tp']} · failed & accepted {stats['fp']} · "
        f"passed & rejected {stats['fn']} · passed & accepted {stats['tn']}"
    )
    st.dataframe(per_check_rejections(decided).round(3), hide_index=True, key="qr_per_check")
