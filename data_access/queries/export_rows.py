"""Export any slice of the store: tables and views with the run ids that made each row,
as Parquet, CSV or JSONL, written by DuckDB's own `COPY` (no hand-written serialisers).

`EXPORTS` names what can be exported; each is one SELECT with a `run_id` column (or run ids, for
rows computed from several runs). Filters are `column = one of values` on the export's own
columns, checked against its column list and bound as parameters.

Interchange mode keeps only the fields of the matching `storyscope-lfvqa` table file
(`data_access.formats.lfvqa_records`) and writes `<table>.<ext>` plus a `manifest.json`, so the
folder imports again with `storyscope import lfvqa` (into a store that lacks those rows).
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa

from data_access.formats.lfvqa_records import FORMAT_NAME, FORMAT_VERSION
from data_access.formats.table_files import TABLE_FILES
from data_access.queries.agent_trail_view import TRAIL_ANSWERS_SQL
from data_access.rollups.source import SOURCED_TABLES, source
from data_access.store import Store

FORMATS = ("parquet", "csv", "jsonl")
_COPY_OPTIONS = {"parquet": "FORMAT parquet", "csv": "FORMAT csv, HEADER", "jsonl": "FORMAT json"}


@dataclass(frozen=True)
class ExportSource:
    """One exportable table or view: its SELECT and, if any, its interchange table file."""

    sql: str
    interchange: str | None = None
    description: str = ""


EXPORTS: dict[str, ExportSource] = {
    "films": ExportSource("SELECT * FROM films", "films", "films and episodes"),
    "questions": ExportSource(
        "SELECT * FROM questions", "questions", "open-ended questions (status as last decided)"
    ),
    "claims": ExportSource("SELECT * FROM rubric_claims", "rubric_claims", "rubric claims"),
    "evidence": ExportSource(
        "SELECT * FROM question_evidence", "question_evidence", "evidence times of questions"
    ),
    "settings": ExportSource("SELECT * FROM settings", "settings", "answer settings"),
    "answers": ExportSource("SELECT * FROM answers", "answers", "model answers"),
    "judges": ExportSource("SELECT * FROM judges", "judges", "judges (LLM, lexical, human)"),
    "verdicts": ExportSource(
        "SELECT * FROM current_claim_verdicts",
        "claim_verdicts",
        "current claim verdicts of every judge, humans included",
    ),
    "verdicts-history": ExportSource(
        "SELECT v.*, r.started_at FROM claim_verdicts v JOIN runs r USING (run_id)",
        "claim_verdicts",
        "every verdict ever written (history of relabelled claims)",
    ),
    "metrics": ExportSource(
        # Eq. 1 inputs per (judge, answer) from the current verdicts (the one definition,
        # data_access.rollups.sql), with the runs that wrote them; pipelines.export adds the
        # scores. Gold self-checks (no row in `answers`) are left out, as in the metrics.
        "SELECT e.*, r.run_ids FROM {rollup_answer_verdicts} e JOIN ("
        " SELECT judge_id, answer_id, string_agg(DISTINCT run_id, ',' ORDER BY run_id) AS run_ids"
        " FROM current_claim_verdicts GROUP BY ALL) r USING (judge_id, answer_id)",
        None,
        "per-answer recall / precision / F1 / contradiction (Eq. 1) of every judge",
    ),
    "agent-steps": ExportSource(
        "SELECT * FROM agent_steps", None, "agents' tool calls: the evidence trail, call by call"
    ),
    "agent-answers": ExportSource(
        "SELECT * FROM agent_answers", None, "how each agent question ended, turns and tokens"
    ),
    "agent-trail": ExportSource(
        # the one per-loop definition the Verdicts panel and `storyscope metrics` read;
        # pipelines.export adds the trail measures (share touched, tIoU, tokens)
        TRAIL_ANSWERS_SQL,
        None,
        "per agent loop: evidence touched, temporal IoU, steps, tool calls, tokens, outcome",
    ),
    "agent-trail-settings": ExportSource(
        TRAIL_ANSWERS_SQL,  # pipelines.export turns the loops into per-setting means
        None,
        "per agent setting: the trail figures' means with 95% intervals and outcome counts",
    ),
    "beliefs": ExportSource("SELECT * FROM current_beliefs", "beliefs", "current belief records"),
    "meta-beliefs": ExportSource(
        "SELECT * FROM current_meta_beliefs", "meta_beliefs", "current meta-beliefs"
    ),
    "mcqs": ExportSource(
        "SELECT q.*, d.d_q, d.d_a, d.d_qa, d.d, d.bin, d.run_id AS difficulty_run_id"
        " FROM mcq_questions q LEFT JOIN current_mcq_difficulty d USING (mcq_id)",
        "mcq_questions",
        "StoryVideoQA MCQs with their difficulty (D_q, D_a, D_qa, bin)",
    ),
    "plottree": ExportSource(
        "SELECT * FROM current_plottree_nodes", None, "current PlotTree nodes"
    ),
    "question-reviews": ExportSource(
        "SELECT * FROM question_reviews", None, "human question decisions (history)"
    ),
    "question-revisions": ExportSource(
        "SELECT * FROM question_revisions", None, "edited question texts"
    ),
    "claim-revisions": ExportSource("SELECT * FROM claim_revisions", None, "edited claims"),
    "answer-tags": ExportSource(
        "SELECT * FROM current_answer_tags", None, "current error tags on answers"
    ),
}


class ExportError(ValueError):
    """An export that cannot be made as asked (unknown name, column or format)."""


def export_source(name: str) -> ExportSource:
    """The export called `name`; `ExportError` naming the choices when there is none."""
    if name not in EXPORTS:
        raise ExportError(f"unknown export {name!r}; choose one of: {', '.join(EXPORTS)}")
    return EXPORTS[name]


def _source_sql(store: Store, name: str) -> str:
    """The export's SELECT, with each `{rollup_...}` it names read through the rollup source
    (the rollup while fresh, else its SELECT live: data_access.rollups.source)."""
    sql = export_source(name).sql.strip()
    for table in SOURCED_TABLES:
        if "{" + table + "}" in sql:
            sql = sql.replace("{" + table + "}", source(store, table))
    return sql


def columns_of(store: Store, name: str) -> list[str]:
    """The columns an export has."""
    with store.session() as cursor:
        return [
            d[0]
            for d in cursor.execute(
                f"SELECT * FROM ({_source_sql(store, name)}) LIMIT 0"
            ).description
        ]


def interchange_table(name: str) -> str:
    """The interchange table file an export maps to (`ExportError` when it maps to none)."""
    table_file = export_source(name).interchange
    if table_file is None:
        raise ExportError(f"{name!r} has no interchange table file (not importable)")
    return table_file


def interchange_fields(name: str) -> list[str]:
    """The fields of the interchange table file an export maps to."""
    table_file = interchange_table(name)
    spec = next(t for t in TABLE_FILES if t.name == table_file)
    return list(spec.model.model_fields)


def _filtered_sql(
    store: Store, name: str, where: Mapping[str, Sequence[str]], fields: list[str] | None
) -> tuple[str, list]:
    known = columns_of(store, name)
    clauses, params = [], []
    for column, values in where.items():
        if column not in known:
            raise ExportError(
                f"--where {column}=...: {name!r} has no column {column!r};"
                f" columns: {', '.join(known)}"
            )
        clauses.append(f'CAST("{column}" AS VARCHAR) IN (SELECT unnest(?))')
        params.append([str(v) for v in values])
    picked = ", ".join(f'"{c}"' for c in fields) if fields else "*"
    sql = f"SELECT {picked} FROM ({_source_sql(store, name)}) AS x"
    if clauses:
        sql += " WHERE " + " AND ".join(clauses)
    return sql, params


def read_export_arrow(
    store: Store,
    name: str,
    where: Mapping[str, Sequence[str]] | None = None,
    interchange: bool = False,
) -> pa.Table:
    """The rows of one export as an Arrow table, column types as in the store (filters applied).

    Arrow rather than pandas for files: pandas turns an all-NULL integer column into floats,
    which the interchange importer then rightly rejects.
    """
    fields = interchange_fields(name) if interchange else None
    sql, params = _filtered_sql(store, name, where or {}, fields)
    with store.session() as cursor:
        return cursor.sql(sql, params=params).to_arrow_table()


def read_export(
    store: Store,
    name: str,
    where: Mapping[str, Sequence[str]] | None = None,
    interchange: bool = False,
) -> pd.DataFrame:
    """The rows of one export as a DataFrame (filters applied)."""
    return read_export_arrow(store, name, where, interchange).to_pandas()


def write_frame(frame: pd.DataFrame | pa.Table, fmt: str, path: Path) -> int:
    """Write a DataFrame or Arrow table as parquet / csv / jsonl with DuckDB's COPY; returns
    rows written.

    CSV cannot hold lists: list columns are written as DuckDB prints them (`[a, b]`).
    """
    if fmt not in FORMATS:
        raise ExportError(f"format {fmt!r}: choose one of {', '.join(FORMATS)}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(frame, pd.DataFrame):
        # through Arrow: DuckDB cannot scan numpy string arrays held in object columns (lists
        # of a page's frame), pyarrow turns them into proper list columns
        frame = pa.Table.from_pandas(frame, preserve_index=False)
    with duckdb.connect() as scratch:
        scratch.register("export_frame", frame)
        # the path is ours (CLI argument or a temp file), quoted for SQL, never page input
        target = str(path).replace("'", "''")
        scratch.execute(f"COPY export_frame TO '{target}' ({_COPY_OPTIONS[fmt]})")
    return frame.num_rows


def frame_bytes(frame: pd.DataFrame, fmt: str) -> bytes:
    """A DataFrame as the bytes of a parquet / csv / jsonl file (download buttons)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"slice.{fmt}"
        write_frame(frame, fmt, path)
        return path.read_bytes()


def write_manifest(folder: Path, dataset_id: str, name: str) -> Path:
    """A `manifest.json` for an interchange folder, unless the folder already has one."""
    path = Path(folder) / "manifest.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        manifest = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "dataset_id": dataset_id,
            "name": name,
            "source": "storyscope export",
        }
        path.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return path
