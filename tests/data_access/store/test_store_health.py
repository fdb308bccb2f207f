"""A damaged store is refused on open with a recovery path;
`storyscope store check` reads every block; `storyscope store backup` writes a consistent
copy while another user of the store is working."""

from __future__ import annotations

import json
import shutil
import threading

import pytest
from typer.testing import CliRunner

from data_access.importers import import_lfvqa_dir
from data_access.store import Store, forget_schema_cache
from data_access.store.health import NotAStore, StoreDamaged, StoreMissing
from pipelines.cli import app, load_commands
from tests.support.lfvqa_dataset import tiny_tables, write_dataset

load_commands()


def filled_store(path, n_subtitles: int = 40_000) -> Store:
    """A store with a few MB of rows, checkpointed, so its blocks span the file."""
    store = Store(path)
    tables = tiny_tables()
    tables["subtitles"] = [
        {"film_id": "f1", "cue_index": i, "start_s": i, "end_s": i + 0.5, "text": f"cue {i} " * 8}
        for i in range(n_subtitles)
    ]
    import_lfvqa_dir(store, write_dataset(path.parent / "ds", tables))
    with store.session() as cursor:
        cursor.execute("CHECKPOINT")
    return store


def truncated_copy(source, target, fraction: float):
    shutil.copy(source, target)
    with open(target, "r+b") as handle:
        handle.truncate(int(source.stat().st_size * fraction))
    forget_schema_cache()
    return target


@pytest.fixture(scope="module")
def good_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("good") / "good.duckdb"
    filled_store(path)
    return path


@pytest.mark.parametrize("fraction", [0.5, 0.75, 0.9])
def test_a_truncated_store_is_refused_on_open(good_store, tmp_path, fraction):
    bad = truncated_copy(good_store, tmp_path / "bad.duckdb", fraction)
    size = bad.stat().st_size
    with pytest.raises(StoreDamaged, match="restore the last good copy"):
        Store(bad).rows("SELECT 1")
    assert bad.stat().st_size == size  # refused, not "repaired" or written


def test_the_cli_refuses_a_damaged_store_for_reading_and_writing(good_store, tmp_path):
    bad = truncated_copy(good_store, tmp_path / "bad.duckdb", 0.5)
    folder = write_dataset(tmp_path / "more", {"settings": tiny_tables()["settings"]})
    for command in (["stats"], ["import", "lfvqa", str(folder)], ["store", "check"]):
        result = CliRunner().invoke(app, [*command, "--store", str(bad)])
        assert result.exit_code == 2, (command, result.output)
        assert "damaged" in result.output and "storyscope store backup" in result.output
        assert "Traceback" not in result.output


def test_a_corrupt_data_block_is_found_by_store_check(good_store, tmp_path):
    """Bytes flipped inside a data block keep the size and metadata intact: the cheap check
    on open lets the store open; `store check` reads every block and names the table."""
    bad = tmp_path / "flipped.duckdb"
    shutil.copy(good_store, bad)
    forget_schema_cache()
    with Store(bad).session() as cursor:
        block_size, total = cursor.execute(
            "SELECT block_size, total_blocks FROM pragma_database_size()"
        ).fetchone()
        (block,) = cursor.execute(
            "SELECT max(block_id) FROM pragma_storage_info('subtitles') WHERE persistent"
            " AND column_name = 'text'"
        ).fetchone()
    assert block is not None and block < total
    with open(bad, "r+b") as handle:
        handle.seek(3 * 4096 + block * block_size + 4096)
        handle.write(b"\xff" * 512)
    forget_schema_cache()
    result = CliRunner().invoke(app, ["store", "check", "--store", str(bad), "--json"])
    assert result.exit_code == 2, result.output
    assert "damaged" in result.output
    report = json.loads(result.output[: result.output.rindex("}") + 1])
    broken = [row["table"] for row in report["tables"] if row["problem"]]
    assert "subtitles" in broken


def test_store_check_passes_a_good_store(good_store):
    result = CliRunner().invoke(app, ["store", "check", "--store", str(good_store)])
    assert result.exit_code == 0, result.output
    assert "tables read in full" in result.output


def test_backup_while_another_thread_writes_is_consistent(good_store, tmp_path):
    """The app's judge jobs run on threads of the app process: a backup taken meanwhile must
    hold whole batches only and pass the full check."""
    live = tmp_path / "live.duckdb"
    shutil.copy(good_store, live)
    forget_schema_cache()
    store = Store(live, linger_s=0.25)
    stop = threading.Event()

    def writer():
        n = 0
        while not stop.is_set():
            with store.transaction() as cursor:
                cursor.execute(
                    "INSERT INTO settings (setting_id, source, label, run_id)"
                    " SELECT 'bk' || ? || '-' || i, 'screenplay', 'x', 'r' FROM range(50) t(i)",
                    [n],
                )
            n += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        copy = tmp_path / "copy.duckdb"
        result = CliRunner().invoke(app, ["store", "backup", str(copy), "--store", str(live)])
    finally:
        stop.set()
        thread.join()
    assert result.exit_code == 0, result.output
    forget_schema_cache()
    copied = Store(copy, create=False)
    assert copied.scalar("SELECT count(*) FROM settings WHERE setting_id LIKE 'bk%'") % 50 == 0
    assert copied.scalar("SELECT count(*) FROM subtitles") == 40_000
    check = CliRunner().invoke(app, ["store", "check", "--store", str(copy)])
    assert check.exit_code == 0, check.output


def test_backup_refuses_to_overwrite(good_store, tmp_path):
    existing = tmp_path / "there.duckdb"
    existing.write_bytes(b"keep me")
    result = CliRunner().invoke(app, ["store", "backup", str(existing), "--store", str(good_store)])
    assert result.exit_code == 2 and "exists already" in result.output
    assert existing.read_bytes() == b"keep me"


def test_open_errors_are_store_problems(tmp_path):
    with pytest.raises(StoreMissing):
        Store(tmp_path / "missing.duckdb", create=False).rows("SELECT 1")
    (tmp_path / "dir.duckdb").mkdir()
    with pytest.raises(NotAStore, match="is a folder"):
        Store(tmp_path / "dir.duckdb").rows("SELECT 1")
    (tmp_path / "link.duckdb").symlink_to(tmp_path / "gone.duckdb")
    with pytest.raises(StoreMissing):  # a reading command never creates the link's target
        Store(tmp_path / "link.duckdb", create=False).rows("SELECT 1")
    assert not (tmp_path / "gone.duckdb").exists()
