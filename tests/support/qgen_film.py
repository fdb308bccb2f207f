"""An original eight-scene film with belief records, built in code for the generation tests.

"The Lamp" (ours): Mara keeps a lighthouse; Tom sold the supply boat and lets Mara think Ivy
did. Each discard rule of App. F.1 has a belief that triggers it:
- `Line Judge` is never named aloud (center_never_named);
- B11 cites an event of scene 0 from scene 7 (cited_events_outside);
- B10 forms in scene 6 where Tom is absent (center_absent_from_anchor);
- B9 forms in scene 4, whose time is interpolated (anchor_interpolated).
"""

from __future__ import annotations

from data_access.tables.runs import RunSpec, finish_run, insert_run

FILM = "the-lamp-test"
SCENES = [  # (location, on-screen characters, time_source)
    ("INT. LIGHTHOUSE - NIGHT", ["Mara", "Tom"], "matched"),
    ("EXT. HARBOUR - DAY", ["Tom", "Ivy"], "matched"),
    ("INT. LIGHTHOUSE - DAY", ["Mara", "Ivy"], "matched"),
    ("INT. PUB - NIGHT", ["Tom", "Line Judge"], "matched"),
    ("EXT. CLIFF - DAY", ["Mara"], "interpolated"),
    ("INT. PUB - NIGHT", ["Mara", "Tom", "Ivy"], "matched"),
    ("EXT. HARBOUR - NIGHT", ["Ivy"], "matched"),
    ("INT. LIGHTHOUSE - NIGHT", ["Mara", "Tom"], "matched"),
]
FIRST_SPOKEN = {"Mara": 10.0, "Tom": 50.0, "Ivy": 400.0, "Line Judge": None}
# (id, holder, scene, kind, content, extra)
BELIEFS = [
    ("B1", "Mara", 0, "witnessed", "the lamp is broken", {"basis": ["e_000_1"]}),
    (
        "B2",
        "Tom",
        1,
        "told",
        "the supply boat is late",
        {"source_character": "Ivy", "believed": True, "basis": ["e_001_1"]},
    ),
    (
        "F1",
        "Mara",
        2,
        "false",
        "Ivy sold the supply boat",
        {"is_false": True, "revised_at_scene": 5, "basis": ["e_002_1"]},
    ),
    (
        "B3",
        "Mara",
        5,
        "revised",
        "Tom sold the supply boat",
        {"revises": "F1", "basis": ["e_005_1"]},
    ),
    ("B4", "Tom", 3, "inferred", "the harbour master suspects him", {"basis": ["e_003_1"]}),
    ("B5", "Ivy", 1, "witnessed", "Tom hides the boat papers", {"basis": ["e_001_1"]}),
    (
        "B6",
        "Ivy",
        5,
        "told",
        "the lamp was repaired last week",
        {"source_character": "Mara", "believed": False, "basis": ["e_005_2"]},
    ),
    ("B7", "Tom", 7, "inferred", "Mara knows about the boat", {"basis": ["e_007_1"]}),
    ("B8", "Line Judge", 3, "witnessed", "Tom is nervous", {"basis": ["e_003_1"]}),
    ("B9", "Mara", 4, "witnessed", "the cliff path is flooded", {"basis": ["e_004_1"]}),
    ("B10", "Tom", 6, "witnessed", "Ivy leaves by night", {"basis": ["e_006_1"]}),
    ("B11", "Mara", 7, "inferred", "Tom will confess", {"basis": ["e_000_1"]}),
]
METAS = [
    (
        "M1",
        "Mara",
        "Tom",
        5,
        "Ivy sold the supply boat",
        "first_order_about_d",
        "observed",
        ["e_005_1"],
    ),
    (
        "M2",
        "Mara",
        "Tom",
        7,
        "Mara knows the truth",
        "first_order_about_d",
        "c_told_d",
        ["e_007_1"],
    ),
    ("M3", "Tom", "Ivy", 5, "Mara trusts Tom", "about_third_party", "observed", ["e_005_2"]),
]


