"""Belief records of a backend scored against the gold annotation.

A backend belief matches a gold belief when
1. the holder is the same;
2. their scenes overlap: each side's scenes are the scene where the belief forms plus the scenes
   of its basis events (`e_<scene>_<n>`), so a gold belief held since before the film but
   revealed later (basis in the revealing scene) can still be found there;
3. the contents say the same thing: cosine of their all-MiniLM-L6-v2 sentence vectors
   ≥ `MATCH_COSINE`.
Pairs are matched one-to-one, most similar first. Precision = matched backend beliefs / backend
beliefs; recall = matched gold beliefs / gold beliefs. A gold false belief (held, `is_false`)
counts as recalled only when its match is marked false too; a gold revision only when its match
revises something. Written here (a greedy assignment over a few hundred pairs needs no library).

MATCH_COSINE = 0.6 was fixed before scoring any backend: on MiniLM, paraphrases of one short
claim typically score 0.6–0.9 and different claims about the same people 0.2–0.5 (the
near-duplicate threshold of pipelines/qgen/analytics.py, 0.8, is stricter because it flags
near-copies, not restatements). It is not tuned on the gold.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

MATCH_COSINE = 0.6
_EVENT = re.compile(r"^e_(\d+)_\d+$")


def belief_scenes(scene_index: int, basis) -> set[int]:
    """The scene a belief forms in plus the scenes of its basis events."""
    scenes = {int(scene_index)}
    for item in list(basis if basis is not None else []):
        match = _EVENT.match(str(item))
        if match:
            scenes.add(int(match.group(1)))
    return scenes


def match_beliefs(
    backend: pd.DataFrame, gold: pd.DataFrame, embed, threshold: float = MATCH_COSINE
) -> list[tuple[int, int, float]]:
    """One-to-one (backend row, gold row, cosine) matches, most similar first."""
    if backend.empty or gold.empty:
        return []
    b_vec = embed(backend["content"].tolist())
    g_vec = embed(gold["content"].tolist())
    similarity = np.asarray(b_vec) @ np.asarray(g_vec).T
    b_scenes = [belief_scenes(r.scene_index, r.basis) for r in backend.itertuples()]
    g_scenes = [belief_scenes(r.scene_index, r.basis) for r in gold.itertuples()]
    candidates = []
    for i, b in enumerate(backend.itertuples()):
        for j, g in enumerate(gold.itertuples()):
            if b.holder == g.holder and b_scenes[i] & g_scenes[j] and similarity[i, j] >= threshold:
                candidates.append((float(similarity[i, j]), i, j))
    used_b, used_g, pairs = set(), set(), []
    for score, i, j in sorted(candidates, reverse=True):
        if i not in used_b and j not in used_g:
            used_b.add(i), used_g.add(j)
            pairs.append((i, j, score))
    return pairs


def held_false(frame: pd.DataFrame) -> pd.Series:
    """Rows that are false beliefs the holder holds (a rejected tell is not one)."""
    believed = frame["believed"].astype("boolean")
    return frame["is_false"].astype(bool) & ~believed.fillna(True).eq(False)


def score_beliefs(backend: pd.DataFrame, gold: pd.DataFrame, embed) -> dict:
    """precision, recall, false_belief_recall, revision_recall (None where undefined)."""
    pairs = match_beliefs(backend, gold, embed)
    matched_gold = {j: i for i, j, _ in pairs}
    false_gold = [j for j, flag in enumerate(held_false(gold)) if flag]
    revision_gold = [j for j, value in enumerate(gold["revises"]) if isinstance(value, str)]
    backend_false = held_false(backend).tolist() if not backend.empty else []
    backend_revises = backend["revises"].tolist() if not backend.empty else []
    return {
        "precision": _ratio(len(pairs), len(backend)),
        "recall": _ratio(len(pairs), len(gold)),
        "false_belief_recall": _ratio(
            sum(j in matched_gold and backend_false[matched_gold[j]] for j in false_gold),
            len(false_gold),
        ),
        "revision_recall": _ratio(
            sum(
                j in matched_gold and isinstance(backend_revises[matched_gold[j]], str)
                for j in revision_gold
            ),
            len(revision_gold),
        ),
        "n_backend": len(backend),
        "n_gold": len(gold),
        "matched": len(pairs),
    }


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None
