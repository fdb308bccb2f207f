"""A store written by an older schema opens under today's code: the missing migrations apply in
order, the rows written back then survive, derived caches are rebuilt, and pages render."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from data_access.queries import verdicts_view
from data_access.rollups import rollups_fresh
from data_access.rollups.source import live_select
from data_access.store import Store
from data_access.store.migrations import all_migrations
from tests.support.apptest_pages import run_page
from tests.support.old_store import QUESTIONS, SETTINGS, VERDICTS, build_old_store
from tests.support.paths import REPO_ROOT

# 30: the first schema with today's claim_verdicts keys (the earliest we upgrade from in tests);
# 620: rollups exist, filled and stamped by that release, and 621 then widens their table.
OLD_SCHEMAS = [30, 620]


@pytest.fixture(params=OLD_SCHEMAS, ids=lambda n: f"from-migration-{n}")
def upgraded(request, store_path):
    build_old_store(store_path, request.param)
    return Store(store_path, lock_timeout=10), request.param


def test_every_later_migration_applies_in_order(upgraded):
    store, old = upgraded
    rows = store.rows("SELECT number FROM _migrations ORDER BY number")
    numbers = [number for (number,) in rows]
    assert numbers == [m.number for m in all_migrations()]
    assert max(numbers) > old


def test_rows_written_by_the_old_schema_survive(upgraded):
    store, _ = upgraded
    assert store.rows("SELECT film_id, title, runtime_s FROM films") == [
        ("old-film", "The Old Film", 5400.0)
    ]
    assert sorted(store.rows("SELECT question_id, qtype, text FROM questions")) == sorted(QUESTIONS)
    assert store.scalar("SELECT count(*) FROM rubric_claims") == 4
    verdicts = store.rows(
        "SELECT answer_id, claim_id, verdict FROM current_claim_verdicts ORDER BY 1, 2"
    )
    expected = sorted(
        (f"{q}-{s}", f"{q}-c{i}", label)
        for (q, s), labels in VERDICTS.items()
        for i, label in enumerate(labels, start=1)
    )
    assert verdicts == expected


def test_rollups_are_rebuilt_at_the_new_schema_and_match_the_live_query(upgraded):
    store, _ = upgraded
    assert rollups_fresh(store)
    from_rollup = verdicts_view.answer_counts(store, "lexical")
    columns = ["answer_id", "n_claims", "n_core", "n_judged", "n_asserted", "n_contradicted"]
    live = store.df(
        f"SELECT * FROM ({live_select('rollup_answer_verdicts')}) WHERE judge_id = 'lexical'"
    )
    by_answer = from_rollup.sort_values("answer_id")[columns].reset_index(drop=True)
    assert by_answer.to_dict("records") == live.sort_values("answer_id")[columns].reset_index(
        drop=True
    ).to_dict("records")
    screenplay_q1 = by_answer.set_index("answer_id").loc["old-q1-screenplay"]
    assert (screenplay_q1.n_claims, screenplay_q1.n_asserted) == (2, 2)


def test_pages_render_the_upgraded_store(upgraded, monkeypatch):
    store, _ = upgraded
    monkeypatch.setenv("STORYSCOPE_STORE", str(store.path))
    overview = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=60)
    overview.run()  # the Overview page links to the others: it runs under app.py's navigation
    assert not overview.exception
    shown = {m.label: m.value for m in overview.metric}
    assert (shown["Films & episodes"], shown["Questions"], shown["Settings"]) == ("1", "2", "2")
    verdicts = run_page(REPO_ROOT, "verdicts_page", {"q": "old-q2", "view": "Metrics"})
    assert not verdicts.exception
    table = verdicts.dataframe[0].value
    assert set(table["setting"]) == {label for _, label in SETTINGS}
