"""No command a user types can destroy or corrupt data.

Output paths that are (or resolve to, or are hard links of) the store or its WAL are refused;
an existing output is replaced only with --force; an id that a film or dataset of another
source already uses is refused, never merged. Each refusal is one `error:` line, exit 2, and
leaves the store exactly as it was: every table compared, and the file's bytes.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from data_access.importers import ImportFailure, import_lfvqa_dir
from data_access.store import Store
from pipelines.cli import app, load_commands
from pipelines.output_guard import OutputRefused, replace_atomically, safe_output_path
from tests.support.lfvqa_dataset import MANIFEST, tiny_tables, write_dataset
from tests.support.paths import REPO_ROOT
from tests.support.store_snapshots import other_tables, store_dump

load_commands()

SAMPLE = REPO_ROOT / "samples" / "films"
SCREENPLAY, SUBTITLES = SAMPLE / "the_keepers_ledger.fountain", SAMPLE / "the_keepers_ledger.srt"


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def ingest(store_path: Path, *options: str):
    """`storyscope film ingest` of the sample film (no summaries) into `store_path`."""
    return cli("film", "ingest", "--screenplay", str(SCREENPLAY), "--subtitles", str(SUBTITLES),
               "--summaries", "none", "--store", str(store_path), *options)  # fmt: skip


def assert_refused(result, *words: str) -> None:
    """Exit 2 with exactly one `error:` message holding `words`, and no traceback (an import's
    message lists its problems on indented lines under the `error:` line)."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    message = result.output[result.output.index("error:") :]
    for word in words:
        assert word in message, message


def fingerprint(store) -> tuple[str, dict]:
    """The store file's bytes (hashed) and every row of every table."""
    content = store_dump(store)  # closes the file again (linger 0), so the bytes are final
    return hashlib.sha256(store.path.read_bytes()).hexdigest(), content


@pytest.fixture
def seeded(store, tmp_path):
    """A store holding the tiny interchange dataset (films f1, f2 of dataset 'tiny')."""
    import_lfvqa_dir(store, write_dataset(tmp_path / "seed", tiny_tables()))
    return store


# -- export / backup / synth: where a file may be written ----------------------------------------
def _aliases_of_store(store) -> dict[str, Path]:
    """Paths that all lead to the store file or its WAL."""
    folder = store.path.parent
    (folder / "sub").mkdir()
    (folder / "link.jsonl").symlink_to(store.path)
    (folder / "wal-link.jsonl").symlink_to(f"{store.path}.wal")  # dangling: no WAL yet
    (folder / "hard.jsonl").hardlink_to(store.path)
    return {
        "itself": store.path,
        "dot-dot": folder / "sub" / ".." / store.path.name,
        "symlink": folder / "link.jsonl",
        "hard link": folder / "hard.jsonl",
        "wal": Path(f"{store.path}.wal"),
        "symlink to wal": folder / "wal-link.jsonl",
    }


def test_export_never_writes_the_store_or_its_wal(seeded):
    before = fingerprint(seeded)
    for how, path in _aliases_of_store(seeded).items():
        result = cli(
            "export",
            "films",
            "--format",
            "jsonl",
            "--out",
            str(path),
            "--force",
            "--store",
            str(seeded.path),
        )
        assert_refused(result, "the store")
        assert fingerprint(seeded) == before, how
    assert not Path(f"{seeded.path}.wal").exists()


def test_interchange_export_never_writes_the_store_through_its_manifest(seeded, tmp_path):
    out = tmp_path / "exported"
    out.mkdir()
    (out / "manifest.json").symlink_to(f"{seeded.path}.wal")
    before = fingerprint(seeded)
    result = cli("export", "films", "--interchange", "--out", str(out), "--store", str(seeded.path))
    assert_refused(result, "write-ahead log")
    assert fingerprint(seeded) == before
    assert not Path(f"{seeded.path}.wal").exists()


def test_an_existing_export_is_replaced_only_with_force(seeded, tmp_path):
    out = tmp_path / "films.jsonl"
    out.write_text("keep me\n")
    keeper = tmp_path / "keeper.jsonl"
    keeper.hardlink_to(out)  # another name of the same file: --force must not write through it
    result = cli("export", "films", "--out", str(out), "--store", str(seeded.path))
    assert_refused(result, "exists already", "--force")
    assert out.read_text() == "keep me\n"
    result = cli("export", "films", "--out", str(out), "--force", "--store", str(seeded.path))
    assert result.exit_code == 0, result.output
    assert sorted(json.loads(line)["film_id"] for line in out.read_text().splitlines()) == [
        "f1",
        "f2",
    ]
    assert keeper.read_text() == "keep me\n"
    assert [p.name for p in tmp_path.iterdir() if ".partial" in p.name] == []


