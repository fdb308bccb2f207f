"""PlotTree benchmark: a 2-hour film at 1 fps = 7,200 leaves, built without the LLM.

Builds a deterministic synthetic film timeline (40 scenes, ~1,500 subtitle cues, stage
directions, 12 characters), then times, in one process:

1. Build: leaves (`build_leaves`) + MiniLM node vectors + condensation to the root with
   extractive summaries (`build_nodes`), with the default segment-pooled node vectors
   (`segment_embed`). Target ≤ 30 s on 2 cores.
   Baselines in the same run: (a) the same build with full-text node vectors (each distinct
   node text encoded whole: the build before segment pooling), (b) embedding the distinct leaf
   texts alone, (c) scikit-learn KMeans (Euclidean, k-means++, n_init=1) at the same K^0 on the
   same leaf vectors, against our plot-distance k-means at level 0.
   Wall and CPU seconds are both reported, with the load average: on a shared machine the CPU
   time is what the build costs, the wall time what it waited.
2. Retrieval: embed a question, score all nodes, top-M = 32, chronological context. Median and
   p95 over the questions. Target ≤ 50 ms. Baseline: encoding the question alone; the search
   without the encoding (scores, top-M, sort, context) is reported too.

Usage: python benchmarks/bench_plottree.py [--minutes 120] [--questions 40] [--json OUT]
       python benchmarks/bench_plottree.py --store S --film F   (a real film already in a store,
       e.g. IMDB-114-Chinatown after `storyscope import storyvideoqa`)
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipelines.embeddings import embed_texts  # noqa: E402
from pipelines.plottree.build import build_nodes, embed_unique  # noqa: E402
from pipelines.plottree.condense import cluster_count, decay, plot_kmeans  # noqa: E402
from pipelines.plottree.leaves import build_leaves  # noqa: E402
from pipelines.plottree.retrieval import TreeIndex, retrieve  # noqa: E402

WORDS = [
    "door",
    "window",
    "letter",
    "gun",
    "car",
    "rain",
    "money",
    "phone",
    "river",
    "train",
    "night",
    "house",
    "garden",
    "knife",
    "doctor",
    "police",
    "church",
    "school",
    "office",
    "bridge",
    "ship",
    "storm",
    "fire",
    "light",
    "song",
    "dance",
    "secret",
    "brother",
    "sister",
    "father",
    "mother",
    "friend",
    "enemy",
    "lawyer",
    "judge",
    "prison",
    "city",
    "road",
    "forest",
]
NAMES = [
    "ANNA",
    "BEN",
    "CARA",
    "DAVID",
    "ELLA",
    "FRANK",
    "GRACE",
    "HUGO",
    "IRIS",
    "JACK",
    "KATE",
    "LEO",
]


def synthetic_timeline(minutes: int, seed: int = 11) -> dict[str, pd.DataFrame]:
    """Scenes, script lines and cues of a film `minutes` long (deterministic)."""
    rng = random.Random(seed)
    duration = minutes * 60.0
    n_scenes = max(1, minutes // 3)
    scenes, lines, cues = [], [], []
    for s in range(n_scenes):
        start, end = s * duration / n_scenes, (s + 1) * duration / n_scenes
        scenes.append(
            {
                "scene_index": s,
                "heading": f"INT. {rng.choice(WORDS).upper()} - NIGHT",
                "location": f"{rng.choice(WORDS).title()} {rng.choice(WORDS)}",
                "start_s": start,
                "end_s": end,
            }
        )
        cast = rng.sample(NAMES, 3)
        t = start + rng.uniform(1, 4)
        lines.append(
            {
                "line_index": len(lines),
                "scene_index": s,
                "kind": "direction",
                "character": None,
                "start_s": None,
                "end_s": None,
                "text": " ".join(rng.choice(WORDS) for _ in range(12)),
            }
        )
        while t < end - 4:
            length = rng.uniform(1.5, 3.5)
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 10)))
            cues.append(
                {
                    "cue_index": len(cues),
                    "start_s": t,
                    "end_s": t + length,
                    "text": text,
                    "matched_line": len(lines),
                }
            )
            lines.append(
                {
                    "line_index": len(lines),
                    "scene_index": s,
                    "kind": "dialogue",
                    "character": rng.choice(cast),
                    "start_s": t,
                    "end_s": t + length,
                    "text": text,
                }
            )
            if rng.random() < 0.1:
                lines.append(
                    {
                        "line_index": len(lines),
                        "scene_index": s,
                        "kind": "direction",
                        "character": None,
                        "start_s": None,
                        "end_s": None,
                        "text": " ".join(rng.choice(WORDS) for _ in range(10)),
                    }
                )
            t += length + rng.uniform(0.5, 5.0)
    return {
        "scenes": pd.DataFrame(scenes),
        "lines": pd.DataFrame(lines),
        "subtitles": pd.DataFrame(cues),
    }


def timed(fn, *args, **kwargs):
    """(result, seconds) of one call."""
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start


def timed_build(timeline: dict, runtime_s: float | None, embed=None) -> dict:
    """Leaves + tree with one node embedder: nodes, vectors, wall and CPU seconds."""
    cpu_start = time.process_time()
    leaves, leaf_s = timed(build_leaves, timeline, runtime_s, 1.0)
    (nodes, vectors), tree_s = timed(build_nodes, leaves.frame, "bench:", embed=embed)
    return {
        "leaves": leaves,
        "nodes": nodes,
        "vectors": vectors,
        "leaf_s": leaf_s,
        "tree_s": tree_s,
        "wall_s": leaf_s + tree_s,
        "cpu_s": time.process_time() - cpu_start,
    }


def bench_build(timeline: dict, runtime_s: float | None) -> tuple[dict, TreeIndex]:
    """Time leaves + tree build (segment-pooled) and the baselines."""
    embed_texts(["warm-up: load the model before timing"])
    after = timed_build(timeline, runtime_s)
    before = timed_build(timeline, runtime_s, embed_unique)
    leaves, nodes, vectors = after["leaves"], after["nodes"], after["vectors"]
    distinct = list(dict.fromkeys(leaves.frame["summary"]))
    leaf_vectors, embed_s = timed(embed_texts, distinct)
    n = len(leaves.frame)
    index = {t: i for i, t in enumerate(distinct)}
    full = leaf_vectors[[index[t] for t in leaves.frame["summary"]]]
    times = np.arange(n, dtype=float)
    k = cluster_count(n)
    _, ours_s = timed(plot_kmeans, full, times, k, decay(0), n)
    from sklearn.cluster import KMeans

    _, sk_s = timed(KMeans(n_clusters=k, n_init=1, random_state=0).fit, full)
    frame = pd.DataFrame(
        [
            {
                "node_id": x.node_id,
                "level": x.level,
                "start_s": x.start_s,
                "end_s": x.end_s,
                "summary": x.summary,
            }
            for x in nodes
        ]
    )
    levels = frame["level"].value_counts().sort_index().tolist()
    report = {
        "leaves": n,
        "distinct_leaf_texts": len(distinct),
        "nodes": len(nodes),
        "nodes_per_level": levels,
        "build_s": round(after["wall_s"], 2),
        "build_cpu_s": round(after["cpu_s"], 2),
        "leaves_s": round(after["leaf_s"], 2),
        "tree_s": round(after["tree_s"], 2),
        "baseline_full_text_build_s": round(before["wall_s"], 2),
        "baseline_full_text_build_cpu_s": round(before["cpu_s"], 2),
        "ratio_build_vs_full_text_cpu": round(after["cpu_s"] / before["cpu_s"], 2),
        "baseline_embed_distinct_leaves_s": round(embed_s, 2),
        "ratio_build_vs_embed": round(after["wall_s"] / embed_s, 2),
        "plot_kmeans_level0_s": round(ours_s, 3),
        "sklearn_kmeans_level0_s": round(sk_s, 3),
        "ratio_plot_kmeans_vs_sklearn": round(ours_s / sk_s, 2),
        "target_build_s": 30,
    }
    return report, TreeIndex(frame, vectors)


def real_timeline(store_path: Path, film_id: str) -> tuple[dict, float | None]:
    """A real film's timeline and runtime from a store (for before/after on real text)."""
    from data_access.store import Store
    from data_access.tables.plottree_records import film_row, film_timeline

    store = Store(store_path)
    film = film_row(store, film_id)
    if film is None:
        raise SystemExit(f"{store_path}: no film '{film_id}'")
    runtime = film.get("runtime_s")
    return film_timeline(store, film_id), None if pd.isna(runtime) else float(runtime)


