"""Human review storage: human verdicts as runs of `human:<name>`, history, agreement
and metrics with the human, question decisions and revisions, error tags, two writers at once."""

from __future__ import annotations

import threading

import pandas as pd
import pytest

from data_access.queries import review_view, verdicts_view
from data_access.tables import review_labels
from data_access.tables.judging import ensure_judge, write_verdicts
from data_access.tables.review_labels import ClaimEdit, ClaimLabel, ReviewError
from data_access.tables.runs import RunSpec, finish_run, insert_run
from pipelines import verdict_metrics
from pipelines.metrics import metrics_table
from pipelines.review_stats import check_prediction, human_kappas, per_check_rejections
from tests.support.lfvqa_rows import build_slice


def _machine_judge(store, judge_id: str, verdict_of) -> str:
    """A finished judge run labelling every (answer, claim) with verdict_of(answer_id, claim)."""
    items = store.df(
        "SELECT a.answer_id, c.claim_id, c.ord, c.role FROM answers a"
        " JOIN rubric_claims c USING (question_id)"
    )
    rows = [(x.answer_id, x.claim_id, verdict_of(x), None) for x in items.itertuples()]
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec("judge", backend="manual"))
        ensure_judge(cursor, judge_id, "lexical", "manual", None, None, run_id)
        write_verdicts(cursor, run_id, judge_id, rows)
        finish_run(cursor, run_id)
    return run_id


def _items(store) -> pd.DataFrame:
    return store.df(
        "SELECT a.answer_id, c.claim_id, c.role FROM answers a JOIN rubric_claims c"
        " USING (question_id) ORDER BY 1, 2"
    )


def test_human_labels_are_runs_with_history(store):
    build_slice(store)
    item = _items(store).iloc[0]
    first = review_labels.label_claims(
        store, "alice", [ClaimLabel(item.answer_id, item.claim_id, "omitted", "not said")]
    )
    second = review_labels.label_claims(
        store, "alice", [ClaimLabel(item.answer_id, item.claim_id, "asserted")]
    )
    assert first != second
    runs = store.df(
        "SELECT step, backend, status FROM runs WHERE run_id IN (?, ?)", [first, second]
    )
    assert set(runs["step"]) == {"review.verdicts"} and set(runs["status"]) == {"finished"}
    judge = store.df("SELECT kind FROM judges WHERE judge_id = 'human:alice'")
    assert judge["kind"].tolist() == ["human"]
    current = store.df("SELECT verdict FROM current_claim_verdicts WHERE judge_id = 'human:alice'")
    assert current["verdict"].tolist() == ["asserted"]
    history = review_view.label_history(store, item.answer_id, item.claim_id)
    assert history["verdict"].tolist() == ["asserted", "omitted"]
    assert history["note"].tolist()[1] == "not said"


def test_bad_labels_name_the_field_and_leave_the_store_unchanged(store):
    build_slice(store)
    item = _items(store).iloc[0]
    before = store.scalar("SELECT count(*) FROM runs")
    with pytest.raises(ReviewError, match="field 'verdict'"):
        review_labels.label_claims(
            store, "alice", [ClaimLabel(item.answer_id, item.claim_id, "maybe")]
        )
    with pytest.raises(ReviewError, match="field 'answer_id'"):
        review_labels.label_claims(store, "alice", [ClaimLabel("nope", item.claim_id, "asserted")])
    with pytest.raises(ReviewError, match="not of the answer's question"):
        review_labels.label_claims(
            store, "alice", [ClaimLabel("q0-Q4-screenplay", "q0-Q1-c1", "omitted")]
        )
    with pytest.raises(ReviewError, match="field 'reviewer'"):
        review_labels.label_claims(
            store, "bad name!", [ClaimLabel(item.answer_id, item.claim_id, "omitted")]
        )
    assert store.scalar("SELECT count(*) FROM runs") == before
    assert store.scalar("SELECT count(*) FROM claim_verdicts") == 0


def test_reviewer_falls_back_to_the_environment(monkeypatch):
    monkeypatch.setenv("STORYSCOPE_REVIEWER", "carol")
    assert review_labels.clean_reviewer("") == "carol"
    assert review_labels.human_judge_id("dave") == "human:dave"