def test_export_into_a_folder_or_under_a_file_is_refused(seeded, tmp_path):
    (tmp_path / "folder").mkdir()
    (tmp_path / "plain").write_text("x")
    before = fingerprint(seeded)
    assert_refused(
        cli("export", "films", "--out", str(tmp_path / "folder"), "--store", str(seeded.path)),
        "is a folder",
    )
    assert_refused(
        cli(
            "export",
            "films",
            "--out",
            str(tmp_path / "plain" / "f.jsonl"),
            "--store",
            str(seeded.path),
        ),
        "is not a folder",
    )
    assert fingerprint(seeded) == before


def test_backup_never_overwrites_the_store_and_needs_force_to_replace(seeded, tmp_path):
    before = fingerprint(seeded)
    for how, path in _aliases_of_store(seeded).items():
        result = cli("store", "backup", str(path), "--force", "--store", str(seeded.path))
        assert_refused(result, "the store")
        assert fingerprint(seeded) == before, how
    copy = tmp_path / "copy.duckdb"
    copy.write_bytes(b"an older copy")
    assert_refused(cli("store", "backup", str(copy), "--store", str(seeded.path)), "--force")
    assert copy.read_bytes() == b"an older copy"
    result = cli("store", "backup", str(copy), "--force", "--store", str(seeded.path))
    assert result.exit_code == 0, result.output
    assert store_dump(Store(copy, create=False)) == before[1]


def test_synth_does_not_replace_a_folder_s_files_without_force(tmp_path):
    out = tmp_path / "synth"
    out.mkdir()
    (out / "manifest.json").write_text('{"mine": true}')
    result = cli("synth", "--out", str(out), "--scale", "small", "--format", "jsonl")
    assert_refused(result, "manifest.json", "--force")
    assert (out / "manifest.json").read_text() == '{"mine": true}'
    assert sorted(p.name for p in out.iterdir()) == ["manifest.json"]


def test_the_guard_checks_files_a_command_reads(tmp_path):
    source = tmp_path / "input.jsonl"
    source.write_text("{}\n")
    (tmp_path / "alias.jsonl").symlink_to(source)
    with pytest.raises(OutputRefused, match="a file this command reads"):
        safe_output_path(tmp_path / "alias.jsonl", reads=[source], force=True)
    assert safe_output_path(tmp_path / "new.jsonl", reads=[source]) == tmp_path / "new.jsonl"


def test_a_failed_replacement_keeps_the_old_file(tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_text("old\n")

    def failing_writer(path: Path) -> None:
        path.write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError):
        replace_atomically(target, failing_writer)
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


# -- ids that collide across sources -------------------------------------------------------------
def test_ingest_never_replaces_a_film_of_an_imported_dataset(seeded):
    before = fingerprint(seeded)
    result = ingest(seeded.path, "--film-id", "f1")
    assert_refused(result, "'f1'", "dataset 'tiny'", "--film-id")
    assert fingerprint(seeded) == before


def test_ingest_whose_derived_id_is_taken_is_refused_and_another_id_works(store, tmp_path):
    tables = tiny_tables()
    derived = "the-keepers-ledger-2026"  # slug of the title and year given below
    for name in ("films", "scenes", "subtitles", "questions"):
        for row in tables[name]:
            if row["film_id"] == "f1":
                row["film_id"] = derived
    import_lfvqa_dir(store, write_dataset(tmp_path / "seed", tables))
    before = fingerprint(store)
    titled = ("--title", "The Keeper's Ledger", "--year", "2026")
    assert_refused(ingest(store.path, *titled), derived, "--film-id")
    assert fingerprint(store) == before
    result = ingest(store.path, *titled, "--film-id", "ledger-ingested")
    assert result.exit_code == 0, result.output
    films = dict(store.rows("SELECT film_id, title FROM films"))
    assert films[derived] == "One" and films["ledger-ingested"] == "The Keeper's Ledger"
    scenes = store.scalar("SELECT count(*) FROM scenes WHERE film_id = ?", [derived])
    assert scenes == 3  # the imported film's scenes, untouched


def test_reingest_into_the_same_dataset_still_adds_a_version(store):
    assert ingest(store.path, "--film-id", "ledger").exit_code == 0
    assert ingest(store.path, "--film-id", "ledger").exit_code == 0
    assert store.scalar("SELECT count(DISTINCT run_id) FROM scenes WHERE film_id = 'ledger'") == 2


