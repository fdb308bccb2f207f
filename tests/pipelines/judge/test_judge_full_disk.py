"""A disk that fills while `storyscope judge` runs exits 4 (pipelines/cli/faults.py), as a disk
full from the start does, with what to do; the batches written before it stay, and the job can
be resumed. The fault is injected where the judge writes a batch: the second batch meets DuckDB's
own disk-full error, after the first was committed."""

from __future__ import annotations

import duckdb
from typer.testing import CliRunner

from data_access.tables import judging
from pipelines.cli import app, load_commands
from tests.support.lfvqa_rows import build_slice

load_commands()

DISK_FULL = (
    'IO Error: Could not write all bytes to file "store.duckdb.wal": wanted=4096 wrote=0'
    " (No space left on device)"
)


def test_a_disk_that_fills_mid_judge_exits_4(store, monkeypatch):
    sizes = build_slice(store, n_copies=12)
    assert sizes["answers"] > 32  # more than one batch: the disk fills after the first
    original, calls = judging.write_verdicts, []

    def filling_disk(cursor, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise duckdb.IOException(DISK_FULL)
        return original(cursor, *args, **kwargs)

    monkeypatch.setattr(judging, "write_verdicts", filling_disk)
    result = CliRunner().invoke(app, ["judge", "--backend", "lexical", "--store", str(store.path)])
    assert result.exit_code == 4, result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "the disk is full" in errors[0], result.output
    assert "storyscope jobs resume" in errors[0]
    job = store.df("SELECT job_id, state FROM jobs").iloc[0]
    assert job.state == "failed"
    written = store.scalar("SELECT count(DISTINCT answer_id) FROM claim_verdicts")
    assert 0 < written < sizes["answers"]  # the first batch stayed, the second was rolled back

    monkeypatch.setattr(judging, "write_verdicts", original)  # space freed: resume finishes
    resumed = CliRunner().invoke(app, ["jobs", "resume", job.job_id, "--store", str(store.path)])
    assert resumed.exit_code == 0, resumed.output
    assert store.scalar("SELECT count(DISTINCT answer_id) FROM claim_verdicts") == sizes["answers"]
