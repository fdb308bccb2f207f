"""Write a synthetic dataset of a given scale as interchange-format files (one per table).

Arrays are built with numpy and written with pyarrow, so the paper scale (about 9 million rows,
most of them MCQ predictions) takes seconds. Deterministic for a given seed.

This module streams the tables to their files in a fixed order and sets the chunk sizes; the
rows come from one module per table family (`film_tables`, `question_tables`, `mcq_tables`),
all drawing from one random generator, so the order of the calls here is part of the output.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from pipelines.synth.film_tables import FILM_TABLES, film_chunks
from pipelines.synth.mcq_tables import write_mcq_tables
from pipelines.synth.question_tables import (
    QUESTION_TABLES,
    SYNTHETIC_JUDGE,
    question_chunks,
    setting_rows,
)
from pipelines.synth.scales import SCALES
from pipelines.synth.sink import TableSink

# Every table file, in the order `write_synthetic_dataset` reports them.
TABLES = (
    FILM_TABLES + ["settings", "judges"] + QUESTION_TABLES + ["mcq_questions", "mcq_predictions"]
)
FILMS_PER_CHUNK = 25  # ~115k film-table rows held at once, whatever the scale
QUESTIONS_PER_CHUNK = 1000  # with 33 answering settings: ~33k answers, ~130k verdicts
MCQS_PER_CHUNK = 250_000


def write_synthetic_dataset(
    out_dir: Path, scale: str = "paper", seed: int = 7, fmt: str = "parquet"
) -> dict[str, int]:
    """Write a synthetic dataset, streamed a chunk at a time; return rows written per table.

    Memory stays bounded whatever the scale (the largest thing held is one method's
    predictions as Arrow arrays: 3.6M rows at 10x).

    Args:
        out_dir: folder to write `manifest.json` and one file per table into.
        scale: a name in `SCALES` ("paper", "10x" or "small").
        seed: random seed; the same seed gives the same files.
        fmt: "parquet" or "jsonl".
    """
    spec = SCALES[scale]
    rng = np.random.default_rng(seed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").write_text(json.dumps(_manifest(scale, seed), indent=2), "utf-8")
    sinks = {name: TableSink(out, name, fmt) for name in TABLES}
    try:
        film_ids: list[str] = []
        cast_of: dict[str, list[str]] = {}
        for chunk in film_chunks(rng, spec, cast_of, FILMS_PER_CHUNK):
            film_ids.extend(row["film_id"] for row in chunk["films"])
            for name, rows in chunk.items():
                sinks[name].write(rows)
        settings = setting_rows(spec)
        sinks["settings"].write(settings)
        sinks["judges"].write([SYNTHETIC_JUDGE])
        for chunk in question_chunks(rng, spec, film_ids, cast_of, settings, QUESTIONS_PER_CHUNK):
            for name, rows in chunk.items():
                sinks[name].write(rows)
        write_mcq_tables(rng, spec, sinks, MCQS_PER_CHUNK)
    finally:
        counts = {name: sink.close() for name, sink in sinks.items()}
    return counts


def _manifest(scale: str, seed: int) -> dict:
    return {
        "format": "storyscope-lfvqa",
        "version": 1,
        "dataset_id": f"synthetic_{scale}",
        "name": f"Synthetic dataset at {scale} scale (random words, seed {seed})",
        "kind": "synthetic",
        "source": "storyscope synth",
        "licence": "CC0-1.0",
        "reported_by_paper": False,
    }
