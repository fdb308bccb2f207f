"""Build a film's PlotTree from the store and write it back (StoryVideoQA §5.1).

`build_film_tree(store, film_id)` reads the film's aligned timeline, makes the leaves (one per
timed scene, else per subtitle clip, or fixed `leaf_seconds` windows when asked: `leaves.py`,
`leaf_units.py`), condenses them level by level to a root, embeds every node with MiniLM
(`pipelines.embeddings`; the paper uses a Qwen3 embedding model) and writes nodes + vectors
under one `plottree.build` run. Offline the parent summaries are extractive
(`extractive-centroid`); with an LLM config they come from the gateway (backend `llm:<model>`),
one request per cluster, cached and replayable.
With a registered video (`films.video_path`) the leaves record their keyframe indices (OpenCV).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from data_access.store import Store
from data_access.tables.plottree_records import film_row, film_timeline, insert_tree
from data_access.tables.runs import RunSpec, end_run, finish_run, insert_run, start_run
from pipelines.plottree.condense import (
    ALPHA,
    BETA,
    EPSILON,
    Node,
    Summariser,
    build_tree,
    extractive_summariser,
)
from pipelines.plottree.leaf_units import leaf_backend
from pipelines.plottree.leaves import build_leaves
from pipelines.plottree.segment_embed import FULL_TEXT, SEGMENT_POOLED, SegmentEmbedder

CONDENSE_PROMPT_VERSION = "plottree-condense-v1"


def embed_unique(texts: list[str]) -> np.ndarray:
    """MiniLM vectors of whole texts, encoding each distinct text once (the `full-text` node
    embedding; the default `segment-pooled` one is in `segment_embed`)."""
    from pipelines.embeddings import embed_texts

    distinct = list(dict.fromkeys(texts))
    vectors = embed_texts(distinct)
    index = {t: i for i, t in enumerate(distinct)}
    return vectors[[index[t] for t in texts]] if texts else vectors


def leaf_nodes(frame: pd.DataFrame, prefix: str) -> list[Node]:
    """Leaf Nodes from `build_leaves` rows, each labelled with the row's leaf backend."""
    return [
        Node(
            f"{prefix}L0-{int(r.t):05d}",
            0,
            float(r.t),
            r.start_s,
            r.end_s,
            [int(r.t)],
            r.summary,
            r.backend,
            list(r.characters),
        )
        for r in frame.itertuples(index=False)
    ]


def nodes_frame(
    film_id: str, nodes: list[Node], keyframes: list[int | None] | None = None
) -> pd.DataFrame:
    """Node objects as plottree_nodes rows; `keyframes[i]` is leaf i's video frame (if any),
    and a parent lists the keyframes of its leaves."""

    def frames_of(node: Node):
        if keyframes is None:
            return None
        return [keyframes[i] for i in node.leaf_indices if keyframes[i] is not None]

    return pd.DataFrame(
        [
            {
                "film_id": film_id,
                "node_id": n.node_id,
                "parent_id": n.parent_id,
                "level": n.level,
                "start_s": n.start_s,
                "end_s": n.end_s,
                "leaf_indices": n.leaf_indices,
                "keyframes": frames_of(n),
                "summary": n.summary,
                "summary_backend": n.summary_backend,
                "children": n.children,
                "characters": n.characters,
            }
            for n in nodes
        ]
    )


@dataclass
class TreeBuild:
    """What a build produced (for the CLI and the demo)."""

    film_id: str
    run_id: str
    n_leaves: int
    n_nodes: int
    levels: int
    seconds: float
    backend: str
    cpu_seconds: float = 0.0  # this process's CPU time for the same span (wall lies under load)
    leaf_backend: str = ""  # how the leaves were cut (`leaf_units`)


def build_nodes(
    leaves: pd.DataFrame,
    prefix: str,
    summarise: Summariser | None = None,
    embed: Callable[[list[str]], np.ndarray] | None = None,
    alpha: float = ALPHA,
    beta: float = BETA,
) -> tuple[list[Node], np.ndarray]:
    """The whole tree for given leaves (pure: no store), nodes and their vectors.

    `embed` defaults to a fresh `SegmentEmbedder` (segment-pooled MiniLM, shared by all levels).
    """
    embed = embed or SegmentEmbedder()
    nodes = leaf_nodes(leaves, prefix)
    vectors = embed([n.summary for n in nodes])
    return build_tree(
        nodes, vectors, prefix, summarise or extractive_summariser, embed, alpha, beta
    )


NODE_EMBEDDINGS = {SEGMENT_POOLED: lambda: SegmentEmbedder(), FULL_TEXT: lambda: embed_unique}


def tree_run_spec(
    film_id: str,
    leaf_seconds: float | None,
    llm_config,
    node_embedding: str,
    leaf_backend: str,
) -> RunSpec:
    """The `plottree.build` run of one film (the same for every executor); `leaf_seconds` is
    None unless fixed windows were asked for, `leaf_backend` says how the leaves were cut."""
    from pipelines.embeddings import MODEL_NAME

    return RunSpec(
        step="plottree.build",
        backend="extractive" if llm_config is None else "llm",
        model=None if llm_config is None else llm_config.model,
        prompt_version=None if llm_config is None else CONDENSE_PROMPT_VERSION,
        params={
            "alpha": ALPHA,
            "beta": BETA,
            "epsilon": EPSILON,
            "leaf_seconds": leaf_seconds,
            "embedder": MODEL_NAME,
            "leaf_backend": leaf_backend,
            "node_embedding": node_embedding,
        },
        source=film_id,
    )