def test_human_flows_into_agreement_and_metrics(store):
    build_slice(store, n_copies=2)
    _machine_judge(store, "lex", lambda x: "asserted" if x.role == "core" else "omitted")
    items = _items(store)
    # the human agrees with lex on core claims and says "asserted" on context claims
    labels = [ClaimLabel(x.answer_id, x.claim_id, "asserted") for x in items.itertuples()]
    review_labels.label_claims(store, "alice", labels)

    pairs = verdict_metrics.kappa_pairs(verdicts_view.agreement_confusions(store))
    assert {("human:alice", "lex")} <= set(zip(pairs["judge_a"], pairs["judge_b"]))

    kappas = human_kappas(review_view.human_confusions(store))
    by_role = kappas[kappas["by"] == "role"].set_index("group")
    assert by_role.loc["core", "agreement"] == 1.0
    assert by_role.loc["context", "agreement"] == 0.0
    overall = kappas[kappas["by"] == "all"].iloc[0]
    assert overall["items"] == len(items)
    assert set(kappas.loc[kappas["by"] == "type", "group"]) == {"Q1", "Q4"}

    table = metrics_table(store, "human:alice", "setting", resamples=50, seed=0)
    assert {row["setting"] for row in table.rows} == {"screenplay", "subtitles"}
    assert all(row["recall"] == 1.0 for row in table.rows)

    flipped = review_view.judge_human_disagreements(store, "lex", "human:alice")
    assert len(flipped) == int((items["role"] == "context").sum())


def test_review_queue_puts_disagreement_first_and_tracks_progress(store):
    build_slice(store)
    _machine_judge(store, "lex", lambda x: "asserted")
    _machine_judge(store, "llm", lambda x: "omitted" if x.claim_id.endswith("c1") else "asserted")
    queue = review_view.review_queue(store, "human:alice")
    assert queue["claim_id"].head(4).str.endswith("c1").all()
    assert queue["disagreement"].iloc[0] == 0.5 and queue["disagreement"].iloc[-1] == 0.0
    done, total = review_view.review_progress(store, "human:alice")
    assert (done, total) == (0, len(_items(store)))
    first = queue.iloc[0]
    review_labels.label_claims(
        store, "alice", [ClaimLabel(first.answer_id, first.claim_id, "omitted")]
    )
    assert review_view.review_progress(store, "human:alice") == (1, total)
    after = review_view.review_queue(store, "human:alice")
    assert (first.answer_id, first.claim_id) not in set(zip(after["answer_id"], after["claim_id"]))


def test_gold_self_check_disagreement_breaks_ties(store):
    build_slice(store)
    _machine_judge(store, "lex", lambda x: "asserted")
    with store.transaction() as cursor:  # lex fails claim 2 of q0-Q1 on the gold answer
        run_id = insert_run(cursor, RunSpec("judge.gold", backend="manual"))
        write_verdicts(cursor, run_id, "lex", [("gold:q0-Q1", "q0-Q1-c2", "omitted", None)])
        finish_run(cursor, run_id)
    queue = review_view.review_queue(store, "human:alice")
    assert queue.iloc[0]["claim_id"] == "q0-Q1-c2" and bool(queue.iloc[0]["gold_disagrees"])


def test_two_reviewers_at_once_lose_no_label(store):
    build_slice(store, n_copies=2)
    items = _items(store)
    errors = []

    def reviewer(name: str) -> None:
        try:
            for x in items.itertuples():
                review_labels.label_claims(
                    store, name, [ClaimLabel(x.answer_id, x.claim_id, "omitted")]
                )
        except Exception as exc:  # surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=reviewer, args=(n,)) for n in ("alice", "bob")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    counts = store.df(
        "SELECT judge_id, count(*) AS n FROM current_claim_verdicts GROUP BY 1 ORDER BY 1"
    )
    assert counts["n"].tolist() == [len(items), len(items)]


def test_question_decisions_set_status_through_a_run(store):
    build_slice(store)
    review_labels.decide_question(
        store, "alice", "q0-Q1", "reject", ["leaks the answer"], "gives it away"
    )
    assert store.scalar("SELECT status FROM questions WHERE question_id = 'q0-Q1'") == "retired"
    review_labels.decide_question(store, "bob", "q0-Q1", "accept")
    assert store.scalar("SELECT status FROM questions WHERE question_id = 'q0-Q1'") == "released"
    history = review_view.question_decision(store, "q0-Q1")
    assert history["decision"].tolist() == ["accept", "reject"]
    assert list(history["reasons"].iloc[1]) == ["leaks the answer"]
    assert history["status_before"].tolist() == ["retired", "released"]
    with pytest.raises(ReviewError, match="field 'reasons'"):
        review_labels.decide_question(store, "alice", "q0-Q1", "reject")
    with pytest.raises(ReviewError, match="field 'reasons'"):
        review_labels.decide_question(store, "alice", "q0-Q1", "reject", ["too long"])
    with pytest.raises(ReviewError, match="field 'question_id'"):
        review_labels.decide_question(store, "alice", "nope", "accept")


