"""A store this code cannot write: one from a newer StoryScope, and a read-only store file.

A store whose `_migrations` records a number this code does not know was written by a newer
StoryScope: commands that write refuse it (one `error:` line naming the number, exit 2, the
file unchanged to the byte); read commands open it read-only with a warning. A store that is
read-only on disk (file mode 444, or in a read-only folder) is read the same way.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from data_access.importers import import_lfvqa_dir
from data_access.store import Store, StoreReadOnly
from data_access.store.migrations import NewerStore, apply_migrations, schema_status
from pipelines.cli import app, load_commands
from tests.support.lfvqa_dataset import tiny_tables, write_dataset
from tests.support.paths import REPO_ROOT
from tests.support.store_snapshots import other_tables, store_dump
from tests.support.unprivileged import unprivileged_prefix

load_commands()

FUTURE = 9_999
SAMPLE = REPO_ROOT / "samples" / "films"


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def one_error(result) -> str:
    """The single `error:` line of a refused command (exit 2, no traceback)."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    return errors[0]


def fingerprint(path: Path) -> tuple[str, dict]:
    """The file's bytes (hashed) and every row of every table, read without writing."""
    content = store_dump(Store(path, create=False, read_only=True))
    return hashlib.sha256(path.read_bytes()).hexdigest(), content


@pytest.fixture
def newer_store(tmp_path) -> Path:
    """A store with data, whose `_migrations` records a migration from a later StoryScope."""
    path = tmp_path / "newer.duckdb"
    import_lfvqa_dir(Store(path), write_dataset(tmp_path / "seed", tiny_tables()))
    with duckdb.connect(str(path)) as connection:
        connection.execute(
            "INSERT INTO _migrations (number, name) VALUES (?, 'from a later StoryScope')",
            [FUTURE],
        )
    return path


def test_write_commands_refuse_a_newer_store_and_leave_it_unchanged(newer_store, tmp_path):
    before = fingerprint(newer_store)
    other = write_dataset(tmp_path / "other", other_tables())
    commands = [
        ["migrate"],
        ["import", "lfvqa", str(other)],
        ["film", "ingest", "--screenplay", str(SAMPLE / "the_keepers_ledger.fountain"),
         "--subtitles", str(SAMPLE / "the_keepers_ledger.srt"), "--summaries", "none"],
        ["rollups"],
    ]  # fmt: skip
    for command in commands:
        line = one_error(cli(*command, "--store", str(newer_store)))
        assert "newer StoryScope" in line and str(FUTURE) in line, command
        assert fingerprint(newer_store) == before, command


def test_read_commands_open_a_newer_store_read_only_with_a_warning(newer_store, tmp_path):
    before = fingerprint(newer_store)
    stats = cli("stats", "--store", str(newer_store))
    assert stats.exit_code == 0, stats.output
    assert "warning: opened read-only" in stats.output and "newer StoryScope" in stats.output
    assert "films" in stats.output
    out = tmp_path / "films.jsonl"
    exported = cli("export", "films", "--out", str(out), "--store", str(newer_store))
    assert exported.exit_code == 0, exported.output
    assert len(out.read_text().splitlines()) == 2
    assert cli("store", "check", "--store", str(newer_store)).exit_code == 0
    metrics = cli("metrics", "--store", str(newer_store))
    assert metrics.exit_code == 0 and "warning: opened read-only" in metrics.output, metrics.output
    copy = tmp_path / "copy.duckdb"
    assert cli("store", "backup", str(copy), "--store", str(newer_store)).exit_code == 0
    assert fingerprint(newer_store) == before
    with duckdb.connect(str(copy), read_only=True) as connection:
        assert FUTURE in {
            row[0] for row in connection.execute("SELECT number FROM _migrations").fetchall()
        }


