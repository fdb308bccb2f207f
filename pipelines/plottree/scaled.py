"""PlotTrees of many films on an executor: one work unit per film.

The driver reads each film's timeline, a worker (this process, or a Ray actor with MiniLM
loaded once) builds the tree, and the driver writes it under its own `plottree.build` run in
the same transaction as the unit's ledger row, exactly as `build_film_tree` would.
Offline summaries only: the LLM summariser caches through the store, which workers never open.
"""

from __future__ import annotations

from data_access.tables.plottree_records import films_with_timeline
from pipelines.plottree.build import (
    NODE_EMBEDDINGS,
    TreeBuild,
    TreeOutput,
    compute_tree,
    tree_build,
    tree_input,
    tree_run_spec,
    write_tree,
)
from pipelines.scale import BatchResult, Executor, Unit, run_batch
from pipelines.scale.runner import ProgressFn


def tree_unit(payload: dict) -> TreeOutput:
    """Work unit: one film's tree from its timeline (runs on a worker; no store)."""
    return compute_tree(payload["source"], payload["leaf_seconds"], payload["node_embedding"])


def build_trees(
    store,
    film_ids: list[str],
    executor: Executor,
    leaf_seconds: float | None = None,
    node_embedding: str = "segment-pooled",
    progress: ProgressFn | None = None,
) -> tuple[list[TreeBuild], BatchResult]:
    """Build and store the offline PlotTree of every film; a rerun after a kill resumes.

    `leaf_seconds`: None for one leaf per timed scene (else per subtitle clip), or the length
    of fixed windows (`pipelines.plottree.leaves.build_leaves`).

    Raises:
        ValueError: an unknown node embedding, or a film that is unknown or has no timeline.
    """
    if node_embedding not in NODE_EMBEDDINGS:
        raise ValueError(
            f"node embedding {node_embedding!r}: expected one of {', '.join(NODE_EMBEDDINGS)}"
        )
    params = {"leaf_seconds": leaf_seconds, "node_embedding": node_embedding}
    cues = films_with_timeline(store).set_index("film_id")["cues"]
    units = [_film_unit(store, film_id, cues, params) for film_id in film_ids]

    def prepare(unit: Unit) -> Unit:
        # Read just before dispatch (0.2-1 s a film): the workers start on the longest films
        # while the driver reads the rest.
        if unit.payload is not None:
            return unit
        return Unit(unit.key, {**params, "source": tree_input(store, unit.key)}, unit.cost)

    return _run_tree_units(store, units, executor, leaf_seconds, node_embedding, progress, prepare)


def _film_unit(store, film_id: str, cues, params: dict) -> Unit:
    """A film's unit, costed by its subtitle cues (leaves grow with them); a film without
    subtitles is read now, so an unknown or empty film fails before anything is built."""
    if film_id in cues.index:
        return Unit(film_id, None, float(cues[film_id]))
    source = tree_input(store, film_id)  # raises for an unknown film or an empty timeline
    return Unit(film_id, {**params, "source": source}, _source_cost(source))


def build_trees_from_sources(
    store,
    sources: list[dict],
    executor: Executor,
    leaf_seconds: float | None = None,
    node_embedding: str = "segment-pooled",
    progress: ProgressFn | None = None,
) -> tuple[list[TreeBuild], BatchResult]:
    """`build_trees` over `tree_input`-shaped sources already in memory (benchmarks)."""
    params = {"leaf_seconds": leaf_seconds, "node_embedding": node_embedding}
    units = [
        Unit(source["film_id"], {**params, "source": source}, _source_cost(source))
        for source in sources
    ]
    return _run_tree_units(store, units, executor, leaf_seconds, node_embedding, progress)


def _source_cost(source: dict) -> float:
    """A film's expected work: its subtitle cues, else its script lines."""
    timeline = source["timeline"]
    return float(len(timeline["subtitles"]) or len(timeline["lines"]))


def _run_tree_units(
    store, units, executor, leaf_seconds, node_embedding, progress, prepare=None
) -> tuple[list[TreeBuild], BatchResult]:
    built: list[TreeBuild] = []

    def write(cursor, outcome) -> dict:
        spec = tree_run_spec(
            outcome.key, leaf_seconds, None, node_embedding, outcome.value.leaf_backend
        )
        run_id = write_tree(cursor, spec, outcome.value)
        built.append(tree_build(outcome.key, run_id, outcome.value))
        return {"run_id": run_id}

    params = {"leaf_seconds": leaf_seconds, "node_embedding": node_embedding, "backend": "offline"}
    result = run_batch(
        store,
        executor,
        "plottree.build",
        params,
        units,
        tree_unit,
        write,
        progress,
        prepare,
        lazy_prepare=True,  # it only reads the film's timeline
    )
    return built, result