def _scene_rows(run_id: str) -> list[dict]:
    return [
        {
            "film_id": FILM,
            "scene_index": i,
            "heading": loc,
            "location": loc.split(". ", 1)[1].split(" - ")[0],
            "time_of_day": loc.rsplit(" - ", 1)[1],
            "start_s": 120.0 * i,
            "end_s": 120.0 * i + 110,
            "time_source": source,
            "summary": f"{' and '.join(people)} at the "
            f"{loc.split('. ')[1].split(' - ')[0].lower()}.",
            "run_id": run_id,
        }
        for i, (loc, people, source) in enumerate(SCENES)
    ]


def _event_rows(run_id: str) -> list[dict]:
    rows = []
    for i, (_, people, _) in enumerate(SCENES):
        for k in (1, 2):
            rows.append(
                {
                    "film_id": FILM,
                    "event_id": f"e_{i:03d}_{k}",
                    "scene_index": i,
                    "ord": k,
                    "description": f"{people[0]} speaks to {people[-1]} ({k})",
                    "participants": people,
                    "witnesses": people,
                    "run_id": run_id,
                }
            )
    return rows


def _presence_rows(run_id: str) -> list[dict]:
    rows = []
    for i, (_, people, _) in enumerate(SCENES):
        for name in FIRST_SPOKEN:
            status = "on_screen" if name in people else "absent_unmentioned"
            rows.append(
                {
                    "film_id": FILM,
                    "scene_index": i,
                    "character": name,
                    "status": status,
                    "witnessed_events": [f"e_{i:03d}_1"] if name in people else [],
                    "run_id": run_id,
                }
            )
    return rows


def _insert_generic(cursor, table: str, rows: list[dict]) -> None:
    columns = list(rows[0])
    cursor.executemany(
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' for _ in columns)})",
        [list(r.values()) for r in rows],
    )


def build_film(store) -> str:
    """Insert the film and its belief records under one finished run; return the film id."""
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec(step="test.fixture", backend="fixture"))
        _insert_generic(
            cursor,
            "films",
            [
                {
                    "film_id": FILM,
                    "dataset_id": "test",
                    "title": "The Lamp",
                    "kind": "film",
                    "runtime_s": 1000.0,
                    "run_id": run_id,
                }
            ],
        )
        _insert_generic(cursor, "scenes", _scene_rows(run_id))
        _insert_generic(cursor, "scene_events", _event_rows(run_id))
        _insert_generic(cursor, "presence", _presence_rows(run_id))
        _insert_generic(
            cursor,
            "characters",
            [
                {
                    "film_id": FILM,
                    "character_id": name.lower().replace(" ", "_"),
                    "canonical_name": name,
                    "aliases": [],
                    "first_spoken_s": first,
                    "run_id": run_id,
                }
                for name, first in FIRST_SPOKEN.items()
            ],
        )
        _insert_generic(
            cursor,
            "beliefs",
            [
                {
                    "film_id": FILM,
                    "belief_id": bid,
                    "holder": holder,
                    "scene_index": scene,
                    "kind": kind,
                    "content": content,
                    "source_character": extra.get("source_character"),
                    "believed": extra.get("believed"),
                    "basis": extra.get("basis", []),
                    "is_false": extra.get("is_false", False),
                    "revises": extra.get("revises"),
                    "revised_at_scene": extra.get("revised_at_scene"),
                    "run_id": run_id,
                }
                for bid, holder, scene, kind, content, extra in BELIEFS
            ],
        )
        _insert_generic(
            cursor,
            "meta_beliefs",
            [
                {
                    "film_id": FILM,
                    "meta_id": mid,
                    "holder": h,
                    "about": a,
                    "scene_index": s,
                    "claim": c,
                    "type": t,
                    "source": src,
                    "basis": basis,
                    "run_id": run_id,
                }
                for mid, h, a, s, c, t, src, basis in METAS
            ],
        )
        _insert_generic(
            cursor,
            "script_lines",
            [
                {
                    "film_id": FILM,
                    "line_index": i,
                    "scene_index": i,
                    "kind": "dialogue",
                    "character": SCENES[i][1][0].upper(),
                    "text": f"Line of scene {i}.",
                    "run_id": run_id,
                }
                for i in range(len(SCENES))
            ],
        )
        finish_run(cursor, run_id)
    return FILM


__all__ = ["FILM", "build_film"]
