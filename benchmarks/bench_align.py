"""Alignment benchmark: a feature film's worth of cues × script rows.

Aligns a synthetic film of ≈1,500 subtitle cues × 1,200 script dialogue rows (built
deterministically: lines split over cues, 5% of lines cut from the "film", 5% ad-libbed cues,
words dropped and swapped) with `align_cues_to_lines`, and the same input with a naive baseline
measured in the same run: the same monotonic recurrence written as plain Python loops over a
per-pair token-set overlap (what one writes first). Reports seconds, the speed ratio, and both
methods' accuracy against the known cue → line truth. With --data-dir, the real Chinatown pair
(../shared/data/screenplays) is timed too.

Usage: python benchmarks/bench_align.py [--cues 1500] [--lines 1200] [--data-dir DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipelines.preprocess.align import align_cues_to_lines, tokens  # noqa: E402
from pipelines.preprocess.dtw import dtw_cue_to_line  # noqa: E402

WORDS = [f"w{i}" for i in range(3000)] + [
    "i",
    "you",
    "the",
    "a",
    "to",
    "it",
    "is",
    "what",
    "no",
    "yes",
] * 40


def synthetic_film(
    n_lines: int, n_cues: int, seed: int = 7
) -> tuple[list[str], list[str], list[int | None]]:
    """Script lines, cues and the true line of every cue (None for ad-libs)."""
    rng = random.Random(seed)
    lines = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 18))) for _ in range(n_lines)]
    words_per_cue = sum(len(line.split()) for line in lines) * 1.05 / n_cues
    cues, truth = [], []
    for index, line in enumerate(lines):
        if rng.random() < 0.05:
            continue  # cut from the film
        words = [w for w in line.split() if rng.random() > 0.1]  # the actor drops a word
        if rng.random() < 0.2 and words:
            for _ in range(max(1, len(words) // 3)):  # ... or rephrases a third of the line
                words[rng.randrange(len(words))] = rng.choice(WORDS)
        pieces = max(1, round(len(words) / words_per_cue))
        size = max(1, -(-len(words) // pieces))
        for start in range(0, max(1, len(words)), size):
            cues.append(" ".join(words[start : start + size]) or "hm")
            truth.append(index)
        if rng.random() < 0.05:
            cues.append(" ".join(rng.choice(WORDS) for _ in range(4)))
            truth.append(None)
    return lines, cues, truth


def naive_align(cues: list[str], lines: list[str], skip_cost: float = 0.02) -> list[int]:
    """The same monotonic DP in plain Python: O(cues × lines) loop, set overlap per pair."""
    line_sets = [set(tokens(text)) for text in lines]
    previous, back = None, []
    for cue in cues:
        words = set(tokens(cue)) or {""}
        score = [len(words & ls) / len(words) for ls in line_sets]
        if previous is None:
            current = [s - skip_cost * j for j, s in enumerate(score)]
            back.append(list(range(len(lines))))
        else:
            current, pointers, best, best_k = [], [], float("-inf"), 0
            for j, s in enumerate(score):
                if j > 0 and previous[j - 1] + skip_cost * j > best:
                    best, best_k = previous[j - 1] + skip_cost * j, j - 1
                from_before = best - skip_cost * j if j > 0 else float("-inf")
                if from_before > previous[j]:
                    current.append(s + from_before)
                    pointers.append(best_k)
                else:
                    current.append(s + previous[j])
                    pointers.append(j)
            back.append(pointers)
        previous = current
    path = [max(range(len(lines)), key=previous.__getitem__)]
    for pointers in reversed(back[1:]):
        path.append(pointers[path[-1]])
    return path[::-1]


def accuracy(path: list[int], truth: list[int | None]) -> float:
    scored = [(p, t) for p, t in zip(path, truth) if t is not None]
    return sum(p == t for p, t in scored) / len(scored)


def timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cues", type=int, default=1500)
    parser.add_argument("--lines", type=int, default=1200)
    parser.add_argument("--data-dir", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    lines, cues, truth = synthetic_film(args.lines, args.cues)
    ours, ours_s = timed(align_cues_to_lines, cues, lines)
    naive, naive_s = timed(naive_align, cues, lines)
    dtw, dtw_s = timed(dtw_cue_to_line, cues, lines)  # align-eval --method dtw (classic DTW)
    report = {
        "film": "synthetic",
        "cues": len(cues),
        "lines": len(lines),
        "ours_s": round(ours_s, 3),
        "naive_s": round(naive_s, 3),
        "speedup": round(naive_s / ours_s, 1),
        "ours_accuracy": round(accuracy(ours.cue_to_line, truth), 4),
        "naive_accuracy": round(accuracy(naive, truth), 4),
        "dtw_s": round(dtw_s, 3),
        "dtw_speedup_vs_naive": round(naive_s / dtw_s, 1),
        "dtw_accuracy": round(accuracy(dtw, truth), 4),
    }
    results = [report]
    if args.data_dir:
        results.append(_real_film(args.data_dir))
    for row in results:
        print(json.dumps(row))
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


def _real_film(data_dir: Path) -> dict:
    from pipelines.preprocess.files import parse_screenplay_file
    from pipelines.preprocess.srt_reader import read_srt

    folder = data_dir / "screenplays" / "srt-pairs-robertjvt" / "scripts_subtitles"
    screenplay = parse_screenplay_file(folder / "chinatown.txt")
    cues = [c.text for c in read_srt(folder / "chinatown.srt").cues]
    lines = [e.text for _, e in screenplay.events if e.kind == "dialogue"]
    ours, ours_s = timed(align_cues_to_lines, cues, lines)
    naive, naive_s = timed(naive_align, cues, lines)
    agreement = sum(a == b for a, b in zip(ours.cue_to_line, naive)) / len(cues)
    return {
        "film": "chinatown",
        "cues": len(cues),
        "lines": len(lines),
        "ours_s": round(ours_s, 3),
        "naive_s": round(naive_s, 3),
        "speedup": round(naive_s / ours_s, 1),
        "agreement_with_naive": round(agreement, 4),
    }


if __name__ == "__main__":
    main()