def test_edits_are_new_revisions_and_keep_the_original(store):
    build_slice(store)
    original = store.scalar("SELECT text FROM questions WHERE question_id = 'q0-Q4'")
    review_labels.revise_question(
        store,
        "alice",
        "q0-Q4",
        "What does Elwood infer?",
        claims=[ClaimEdit("q0-Q4-c2", "Elwood infers it.", "core")],
    )
    review_labels.revise_question(store, "alice", "q0-Q4", "What does Elwood infer at night?")
    revisions = review_view.question_revisions(store, "q0-Q4")
    assert revisions["revision"].tolist() == [0, 1, 2]
    assert revisions["text"].iloc[0] == original
    assert store.scalar("SELECT text FROM questions WHERE question_id = 'q0-Q4'") == original
    claims = review_view.current_claim_texts(store, "q0-Q4").set_index("claim_id")
    assert claims.loc["q0-Q4-c2", "text"] == "Elwood infers it."
    assert claims.loc["q0-Q4-c2", "role"] == "core" and claims.loc["q0-Q4-c1", "revision"] == 0
    with pytest.raises(ReviewError, match="field 'claim_id'"):
        review_labels.revise_question(
            store, "a", "q0-Q4", "x", claims=[ClaimEdit("q0-Q1-c1", "y", "core")]
        )


def test_error_tags_count_per_setting(store):
    build_slice(store, n_copies=2)
    review_labels.tag_answer(store, "alice", "q0-Q1-subtitles", ["wrong holder", "invented event"])
    review_labels.tag_answer(store, "alice", "q1-Q1-subtitles", ["wrong holder"])
    review_labels.tag_answer(store, "bob", "q0-Q4-subtitles", ["hedging"])
    review_labels.tag_answer(store, "alice", "q1-Q1-subtitles", ["timeline confusion"])  # replaces
    counts = review_view.tag_counts(store).set_index("tag")
    assert counts.loc["wrong holder", "answers"] == 1
    assert counts.loc["timeline confusion", "answers"] == 1
    assert set(counts["tagged_answers"]) == {3}
    with pytest.raises(ReviewError, match="field 'tags'"):
        review_labels.tag_answer(store, "alice", "q0-Q1-subtitles", ["rude"])


def test_checks_against_decisions(store):
    build_slice(store, n_copies=2)
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec("qgen.check", backend="rules"))
        for qid, passed in [("q0-Q1", False), ("q0-Q4", True), ("q1-Q1", False), ("q1-Q4", True)]:
            cursor.execute(
                "INSERT INTO question_check_results (run_id, question_id, passed, checks_version)"
                " VALUES (?, ?, ?, 'v')",
                [run_id, qid, passed],
            )
            if not passed:
                cursor.execute(
                    "INSERT INTO question_check_failures VALUES (?, ?, 'leak', 'too close')",
                    [run_id, qid],
                )
        finish_run(cursor, run_id)
    review_labels.decide_question(store, "a", "q0-Q1", "reject", ["leaks the answer"])
    review_labels.decide_question(store, "a", "q1-Q1", "accept")
    review_labels.decide_question(store, "a", "q0-Q4", "accept")
    review_labels.decide_question(store, "a", "q1-Q4", "reject", ["duplicate"])
    decided = review_view.checks_and_decisions(store, run_id)
    stats = check_prediction(decided)
    assert (stats["tp"], stats["fp"], stats["fn"], stats["tn"]) == (1, 1, 1, 1)
    assert stats["kappa"] == 0.0
    per_check = per_check_rejections(decided).set_index("check")
    assert per_check.loc["leak", "questions"] == 2 and per_check.loc["leak", "rejected"] == 1
    reasons = review_view.reject_reasons_by_run(store)
    assert set(reasons["reason"].dropna()) == {"leaks the answer", "duplicate"}
    assert reasons["decided"].iloc[0] == 4


def test_a_store_from_before_review_upgrades_and_takes_labels(store_path):
    from data_access.store import Store
    from tests.support.old_store import build_old_store

    build_old_store(store_path, 620)
    old = Store(store_path, lock_timeout=10)
    review_labels.label_claims(
        old, "alice", [ClaimLabel("old-q1-subtitles", "old-q1-c2", "asserted")]
    )
    review_labels.decide_question(old, "alice", "old-q2", "reject", ["wrong anchor"])
    assert review_view.review_progress(old, "human:alice") == (1, 8)
    assert old.scalar("SELECT status FROM questions WHERE question_id = 'old-q2'") == "retired"
