"""`import results` against a careless or hostile file, store or second user: bombs and endless
inputs are refused unread, the same file imported twice at once is one import, an import never
adds to a setting another source made, a dry run writes nothing and predicts the import's exit
code, and every unreadable file gets one error naming file, record and field (fault-injection
style: the store compared table by table and byte by byte, real subprocesses)."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import resource
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from data_access.importers import ImportFailure
from pipelines.cli import app, load_commands
from pipelines.results import import_results
from tests.support import harness_fixtures as hf
from tests.support.paths import REPO_ROOT
from tests.support.store_snapshots import store_dump

load_commands()
MIB = 1 << 20


@pytest.fixture
def seeded(store_path, seeded_template):
    return hf.seeded_store_copy(store_path, seeded_template, 4)


def refused(store, path, **options):
    """The one problem `import_results` refuses `path` with; the store left exactly as it was."""
    before = store_dump(store)
    with pytest.raises(ImportFailure) as caught:
        import_results(store, path, **options)
    assert store_dump(store) == before
    return caught.value.first


def assert_problem(problem, file: str, record: str, field: str, words: str) -> None:
    assert (problem.file, problem.record, problem.field) == (file, record, field), str(problem)
    assert words in problem.message, problem.message


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def lmms_file(tmp_path, n: int = 3) -> Path:
    lines = [hf.lmms_eval_line(i, f"q{i:06d}", f"Answer {i}.") for i in range(n)]
    return hf.write_lmms_eval(tmp_path / "out", lines)


def cli(*args: str):
    return CliRunner().invoke(app, list(args))


def error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("error:")]


# -- 2. bounds: bombs, devices, endless records ------------------------------------------------
def _inspect_log(tmp_path) -> Path:
    pytest.importorskip("inspect_ai", reason="inspect_ai is in the test extra (make test)")
    samples = [hf.inspect_sample(i, "ANSWER: A", {"mcq_id": f"m{i:06d}"}) for i in range(3)]
    return hf.write_inspect_log(tmp_path / "log.eval", samples)


def _padded(log: Path, member_prefix: str, pad: int) -> Path:
    """The log with one member padded by `pad` bytes of JSON whitespace (still valid JSON):
    a few hundred kB on disk that expand a thousand times, the bomb of a hostile log."""
    bomb = log.with_name("bomb.eval")
    with zipfile.ZipFile(log) as source, zipfile.ZipFile(bomb, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename.startswith(member_prefix):
                data += b" " * pad
                item.compress_type = zipfile.ZIP_DEFLATED
            target.writestr(item, data)
    assert bomb.stat().st_size < pad / 500
    return bomb


@pytest.mark.parametrize("member", ["samples/1_", "header.json"])
def test_an_eval_bomb_is_refused_before_reading(seeded, tmp_path, member):
    bomb = _padded(_inspect_log(tmp_path), member, 40 * MIB)
    problem = refused(seeded, bomb)
    assert problem.file == "bomb.eval" and problem.record.startswith(f"member {member}")
    assert "expands" in problem.message and "refused unread" in problem.message
    assert seeded.scalar("SELECT count(*) FROM mcq_predictions") == 0


def test_a_member_over_the_bound_is_refused_whatever_its_ratio(seeded, tmp_path, monkeypatch):
    from pipelines.results import bounded

    log = _inspect_log(tmp_path)
    monkeypatch.setattr(bounded, "MAX_MEMBER_BYTES", 200)  # every sample member is larger
    problem = refused(seeded, log)
    assert problem.record.startswith("member ") and "over the 200 bytes" in problem.message


def test_a_parquet_file_expanding_past_the_bound_is_refused(seeded, tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from pipelines.results import bounded

    path = tmp_path / "t.parquet"
    rows = {"question_id": [f"q{i:06d}" for i in range(1000)], "answer": ["x" * 100] * 1000}
    pq.write_table(pa.table(rows), path)  # the answers dictionary-encoded: 100 kB decoded
    monkeypatch.setattr(bounded, "MAX_MEMBER_BYTES", 50_000)
    assert_problem(refused(seeded, path), "t.parquet", "rows 1-1000", "-", "decode to")
    pq.write_table(pa.table(rows), path, use_dictionary=False)  # declared in the metadata
    assert_problem(refused(seeded, path), "t.parquet", "row group 1", "-", "refused unread")


def test_a_record_over_the_bound_is_refused_without_reading_it_whole(seeded, tmp_path, monkeypatch):
    from pipelines.results import bounded

    monkeypatch.setattr(bounded, "MAX_RECORD_BYTES", 4096)
    path = tmp_path / "out.jsonl"
    path.write_bytes(b'{"custom_id": "' + b"x" * 100_000)  # no newline: one endless line
    problem = refused(seeded, path, format="openai-batch")
    assert_problem(problem, "out.jsonl", "line 1", "-", "longer than 4,096 bytes")


def _cli_with_memory_cap(args: list[str], cap_bytes: int = 768 * MIB):
    """The command in a subprocess whose heap is capped: an input read without a bound fails
    there (MemoryError) instead of taking the machine's memory."""

    def cap():
        resource.setrlimit(resource.RLIMIT_DATA, (cap_bytes, cap_bytes))

    return subprocess.run(
        [sys.executable, "-c", "from pipelines.cli import main; main()", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=cap,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
@pytest.mark.parametrize("where", ["--batch-input", "FILE"])
def test_a_device_is_refused_unread(seeded, tmp_path, store_path, where):
    before = store_dump(seeded)
    out = hf.write_jsonl(tmp_path / "out.jsonl", [hf.batch_output_line("q000000", "x")])
    if where == "FILE":
        args = ["import", "results", "/dev/zero", "--format", "openai-batch"]
    else:
        args = ["import", "results", str(out), "--batch-input", "/dev/zero"]
    result = _cli_with_memory_cap([*args, "--store", str(store_path)])
    assert result.returncode == 2, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    assert "/dev/zero, (file)" in result.stderr and "not a regular file" in result.stderr
    assert store_dump(seeded) == before


def _feed_readers(fifo: Path, line: bytes, stop: threading.Event) -> None:
    """Give `line` to each reader opening the FIFO until `stop` (so a reader that opens it gets
    data instead of hanging the test)."""
    while not stop.is_set():
        try:
            handle = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # no reader now
            time.sleep(0.01)
            continue
        os.write(handle, line)
        os.close(handle)


def test_a_fifo_is_refused_without_blocking(seeded, tmp_path):
    fifo = tmp_path / "out.jsonl"
    os.mkfifo(fifo)
    line = json.dumps(hf.batch_output_line("q000000", "x")).encode() + b"\n"
    stop = threading.Event()
    threading.Thread(target=_feed_readers, args=(fifo, line, stop), daemon=True).start()
    try:
        problem = refused(seeded, fifo)
    finally:
        stop.set()
    assert_problem(problem, str(fifo), "(file)", "-", "is a FIFO")


# -- 3. the same file twice at once is one import ----------------------------------------------
# Each process waits for the other at start (so both run together), and again right after its
# check for an earlier import of the file (at most 3 s): were that check outside the importing
# transaction, both would pass it before either wrote.
_RACE = r"""
import sys, time
from pathlib import Path

def wait_for(path, seconds):
    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.02)

me, other = Path(sys.argv[1]), Path(sys.argv[2])
import data_access.importers.results.write as write
from pipelines.cli import main

checked = write.previous_import

def racing(*args, **kwargs):
    found = checked(*args, **kwargs)
    Path(f"{me}.checked").touch()
    wait_for(Path(f"{other}.checked"), 3)
    return found

write.previous_import = racing
me.touch()
wait_for(other, 120)
sys.argv = ["storyscope", *sys.argv[3:]]
main()
"""


def test_the_same_file_imported_by_two_processes_at_once_is_one_import(
    seeded, tmp_path, store_path
):
    path = lmms_file(tmp_path, 4)
    seeded.rows("SELECT 1")  # (the store is closed between sessions: the processes share it)
    marks = [tmp_path / "a", tmp_path / "b"]
    args = ["import", "results", str(path), "--store", str(store_path)]
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "STORYSCOPE_LOCK_TIMEOUT": "120"}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _RACE, str(me), str(other), *args],
            cwd=REPO_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for me, other in (marks, marks[::-1])
    ]
    outputs = [process.communicate(timeout=300) for process in processes]
    for process, (_, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, err[-2000:]
    said = "\n".join(out for out, _ in outputs)
    assert said.count("imported 4 of 4 samples") == 1, said
    assert said.count("already imported as run") == 1, said
    assert seeded.scalar("SELECT count(*) FROM answers") == 4
    assert seeded.scalar("SELECT count(*) FROM settings") == 1
    assert seeded.scalar("SELECT count(*) FROM result_imports") == 1


def test_the_same_file_imported_by_two_threads_at_once_is_one_import(seeded, tmp_path):
    path = lmms_file(tmp_path, 4)
    reports, errors = [], []
    start = threading.Barrier(2)

    def run():
        start.wait()
        try:
            reports.append(import_results(seeded, path))
        except Exception as exc:  # noqa: BLE001 -- the assertion below shows it
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    assert sorted(r.already_imported for r in reports) == [False, True]
    assert seeded.scalar("SELECT count(*) FROM answers") == 4
    assert seeded.scalar("SELECT count(*) FROM result_imports") == 1


# -- 4. never into a setting another source made -----------------------------------------------
PAPER_SETTING = "lfvqa-paper:qwen3.8:subtitles"


def _foreign(store, with_answers: bool) -> None:
    """The paper's own setting (and an MCQ method), as `import lfvqa` leaves them."""
    with store.transaction() as cursor:
        cursor.execute(
            "INSERT INTO runs (run_id, step, status) VALUES ('paper-run', 'import.lfvqa',"
            " 'finished')"
        )
        cursor.execute(
            "INSERT INTO settings (setting_id, source, answerer, label, run_id)"
            " VALUES (?, 'subtitles', 'Qwen3.8', 'Qwen3.8 / subtitles', 'paper-run')",
            [PAPER_SETTING],
        )
        if with_answers:
            cursor.execute(
                "INSERT INTO answers (answer_id, question_id, setting_id, text, run_id)"
                " VALUES ('paper/q000003', 'q000003', ?, 'The paper''s answer.', 'paper-run')",
                [PAPER_SETTING],
            )
        cursor.execute(
            "INSERT INTO mcq_predictions (mcq_id, method, predicted_option, correct, run_id)"
            " VALUES ('m000003', 'paper-method', 'A', FALSE, 'paper-run')"
        )


@pytest.mark.parametrize("with_answers", [False, True], ids=["empty", "with-answers"])
def test_answers_never_go_to_a_setting_another_source_made(seeded, tmp_path, with_answers):
    _foreign(seeded, with_answers)
    path = lmms_file(tmp_path)
    problem = refused(seeded, path, setting=PAPER_SETTING)
    assert_problem(problem, path.name, "(option)", "--setting", "made by import.lfvqa")
    assert "answerer Qwen3.8" in problem.message
    # the dry run reports the same refusal (and the command exits 2 on it, as the import)
    dry = import_results(seeded, path, setting=PAPER_SETTING, dry_run=True)
    assert problem.message in dry.would_refuse
    assert seeded.scalar("SELECT count(*) FROM answers WHERE run_id <> 'paper-run'") == 0
    assert import_results(seeded, path, setting="mine").n_matched == 3  # a new name imports


def test_predictions_never_go_to_a_method_another_source_made(seeded, tmp_path):
    _foreign(seeded, False)
    rows = [hf.vlmevalkit_row(i, f"m{i:06d}", "A") for i in range(3)]
    path = hf.write_vlmevalkit(tmp_path / "out", rows)
    problem = refused(seeded, path, setting="paper-method")
    assert_problem(problem, path.name, "(option)", "--setting", "MCQ method 'paper-method'")


# -- 5 and 11. a dry run writes nothing and predicts the outcome -------------------------------
def _tables_read_only(path: Path) -> dict[str, list]:
    """Every table of the store, read on a read-only connection (opening it through `Store`
    would upgrade an old one)."""
    connection = duckdb.connect(str(path), read_only=True)
    try:
        tables = [
            row[0]
            for row in connection.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main'"
                " AND table_type = 'BASE TABLE' ORDER BY 1"
            ).fetchall()
        ]
        return {t: connection.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in tables}
    finally:
        connection.close()


