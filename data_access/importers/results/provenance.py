"""Where imported results came from: the file hash, the setting's name, and the
`result_imports` rows that make re-importing the same file a no-op."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import duckdb

from data_access.importers.results.report import ResultsReport
from data_access.importers.results.samples import HarnessRun

IMPORT_STEP = "import.results"
_CHUNK = 1 << 20


def files_sha256(files: list[Path]) -> str:
    """sha256 of one file's bytes; of several, the sha256 of their names and hashes in order."""
    digests = []
    for path in files:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
        digests.append((path.name, digest.hexdigest()))
    if len(digests) == 1:
        return digests[0][1]
    return hashlib.sha256("\n".join(f"{n} {h}" for n, h in digests).encode()).hexdigest()


_LOCAL_PATH = re.compile(r"^(?:[/~\\]|[A-Za-z]:[/\\])")


def model_label(model: str) -> str:
    """A model as a setting name shows it: a hub id (`org/name`) as it is, a local path (a
    harness records `pretrained=/home/me/ckpt/llava-7b` as the model) by its last folder, so a
    name never carries one machine's file system."""
    if not _LOCAL_PATH.match(model):
        return model
    return re.split(r"[/\\]", model.rstrip("/\\"))[-1] or model


def derived_setting_name(run: HarnessRun) -> str:
    """`<harness>:<model>:<task>` (model and task as the file names them, a local model path by
    its last folder; an agent run's tier appended, `agent-<tier>`), for --setting unset."""
    parts = [run.harness, model_label(run.model) if run.model else "unknown-model"]
    if run.task:
        parts.append(run.task)
    if run.tier:  # an agent run: one setting per tier, as the loop's `agent-<tier>`
        parts.append(f"agent-{run.tier}")
    return ":".join(re.sub(r"\s+", "_", part.strip()) for part in parts)


def previous_import(
    cursor: duckdb.DuckDBPyConnection, sha256: str, setting_name: str
) -> tuple[str, str] | None:
    """(run id, setting id) of a finished import of the same bytes under the same name.

    Asked inside the importing transaction, which holds the store file, so a second import of
    the same file running at the same time (another process waits for the file) sees the first.
    """
    rows = cursor.execute(
        "SELECT i.run_id, i.setting_id FROM result_imports i JOIN runs r USING (run_id)"
        " WHERE i.file_sha256 = ? AND i.setting_name = ? AND r.status = 'finished'"
        " ORDER BY r.started_at LIMIT 1",
        [sha256, setting_name],
    ).fetchall()
    return (rows[0][0], rows[0][1]) if rows else None


def made_elsewhere(cursor: duckdb.DuckDBPyConnection, kind: str, setting_id: str) -> str | None:
    """What made this setting (answers) or method (predictions) when something other than a
    results import did (the paper's import, `storyscope answer`, the settings registry): a
    description for the refusal; None when it is new or only results imports wrote it."""
    if kind == "answers":
        rows = cursor.execute(
            "SELECT coalesce(r.step, 'an unknown run'), s.answerer, s.source FROM settings s"
            " LEFT JOIN runs r USING (run_id) WHERE s.setting_id = ?"
            " AND r.step IS DISTINCT FROM ?"
            " UNION ALL SELECT coalesce(r.step, 'an unknown run'), NULL, NULL FROM answers a"
            " LEFT JOIN runs r USING (run_id) WHERE a.setting_id = ?"
            " AND r.step IS DISTINCT FROM ? LIMIT 1",
            [setting_id, IMPORT_STEP, setting_id, IMPORT_STEP],
        ).fetchall()
    else:
        rows = cursor.execute(
            "SELECT coalesce(r.step, 'an unknown run'), NULL, NULL FROM mcq_predictions p"
            " LEFT JOIN runs r USING (run_id) WHERE p.method = ?"
            " AND r.step IS DISTINCT FROM ? LIMIT 1",
            [setting_id, IMPORT_STEP],
        ).fetchall()
    if not rows:
        return None
    step, answerer, source = rows[0]
    said = ", ".join(
        f"{name} {value}" for name, value in (("answerer", answerer), ("source", source)) if value
    )
    return f"{step}" + (f" ({said})" if said else "")


def setting_in_use(cursor: duckdb.DuckDBPyConnection, kind: str, setting_id: str) -> bool:
    """True when the setting already has answers (or the method predictions)."""
    sql = (
        "SELECT 1 FROM answers WHERE setting_id = ? LIMIT 1"
        if kind == "answers"
        else "SELECT 1 FROM mcq_predictions WHERE method = ? LIMIT 1"
    )
    return bool(cursor.execute(sql, [setting_id]).fetchall())


def record_import(
    cursor: duckdb.DuckDBPyConnection, report: ResultsReport, setting_name: str
) -> None:
    """The `result_imports` row of this import (its run is `report.run_id`)."""
    unmatched = {reason: vars(group) for reason, group in report.unmatched.items()}
    cursor.execute(
        "INSERT INTO result_imports (run_id, setting_name, setting_id, kind, format, harness,"
        " harness_version, model, model_args, task, source, file_sha256, n_samples, n_matched,"
        " unmatched) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            report.run_id,
            setting_name,
            report.setting_id,
            report.kind,
            report.format,
            report.harness,
            report.harness_version,
            report.model,
            report.model_args,
            report.task,
            report.source,
            report.file_sha256,
            report.n_samples,
            report.n_matched,
            json.dumps(unmatched),
        ],
    )
