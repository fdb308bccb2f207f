"""Belief records in the store: the write path of the belief pipelines and the queries the
belief pages need beyond `data_access.queries.beliefs_view` (which serves lanes, a belief's
basis and the questions citing it).

Rows arrive as plain dicts per table; they are written with the caller's cursor so that an
import is one transaction (DESIGN.md: bad input leaves the store as it was).
"""

from __future__ import annotations

import pandas as pd
import pyarrow as pa

from data_access.store import Store, append_rows, append_table
from data_access.tables.films import refuse_films_of_other_datasets

_S, _I, _F, _B, _L = pa.string(), pa.int32(), pa.float64(), pa.bool_(), pa.list_(pa.string())

# Columns written per table with their Arrow types: typed on the way in, so a column that is
# empty or all NULL in one import still lands with the table's type.
COLUMNS: dict[str, dict[str, pa.DataType]] = {
    "scenes": {
        "film_id": _S,
        "scene_index": _I,
        "heading": _S,
        "location": _S,
        "time_of_day": _S,
        "start_s": _F,
        "end_s": _F,
        "time_source": _S,
        "summary": _S,
        "summary_backend": _S,
    },
    "script_lines": {
        "film_id": _S,
        "line_index": _I,
        "scene_index": _I,
        "kind": _S,
        "character": _S,
        "parenthetical": _S,
        "text": _S,
        "start_s": _F,
        "end_s": _F,
    },
    "scene_events": {
        "film_id": _S,
        "event_id": _S,
        "scene_index": _I,
        "ord": _I,
        "description": _S,
        "participants": _L,
        "witnesses": _L,
    },
    "presence": {
        "film_id": _S,
        "scene_index": _I,
        "character": _S,
        "status": _S,
        "witnessed_events": _L,
    },
    "beliefs": {
        "film_id": _S,
        "belief_id": _S,
        "holder": _S,
        "scene_index": _I,
        "kind": _S,
        "content": _S,
        "source_character": _S,
        "believed": _B,
        "basis": _L,
        "confidence": _S,
        "is_false": _B,
        "revises": _S,
        "revised_at_scene": _I,
        "trigger": _S,
    },
    "meta_beliefs": {
        "film_id": _S,
        "meta_id": _S,
        "holder": _S,
        "about": _S,
        "scene_index": _I,
        "claim": _S,
        "type": _S,
        "change": _S,
        "source": _S,
        "basis": _L,
        "confidence": _S,
        "order_depth": _I,
    },
}


def ensure_films(cursor, films: list[dict], run_id: str) -> None:
    """Add films not yet in the store (a re-import appends new runs of their rows); a film id
    of another dataset is refused (`FilmIdTaken`), never given this dataset's rows."""
    if not films:
        return
    refuse_films_of_other_datasets(cursor, films, "import this dataset into another --store")
    schema = pa.schema(
        [
            ("film_id", _S),
            ("dataset_id", _S),
            ("title", _S),
            ("year", _I),
            ("kind", _S),
            ("source", _S),
            ("run_id", _S),
        ]
    )
    arrow = pa.Table.from_pylist([{**film, "run_id": run_id} for film in films], schema=schema)
    append_table(cursor, "films", arrow, conflict="ignore")  # (a film stored keeps its row)


def belief_state_at(store: Store, film_id: str, holder: str, scene_index: int) -> pd.DataFrame:
    """What `holder` believes at scene `scene_index`: beliefs formed at or before it and not
    yet revised, excluding rejected tells."""
    return store.df(
        """
        SELECT belief_id, kind, content, source_character, is_false, scene_index,
               revised_at_scene, array_to_string(coalesce(basis, []), ', ') AS basis
        FROM current_beliefs
        WHERE film_id = ? AND holder = ? AND scene_index <= ?
          AND (revised_at_scene IS NULL OR revised_at_scene > ?)
          AND coalesce(believed, true)
        ORDER BY scene_index, belief_id
        """,
        [film_id, holder, scene_index, scene_index],
    )


def meta_beliefs_about(
    store: Store,
    film_id: str,
    holder: str,
    about: str | None = None,
    up_to_scene: int | None = None,
) -> pd.DataFrame:
    """What `holder` thinks `about` (or anyone) believes, in film order."""
    return store.df(
        """
        SELECT meta_id, about, scene_index, claim, type, change, source, confidence,
               order_depth, array_to_string(coalesce(basis, []), ', ') AS basis
        FROM current_meta_beliefs
        WHERE film_id = ? AND holder = ? AND (? IS NULL OR about = ?)
          AND (? IS NULL OR scene_index <= ?)
        ORDER BY scene_index, order_depth, meta_id
        """,
        [film_id, holder, about, about, up_to_scene, up_to_scene],
    )


