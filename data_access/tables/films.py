"""Films written by the preprocessing pipeline, and the film queries the Film page adds.

Write path: `write_film` puts one
    film's scenes, script lines, characters and subtitles under one
run, inside the caller's transaction (so a failure leaves the store as it was). Rows go in as
DataFrames (DuckDB inserts a frame in one statement, much faster than row-by-row). The `films`
row is keyed by film id only, so a re-ingest updates it to point at the newest run; the per-run
tables append and the `current_*` views pick the latest finished run.

A film id is owned by the dataset that first brought it: a re-ingest into the same dataset is a
new version of that film, but a film of another dataset (an imported dataset whose questions
point at its scenes) is never replaced: `FilmIdTaken`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import duckdb
import pandas as pd

from data_access.store import Store, append_table
from data_access.tables.dataset_ids import dataset_already_stored

SCENE_COLUMNS = [
    "film_id",
    "scene_index",
    "heading",
    "location",
    "time_of_day",
    "start_s",
    "end_s",
    "time_source",
    "summary",
    "summary_backend",
    "run_id",
]
LINE_COLUMNS = [
    "film_id",
    "line_index",
    "scene_index",
    "kind",
    "character",
    "parenthetical",
    "text",
    "start_s",
    "end_s",
    "run_id",
]
CUE_COLUMNS = ["film_id", "line_index", "cue", "cue_extensions", "run_id"]
CHARACTER_COLUMNS = [
    "film_id",
    "character_id",
    "canonical_name",
    "aliases",
    "first_spoken_s",
    "merge_evidence",
    "run_id",
]
SUBTITLE_COLUMNS = ["film_id", "cue_index", "start_s", "end_s", "text", "matched_line", "run_id"]


class FilmIdTaken(ValueError):
    """The film id belongs to a film of another dataset; nothing was written."""


@dataclass
class FilmRows:
    """One film as rows of the core tables (dicts keyed by column, without film_id/run_id)."""

    film: dict
    scenes: list[dict] = field(default_factory=list)
    lines: list[dict] = field(default_factory=list)
    cues: list[dict] = field(default_factory=list)  # per spoken line: line_index, cue, extensions
    characters: list[dict] = field(default_factory=list)
    subtitles: list[dict] = field(default_factory=list)


def ensure_dataset(
    cursor: duckdb.DuckDBPyConnection,
    dataset_id: str,
    name: str,
    kind: str,
    source: str | None,
    licence: str | None,
    run_id: str,
) -> None:
    """Create the dataset row the film belongs to, unless it exists.

    Raises:
        DatasetIdTaken: the store has another dataset (other name or kind) under this id.
    """
    if not dataset_already_stored(cursor, dataset_id, {"name": name, "kind": kind}):
        cursor.execute(
            "INSERT INTO datasets (dataset_id, name, kind, source, licence, run_id)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            [dataset_id, name, kind, source, licence, run_id],
        )


def refuse_films_of_other_datasets(
    cursor: duckdb.DuckDBPyConnection,
    films: list[dict],
    remedy: str = "choose another id with --film-id ID",
) -> None:
    """Raise `FilmIdTaken` when one of `films` (dicts with film_id and dataset_id) is in the
    store under another dataset; the one place every film writer asks (ingest, ToM import).
    `remedy` ends the message: what the user can do instead."""
    incoming = {film["film_id"]: film["dataset_id"] for film in films}
    stored = cursor.execute(
        "SELECT f.film_id, f.dataset_id, f.title, d.name FROM films f"
        " LEFT JOIN datasets d USING (dataset_id) WHERE f.film_id IN (SELECT unnest(?))"
        " ORDER BY f.film_id",
        [list(incoming)],
    ).fetchall()
    for film_id, dataset_id, title, dataset_name in stored:
        if dataset_id != incoming[film_id]:
            raise FilmIdTaken(
                f"film id {film_id!r} is already in the store: {title!r} from dataset"
                f" {dataset_id!r} ({dataset_name or 'no dataset row'}); it is not replaced:"
                f" {remedy}"
            )


def _upsert_film(cursor: duckdb.DuckDBPyConnection, film: dict, run_id: str) -> None:
    refuse_films_of_other_datasets(cursor, [film])
    columns = [
        "film_id",
        "dataset_id",
        "title",
        "year",
        "kind",
        "runtime_s",
        "source",
        "video_path",
        "fps",
    ]
    values = [film.get(c) for c in columns]
    cursor.execute("DELETE FROM films WHERE film_id = ?", [film["film_id"]])
    cursor.execute(
        f"INSERT INTO films ({', '.join(columns)}, run_id)"
        f" VALUES ({', '.join('?' * len(columns))}, ?)",
        values + [run_id],
    )


def _insert_frame(
    cursor: duckdb.DuckDBPyConnection,
    table: str,
    columns: list[str],
    rows: list[dict],
    film_id: str,
    run_id: str,
) -> None:
    if not rows:
        return
    frame = pd.DataFrame([{**row, "film_id": film_id, "run_id": run_id} for row in rows])
    append_table(cursor, table, frame.reindex(columns=columns))


def write_film(cursor: duckdb.DuckDBPyConnection, rows: FilmRows, run_id: str) -> None:
    """Write one film under `run_id` inside the caller's transaction.

    Raises:
        FilmIdTaken: a film of another dataset has this id (nothing written by this call).
    """
    film_id = rows.film["film_id"]
    _upsert_film(cursor, rows.film, run_id)
    characters = [
        {**c, "merge_evidence": json.dumps(c.get("merge_evidence") or [])} for c in rows.characters
    ]
    _insert_frame(cursor, "scenes", SCENE_COLUMNS, rows.scenes, film_id, run_id)
    _insert_frame(cursor, "script_lines", LINE_COLUMNS, rows.lines, film_id, run_id)
    _insert_frame(cursor, "script_line_cues", CUE_COLUMNS, rows.cues, film_id, run_id)
    _insert_frame(cursor, "characters", CHARACTER_COLUMNS, characters, film_id, run_id)
    _insert_frame(cursor, "subtitles", SUBTITLE_COLUMNS, rows.subtitles, film_id, run_id)


# -- queries ------------------------------------------------------------------------------------


def film_exists(store: Store, film_id: str) -> bool:
    """Whether the store has a film with this id."""
    return bool(store.scalar("SELECT count(*) FROM films WHERE film_id = ?", [film_id]))


def set_film_video(store: Store, film_id: str, video_path: str, fps: float) -> None:
    """Registers (or replaces) the video of a film already in the store: its path and frame rate.

    Raises KeyError when there is no such film; nothing is written then."""
    with store.transaction() as cursor:
        found = cursor.execute("SELECT count(*) FROM films WHERE film_id = ?", [film_id])
        if not found.fetchone()[0]:
            raise KeyError(film_id)
        cursor.execute(
            "UPDATE films SET video_path = ?, fps = ? WHERE film_id = ?", [video_path, fps, film_id]
        )
