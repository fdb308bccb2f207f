"""Offline belief annotation of many films on an executor: one unit per (film, scene range),
with the `rules` or the `asymmetry` backend.

The driver reads each film (`load_film`), a worker computes the rows of one scene range
(`rules_rows` / `asymmetry_rows`: the whole film is walked, rows are kept for the range, so a
range's rows and belief ids are the ones a full run gives), and the driver writes each unit as
the run that `storyscope beliefs annotate --film F --scenes a:b --backend B` writes. The LLM
backend calls the gateway per stage and stays on `llm.scaled`.
"""

from __future__ import annotations

from data_access.tables.belief_records import insert_annotation
from pipelines.beliefs.backend_io import AnnotateError, Selection, load_film, offline_run_spec
from pipelines.beliefs.backends import belief_backend, offline_backend_names
from pipelines.beliefs.rules import engine as rules
from pipelines.scale import BatchResult, Executor, Unit, run_batch
from pipelines.scale.runner import ProgressFn


def offline_unit(payload: dict):
    """Work unit: one scene range's rows by the payload's offline backend (`BeliefBackend.rows`;
    runs on a worker, no store; the asymmetry backend loads MiniLM there)."""
    rows = belief_backend(payload["backend"]).rows_function()
    return rows(payload["film_id"], payload["loaded"], Selection(payload["first"], payload["stop"]))


def scene_ranges(n_scenes: int, per_unit: int | None) -> list[tuple[int | None, int | None]]:
    """Half-open scene ranges of `per_unit` scenes (one open range when per_unit is None)."""
    if not per_unit or per_unit >= n_scenes:
        return [(None, None)]
    return [(a, min(a + per_unit, n_scenes)) for a in range(0, n_scenes, per_unit)]


def annotate_films(
    store,
    film_ids: list[str],
    executor: Executor,
    scenes_per_unit: int | None = None,
    progress: ProgressFn | None = None,
    backend: str = rules.BACKEND,
) -> BatchResult:
    """Annotate every film with an offline backend, one unit per scene range.

    Raises:
        AnnotateError: an unknown backend, or a film that is unknown or has no script lines.
    """
    if backend not in offline_backend_names():
        raise AnnotateError(
            f"unknown offline backend {backend!r}: use {', '.join(offline_backend_names())}"
        )
    units = []
    for film_id in film_ids:
        loaded = load_film(store, film_id)
        n_scenes = max(loaded.scenes) + 1 if loaded.scenes else 0  # scene indices are 0-based
        for first, stop in scene_ranges(n_scenes, scenes_per_unit):
            key = f"{film_id}[{'' if first is None else first}:{'' if stop is None else stop}]"
            payload = {
                "film_id": film_id,
                "backend": backend,
                "loaded": loaded,
                "first": first,
                "stop": stop,
            }
            units.append(Unit(key, payload))

    def write(cursor, outcome) -> dict:
        unit = next(u for u in units if u.key == outcome.key)
        selection = Selection(unit.payload["first"], unit.payload["stop"])
        spec = offline_run_spec(unit.payload["film_id"], outcome.value, selection)
        run_id, counts = insert_annotation(cursor, spec, outcome.value.tables)
        return {"run_id": run_id, "rows": counts}

    return run_batch(
        store,
        executor,
        "beliefs.annotate",
        {"backend": backend, "scenes_per_unit": scenes_per_unit},
        units,
        offline_unit,
        write,
        progress,
    )
