"""AppTest: the Questions page filters and shows a rubric with its evidence map."""

from __future__ import annotations

from data_access.formats.question_types import type_label
from data_access.queries import questions_view
from data_access.queries.questions_view import facet_values
from tests.support.apptest_pages import figures, run_page, traces
from tests.support.hostile import unescape_markdown
from tests.support.paths import REPO_ROOT


def test_question_rubric_and_evidence_map(fixture_store):
    at = run_page(REPO_ROOT, "questions_page", {"q": "q1"})
    assert not at.exception
    listed = at.dataframe[0].value
    assert list(listed["question_id"]) == ["q1", "q2", "q3"]
    assert list(listed["core"]) == [2, 1, 2] and list(listed["span_min"]) == [45, 45, 25]
    text = unescape_markdown("\n".join(m.value for m in at.markdown))  # dataset text is escaped
    assert "2 core / 3 claims · evidence: 2 scenes over 45 min" in text
    assert "■ 1 Ann believes the supply boat comes on Friday." in text
    assert "□ 3 The supply boat was cancelled." in text
    assert "5:00 Kitchen (claims 1, 2)" in text and "40:00 Jetty (claim 3)" in text
    evidence = traces(figures(at)["evidence_map"])
    assert list(evidence["evidence"].x) == [5.0, 40.0]
    assert list(evidence["anchor ▲"].x) == [40.0]


def test_filters_come_from_the_url_and_narrow_the_list(fixture_store):
    at = run_page(REPO_ROOT, "questions_page", {"qtype": ["N2", "Q1"], "status": "candidate"})
    assert not at.exception
    assert at.multiselect(key="qtype").value == ["N2", "Q1"]
    assert list(at.dataframe[0].value["question_id"]) == ["q2"]
    at.multiselect(key="status").set_value([]).run()
    assert list(at.dataframe[0].value["question_id"]) == ["q2", "q3"]


def test_checks_filter_uses_the_latest_check_run(fixture_store):
    at = run_page(REPO_ROOT, "questions_page", {"checks": "failed"})
    assert not at.exception
    listed = at.dataframe[0].value
    assert list(listed["question_id"]) == ["q2", "q3"] and list(listed["checks"]) == [
        "failed",
        "failed",
    ]
    at.selectbox(key="checks").set_value("passed").run()
    assert list(at.dataframe[0].value["question_id"]) == ["q1"]


def test_filter_options_are_each_facets_values(fixture_store):
    # one row per facet value (not per combination of the four)
    facets = questions_view.question_facets(fixture_store, None)
    for facet in questions_view.FACETS:
        want = fixture_store.rows(f"SELECT {facet}, count(*) FROM questions GROUP BY 1 ORDER BY 1")
        got = facets[facets["facet"] == facet]
        assert list(zip(got["value"], got["n"])) == want
    at = run_page(REPO_ROOT, "questions_page")
    assert not at.exception
    for facet in questions_view.FACETS:
        shown = type_label if facet == "qtype" else str  # a type is offered with its name
        assert at.multiselect(key=facet).options == list(map(shown, facet_values(facets, facet)))
