"""A small screenplay film for the offline belief backends."""

from __future__ import annotations

import pytest

from data_access.store import append_rows
from data_access.tables import belief_records
from data_access.tables.runs import RunSpec, finish_run, insert_run

FILM = "rules-fixture"


# (scene, kind, character, parenthetical, text); scene 1 and 2 share a location.
LINES = [
    (0, "direction", None, None, "NORA sits at the desk. Sam enters, soaked."),
    (0, "dialogue", "SAM", None, "The bridge is out, we are stuck here."),
    (0, "dialogue", "NORA", None, "Then we wait."),
    (0, "dialogue", "VICTOR", "V.O.", "Nobody leaves the valley tonight, I made sure of it."),
    (1, "direction", None, None, "Sam hits NORA with the lamp. Nora is unconscious on the floor."),
    (1, "dialogue", "SAM", None, "I am taking the ledger to Victor right now."),
    (1, "dialogue", "ELLEN", "O.S.", "Sam? Is that you down there?"),
    (2, "direction", None, None, "The empty office. Rain on the window."),
    (2, "dialogue", "ELLEN", None, "Where did everyone go this evening?"),
]


LOCATIONS = {0: "OFFICE", 1: "OFFICE", 2: "OFFICE"}


@pytest.fixture
def fixture_film(store):
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec("preprocess.film", backend="fixture"))
        belief_records.ensure_films(
            cursor,
            [{"film_id": FILM, "dataset_id": "fixture", "title": "Rules fixture", "kind": "film"}],
            run_id,
        )
        append_rows(
            cursor,
            "scenes",
            [
                {
                    "film_id": FILM,
                    "scene_index": i,
                    "heading": f"INT. OFFICE - {i}",
                    "location": LOCATIONS[i],
                    "time_source": "none",
                }
                for i in LOCATIONS
            ],
            belief_records.COLUMNS["scenes"],
            fixed={"run_id": run_id},
        )
        append_rows(
            cursor,
            "script_lines",
            [
                {
                    "film_id": FILM,
                    "line_index": n,
                    "scene_index": s,
                    "kind": k,
                    "character": c,
                    "parenthetical": p,
                    "text": t,
                }
                for n, (s, k, c, p, t) in enumerate(LINES)
            ],
            belief_records.COLUMNS["script_lines"],
            fixed={"run_id": run_id},
        )
        finish_run(cursor, run_id)
    return store
