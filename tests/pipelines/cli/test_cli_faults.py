"""Every expected fault ends in one line and a non-zero exit, never a
traceback, whatever command meets it (pipelines/cli/faults.py is the single root)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from unittest import mock

import duckdb
import pytest
from typer.testing import CliRunner

from data_access.store import Store, StoreBusy
from pipelines.cli import app, load_commands
from pipelines.cli.faults import describe_fault
from tests.support.lfvqa_dataset import tiny_tables, write_dataset
from tests.support.paths import REPO_ROOT

load_commands()


def run_cli(*args: str, env: dict | None = None):
    result = CliRunner().invoke(app, list(args), env=env)
    return result


def assert_one_line_error(result, *words: str, code: int = 2) -> None:
    """Exit `code`, an `error:` line naming `words`, no traceback, no exception escaping."""
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert errors, result.output
    for word in words:
        assert word in result.output, result.output


@pytest.fixture
def dataset(tmp_path) -> Path:
    return write_dataset(tmp_path / "ds", tiny_tables())


# -- table files that cannot be read --------------------------------------------------------
def test_a_table_file_that_is_a_folder_is_refused(tmp_path, dataset):
    (dataset / "films.jsonl").unlink()
    (dataset / "films.jsonl").mkdir()
    result = run_cli("import", "lfvqa", str(dataset), "--store", str(tmp_path / "s.duckdb"))
    assert_one_line_error(result, "films.jsonl", "is a folder")


def test_dangling_and_looping_symlinks_are_refused(tmp_path, dataset):
    (dataset / "answers.jsonl").unlink()
    (dataset / "answers.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    (dataset / "judges.jsonl").unlink()
    (dataset / "judges.jsonl").symlink_to(dataset / "judges.jsonl")
    result = run_cli("import", "lfvqa", str(dataset), "--store", str(tmp_path / "s.duckdb"))
    assert_one_line_error(result, "answers.jsonl", "dangling symlink", "judges.jsonl", "loop")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_without_blocking(tmp_path, dataset):
    (dataset / "settings.jsonl").unlink()
    os.mkfifo(dataset / "settings.jsonl")
    result = run_cli("import", "lfvqa", str(dataset), "--store", str(tmp_path / "s.duckdb"))
    assert_one_line_error(result, "settings.jsonl", "FIFO")


def test_a_manifest_that_is_a_fifo_is_refused(tmp_path, dataset):
    (dataset / "manifest.json").unlink()
    os.mkfifo(dataset / "manifest.json")
    result = run_cli("import", "lfvqa", str(dataset), "--store", str(tmp_path / "s.duckdb"))
    assert_one_line_error(result, "manifest.json", "FIFO")


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root")
def test_no_permission_as_an_unprivileged_user(tmp_path):
    """Root reads any file, so the CLI runs as `nobody` (what a user meets)."""
    base = Path(tempfile.mkdtemp(prefix="storyscope-perm-", dir="/tmp"))
    try:
        base.chmod(0o777)
        dataset = write_dataset(base / "ds", tiny_tables())
        dataset.chmod(0o755)
        for path in dataset.iterdir():
            path.chmod(0o644)
        (dataset / "films.jsonl").chmod(0o000)
        result = subprocess.run(
            [
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                sys.executable,
                "-c",
                "from pipelines.cli import main; main()",
                "import",
                "lfvqa",
                str(dataset),
                "--store",
                str(base / "s.duckdb"),
            ],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "HOME": str(base)},
        )
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "films.jsonl" in result.stderr and "permission denied" in result.stderr


# -- values that do not fit -----------------------------------------------------------------
@pytest.mark.parametrize(
    "table, field, value",
    [
        ("rubric_claims", "ord", 18446744073709551615),
        ("films", "year", -9223372036854775809),
        ("scenes", "scene_index", 9223372036854775808),
    ],
)
def test_an_integer_outside_the_column_range_names_the_field(tmp_path, table, field, value):
    tables = tiny_tables()
    tables[table][0][field] = value
    folder = write_dataset(tmp_path / "ds", tables)
    result = run_cli("import", "lfvqa", str(folder), "--store", str(tmp_path / "s.duckdb"))
    assert_one_line_error(result, f"{table}.jsonl, line 1, field '{field}'")


# -- the store ------------------------------------------------------------------------------
def test_store_busy_is_a_message_with_what_to_do(tmp_path):
    path = tmp_path / "busy.duckdb"
    Store(path).rows("SELECT 1")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True);"
            " time.sleep(60)",
            str(path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        result = run_cli("stats", "--store", str(path), env={"STORYSCOPE_LOCK_TIMEOUT": "0.3"})
    finally:
        holder.kill()
        holder.wait()
    assert_one_line_error(result, "busy", "close the app or wait", code=3)


@pytest.mark.parametrize("kind", ["random bytes", "empty file", "folder", "proc file"])
def test_a_store_path_that_is_not_a_duckdb_file(tmp_path, kind):
    path = tmp_path / "bad.duckdb"
    if kind == "random bytes":
        path.write_bytes(os.urandom(20_000))
    elif kind == "empty file":
        path.write_bytes(b"")
    elif kind == "folder":
        path.mkdir()
    else:
        path = Path("/proc/self/status")
    for command in (["stats"], ["migrate"]):
        result = run_cli(*command, "--store", str(path))
        assert_one_line_error(result, str(path.name))
    if kind != "proc file":
        assert path.is_dir() or path.stat().st_size in (0, 20_000)  # left as it was


def test_a_store_path_under_proc_that_cannot_be_created(tmp_path):
    result = run_cli("migrate", "--store", "/proc/storyscope/new.duckdb")
    assert_one_line_error(result, "/proc/storyscope")


def test_a_bad_lock_timeout_setting_is_a_message(tmp_path):
    result = run_cli(
        "stats", "--store", str(tmp_path / "s.duckdb"), env={"STORYSCOPE_LOCK_TIMEOUT": "soon"}
    )
    assert_one_line_error(result, "STORYSCOPE_LOCK_TIMEOUT")


def test_rollback_never_hides_the_real_error(tmp_path):
    """After a fatal I/O error DuckDB refuses ROLLBACK ("Current transaction is aborted"):
    the caller must see the I/O error, not that one."""
    store = Store(tmp_path / "s.duckdb")
    store.rows("SELECT 1")
    real_error = duckdb.IOException("IO Error: No space left on device")

    class AbortedCursor:
        def __init__(self, cursor):
            self.cursor = cursor

        def execute(self, sql, *args):
            if sql == "ROLLBACK":
                raise duckdb.TransactionException("Current transaction is aborted")
            return self.cursor.execute(sql, *args)

    real_session = Store.session

    def session(self):
        from contextlib import contextmanager

        @contextmanager
        def wrapped():
            with real_session(self) as cursor:
                yield AbortedCursor(cursor)

        return wrapped()

    with (
        mock.patch.object(Store, "session", session),
        pytest.raises(duckdb.IOException, match="No space left"),
        store.transaction(),
    ):
        raise real_error
    message = describe_fault(real_error)
    assert message is not None and "disk is full" in message.text


def _can_mount_tmpfs() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"],
        capture_output=True,
    )
    return probe.returncode == 0


@pytest.mark.skipif(not _can_mount_tmpfs(), reason="cannot mount a small tmpfs (no userns)")
def test_a_full_disk_is_a_message_and_the_store_is_usable(tmp_path):
    """A real full disk: the store lives on a 3 MiB tmpfs in a private mount namespace and a
    dataset of ~6 MiB of text is imported into it."""
    tables = tiny_tables()
    tables["subtitles"] = [
        {
            "film_id": "f1",
            "cue_index": i,
            "start_s": i,
            "end_s": i + 0.5,
            "text": os.urandom(60).hex(),
        }
        for i in range(50_000)
    ]
    folder = write_dataset(tmp_path / "big", tables)
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    script = (
        f"mount -t tmpfs -o size=3m tmpfs {mount_point} &&"
        f" {sys.executable} -c 'from pipelines.cli import main; main()' migrate"
        f" --store {mount_point}/s.duckdb >/dev/null &&"
        f" {sys.executable} -c 'from pipelines.cli import main; main()' import lfvqa {folder}"
        f" --store {mount_point}/s.duckdb; echo exit=$? >&2;"
        f" {sys.executable} -c 'from pipelines.cli import main; main()' stats --json"
        f" --store {mount_point}/s.duckdb"
    )
    result = subprocess.run(
        ["unshare", "-rm", "sh", "-c", script],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "Traceback" not in result.stderr, result.stderr
    assert "exit=4" in result.stderr or "exit=2" in result.stderr, result.stderr
    assert "disk is full" in result.stderr
    # The store still opens, and the failed import wrote nothing.
    assert json.loads(result.stdout)["tables"].get("subtitles", 0) == 0


def test_an_unexpected_fault_keeps_its_traceback():
    """A bug is not an expected fault: it must stay visible for a report."""
    assert describe_fault(ZeroDivisionError("bug")) is None
    assert describe_fault(StoreBusy("store x is busy")).code == 3


def command_paths() -> list[str]:
    """Every leaf command as typed after `storyscope` (`import lfvqa`, `stats`, ...)."""
    import typer.main

    def walk(command, prefix: str):
        children = getattr(command, "commands", None)
        if not children:
            yield prefix
            return
        for name, child in children.items():
            yield from walk(child, f"{prefix} {name}".strip())

    return list(walk(typer.main.get_command(app), ""))


def test_every_command_runs_under_the_fault_root():
    """The root group wraps every subcommand, so no command can bypass the one fault root."""
    import typer.main

    from pipelines.cli.faults import FaultMappingGroup

    assert isinstance(typer.main.get_command(app), FaultMappingGroup)
    assert {"stats", "import lfvqa", "store check", "store backup"} <= set(command_paths())