def test_the_store_api_refuses_writers_and_serves_readers(newer_store):
    with (
        pytest.raises(NewerStore, match=f"migration {FUTURE} unknown"),
        Store(newer_store).session(),
    ):
        pass
    reader = Store(newer_store, create=False, fall_back_to_read_only=True)
    assert reader.scalar("SELECT count(*) FROM films") == 2
    assert reader.read_only and "newer StoryScope" in reader.read_only_reason
    with pytest.raises(duckdb.Error, match="read-only"), reader.transaction() as cursor:
        cursor.execute("DELETE FROM films")
    assert reader.scalar("SELECT count(*) FROM films") == 2


def test_apply_migrations_writes_nothing_to_a_newer_store(newer_store):
    before = fingerprint(newer_store)
    with duckdb.connect(str(newer_store)) as connection:
        assert schema_status(connection).unknown == (FUTURE,)
        with pytest.raises(NewerStore, match="newer StoryScope"):
            apply_migrations(connection)
    assert fingerprint(newer_store)[1] == before[1]


def test_a_store_of_this_version_has_nothing_unknown_or_pending(store):
    with store.session() as cursor:
        status = schema_status(cursor)
    assert status.unknown == () and status.pending == ()


# -- read-only on disk ------------------------------------------------------------------------
# Root ignores file modes, so as root the CLI runs as `nobody` (setpriv) to meet them.
def _cli_as_user(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HOME": tempfile.gettempdir()}
    env.pop("STORYSCOPE_STORE", None)
    return subprocess.run(
        [*unprivileged_prefix(), sys.executable, "-m", "pipelines", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def open_folder():
    """A folder outside pytest's private tmp (which `nobody` cannot enter), removed after."""
    folder = Path(tempfile.mkdtemp(prefix="storyscope-readonly-"))
    folder.chmod(0o755)
    yield folder
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o777 if path.is_dir() else 0o666)
    shutil.rmtree(folder)


@pytest.mark.parametrize("locked", ["file", "folder"])
def test_a_store_read_only_on_disk_is_read_and_not_written(open_folder, locked):
    path = open_folder / "store.duckdb"
    import_lfvqa_dir(Store(path), write_dataset(open_folder / "seed", tiny_tables()))
    other = write_dataset(open_folder / "other", other_tables())
    out = open_folder / "out"
    out.mkdir(mode=0o777)
    out.chmod(0o777)
    for item in open_folder.rglob("*"):
        if item.is_file():
            item.chmod(0o644)
    path.chmod(0o444 if locked == "file" else 0o644)
    if locked == "folder":
        open_folder.chmod(0o555)
    before = fingerprint(path)

    stats = _cli_as_user("stats", "--store", str(path))
    assert stats.returncode == 0, stats.stderr
    assert "warning: opened read-only" in stats.stderr and "read-only" in stats.stderr
    assert "films" in stats.stdout
    exported = _cli_as_user("export", "films", "--out", str(out / "f.jsonl"), "--store", str(path))
    assert exported.returncode == 0, exported.stderr
    assert len((out / "f.jsonl").read_text().splitlines()) == 2

    refused = _cli_as_user("import", "lfvqa", str(other), "--store", str(path))
    assert refused.returncode == 2, refused.stderr
    errors = [line for line in refused.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "read-only" in errors[0], refused.stderr
    assert "Traceback" not in refused.stderr
    assert fingerprint(path) == before


def test_a_writer_is_told_the_store_is_read_only(open_folder, monkeypatch):
    path = open_folder / "store.duckdb"
    with Store(path).session():
        pass
    monkeypatch.setattr(os, "access", lambda p, mode: mode != os.W_OK)  # as a non-owner sees it
    with pytest.raises(StoreReadOnly, match="read-only on disk"), Store(path).session():
        pass
    reader = Store(path, create=False, fall_back_to_read_only=True)
    assert reader.scalar("SELECT count(*) FROM films") == 0 and reader.read_only


def test_a_writer_never_borrows_a_read_only_connection_of_this_process(tmp_path):
    path = tmp_path / "store.duckdb"
    with Store(path).session():
        pass
    reader = Store(path, read_only=True, linger_s=2)  # its connection stays open a moment
    assert reader.scalar("SELECT count(*) FROM films") == 0
    writer = Store(path)
    with pytest.raises(StoreReadOnly, match="open read-only in this process"), writer.session():
        pass
