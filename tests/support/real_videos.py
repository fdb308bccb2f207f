"""A real video's timeline from ../shared/data."""

from __future__ import annotations

import json

from data_access.importers.svqa_scripts import build_aligned_film
from data_access.store import append_rows
from data_access.tables.runs import RunSpec, finish_run, insert_run


def load_video(store, shared_data, series: str, vid: str) -> float:
    """Write one aligned video into the store; return its runtime from the release meta."""
    release = shared_data / "storyvideoqa"
    runtime = json.loads((release / "meta" / "video_length.json").read_text())[vid]
    film = build_aligned_film(vid, release / "aligned_script" / series / f"{vid}.json", runtime)
    with store.transaction() as cursor:
        run_id = insert_run(cursor, RunSpec(step="test.aligned", backend="fixture"))
        append_rows(
            cursor,
            "films",
            [
                {
                    "film_id": vid,
                    "dataset_id": "storyvideoqa",
                    "title": vid,
                    "kind": "episode",
                    "runtime_s": runtime,
                }
            ],
            fixed={"run_id": run_id},
        )
        for table, rows in (
            ("scenes", film.scenes),
            ("script_lines", film.script_lines),
            ("subtitles", film.subtitles),
        ):
            append_rows(cursor, table, rows, fixed={"run_id": run_id})
        finish_run(cursor, run_id)
    return runtime
