"""How well a retrieval tool finds a question's evidence: the share of the question's evidence
scenes that the spans of the tool's top results overlap (LF-VideoQA §3.4: every question cites
at least two scenes), and whether its top result overlaps any of them. The query is the
question's text as it is. Used by `benchmarks/bench_agent_retrieval.py` to choose each tool's
ranker (`DEFAULT_RANKERS`); the answer key is read here, never by a tool.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd

from pipelines.agents.tools.calls import call_tool
from pipelines.agents.tools.index import FilmIndex

RETRIEVAL_TOOLS = ("subtitle_search", "find_clips")


@dataclass(frozen=True)
class Coverage:
    """One (tool, tier, ranker) over a film's questions."""

    tool: str
    tier: str
    ranker: str
    questions: int
    evidence_share: float  # mean over questions of the share of evidence scenes overlapped
    top1_hit: float  # share of questions whose top result overlaps an evidence scene
    runtime_share: float  # mean share of the film's runtime the result spans cover (context:
    # longer spans cover more evidence by their length alone)


def overlaps(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """Do two spans share some time (touching ends do not count)?"""
    return a[0] < b[1] and b[0] < a[1]


def evidence_coverage(index: FilmIndex, evidence: pd.DataFrame, tool: str, ranker: str) -> Coverage:
    """`tool` with `ranker` over `index`, asked each question of `evidence` (rows of
    `data_access.queries.agent_index.evidence_scene_spans`)."""
    probe = replace(index, rankers={**index.rankers, (tool, index.tier): ranker})
    shares, hits, lengths = [], [], []
    for _, rows in evidence.groupby("question_id", sort=True):
        spans = call_tool(probe, tool, {"query": rows["question"].iloc[0]}).intervals
        scenes = list(zip(rows["start_s"], rows["end_s"]))
        covered = sum(any(overlaps(span, scene) for span in spans) for scene in scenes)
        shares.append(covered / len(scenes))
        hits.append(bool(spans) and any(overlaps(spans[0], scene) for scene in scenes))
        lengths.append(union_length(spans) / index.duration_s if index.duration_s else 0.0)
    count = len(shares)
    return Coverage(
        tool,
        index.tier,
        ranker,
        count,
        sum(shares) / count if count else 0.0,
        sum(hits) / count if count else 0.0,
        sum(lengths) / count if count else 0.0,
    )


def union_length(spans) -> float:
    """Seconds covered by the union of spans."""
    total, reach = 0.0, float("-inf")
    for start, end in sorted(spans):
        if end > reach:
            total += end - max(start, reach)
            reach = end
    return total
