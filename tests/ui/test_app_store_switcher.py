"""The sidebar's store switcher offers existing stores only, from the operator's directory: a
visitor can neither create a file nor open one elsewhere."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from data_access.store import Store
from tests.support.paths import REPO_ROOT


def _make_store(path) -> None:
    with Store(path, lock_timeout=10).session():
        pass


def _files(root) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.fixture
def allowed(tmp_path, monkeypatch):
    """An operator directory with two stores; the operator's default store is the first."""
    folder = tmp_path / "stores"
    folder.mkdir()
    _make_store(folder / "a.duckdb")
    _make_store(folder / "b.duckdb")
    monkeypatch.setenv("STORYSCOPE_STORE_DIR", str(folder))
    monkeypatch.setenv("STORYSCOPE_STORE", str(folder / "a.duckdb"))
    return folder


def _app() -> AppTest:
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=60)
    at.run()
    return at


def test_sidebar_lists_existing_stores_and_has_no_free_path_box(allowed):
    at = _app()
    assert not at.exception
    assert len(at.sidebar.text_input) == 0
    box = at.sidebar.selectbox(key="store_choice")
    assert box.options == ["a.duckdb", "b.duckdb"] and box.value == "a.duckdb"


def test_picking_a_listed_store_opens_it(allowed):
    with Store(allowed / "b.duckdb", lock_timeout=10).transaction() as cursor:
        cursor.execute(
            "INSERT INTO datasets VALUES ('only-in-b', 'B', 'lfvqa', 't', 'MIT', false, 'r')"
        )
    # AppTest reruns only the page script under st.navigation, so the choice is made the way
    # the sidebar widget stores it, before the run
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=60)
    at.session_state["store_choice"] = "b.duckdb"
    at.run()
    assert not at.exception
    assert at.sidebar.selectbox(key="store_choice").value == "b.duckdb"
    assert "only-in-b" in list(at.dataframe[0].value["dataset_id"])


def test_a_symlink_out_of_the_directory_is_not_offered(allowed, tmp_path):
    outside = tmp_path / "private"
    outside.mkdir()
    _make_store(outside / "secret.duckdb")
    (allowed / "link.duckdb").symlink_to(outside / "secret.duckdb")
    at = _app()
    options = at.sidebar.selectbox(key="store_choice").options
    assert not any("secret" in o or "link" in o for o in options)


def test_a_tampered_choice_neither_creates_nor_opens_a_file(allowed, tmp_path):
    """Session state is the only channel a visitor has into the choice: a path put there that
    is not on the list falls back to the operator's store, and nothing is written."""
    elsewhere = tmp_path / "visitor" / "new.duckdb"
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=60)
    at.session_state["store_choice"] = str(elsewhere)  # not a label on the list
    at.run()
    assert not at.exception
    assert not elsewhere.exists() and not elsewhere.parent.exists()
    assert at.sidebar.selectbox(key="store_choice").value == "a.duckdb"


def test_missing_store_is_reported_not_created(tmp_path, monkeypatch):
    folder = tmp_path / "empty"
    folder.mkdir()
    missing = tmp_path / "nowhere" / "store.duckdb"
    monkeypatch.setenv("STORYSCOPE_STORE_DIR", str(folder))
    monkeypatch.setenv("STORYSCOPE_STORE", str(missing))
    before = _files(tmp_path)
    at = _app()
    assert not at.exception
    assert any("No store at" in w.value for w in at.warning)
    assert _files(tmp_path) == before  # no directory, no DuckDB file, no WAL
