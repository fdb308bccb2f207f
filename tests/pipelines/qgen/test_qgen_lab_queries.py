"""The Question Lab queries of a check run (the generation-run queries are tested with the
analytics, in test_qgen_analytics.py, so MiniLM and UMAP load once per test process)."""

from __future__ import annotations

from data_access.queries import qlab_view
from data_access.store import append_rows
from data_access.tables import qgen_records


def test_failures_and_name_violations_of_a_check_run(store):
    from pipelines.qgen.check_run import run_check_questions

    with store.transaction() as cursor:
        append_rows(
            cursor,
            "questions",
            [
                {
                    "question_id": "ok-1",
                    "film_id": "f",
                    "qtype": "Q5",
                    "center": "Mara",
                    "status": "candidate",
                    "source": "imported",
                    "text": "At the pub, what does Mara take Tom to believe?",
                    "run_id": "x",
                },
                {
                    "question_id": "bad-1",
                    "film_id": "f",
                    "qtype": "Q5",
                    "center": "Mara",
                    "status": "candidate",
                    "source": "imported",
                    "text": "In scene 4, does Mara trust the Line Judge?",
                    "run_id": "x",
                },
            ],
            qgen_records.COLUMNS["questions"],
        )
        cursor.execute("INSERT INTO runs (run_id, step, status) VALUES ('c', 'test', 'finished')")
        cursor.execute(
            "INSERT INTO characters VALUES ('f', 'lj', 'Line Judge', [], NULL, NULL, 'c'),"
            " ('f', 'm', 'Mara', [], 5.0, NULL, 'c')"
        )
    run_id, _ = run_check_questions(store)
    failures = qlab_view.check_failures(store, run_id)
    assert set(failures["question_id"]) == {"bad-1"}
    assert {"annotation_vocabulary", "not_yes_no", "forbidden_names"} <= set(failures["check_name"])
    counts = qlab_view.failure_counts(store, run_id)
    assert counts["n"].max() == 1
    violations = qlab_view.name_budget_violations(store, run_id)
    assert violations["question_id"].tolist() == ["bad-1"]
    assert list(violations.iloc[0]["name_violations"]) == ["Line Judge"]
    results = qlab_view.check_results(store, run_id).set_index("question_id")
    assert bool(results.loc["ok-1", "passed"]) and not bool(results.loc["bad-1", "passed"])
    assert "annotation_vocabulary" in results.loc["bad-1", "failures"]
