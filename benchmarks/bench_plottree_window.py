"""PlotTree's windowed k-means against the full search.

For real aligned StoryVideoQA videos (../shared/data/storyvideoqa), the 1 fps leaves are embedded
with the build's own embedder (segment-pooled MiniLM) and clustered at level 0 (λ(0) = 100,
K = ⌊|N|/36⌋, StoryVideoQA §5.1 / §6.1) twice: with the full node × centre search (the code
before the window, tests/support/plottree_reference.py) and with `condense.plot_kmeans` (exact
windowed search). Reports the adjusted Rand index and the share of leaves with the same
cluster (labels are numbered by earliest member in both), and the CPU seconds of each.

Usage: python benchmarks/bench_plottree_window.py [--videos Friends/Friends-S01E01,...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("STORYSCOPE_TORCH_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT = "Friends/Friends-S01E01,BigBang/BigBang-S01E01,GOT/GOT-S01E01,Movie/IMDB-114-Chinatown"


def leaf_vectors(shared: Path, series_vid: str) -> tuple[np.ndarray, np.ndarray]:
    """(unit leaf vectors, leaf times) of one real video, as `build_nodes` embeds them."""
    from data_access.store import Store
    from data_access.tables.plottree_records import film_timeline
    from pipelines.plottree.leaves import build_leaves
    from pipelines.plottree.segment_embed import SegmentEmbedder
    from tests.support.real_videos import load_video

    series, vid = series_vid.split("/")
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "s.duckdb")
        runtime = load_video(store, shared, series, vid)
        leaves = build_leaves(film_timeline(store, vid), runtime, leaf_seconds=1.0).frame
    vectors = SegmentEmbedder()(list(leaves["summary"]))
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    return vectors.astype(np.float32), np.arange(len(leaves), dtype=np.float64)


def cpu(fn):
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def compare(shared: Path, series_vid: str) -> dict:
    from sklearn.metrics import adjusted_rand_score
    from threadpoolctl import threadpool_limits

    from pipelines.plottree.condense import cluster_count, decay, plot_kmeans
    from tests.support.plottree_reference import full_search_kmeans

    vectors, times = leaf_vectors(shared, series_vid)
    n, lam = len(times), decay(0)
    k = cluster_count(n)
    with threadpool_limits(1):  # as plot_kmeans runs: CPU seconds compare the search alone
        full, full_s = cpu(lambda: full_search_kmeans(vectors, times, k, lam, n))
    windowed, windowed_s = cpu(lambda: plot_kmeans(vectors, times, k, lam, n))
    result = {
        "video": series_vid,
        "leaves": n,
        "k": k,
        "ari_level1": round(float(adjusted_rand_score(full, windowed)), 6),
        "same_cluster_share": round(float(np.mean(full == windowed)), 6),
        "full_cpu_s": round(full_s, 3),
        "windowed_cpu_s": round(windowed_s, 3),
        "load_avg": round(os.getloadavg()[0], 1),
    }
    print(json.dumps(result), flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--videos", default=DEFAULT)
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    results = [compare(args.shared, v) for v in args.videos.split(",")]
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
