"""`storyscope export-task` against a careless or hostile user: `--force` over links in the
output folder, stores it may only read, task names that are Python's own, paths that JSON
would escape. Files outside the folder are hashed before and after."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import pytest
import yaml
from typer.testing import CliRunner

from data_access.store import Store
from pipelines.cli import app, load_commands
from tests.support.app_fixtures import build_app_fixture
from tests.support.paths import REPO_ROOT
from tests.support.store_snapshots import store_dump
from tests.support.unprivileged import unprivileged_prefix

load_commands()


def _export(store, out, *args):
    return CliRunner().invoke(
        app, ["export-task", "--store", str(store.path), "--out", str(out), *args]
    )


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _other_store(path: Path) -> Path:
    """Another StoryScope store, with a row that must survive."""
    other = Store(path)
    with other.transaction() as cursor:
        cursor.execute("CREATE TABLE keep_me AS SELECT 42 AS answer")
    return path


# -- 1: --force never writes through a link -----------------------------------------------------
@pytest.mark.parametrize(
    ("harness", "name", "link"),
    [
        ("inspect", "dataset.jsonl", "symlink"),
        ("inspect", "task.py", "hardlink"),
        ("inspect", "storyscope_task.json", "symlink-to-store"),
        ("lmms-eval", "storyscope_lfvqa.yaml", "symlink"),
        ("lmms-eval", "utils.py", "hardlink"),
        ("lmms-eval", "storyscope_lfvqa.jsonl", "symlink-to-store"),
    ],
)
def test_force_replaces_a_link_never_its_target(fixture_store, tmp_path, harness, name, link):
    out, elsewhere = tmp_path / "task", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    if link == "symlink-to-store":
        target = _other_store(elsewhere / "other.duckdb")
    else:
        target = elsewhere / "precious.txt"
        target.write_text("someone else's data\n", encoding="utf-8")
    if link == "hardlink":
        os.link(target, out / name)
    else:
        (out / name).symlink_to(target)
    before, store_before = _sha(target), store_dump(fixture_store)

    result = _export(fixture_store, out, "--harness", harness, "--force")

    assert result.exit_code == 0, result.output
    assert _sha(target) == before, "the link's target was written through"
    written = out / name
    assert not written.is_symlink() and written.stat().st_nlink == 1
    assert written.stat().st_ino != target.stat().st_ino
    kind = "hard link" if link == "hardlink" else "symbolic link"
    assert f"note: {name} was a {kind}" in result.output and "replaced" in result.output
    if link == "symlink-to-store":
        assert Store(target, create=False).scalar("SELECT answer FROM keep_me") == 42
    assert store_dump(fixture_store) == store_before


def test_a_dangling_symlink_needs_force_and_is_then_replaced(fixture_store, tmp_path):
    out, nowhere = tmp_path / "task", tmp_path / "elsewhere" / "created.jsonl"
    out.mkdir()
    nowhere.parent.mkdir()
    (out / "dataset.jsonl").symlink_to(nowhere)
    refused = _export(fixture_store, out)
    assert refused.exit_code == 2 and "exists already" in refused.output, refused.output
    assert not nowhere.exists()
    forced = _export(fixture_store, out, "--force")
    assert forced.exit_code == 0, forced.output
    assert not nowhere.exists() and not (out / "dataset.jsonl").is_symlink()


# -- 7: a store it may only read is opened read-only ----------------------------------------------
FUTURE = 9_999


def test_export_task_reads_a_store_of_a_newer_storyscope(fixture_store, tmp_path):
    with duckdb.connect(str(fixture_store.path)) as connection:
        connection.execute(
            "INSERT INTO _migrations (number, name) VALUES (?, 'from a later StoryScope')",
            [FUTURE],
        )
    before = _sha(fixture_store.path)
    result = _export(fixture_store, tmp_path / "task")
    assert result.exit_code == 0, result.output
    assert "warning: opened read-only" in result.output and "newer StoryScope" in result.output
    assert len((tmp_path / "task" / "dataset.jsonl").read_text().splitlines()) == 3
    assert _sha(fixture_store.path) == before


def test_export_task_reads_a_store_read_only_on_disk(tmp_path):
    prefix = unprivileged_prefix()
    folder = Path(tempfile.mkdtemp(prefix="storyscope-export-task-ro-"))
    try:
        folder.chmod(0o755)
        store_path = folder / "shared.duckdb"
        build_app_fixture(Store(store_path))
        store_path.chmod(0o444)
        (folder / "out").mkdir(mode=0o777)
        (folder / "out").chmod(0o777)  # writable by the unprivileged user, whatever the umask
        before = _sha(store_path)
        done = subprocess.run(
            [*prefix, sys.executable, "-m", "pipelines", "export-task", "--store",
             str(store_path), "--out", str(folder / "out" / "task")],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
            env={**os.environ, "HOME": str(folder / "out")},
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "warning: opened read-only" in done.stderr
        assert (folder / "out" / "task" / "task.py").exists()
        assert _sha(store_path) == before
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- 12: task names and paths ---------------------------------------------------------------------
@pytest.mark.parametrize("name", ["class", "None", "__file__"])
def test_a_task_name_python_reserves_is_refused(fixture_store, tmp_path, name):
    result = _export(fixture_store, tmp_path / "task", "--task", name)
    assert result.exit_code == 2 and "Traceback" not in result.output, result.output
    assert f"error: task name {name!r}" in result.output
    assert not (tmp_path / "task").exists()


@pytest.mark.parametrize("name", ["Task", "json_dataset", "MANIFEST", "str", "HERE"])
def test_a_task_name_task_py_uses_is_refused(fixture_store, tmp_path, name):
    result = _export(fixture_store, tmp_path / "task", "--task", name)
    assert result.exit_code == 2, result.output
    assert "already uses" in result.output and "--task" in result.output
    assert not (tmp_path / "task").exists()


@pytest.mark.parametrize("name", ["match", "case", "type", "answer", "task_1", "tâche"])
def test_an_unusual_but_valid_task_name_compiles_and_runs(fixture_store, tmp_path, name):
    inspect_ai = pytest.importorskip("inspect_ai", reason="inspect_ai is in the test extra")
    out = tmp_path / "task"
    result = _export(fixture_store, out, "--task", name)
    assert result.exit_code == 0, result.output
    spec = importlib.util.spec_from_file_location(f"exported_{len(name)}", out / "task.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    built = getattr(module, name)()  # inspect's @task: builds the Task as `inspect eval` does
    assert isinstance(built, inspect_ai.Task)
    assert len(built.dataset) == 3 and built.dataset.name == name


def test_an_emoji_in_the_output_path_reaches_the_lmms_eval_yaml_intact(fixture_store, tmp_path):
    out = tmp_path / "runs 🎬 ünïcode" / "task"
    result = _export(fixture_store, out, "--harness", "lmms-eval")
    assert result.exit_code == 0, result.output

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))
    config = yaml.load((out / "storyscope_lfvqa.yaml").read_text("utf-8"), Loader=Loader)
    data_file = Path(config["dataset_kwargs"]["data_files"]["test"])
    assert data_file == out.resolve() / "storyscope_lfvqa.jsonl"
    assert len(data_file.read_text(encoding="utf-8").splitlines()) == 3