def test_a_second_dataset_under_the_same_id_is_refused(seeded, tmp_path):
    before = fingerprint(seeded)
    manifest = {**MANIFEST, "name": "Another set entirely"}
    other = write_dataset(tmp_path / "other", other_tables(), manifest)
    with pytest.raises(ImportFailure, match="dataset_id 'tiny' is already in the store"):
        import_lfvqa_dir(seeded, other)
    assert fingerprint(seeded) == before
    result = cli("import", "lfvqa", str(other), "--store", str(seeded.path))
    assert_refused(result, "manifest.json", "dataset_id", "its own dataset_id")
    assert fingerprint(seeded) == before


def test_a_second_batch_of_the_same_dataset_still_imports(seeded, tmp_path):
    report = import_lfvqa_dir(seeded, write_dataset(tmp_path / "batch2", other_tables()))
    assert "dataset tiny was already in the store" in report.notes
    assert seeded.scalar("SELECT count(*) FROM films WHERE dataset_id = 'tiny'") == 4


def test_ingest_into_a_dataset_id_another_source_uses_is_refused(store, tmp_path):
    manifest = {**MANIFEST, "dataset_id": "ingested_films"}
    import_lfvqa_dir(store, write_dataset(tmp_path / "seed", tiny_tables(), manifest))
    before = fingerprint(store)
    result = ingest(store.path, "--film-id", "ledger")
    assert_refused(result, "dataset_id 'ingested_films'")
    assert fingerprint(store) == before


def test_a_tom_import_never_adds_its_story_to_a_film_of_another_dataset(store):
    ingested = ingest(store.path, "--film-id", "hitom-cotp-0000")
    assert ingested.exit_code == 0, ingested.output
    before = fingerprint(store)
    hitom = REPO_ROOT / "samples" / "tom" / "hitom_subset.json"
    result = cli("beliefs", "import", "hitom", str(hitom), "--store", str(store.path))
    assert_refused(result, "'hitom-cotp-0000'", "dataset 'ingested_films'", "another --store")
    assert fingerprint(store) == before


def test_format_doc_never_writes_the_store(seeded, monkeypatch):
    monkeypatch.setenv("STORYSCOPE_STORE", str(seeded.path))
    before = fingerprint(seeded)
    assert_refused(cli("format-doc", "--out", str(seeded.path)), "the store")
    assert fingerprint(seeded) == before


HOSTILE_IDS = [
    "../../etc/passwd",
    '<a href="http://x">f</a>',
    "line\nbreak",
    "ünï ‘quote’",
    "'; DROP",
]


def test_interchange_round_trip_keeps_hostile_ids_as_values(store, tmp_path):
    """Ids are values in fixed-name table files: a hostile id never becomes a path or SQL, and
    comes back byte for byte in another store."""
    tables = {"films": [{"film_id": f, "title": f, "year": 2020} for f in HOSTILE_IDS]}
    import_lfvqa_dir(store, write_dataset(tmp_path / "seed", tables))
    out = tmp_path / "exported"
    result = cli("export", "films", "--interchange", "--out", str(out), "--store", str(store.path))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["films.jsonl", "manifest.json"]
    other = Store(tmp_path / "other.duckdb")
    import_lfvqa_dir(other, out)
    assert sorted(other.rows("SELECT film_id, title FROM films")) == sorted(
        (film_id, film_id) for film_id in HOSTILE_IDS
    )


def test_a_storyvideoqa_release_never_joins_another_dataset_of_its_id(store, tmp_path):
    from data_access.importers import import_storyvideoqa_dir

    manifest = {**MANIFEST, "dataset_id": "storyvideoqa", "name": "my own set"}
    import_lfvqa_dir(store, write_dataset(tmp_path / "seed", tiny_tables(), manifest))
    golden = tmp_path / "release" / "golden_questions"
    golden.mkdir(parents=True)
    item = {"id": 7, "vid": "Friends-S01E01", "question": "Who?", "choices": ["A", "B"],
            "GT": "A", "option": "A", "times": []}  # fmt: skip
    (golden / "Friends_golden.json").write_text(json.dumps([item]))
    before = fingerprint(store)
    with pytest.raises(ImportFailure) as caught:
        import_storyvideoqa_dir(store, tmp_path / "release")
    assert caught.value.first.field == "dataset_id"
    assert "'my own set'" in caught.value.describe()
    assert fingerprint(store) == before