def film_scene_text(store: Store, film_id: str) -> pd.DataFrame:
    """A film's scenes with their characters and script lines, for the annotation backends."""
    return store.df(
        """
        SELECT l.scene_index, s.heading, s.location, s.summary, l.line_index, l.kind,
               l.character, l.parenthetical, l.text, c.cue_extensions, c.cue
        FROM current_script_lines l
        LEFT JOIN current_scenes s ON s.film_id = l.film_id AND s.scene_index = l.scene_index
        LEFT JOIN script_line_cues c
          ON c.film_id = l.film_id AND c.line_index = l.line_index AND c.run_id = l.run_id
        WHERE l.film_id = ? AND l.scene_index IS NOT NULL
        ORDER BY l.scene_index, l.line_index
        """,
        [film_id],
    )


def film_characters(store: Store, film_id: str) -> pd.DataFrame:
    """The film's canonical characters and their aliases."""
    return store.df(
        "SELECT character_id, canonical_name, aliases FROM current_characters"
        " WHERE film_id = ? ORDER BY canonical_name",
        [film_id],
    )


def film_record(store: Store, film_id: str) -> dict | None:
    """One film's row as a dict, or None."""
    frame = store.df("SELECT * FROM films WHERE film_id = ?", [film_id])
    return None if frame.empty else frame.iloc[0].to_dict()


def write_annotation(
    store: Store,
    run,
    tables: dict[str, list[dict]],
    issues: list[dict] = (),
    status: str = "finished",
    n_failed: int = 0,
) -> tuple[str, dict]:
    """Write one annotation run's rows (scene_events, presence, beliefs, meta_beliefs) and parse
    issues in one transaction and close the run; returns the run id and the row counts.

    `run` is a RunSpec (the run is inserted in the same transaction: the rules backend) or the id
    of a run started earlier so the gateway could log its calls under it (the LLM backend)."""
    with store.transaction() as cursor:
        return insert_annotation(cursor, run, tables, issues, status, n_failed)


def insert_annotation(
    cursor,
    run,
    tables: dict[str, list[dict]],
    issues: list[dict] = (),
    status: str = "finished",
    n_failed: int = 0,
) -> tuple[str, dict]:
    """`write_annotation` inside the caller's transaction (a scaled-out run writes a unit's
    rows together with its ledger row, pipelines/beliefs/scaled.py)."""
    from data_access.tables.runs import finish_run, insert_run

    counts = {}
    run_id = run if isinstance(run, str) else insert_run(cursor, run)
    for table in ("scene_events", "presence", "beliefs", "meta_beliefs"):
        counts[table] = append_rows(
            cursor, table, tables.get(table, []), COLUMNS[table], fixed={"run_id": run_id}
        )
    for issue in issues:
        cursor.execute(
            "INSERT INTO belief_parse_issues (run_id, item_id, stage, issue) VALUES (?, ?, ?, ?)",
            [run_id, issue["item_id"], issue["stage"], issue["issue"]],
        )
    finish_run(cursor, run_id, status, n_items=sum(counts.values()), n_failed=n_failed)
    return run_id, counts


def parse_issues(store: Store, run_id: str) -> pd.DataFrame:
    """What the parsers of one annotation run could not use."""
    return store.df(
        "SELECT item_id, stage, issue FROM belief_parse_issues WHERE run_id = ? ORDER BY item_id",
        [run_id],
    )


def screenplay_films_without_beliefs(
    store: Store, datasets: tuple[str, ...] = ("storyscope_samples", "screenplay_pairs")
) -> list[str]:
    """Ingested screenplay films (of the given datasets) that have script lines but no presence
    rows yet: the films the rules backend still has to annotate."""
    frame = store.df(
        "SELECT f.film_id FROM films f WHERE f.kind = 'film' AND list_contains(?, f.dataset_id)"
        " AND EXISTS (SELECT 1 FROM script_lines l WHERE l.film_id = f.film_id)"
        " AND NOT EXISTS (SELECT 1 FROM presence p WHERE p.film_id = f.film_id)"
        " ORDER BY f.film_id",
        [list(datasets)],
    )
    return list(frame["film_id"])


def current_belief_count(store: Store, film_id: str) -> int:
    """How many current belief rows a film has."""
    return int(store.scalar("SELECT count(*) FROM current_beliefs WHERE film_id = ?", [film_id]))


def films_with_script_lines(store: Store) -> list[str]:
    """Films that have current script lines in scenes (what the rules backend annotates)."""
    return [
        row[0]
        for row in store.rows(
            "SELECT DISTINCT film_id FROM current_script_lines"
            " WHERE scene_index IS NOT NULL ORDER BY film_id"
        )
    ]
