"""AppTest: the Overview page shows what a store holds."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from data_access.tables.runs import RunSpec, finish_run, insert_run
from tests.support.paths import REPO_ROOT


def _seed(store):
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec(step="import.test", backend="import"))
        cursor.execute(
            "INSERT INTO datasets VALUES ('demo', 'Demo set', 'lfvqa', 'tests', 'MIT', false, ?)",
            [run_id],
        )
        cursor.execute(
            "INSERT INTO films (film_id, dataset_id, title, kind, run_id) VALUES ('f1', 'demo', "
            "'Film One', 'film', ?)",
            [run_id],
        )
        for i, qtype in enumerate(["Q1", "Q1", "N2"]):
            cursor.execute(
                "INSERT INTO questions (question_id, film_id, qtype, center, status, text, source, "
                "run_id)"
                " VALUES (?, 'f1', ?, 'Ann', 'released', 'Why?', 'paper', ?)",
                [f"q{i}", qtype, run_id],
            )
        cursor.execute(
            "INSERT INTO settings VALUES ('screenplay', 'screenplay', 'Qwen', NULL, NULL, "
            "'Screenplay / Qwen', ?)",
            [run_id],
        )
        finish_run(cursor, run_id, n_items=5)


def test_overview_shows_store_contents(store, store_path):
    _seed(store)
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Films & episodes"] == "1"
    assert metrics["Questions"] == "3"
    assert metrics["Settings"] == "1"
    datasets = at.dataframe[0].value
    assert list(datasets["dataset_id"]) == ["demo"]
    assert int(datasets.loc[0, "questions"]) == 3


def test_overview_on_empty_store_says_how_to_fill_it(store, store_path):
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    assert any("storyscope demo" in info.value for info in at.info)


def test_overview_tables_draw_missing_cells_as_a_dash_and_explain_types(store, store_path):
    _seed(store)
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec(step="import.test", backend="import"))
        cursor.execute(
            "INSERT INTO datasets VALUES ('pairs', 'Pairs', 'lfvqa', 'tests', NULL, false, ?)",
            [run_id],
        )
        finish_run(cursor, run_id, n_items=1)
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception
    licences = at.dataframe[0].value.set_index("dataset_id")["licence"]
    assert licences.to_dict() == {"demo": "MIT", "pairs": "not stated"}
    settings = at.dataframe[1].value.set_index("setting_id")
    assert settings.loc["screenplay", ["captioner", "tier"]].tolist() == ["—", "—"]
    runs = at.dataframe[3].value
    assert set(runs["model"]) == {"—"}  # the import runs name no model: not "None"
    (legend,) = [e for e in at.expander if e.label.startswith("Question types Q1–N3")]
    text = "\n".join(m.value for m in legend.markdown)
    assert "**Q1** Knowledge split" in text and "**N2** Trust evolution" in text
    assert "**Q2**" not in text  # only the types the store holds
