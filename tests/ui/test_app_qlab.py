"""AppTest: the Question Lab page over the fixture's check and analytics run."""

from __future__ import annotations

from tests.support.apptest_pages import figures, frame, metrics, run_page, traces
from tests.support.paths import REPO_ROOT


def test_checks_failures_leaks_names_duplicates_map(fixture_store):
    at = run_page(REPO_ROOT, "qlab_page", {"colour": "check_status"})
    assert not at.exception
    assert metrics(at) == {
        "Checked": "3",
        "Passed": "1",
        "Leak ≥ 0.5": "1",
        "Name-budget violations": "1",
    }
    failures = frame(at, "check_name", "reason")
    assert set(zip(failures["question_id"], failures["check_name"])) == {
        ("q2", "no_reveal"),
        ("q3", "leak"),
        ("q3", "forbidden_names"),
    }
    assert list(frame(at, "name_violations")["name_violations"]) == ["Cara"]
    pairs = frame(at, "cosine")
    assert list(zip(pairs["question_a"], pairs["question_b"], pairs["cosine"])) == [
        ("q1", "q3", 0.91)
    ]
    points = traces(figures(at)["question_map"])
    assert len(points["passed"].x) == 1 and len(points["failed"].x) == 2
    assert "umap projection" in figures(at)["question_map"].layout.title.text
    diversity = frame(at, "self_bleu_4")
    # a type of one question has no Self-BLEU: a dash and the reason, never "None"
    assert diversity[["qtype", "self_bleu_2", "self_bleu_4"]].values.tolist() == [
        ["*", "41.5", "12.25"],
        ["N2", "—", "—"],
        ["Q1", "—", "—"],
        ["Q3", "—", "—"],
    ]
    assert "— : a type with one question has no other to compare it with." in [
        c.value for c in at.caption
    ]


def test_failed_check_filter_from_url(fixture_store):
    at = run_page(REPO_ROOT, "qlab_page", {"check": "leak"})
    assert not at.exception
    failures = frame(at, "check_name", "reason")
    assert list(failures["question_id"]) == ["q3"] and list(failures["reason"]) == [
        "leak score 0.62 ≥ 0.5"
    ]