def tree_input(store: Store, film_id: str) -> dict:
    """Everything one film's tree is built from (read by the driver, sent to a worker).

    Raises:
        ValueError: unknown film, or one without subtitles or script lines.
    """
    film = film_row(store, film_id)
    if film is None:
        raise ValueError(f"unknown film '{film_id}' (see `storyscope stats` / the Film page)")
    timeline = film_timeline(store, film_id)
    if timeline["subtitles"].empty and timeline["lines"].empty:
        raise ValueError(f"film '{film_id}' has no subtitles or script lines to build leaves from")
    runtime, video = film.get("runtime_s"), film.get("video_path")
    return {
        "film_id": film_id,
        "timeline": timeline,
        "runtime_s": None if pd.isna(runtime) else runtime,
        "video_path": video if video and not pd.isna(video) else None,
    }


@dataclass
class TreeOutput:
    """A built tree before it is written: node rows, their vectors, and what it cost."""

    frame: pd.DataFrame
    vectors: np.ndarray
    n_leaves: int
    backend: str
    seconds: float
    cpu_seconds: float
    leaf_backend: str


def compute_tree(
    source: dict,
    leaf_seconds: float | None = None,
    node_embedding: str = SEGMENT_POOLED,
    summarise: Summariser | None = None,
) -> TreeOutput:
    """One film's tree from `tree_input` (pure: no store; a scale-out work unit)."""
    started, cpu_started = time.perf_counter(), time.process_time()
    film_id = source["film_id"]
    leaves = build_leaves(source["timeline"], source["runtime_s"], leaf_seconds)
    nodes, vectors = build_nodes(
        leaves.frame, f"{film_id}:", summarise, NODE_EMBEDDINGS[node_embedding]()
    )
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
    keyframes = None
    if source["video_path"]:
        from pipelines.plottree.keyframes import keyframe_indices

        keyframes = keyframe_indices(source["video_path"], leaves.frame["start_s"].tolist())
    return TreeOutput(
        nodes_frame(film_id, nodes, keyframes),
        vectors,
        len(leaves.frame),
        nodes[-1].summary_backend,
        round(seconds, 2),
        round(cpu_seconds, 2),
        leaves.backend,
    )


def write_tree(cursor, spec: RunSpec, output: TreeOutput, run_id: str | None = None) -> str:
    """Write a computed tree under a new run (or the LLM run `run_id`, finished by its caller)."""
    from pipelines.embeddings import MODEL_NAME

    new_run = run_id is None
    run_id = run_id or insert_run(cursor, spec)
    insert_tree(cursor, output.frame, output.vectors, MODEL_NAME, run_id)
    if new_run:
        finish_run(cursor, run_id, n_items=len(output.frame))
    return run_id


def tree_build(film_id: str, run_id: str, output: TreeOutput) -> TreeBuild:
    """The summary of a written tree."""
    return TreeBuild(
        film_id,
        run_id,
        output.n_leaves,
        len(output.frame),
        int(output.frame["level"].max()),
        output.seconds,
        output.backend,
        output.cpu_seconds,
        output.leaf_backend,
    )


def describe(result: TreeBuild) -> str:
    """One progress line for a built tree."""
    return (
        f"plottree: {result.film_id}: {result.n_leaves} leaves -> {result.n_nodes} nodes, "
        f"{result.levels} levels in {result.seconds}s ({result.cpu_seconds}s CPU; "
        f"leaves {result.leaf_backend}, summaries {result.backend})"
    )


def build_film_tree(
    store: Store,
    film_id: str,
    leaf_seconds: float | None = None,
    llm_config=None,
    echo: Callable[[str], None] = lambda _: None,
    node_embedding: str = SEGMENT_POOLED,
) -> TreeBuild:
    """Build and store the PlotTree of one film; raises ValueError for unknown/empty films.

    `leaf_seconds`: None (default) for one leaf per timed scene (else per subtitle clip), or
    the window length W of fixed windows (1.0 = the paper's 1 fps).
    `node_embedding`: `segment-pooled` (default: each distinct segment encoded once, about 3x
    cheaper on a real film) or `full-text` (each distinct node text encoded whole).
    """
    if node_embedding not in NODE_EMBEDDINGS:
        raise ValueError(
            f"node embedding {node_embedding!r}: expected one of {', '.join(NODE_EMBEDDINGS)}"
        )
    source = tree_input(store, film_id)
    leaves_by = leaf_backend(source["timeline"], source["runtime_s"], leaf_seconds)
    spec = tree_run_spec(film_id, leaf_seconds, llm_config, node_embedding, leaves_by)
    llm_run = start_run(store, spec) if llm_config is not None else None
    summarise = None
    if llm_config is not None:
        from pipelines.plottree.llm_condense import gateway_summariser

        summarise = gateway_summariser(store, llm_config, llm_run)
    output = compute_tree(source, leaf_seconds, node_embedding, summarise)
    with store.transaction() as cursor:
        run_id = write_tree(cursor, spec, output, llm_run)
    if llm_run is not None:
        end_run(store, llm_run, n_items=len(output.frame))
    result = tree_build(film_id, run_id, output)
    echo(describe(result))
    return result
