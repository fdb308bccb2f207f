"""Read-only mode, an explorer a lab can share: with STORYSCOPE_READ_ONLY=1
every write a visitor could start is hidden with a line saying why, the write paths refuse
even when reached, and the app's store connection is read-only, so a write fails at DuckDB.

Each page is also run in normal mode, so "hidden" is measured against what is there otherwise.
"""

from __future__ import annotations

import time

import duckdb
import pytest

from tests.support.apptest_pages import run_page
from tests.support.paths import REPO_ROOT
from tests.support.store_snapshots import store_dump

# page -> (URL parameters, labels of the write buttons it shows in normal mode)
WRITE_BUTTONS = {
    "verdicts_page": ({"q": "q1"}, {"Save labels", "Save tags", "Dry run"}),
    # (the review's save button appears once a decision is chosen: none is preselected, so the
    # decision radio stands for it below)
    "questions_page": ({"film": "lighthouse", "q": "q1"}, {"Dry run"}),
    "qlab_page": ({}, set()),
    "runs_page": ({}, set()),
}


@pytest.fixture
def fixture_store(fixture_store, monkeypatch):
    store = fixture_store
    monkeypatch.setenv("STORYSCOPE_REVIEWER", "ann")  # normal mode: the review widgets show
    return store


def _buttons(at) -> set[str]:
    return {button.label for button in at.button} | {
        button.label for button in at.get("form_submit_button")
    }


def _captions(at) -> str:
    return " ".join(caption.value for caption in at.caption)


@pytest.mark.parametrize("page", WRITE_BUTTONS)
def test_write_widgets_show_locally_and_hide_read_only(fixture_store, monkeypatch, page):
    params, writes = WRITE_BUTTONS[page]
    local = run_page(REPO_ROOT, page, params)
    assert not local.exception
    assert writes <= _buttons(local), f"{page}: {_buttons(local)}"
    decides = page in ("questions_page", "qlab_page")  # the question review panel
    assert decides == any(radio.label == "Decision" for radio in local.radio)
    monkeypatch.setenv("STORYSCOPE_READ_ONLY", "1")
    shared = run_page(REPO_ROOT, page, params)
    assert not shared.exception
    assert not writes & _buttons(shared), f"{page} still offers {writes & _buttons(shared)}"
    assert not any(radio.label == "Decision" for radio in shared.radio)
    assert not shared.sidebar.text_input  # no reviewer name: no review
    assert not shared.get("data_editor") and not shared.get("file_uploader")
    if writes or page == "runs_page":
        assert "this explorer is read-only (STORYSCOPE_READ_ONLY=1" in _captions(shared)


def test_runs_page_offers_the_import_panel_only_locally(fixture_store, monkeypatch):
    local = run_page(REPO_ROOT, "runs_page")
    assert [uploader.label for uploader in local.get("file_uploader")] == ["Results file(s)"]
    monkeypatch.setenv("STORYSCOPE_READ_ONLY", "1")
    shared = run_page(REPO_ROOT, "runs_page")
    assert not shared.get("file_uploader")
    assert "Importing results is turned off" in _captions(shared)


def test_the_app_opens_the_store_read_only_so_writes_fail_at_duckdb(fixture_store, monkeypatch):
    from ui.common import _store_for

    before = store_dump(fixture_store)
    monkeypatch.setenv("STORYSCOPE_READ_ONLY", "1")
    shared = _store_for(str(fixture_store.path))
    assert shared.read_only
    assert shared.scalar("SELECT count(*) FROM questions") == 3  # reads work
    with pytest.raises(duckdb.Error, match="read-only"):
        shared.in_transaction(lambda cursor: cursor.execute("DELETE FROM questions"))
    _wait_released(fixture_store.path)  # the app's handle lingers a moment after its last use
    monkeypatch.delenv("STORYSCOPE_READ_ONLY")
    assert not _store_for(str(fixture_store.path)).read_only  # another mode, another handle
    _wait_released(fixture_store.path)
    assert store_dump(fixture_store) == before


def _wait_released(path, timeout_s: float = 10.0) -> None:
    from data_access.store import connection as store_module

    deadline = time.monotonic() + timeout_s
    while path.resolve() in store_module._open_files and time.monotonic() < deadline:
        time.sleep(0.05)


def test_write_paths_refuse_when_reached_in_read_only_mode(fixture_store, monkeypatch):
    from ui.job_panel import _start
    from ui.review_common import save

    monkeypatch.setenv("STORYSCOPE_READ_ONLY", "1")
    calls = []
    assert save(lambda store: calls.append(store), done="saved") is False
    assert calls == []

    class Options:
        def params(self):
            raise AssertionError("a refused job must not even build its parameters")

    from ui.judge_button import JUDGE_PANEL

    before = store_dump(fixture_store)
    _start(JUDGE_PANEL, Options(), {})
    assert store_dump(fixture_store) == before


def test_store_switching_is_hidden_and_refused_in_read_only_mode(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from data_access.store import Store

    folder = tmp_path / "stores"
    folder.mkdir()
    Store(folder / "a.duckdb", lock_timeout=10).scalar("SELECT 1")
    with Store(folder / "b.duckdb", lock_timeout=10).transaction() as cursor:
        cursor.execute(
            "INSERT INTO datasets VALUES ('only-in-b', 'B', 'lfvqa', 't', 'MIT', false, 'r')"
        )
    monkeypatch.setenv("STORYSCOPE_STORE_DIR", str(folder))
    monkeypatch.setenv("STORYSCOPE_STORE", str(folder / "a.duckdb"))
    monkeypatch.setenv("STORYSCOPE_READ_ONLY", "1")
    # a session that asks for the other store, as the sidebar widget would have stored it
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=60)
    at.session_state["store_choice"] = "b.duckdb"
    at.run()
    assert not at.exception
    assert not [box for box in at.sidebar.selectbox if box.key == "store_choice"]
    sidebar = " ".join(caption.value for caption in at.sidebar.caption)
    assert "Store: a.duckdb (read-only explorer)" in sidebar
    shown = [frame.value for frame in at.dataframe if "dataset_id" in frame.value.columns]
    assert all("only-in-b" not in list(frame["dataset_id"]) for frame in shown)
