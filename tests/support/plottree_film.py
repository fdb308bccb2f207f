"""A small film for PlotTree tests, and a hashed embedding that needs no model."""

from __future__ import annotations

import numpy as np

from data_access.store import append_rows
from data_access.tables.runs import RunSpec, finish_run, insert_run

FILM = "fixture-film"


# scene, location, start, end, (character, line, cue start, cue end)..., direction
SCENES = [
    (
        0,
        "Lighthouse",
        0,
        150,
        [("ANN", "The lamp is broken again.", 10, 14)],
        "Waves crash against the rocks below the lighthouse.",
    ),
    (
        1,
        "Kitchen",
        150,
        300,
        [
            ("BEN", "The supply boat comes on Friday.", 160, 165),
            ("ANN", "Then we wait for Friday.", 170, 173),
        ],
        "Ben pours tea by the stove.",
    ),
    (
        2,
        "Harbour",
        300,
        450,
        [("CARA", "I took the spare key.", 320, 324)],
        "Fishing boats rock in the harbour.",
    ),
    (
        3,
        "Lamp Room",
        450,
        600,
        [("ANN", "Cara, the light is working!", 500, 506)],
        "The great lamp turns and shines across the sea.",
    ),
]


def write_fixture_film(store, film_id: str = FILM) -> None:
    """One 10-minute film: films, scenes, script lines and aligned subtitles."""
    scenes, lines, cues = [], [], []
    for scene, location, start, end, talk, direction in SCENES:
        scenes.append(
            {
                "film_id": film_id,
                "scene_index": scene,
                "heading": f"INT. {location.upper()}",
                "location": location,
                "start_s": float(start),
                "end_s": float(end),
            }
        )
        lines.append(
            {
                "film_id": film_id,
                "line_index": len(lines),
                "scene_index": scene,
                "kind": "direction",
                "character": None,
                "text": direction,
                "start_s": None,
                "end_s": None,
            }
        )
        for who, text, c0, c1 in talk:
            cues.append(
                {
                    "film_id": film_id,
                    "cue_index": len(cues),
                    "start_s": float(c0),
                    "end_s": float(c1),
                    "text": text,
                    "matched_line": len(lines),
                }
            )
            lines.append(
                {
                    "film_id": film_id,
                    "line_index": len(lines),
                    "scene_index": scene,
                    "kind": "dialogue",
                    "character": who,
                    "text": text,
                    "start_s": float(c0),
                    "end_s": float(c1),
                }
            )
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec(step="test.film", backend="fixture"))
        append_rows(
            cursor,
            "films",
            [
                {
                    "film_id": film_id,
                    "dataset_id": "fixture",
                    "title": "Fixture",
                    "kind": "film",
                    "runtime_s": 600.0,
                }
            ],
            fixed={"run_id": run_id},
        )
        append_rows(cursor, "scenes", scenes, fixed={"run_id": run_id})
        append_rows(cursor, "script_lines", lines, fixed={"run_id": run_id})
        append_rows(cursor, "subtitles", cues, fixed={"run_id": run_id})
        finish_run(cursor, run_id)


def hashed_embed(texts):
    """A model-free deterministic embedder: bag of hashed words, unit length."""
    out = np.zeros((len(texts), 64), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in text.lower().split():
            out[row, hash(word) % 64] += 1.0
    norms = np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
    return out / norms