def bench_retrieval(index: TreeIndex, questions: int, seed: int = 5) -> dict:
    """Median / p95 of a full retrieval (question embedding included) vs encoding alone."""
    rng = random.Random(seed)
    asked = [
        f"Why does {rng.choice(NAMES).title()} go to the {rng.choice(WORDS)} with the "
        f"{rng.choice(WORDS)}?"
        for _ in range(questions)
    ]
    full, encode_only, search_only = [], [], []
    for q in asked:
        _, s = timed(lambda text: retrieve(index, embed_texts([text])[0], 32), q)
        full.append(s)
        vector, e = timed(lambda text: embed_texts([text])[0], q + " (again)")
        encode_only.append(e)
        search_only.append(timed(retrieve, index, vector, 32)[1])
    median, base = statistics.median(full), statistics.median(encode_only)
    return {
        "questions": questions,
        "nodes_searched": len(index.nodes),
        "top_m": 32,
        "median_ms": round(1000 * median, 2),
        "p95_ms": round(1000 * sorted(full)[int(0.95 * (len(full) - 1))], 2),
        "search_only_median_ms": round(1000 * statistics.median(search_only), 2),
        "baseline_encode_question_median_ms": round(1000 * base, 2),
        "ratio_retrieval_vs_encode": round(median / base, 2),
        "target_ms": 50,
    }


def load_average() -> list[float] | None:
    """The 1/5/15-minute load average (the machine may be shared: read timings with it)."""
    try:
        return [round(x, 2) for x in __import__("os").getloadavg()]
    except OSError:
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=int, default=120)
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--store", type=Path, default=None, help="store holding --film")
    parser.add_argument("--film", default=None, help="a real film instead of the synthetic one")
    args = parser.parse_args()
    if args.film and args.store:
        timeline, runtime = real_timeline(args.store, args.film)
    else:
        timeline, runtime = synthetic_timeline(args.minutes), args.minutes * 60.0
    build, index = bench_build(timeline, runtime)
    build["film"] = args.film or f"synthetic-{args.minutes}min"
    result = {
        "build": build,
        "retrieval": bench_retrieval(index, args.questions),
        "torch_threads": __import__("torch").get_num_threads(),
        "load_average_after": load_average(),
    }
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text)


if __name__ == "__main__":
    main()