def test_a_dry_run_on_an_older_store_neither_upgrades_nor_writes_it(tmp_path, store_path):
    from tests.support.old_store import build_old_store

    build_old_store(store_path, 620)
    path = tmp_path / "answers.csv"
    path.write_text("question_id,answer\nold-q1,Ann hides it.\nold-q2,Bo grows up.\n")
    digest, tables = file_sha256(store_path), _tables_read_only(store_path)
    dry = cli("import", "results", str(path), "--store", str(store_path), "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "would import 2 of 2 samples as answers" in dry.output
    assert "upgrades it first" in dry.output
    assert file_sha256(store_path) == digest
    assert _tables_read_only(store_path) == tables
    done = cli("import", "results", str(path), "--store", str(store_path))
    assert done.exit_code == 0 and "imported 2 of 2 samples as answers" in done.output


def test_a_dry_run_leaves_a_current_store_byte_for_byte(seeded, tmp_path, store_path):
    path = lmms_file(tmp_path)
    digest = file_sha256(store_path)
    dry = cli("import", "results", str(path), "--store", str(store_path), "--dry-run")
    assert dry.exit_code == 0 and "would import 3 of 3" in dry.output, dry.output
    assert file_sha256(store_path) == digest


def test_a_dry_run_exits_as_the_import_would_when_nothing_links(seeded, tmp_path, store_path):
    lines = [hf.lmms_eval_line(i, f"videomme-{i}", "B") for i in range(2)]
    path = hf.write_lmms_eval(tmp_path / "out", lines)
    args = ["import", "results", str(path), "--store", str(store_path)]
    dry, real = cli(*args, "--dry-run"), cli(*args)
    assert (dry.exit_code, real.exit_code) == (2, 2), dry.output
    assert "none of the 2 samples links" in error_lines(dry.output)[0]
    assert error_lines(dry.output)[0].startswith("error: dry run: the import would be refused")
    assert error_lines(real.output)[0].endswith(error_lines(dry.output)[0].split("written: ")[1])


def test_a_dry_run_refuses_a_store_the_import_refuses(seeded, tmp_path, store_path):
    path = lmms_file(tmp_path)
    store_path.chmod(0o444)
    try:
        args = ["import", "results", str(path), "--store", str(store_path)]
        if os.access(store_path, os.W_OK):
            pytest.skip("running as root: a read-only mode does not stop writes")
        dry, real = cli(*args, "--dry-run"), cli(*args)
    finally:
        store_path.chmod(0o644)
    assert dry.exit_code == real.exit_code == 2
    assert "read-only" in dry.output


# -- 9 and 10. one error naming file, record and field ------------------------------------------
def test_a_latin1_row_in_a_csv(seeded, tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"question_id,answer\nq000000,fine\nq000001,caf\xe9 au lait\n")
    assert_problem(refused(seeded, path), "t.csv", "row 3", "answer", "not UTF-8 (byte 0xE9")


def test_a_utf16_tsv(seeded, tmp_path):
    rows = [hf.vlmevalkit_row(i, f"m{i:06d}", "A") for i in range(2)]
    path = hf.write_vlmevalkit(tmp_path / "out", rows, ".tsv")
    path.write_bytes(path.read_text(encoding="utf-8").encode("utf-16"))
    assert_problem(refused(seeded, path), path.name, "(file)", "-", "UTF-16")


def _deep(levels: int = 20_000) -> str:
    return "[" * levels + "]" * levels


def test_deep_json_in_an_lmms_eval_samples_line(seeded, tmp_path):
    path = lmms_file(tmp_path)
    lines = path.read_text().splitlines()
    lines[1] = lines[1][:-1] + f', "deep": {_deep()}}}'
    path.write_text("\n".join(lines) + "\n")
    assert_problem(refused(seeded, path), path.name, "line 2", "-", "nested more than 100")


def test_deep_json_in_an_lmms_eval_results_summary(seeded, tmp_path):
    path = lmms_file(tmp_path)
    summary = next(path.parent.glob("*_results.json"))
    summary.write_text('{"configs": ' + _deep() + "}")
    assert_problem(refused(seeded, path), summary.name, "(file)", "-", "nested more than 100")


@pytest.mark.parametrize("which", ["output", "input"])
def test_deep_json_in_a_batch_line(seeded, tmp_path, which):
    out = hf.write_jsonl(tmp_path / "out.jsonl", [hf.batch_output_line("r-1", "x")])
    batch_in = hf.write_jsonl(tmp_path / "in.jsonl", [hf.batch_input_line("r-1", "q000000")])
    target = out if which == "output" else batch_in
    with target.open("a") as handle:
        handle.write('{"custom_id": "r-2", "deep": ' + _deep() + "}\n")
    problem = refused(seeded, out, format="openai-batch", batch_input=batch_in)
    assert_problem(problem, target.name, "line 2", "-", "nested more than 100")


def test_deep_json_on_the_first_line_under_auto_format(seeded, tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text('{"a": ' + _deep() + "}\n")
    assert_problem(refused(seeded, path), "out.jsonl", "line 1", "-", "nested more than 100")


def test_a_csv_field_over_the_csv_limit(seeded, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(f"question_id,answer\nq000000,{'x' * (csv.field_size_limit() + 1)}\n")
    assert_problem(refused(seeded, path), "t.csv", "row 2", "-", "csv's field limit")


def test_a_workbook_whose_sheet_xml_is_cut_short(seeded, tmp_path):
    from openpyxl import Workbook

    book = Workbook()  # as pandas' to_excel writes (VLMEvalKit): with the sheet's dimension,
    for row in [hf.VLMEVAL_COLUMNS] + [hf.vlmevalkit_row(i, f"m{i:06d}", "A") for i in range(200)]:
        book.active.append(row)  # so the sheet is parsed while its rows are read, not on open
    path = tmp_path / "Qwen2-VL-7B_StoryVideoQA.xlsx"
    book.save(path)
    cut = path.with_name("cut.xlsx")
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(cut, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename.startswith("xl/worksheets/"):
                data = data[: len(data) // 2]
            target.writestr(item, data)
    problem = refused(seeded, cut)
    assert (problem.file, problem.field) == ("cut.xlsx", "-") and problem.record.startswith("row")
    assert "XML is damaged or cut short (ParseError" in problem.message


def test_a_binary_parquet_answer_column(seeded, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "t.parquet"
    pq.write_table(
        pa.table({"question_id": ["q000000"], "answer": pa.array([b"ok"], pa.binary())}), path
    )
    assert_problem(refused(seeded, path), "t.parquet", "(schema)", "answer", "binary column")


def test_a_csv_with_a_nul_byte(seeded, tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"question_id,answer\nq000000,o\x00k\n")
    assert_problem(refused(seeded, path), "t.csv", "row 2", "answer", "a NUL byte")


def test_a_csv_with_an_unclosed_quote(seeded, tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('question_id,answer\nq000000,"ok\nq000001,fine\nq000002,more\n')
    assert_problem(refused(seeded, path), "t.csv", "row 2", "-", "never closed")


def test_the_command_prints_one_error_line_not_a_traceback(seeded, tmp_path, store_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"question_id,answer\nq000000,caf\xe9\n")
    result = cli("import", "results", str(path), "--store", str(store_path))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "t.csv, row 2, field 'answer': text is not UTF-8" in error_lines(result.output)[0]


# -- the Runs page's upload panel ---------------------------------------------------------------
def _upload(name: str, data: bytes):
    from tests.support.apptest_pages import run_page

    at = run_page(REPO_ROOT, "runs_page")
    at.file_uploader(key="import_upload").set_value((name, data, "application/octet-stream"))
    return at.run()


@pytest.mark.parametrize(
    "name, data, words",
    [
        ("t.csv", b"question_id,answer\nq1,caf\xe9\n", "t.csv, row 2, field 'answer': text is not"),
        ("x_samples_t.jsonl", b'{"doc_id": ' + _deep().encode() + b"}\n", "nested more than 100"),
        ("t.csv", b"question_id,answer\nq1,o\x00k\n", "a NUL byte"),
    ],
    ids=["latin1", "deep-json", "nul"],
)
def test_the_panel_shows_the_error_not_a_traceback(fixture_store, name, data, words):
    before = store_dump(fixture_store)
    at = _upload(name, data)
    assert not at.exception
    assert at.error[0].value == "The file cannot be imported; nothing was written."
    shown = "\n".join(element.value for element in at.text)
    assert words in shown
    assert "Traceback" not in shown and "storyscope-upload-" not in shown and "/tmp" not in shown
    assert at.button(key="import_commit").disabled
    assert store_dump(fixture_store) == before


def test_the_panel_refuses_an_eval_bomb(fixture_store, tmp_path):
    bomb = _padded(_inspect_log(tmp_path), "samples/1_", 40 * MIB)
    at = _upload("run.eval", bomb.read_bytes())
    assert not at.exception
    shown = "\n".join(element.value for element in at.text)
    assert "run.eval, member samples/1_" in shown and "refused unread" in shown
    assert "storyscope-upload-" not in shown


def test_reports_stay_json(seeded, tmp_path, store_path):
    """(the --json report of a dry run is unchanged by the dry run's new store handling)"""
    path = lmms_file(tmp_path)
    dry = cli("import", "results", str(path), "--store", str(store_path), "--dry-run", "--json")
    assert dry.exit_code == 0 and json.loads(dry.output)["n_matched"] == 3


def test_the_documented_bounds_are_the_code_s():
    from data_access.importers.results.results_doc import RESULTS_SECTION
    from pipelines.results import bounded

    text = " ".join(RESULTS_SECTION.split())
    for phrase in (
        f"expand past {bounded.MAX_MEMBER_BYTES // MIB} MB",
        f"all members past {bounded.MAX_EXPANDED_BYTES // (1024 * MIB)} GB",
        f"over {bounded.RATIO_FLOOR_BYTES // MIB} MB more than {bounded.MAX_RATIO} times",
        f"is at most {bounded.MAX_WHOLE_FILE_BYTES // MIB} MB",
        f"a CSV row) at most {bounded.MAX_RECORD_BYTES // MIB} MB",
    ):
        assert phrase in text, phrase
