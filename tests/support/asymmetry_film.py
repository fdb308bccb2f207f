"""A screenplay film for the asymmetry belief backend."""

from __future__ import annotations

import pytest

from data_access.store import append_rows
from data_access.tables import belief_records
from data_access.tables.runs import RunSpec, finish_run, insert_run

FILM = "asymmetry-fixture"


# (scene, kind, character, text). Nora hides the ledger; Sam lies to Ellen about it, then moves
# it while both are away; Nora finds it in its new place.
LINES = [
    (0, "direction", None, "NORA and SAM stand by the desk. Nora puts the ledger in the drawer."),
    (0, "dialogue", "NORA", "Nobody will look in the drawer."),
    (1, "direction", None, "ELLEN waits in the hall. SAM joins her."),
    (1, "dialogue", "SAM", "The ledger is in the car."),
    (1, "dialogue", "ELLEN", "Then I will fetch it from the car tomorrow."),
    (2, "direction", None, "SAM moves the ledger to the safe."),
    (2, "dialogue", "SAM", "Nobody will find it here."),
    (3, "direction", None, "NORA opens the safe. The ledger is in the safe."),
    (3, "dialogue", "NORA", "So somebody moved it."),
]


LOCATIONS = {0: "OFFICE", 1: "HALL", 2: "OFFICE", 3: "OFFICE"}


@pytest.fixture
def fixture_film(store):
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec("preprocess.film", backend="fixture"))
        film = {"film_id": FILM, "dataset_id": "fixture", "title": "Asymmetry", "kind": "film"}
        belief_records.ensure_films(cursor, [film], run_id)
        scenes = [
            {"film_id": FILM, "scene_index": i, "heading": f"INT. {place} - {i}", "location": place}
            for i, place in LOCATIONS.items()
        ]
        append_rows(
            cursor, "scenes", scenes, belief_records.COLUMNS["scenes"], fixed={"run_id": run_id}
        )
        lines = [
            {
                "film_id": FILM,
                "line_index": n,
                "scene_index": s,
                "kind": k,
                "character": c,
                "text": t,
            }
            for n, (s, k, c, t) in enumerate(LINES)
        ]
        append_rows(
            cursor,
            "script_lines",
            lines,
            belief_records.COLUMNS["script_lines"],
            fixed={"run_id": run_id},
        )
        finish_run(cursor, run_id)
    return store
