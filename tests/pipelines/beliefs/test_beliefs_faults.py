"""The offline belief backends against hostile screenplays: character names are text, never
regular-expression patterns or replacement templates (a name holding a backslash once crashed
both backends with `re.error: bad escape`)."""

from __future__ import annotations

import pytest

from data_access.store import append_rows
from data_access.tables import belief_records
from data_access.tables.runs import RunSpec, finish_run, insert_run
from pipelines.beliefs.annotate import annotate

FILM = "backslash-names"
ODD = r"\d+"
# Every place a name reaches a pattern: a cue, the first and second person turned into the
# speaker's and listener's names, a name in a direction and a "He" that refers back to it.
LINES = [
    (0, "direction", None, rf"{ODD} and NORA stand by the desk. {ODD} puts the ledger away."),
    (0, "dialogue", ODD, "I put it in the drawer. You're the only one who knows, my friend."),
    (0, "dialogue", "NORA", "You've hidden it well. I will not tell."),
    (1, "direction", None, rf"{ODD} walks in. He moves the ledger to the safe. \1 \g<0>"),
    (1, "dialogue", ODD, r"I moved it, Nora. \g<0> is my name."),
]


@pytest.fixture
def odd_film(store):
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec("preprocess.film", backend="fixture"))
        film = {"film_id": FILM, "dataset_id": "fixture", "title": "Odd", "kind": "film"}
        belief_records.ensure_films(cursor, [film], run_id)
        scenes = [
            {"film_id": FILM, "scene_index": i, "heading": f"INT. ROOM - {i}", "location": "ROOM"}
            for i in (0, 1)
        ]
        append_rows(
            cursor, "scenes", scenes, belief_records.COLUMNS["scenes"], fixed={"run_id": run_id}
        )
        lines = [
            {"film_id": FILM, "line_index": n, "scene_index": s, "kind": k, "character": c,
             "text": t}
            for n, (s, k, c, t) in enumerate(LINES)
        ]  # fmt: skip
        append_rows(
            cursor,
            "script_lines",
            lines,
            belief_records.COLUMNS["script_lines"],
            fixed={"run_id": run_id},
        )
        finish_run(cursor, run_id)
    return store


@pytest.mark.parametrize("backend", ["rules", "asymmetry"])
def test_a_name_holding_a_backslash_is_text(odd_film, backend):
    result = annotate(odd_film, FILM, backend)
    assert result.run_id
    people = {
        row[0]
        for row in odd_film.rows(
            "SELECT DISTINCT character FROM presence WHERE film_id = ?", [FILM]
        )
    }
    assert ODD in people, people
    texts = " ".join(
        row[0] for row in odd_film.rows("SELECT content FROM beliefs WHERE film_id = ?", [FILM])
    )
    # the name is written back as it is, never read as `\d` or a group reference
    assert "\\d+" in texts or backend == "asymmetry", texts
