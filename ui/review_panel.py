"""Human review on the Verdicts page: the researcher's own labels on the claims ×
settings grid, error tags on answers, the review queue, each judge against the humans, tag counts.

Every text shown here came from a model, a dataset or a user, so it is rendered as plain text
(`st.text`, dataframe cells), never as markdown or HTML.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from data_access.queries import review_view
from data_access.tables import review_labels
from data_access.tables.review_labels import ERROR_TAGS, HUMAN_VERDICTS, ClaimLabel
from pipelines.review_stats import human_kappas
from ui.common import query
from ui.review_common import current_reviewer, need_reviewer, save
from ui.safe_text import inert

NO_LABEL = "—"


# -- labels on the grid of one question -----------------------------------------------------------
def _label_frame(grid: pd.DataFrame, mine: pd.DataFrame, claim_ids: pd.DataFrame) -> pd.DataFrame:
    frame = grid[["setting", "answer_id", "ord", "role", "claim", "verdict"]].copy()
    frame["claim_id"] = frame["ord"].map(dict(zip(claim_ids["ord"], claim_ids["claim_id"])))
    keyed = mine.set_index(["answer_id", "claim_id"]) if not mine.empty else None
    labels, notes = [], []
    for answer_id, claim_id in zip(frame["answer_id"], frame["claim_id"]):
        hit = keyed is not None and (answer_id, claim_id) in keyed.index
        labels.append(keyed.loc[(answer_id, claim_id), "verdict"] if hit else NO_LABEL)
        notes.append((keyed.loc[(answer_id, claim_id), "note"] or "") if hit else "")
    frame["my_label"], frame["note"] = labels, notes
    return frame.rename(columns={"verdict": "judge_verdict"}).reset_index(drop=True)


def _changed_labels(before: pd.DataFrame, after: pd.DataFrame) -> list[ClaimLabel]:
    changed = (before["my_label"] != after["my_label"]) | (before["note"] != after["note"])
    return [
        ClaimLabel(row.answer_id, row.claim_id, row.my_label, row.note or None)
        for row in after[changed & (after["my_label"] != NO_LABEL)].itertuples()
    ]


def grid_labels(question_id: str, grid: pd.DataFrame) -> None:
    """An editable copy of the grid: set your label and a note per (claim, answer); saved as one
    run of judge `human:<you>`."""
    st.markdown("**Your labels** (saved as judge `human:<reviewer>`; history is kept)")
    reviewer = need_reviewer()
    if reviewer is None or grid.empty:
        return
    mine = query(
        review_view.human_labels_of_question, question_id, review_labels.human_judge_id(reviewer)
    )
    claim_ids = query(review_view.current_claim_texts, question_id)
    before = _label_frame(grid, mine, claim_ids)
    edited = st.data_editor(
        before,
        key=f"labels_{question_id}",
        hide_index=True,
        width="stretch",
        disabled=["setting", "answer_id", "ord", "role", "claim", "judge_verdict", "claim_id"],
        column_order=["setting", "ord", "role", "claim", "judge_verdict", "my_label", "note"],
        column_config={
            "my_label": st.column_config.SelectboxColumn(
                "my label", options=[NO_LABEL, *HUMAN_VERDICTS], required=True
            ),
            "note": st.column_config.TextColumn("note"),
        },
    )
    if st.button("Save labels", key=f"save_labels_{question_id}", type="primary"):
        labels = _changed_labels(before, edited)
        if not labels:
            st.caption("No label changed.")
        elif save(
            lambda store: review_labels.label_claims(store, reviewer, labels),
            done=f"Saved {len(labels)} label(s) as human:{reviewer}",
        ):
            st.rerun()


def answer_tags(question_id: str, answers: pd.DataFrame) -> None:
    """Error tags (LF-VideoQA §5's failure modes) on each answer of the question (shown below
    `grid_labels`, which already asks for a reviewer name when there is none)."""
    reviewer = current_reviewer()
    if reviewer is None or answers.empty:
        return
    current = query(review_view.answer_tags_of_question, question_id, reviewer)
    tags_of = {a: list(t) for a, t in zip(current["answer_id"], current["tags"])}
    with st.form(f"tags_{question_id}"):
        st.markdown("**Error tags on the answers**")
        chosen = {}
        for answer in answers.itertuples():
            chosen[answer.answer_id] = st.multiselect(
                inert(answer.setting),  # widget labels render markdown
                ERROR_TAGS,
                default=tags_of.get(answer.answer_id, []),
                key=f"tags_{answer.answer_id}",
            )
        if st.form_submit_button("Save tags"):
            changed = {a: t for a, t in chosen.items() if sorted(t) != sorted(tags_of.get(a, []))}
            for answer_id, tags in changed.items():
                save(
                    lambda store, a=answer_id, t=tags: review_labels.tag_answer(
                        store, reviewer, a, t
                    ),
                    done=f"Tags saved on {answer_id}",
                )


# -- the review queue ---------------------------------------------------------------------------
def _show_item(item: dict, verdicts: str, gold_flag: bool) -> None:
    where = f"{item['question_id']} · {item['qtype']} · {item['setting']} · claim {item['ord']}"
    st.caption(inert(where))
    st.text(f"Question: {item['question']}")
    st.text(f"Claim ({item['role']}): {item['claim']}")
    st.text(f"Answer: {item['answer']}")
    st.text(f"Judges: {verdicts}" + ("  ·  gold self-check fails this claim" if gold_flag else ""))


def _save_label(reviewer: str, answer_id: str, claim_id: str) -> None:
    """Form callback: store the verdict and note the reviewer gave on this claim. Nothing is
    saved until a verdict is chosen (Enter in the note with no verdict saves nothing)."""
    verdict = st.session_state.get("review_verdict")
    if verdict is None:
        st.session_state["review_no_verdict"] = True
        return
    note = st.session_state.get("review_note") or None
    label = ClaimLabel(answer_id, claim_id, verdict, note)
    save(lambda store: review_labels.label_claims(store, reviewer, [label]), done="Saved")


def review_queue(film_id, qtypes, settings) -> None:
    """ "Next claim to review": the most contested unlabelled item of the slice, a keyboard form
    (arrow keys pick the verdict, Enter in the note saves and moves on), progress."""
    reviewer = need_reviewer()
    if reviewer is None:
        return
    judge_id = review_labels.human_judge_id(reviewer)
    done, total = query(review_view.review_progress, judge_id, film_id, qtypes, settings)
    st.progress(done / total if total else 0.0, text=f"{done} of {total} claims labelled by you")
    queue = query(review_view.review_queue, judge_id, film_id, qtypes, settings, 50)
    skipped = st.session_state.setdefault("review_skipped", set())
    queue = queue[[(a, c) not in skipped for a, c in zip(queue["answer_id"], queue["claim_id"])]]
    if queue.empty:
        st.success("Nothing left to review in this slice.")
        return
    head = queue.iloc[0]
    item = query(review_view.review_item, head["answer_id"], head["claim_id"])
    st.markdown(f"**Next claim** (judges disagree: {head['disagreement']:.2f})")
    _show_item(item, head["verdicts"], bool(head["gold_disagrees"]))
    # The buttons carry the claim this form shows (callback args bound at render time): the queue
    # is recomputed on the submit run and may have moved (the same reviewer in another tab, a
    # judge run finishing), but the label must land on the claim the reviewer read.
    shown = (str(head["answer_id"]), str(head["claim_id"]))
    if st.session_state.pop("review_no_verdict", False):
        st.warning("Nothing saved: choose a verdict first.")
    with st.form("review_next", clear_on_submit=True):
        # no verdict preselected: Enter in the note must not save one the reviewer never chose
        st.radio("Your verdict", HUMAN_VERDICTS, index=None, horizontal=True, key="review_verdict")
        st.text_input("Note (Enter saves)", key="review_note")
        save_col, skip_col = st.columns(2)
        save_col.form_submit_button(
            "Save and next", type="primary", on_click=_save_label, args=(reviewer, *shown)
        )
        skip_col.form_submit_button("Skip", on_click=skipped.add, args=(shown,))
    st.markdown("**Up next**")
    st.dataframe(
        queue.head(20)[
            [
                "question_id",
                "setting_id",
                "ord",
                "role",
                "verdicts",
                "disagreement",
                "gold_disagrees",
            ]
        ],
        hide_index=True,
        width="stretch",
        key="review_queue_table",
    )


# -- judges against the humans ------------------------------------------------------------------
def human_agreement(film_id) -> None:
    """κ of every judge against every human, overall, per claim role and per question type, and
    the claims a chosen judge and human disagree on."""
    confusions = query(review_view.human_confusions, film_id)
    st.markdown("**Judges against human reviewers** (Cohen's κ, current verdicts)")
    if confusions.empty:
        st.caption("No human labels on judged claims yet: label some in the Review view.")
        return
    kappas = human_kappas(confusions)
    st.dataframe(kappas.round(3), hide_index=True, width="stretch", key="human_kappa_table")
    left, right = st.columns(2)
    judge = left.selectbox("Judge", sorted(confusions["judge_id"].unique()), key="hd_judge")
    human = right.selectbox("Human", sorted(confusions["human"].unique()), key="hd_human")
    flipped = query(review_view.judge_human_disagreements, judge, human, film_id)
    st.caption(inert(f"{len(flipped)} claims where {judge} and {human} disagree"))
    st.dataframe(flipped, hide_index=True, width="stretch", key="human_diff_table")


def tag_counts(film_id) -> None:
    """Error-tag counts per setting (current tags, every reviewer)."""
    counts = query(review_view.tag_counts, film_id)
    st.markdown("**Error tags per setting** (answers tagged by reviewers)")
    if counts.empty:
        st.caption("No error tags yet: tag answers under Claims × settings.")
        return
    table = counts.pivot_table(index="setting", columns="tag", values="answers", fill_value=0)
    table.insert(0, "tagged answers", counts.groupby("setting")["tagged_answers"].first())
    st.dataframe(table, width="stretch", key="tag_counts_table")
