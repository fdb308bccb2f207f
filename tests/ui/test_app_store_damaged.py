"""The store picker: a store a visitor picks that cannot be opened is one line
on the page, never a traceback with the server's paths; a store from a newer StoryScope, or one
read-only on disk, is still shown, read-only, and says so in the sidebar."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from data_access.store import Store
from tests.support.paths import REPO_ROOT
from tests.support.unprivileged import unprivileged_prefix

DATASET_ROW = "INSERT INTO datasets VALUES ('picked-set', 'P', 'lfvqa', 't', 'MIT', false, 'r')"


def _good_store(path: Path) -> None:
    with Store(path, lock_timeout=10).transaction() as cursor:
        cursor.execute(DATASET_ROW)


def _texts(at: AppTest) -> list[str]:
    """Every text the visitor sees in the main area and the sidebar (alerts, markdown, code)."""
    elements = [*at.main, *at.sidebar]
    found: list[str] = []
    while elements:
        element = elements.pop()
        value = getattr(element, "value", None)
        if isinstance(value, str):
            found.append(value)
        elements.extend(getattr(element, "children", {}).values())
    return found


@pytest.fixture
def offered(tmp_path, monkeypatch) -> Path:
    """An operator directory: a good store (the operator's) and every kind of bad one."""
    folder = tmp_path / "stores"
    folder.mkdir()
    _good_store(folder / "good.duckdb")
    (folder / "empty.duckdb").write_bytes(b"")
    (folder / "garbage.duckdb").write_text("this is not a database\n" * 200)
    _good_store(folder / "whole.duckdb")
    data = (folder / "whole.duckdb").read_bytes()
    (folder / "truncated.duckdb").write_bytes(data[: len(data) // 3])
    (folder / "whole.duckdb").unlink()
    _good_store(folder / "newer.duckdb")
    with duckdb.connect(str(folder / "newer.duckdb")) as connection:
        connection.execute("INSERT INTO _migrations (number, name) VALUES (9999, 'later')")
    monkeypatch.setenv("STORYSCOPE_STORE_DIR", str(folder))
    monkeypatch.setenv("STORYSCOPE_STORE", str(folder / "good.duckdb"))
    return folder


def _pick(name: str) -> AppTest:
    at = AppTest.from_file(str(REPO_ROOT / "app.py"), default_timeout=60)
    at.session_state["store_choice"] = name  # as the sidebar widget stores a choice
    at.run()
    return at


@pytest.mark.parametrize(
    "name, words",
    [
        ("empty.duckdb", "empty file"),
        ("garbage.duckdb", "not a DuckDB database"),
        ("truncated.duckdb", "damaged"),
    ],
)
def test_a_store_that_cannot_be_opened_is_one_line_without_server_paths(offered, name, words):
    at = _pick(name)
    assert not at.exception
    assert len(at.error) == 1, [e.value for e in at.error]
    line = at.error[0].value
    assert name in line and words in line and "\n" not in line
    for text in _texts(at):
        assert str(offered) not in text or text.startswith("Existing stores in"), text
        assert "Traceback" not in text and 'File "' not in text
    # the visitor can still pick a good store from the sidebar
    assert "good.duckdb" in at.sidebar.selectbox(key="store_choice").options


def test_the_good_store_still_opens_after_a_bad_one(offered):
    _pick("empty.duckdb")
    at = _pick("good.duckdb")
    assert not at.exception and not at.error
    assert "picked-set" in list(at.dataframe[0].value["dataset_id"])


def test_a_newer_store_is_shown_read_only_with_a_warning(offered):
    before = (offered / "newer.duckdb").read_bytes()
    at = _pick("newer.duckdb")
    assert not at.exception and not at.error
    warnings = [w.value for w in at.sidebar.warning]
    assert any("Read-only" in w and "newer StoryScope" in w for w in warnings), warnings
    assert all(str(offered) not in w for w in warnings)
    assert "picked-set" in list(at.dataframe[0].value["dataset_id"])
    assert (offered / "newer.duckdb").read_bytes() == before


# -- a store read-only on disk, met by the app as a non-root user ---------------------------------
_APP_SCRIPT = """
import json, sys
from streamlit.testing.v1 import AppTest
at = AppTest.from_file(sys.argv[1], default_timeout=120)
at.run()
print(json.dumps({
    "exception": [str(e.value) for e in at.exception],
    "errors": [e.value for e in at.error],
    "warnings": [w.value for w in at.sidebar.warning],
    "datasets": list(at.dataframe[0].value["dataset_id"]) if len(at.dataframe) else [],
}))
"""


@pytest.mark.parametrize("locked", ["file", "folder"])
def test_a_store_read_only_on_disk_opens_in_the_app(locked):
    folder = Path(tempfile.mkdtemp(prefix="storyscope-app-readonly-"))
    home = Path(tempfile.mkdtemp(prefix="storyscope-app-home-"))
    try:
        folder.chmod(0o755)
        home.chmod(0o777)
        store = folder / "shared.duckdb"
        _good_store(store)
        store.chmod(0o444 if locked == "file" else 0o644)
        if locked == "folder":
            folder.chmod(0o555)
        before = store.read_bytes()
        env = {
            **os.environ,
            "HOME": str(home),
            "STORYSCOPE_STORE_DIR": str(folder),
            "STORYSCOPE_STORE": str(store),
        }
        done = subprocess.run(
            [*unprivileged_prefix(), sys.executable, "-c", _APP_SCRIPT, str(REPO_ROOT / "app.py")],
            cwd=home,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        seen = json.loads(done.stdout.strip().splitlines()[-1])
        assert seen["exception"] == [] and seen["errors"] == [], seen
        assert seen["datasets"] == ["picked-set"]
        assert any("Read-only" in w and "read-only" in w for w in seen["warnings"]), seen
        assert store.read_bytes() == before
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)
        shutil.rmtree(home)
