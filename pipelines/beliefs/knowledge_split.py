"""Knowledge split: what one character holds that another does not, and whether the other was
away when it formed ("who knows what, who was absent").

Theory of mind is about asymmetry. A film whose offline belief records hold few false beliefs
or revisions (Chinatown's screenplay states few contradicting states) still shows it in who was
in the room: a character who learns something in a scene the other is not in holds it alone
until the other is told. This module reads that from stored rows, for any backend:

- two holders **share** a belief when their records match under one of two rules, and the page
  says which it used (`MATCH_RULES`):
  - `words`: the same words (case, spacing and end punctuation aside). The offline backends
    (`rules`, `asymmetry`, the symbolic tracker) write one text for every witness and listener
    of an event, so this is exact for them;
  - `meaning`: MiniLM cosine ≥ `MEANING_COSINE` (the threshold `storyscope gold-eval` matches
    beliefs with, chosen before this measurement, not fitted to it), for records written in
    each holder's own words (the gold, an LLM), where exact words share almost nothing.
    Measured on the gold film's hand-labelled cross-character pairs
    (samples/gold/the_keepers_ledger/same_belief_pairs.jsonl: 24 same-belief pairs among
    1,658, 14 undecided pairs left out): exact words find 0 of the 24; meaning finds 19 of 24
    (recall 0.79) with 20 wrong matches (precision 0.49), among them a belief and its negation
    ("Ruth is a birdwatcher" / "Ruth is police, not a birdwatcher"). So under `meaning` the
    split understates the gap where `words` overstates it;
- a belief is **held** from the scene it forms in until the scene it is revised in (exclusive;
  `end_scene` of `belief_lanes`), so a belief revised away is no longer shared: in a Sally-Anne
  story, Sally's "the marble is in the basket" is held alone once Anne has seen it moved;
- a belief of A is **held alone at scene s** when A holds it at s and B holds no matching
  record at s; the split lists every belief of A that B does not hold when it forms, with the
  first later scene where B does (B may never), and every belief A shared when it formed but
  still holds after B revised theirs (`left_alone`: Sally's stale "the marble is in the
  basket" once Anne saw it moved);
- A's belief formed **while B was away** when B was not on screen in that scene (LF-VideoQA
  Table 19's presence levels: only `on_screen` perceives the scene first-hand).
Rejected claims (a told claim the holder does not believe) are not held and do not count.
Plain pandas over `belief_lanes` and `presence_grid` rows; the `meaning` rule takes an embedding
function (the caller's MiniLM), so this module loads no model itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pandas as pd

SPLIT_COLUMNS = [
    "holder",
    "other",
    "belief_id",
    "scene_index",
    "start_s",
    "kind",
    "content",
    "other_away",
    "other_learns_at",
]
LEFT_ALONE_COLUMNS = ["holder", "other", "belief_id", "scene_index", "content", "other_revised_at"]
_SPACE = re.compile(r"\s+")
# the cosine `storyscope gold-eval` matches a backend's belief to a gold one with
MEANING_COSINE = 0.6
MATCH_RULES = {
    "words": "the same words (case, spacing and end punctuation aside)",
    "meaning": f"the same meaning (MiniLM cosine ≥ {MEANING_COSINE})",
}
# A matcher: (the holder's held rows, the other's held rows) -> bool matrix, rows × rows.
Matcher = Callable[[pd.DataFrame, pd.DataFrame], np.ndarray]


def by_words(mine: pd.DataFrame, theirs: pd.DataFrame) -> np.ndarray:
    """The `words` rule: records match when `same_words` of their contents are equal."""
    return mine["words"].to_numpy()[:, None] == theirs["words"].to_numpy()[None, :]


def by_meaning(embed: Callable[[list[str]], np.ndarray], threshold: float = MEANING_COSINE):
    """The `meaning` rule: records match when their contents' embeddings (L2-normalised rows of
    `embed`) have cosine ≥ `threshold`, or their words are the same."""

    def match(mine: pd.DataFrame, theirs: pd.DataFrame) -> np.ndarray:
        if mine.empty or theirs.empty:
            return by_words(mine, theirs)
        texts = mine["content"].fillna("").astype(str).tolist()
        texts += theirs["content"].fillna("").astype(str).tolist()
        vectors = np.asarray(embed(texts), dtype=float)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
        cosine = vectors[: len(mine)] @ vectors[len(mine) :].T
        return (cosine >= threshold) | by_words(mine, theirs)

    return match


def same_words(content: pd.Series) -> pd.Series:
    """The text two records must share to hold one belief: casefolded, spaces collapsed, end
    punctuation dropped ("Ruth has the log." and "ruth has the log" are one)."""
    text = content.fillna("").astype(str).str.casefold()
    return text.map(lambda t: _SPACE.sub(" ", t).strip().rstrip(".!?;: ").strip())


def _held(lanes: pd.DataFrame, holder: str) -> pd.DataFrame:
    rows = lanes[(lanes["holder"] == holder) & ~lanes["rejected"].fillna(False).astype(bool)]
    return rows.assign(words=same_words(rows["content"]))


def _first_learned(mine: pd.DataFrame, theirs: pd.DataFrame, same: np.ndarray) -> pd.Series:
    """The first scene after each belief of `mine` formed where `theirs` forms a match."""
    formed = mine["scene_index"].to_numpy(dtype=float)[:, None]
    theirs_at = theirs["scene_index"].to_numpy(dtype=float)[None, :]
    later = np.where(same & (theirs_at > formed), theirs_at, np.inf)
    first = later.min(axis=1) if later.shape[1] else np.full(len(mine), np.inf)
    values = pd.array([int(v) if np.isfinite(v) else pd.NA for v in first], dtype="Int64")
    return pd.Series(values, index=mine.index)


def _side(lanes: pd.DataFrame, presence: pd.DataFrame, holder: str, other: str):
    """(the holder's held beliefs with `other_away`, the other's held beliefs)."""
    mine, theirs = _held(lanes, holder), _held(lanes, other)
    status = presence[presence["character"] == other].groupby("scene_index")["status"].first()
    # no presence row for the other in that scene (a story without presence): unknown, not away
    away = mine["scene_index"].map(status.ne("on_screen")).astype("boolean")
    return mine.assign(other=other, other_away=away), theirs


def knowledge_split(
    lanes: pd.DataFrame,
    presence: pd.DataFrame,
    first: str,
    second: str,
    match: Matcher = by_words,
) -> pd.DataFrame:
    """Every belief of `first` or `second` that the other does not hold when it forms.

    Args:
        lanes: `belief_lanes` rows of (at least) both holders.
        presence: `presence_grid` rows (scene_index, character, status) of the film.
        first, second: the two holders.
        match: the rule two records are one belief by (`by_words`, `by_meaning(embed)`).

    Returns:
        SPLIT_COLUMNS, in film order: `other_away` is True when the other was not on screen in
        the scene the belief formed in (NA: no presence row of theirs for that scene);
        `other_learns_at` the first later scene where the other forms the same words (NA: never).
    """
    parts = []
    for holder, other in ((first, second), (second, first)):
        mine, theirs = _side(lanes, presence, holder, other)
        same = match(mine, theirs)
        formed = mine["scene_index"].to_numpy()
        # held alone in the scene it forms in: the diagonal of beliefs × their own scenes
        keep = np.diagonal(_alone_by_scene(mine, theirs, formed, same)).astype(bool)
        alone = mine[keep]
        parts.append(alone.assign(other_learns_at=_first_learned(alone, theirs, same[keep])))
    split = pd.concat(parts, ignore_index=True)
    split["other_learns_at"] = split["other_learns_at"].astype("Int64")
    ordered = split.sort_values(["scene_index", "holder", "belief_id"])
    return ordered[SPLIT_COLUMNS].reset_index(drop=True)


def gap_over_time(
    lanes: pd.DataFrame,
    presence: pd.DataFrame,
    first: str,
    second: str,
    scenes: pd.DataFrame,
    match: Matcher = by_words,
) -> pd.DataFrame:
    """How many beliefs each of two holders holds alone, scene by scene.

    Args:
        lanes, presence, first, second, match: as for `knowledge_split`.
        scenes: the film's scenes (scene_index, start_s), in order.

    Returns:
        holder, other, scene_index, start_s, unshared (held at that scene by the holder and
        not by the other), away (of those, formed while the other was not on screen): one row
        per holder and scene.
    """
    at = scenes["scene_index"].to_numpy()
    parts = []
    for holder, other in ((first, second), (second, first)):
        mine, theirs = _side(lanes, presence, holder, other)
        alone = _alone_by_scene(mine, theirs, at, match(mine, theirs))
        away = alone & mine["other_away"].fillna(False).to_numpy(dtype=bool)[:, None]
        parts.append(
            pd.DataFrame(
                {
                    "holder": holder,
                    "other": other,
                    "scene_index": at,
                    "start_s": scenes["start_s"].to_numpy(),
                    "unshared": alone.sum(axis=0),
                    "away": away.sum(axis=0),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def _alone_by_scene(
    mine: pd.DataFrame, theirs: pd.DataFrame, at: np.ndarray, same: np.ndarray
) -> np.ndarray:
    """beliefs × scenes: the belief is held then and no matching record of `theirs` is."""
    held = _spans(mine["scene_index"], mine["end_scene"], at)
    theirs_held = _spans(theirs["scene_index"], theirs["end_scene"], at)
    covered = (same.astype(np.int64) @ theirs_held.astype(np.int64)) > 0
    return held & ~covered


def left_alone(
    lanes: pd.DataFrame,
    first: str,
    second: str,
    match: Matcher = by_words,
) -> pd.DataFrame:
    """Beliefs one held with the other when they formed and still holds, alone, after the other
    revised theirs: the stale (often false) beliefs a split of new beliefs does not show. One
    the other holds again by the holder's last scene with it is not left alone.

    Returns:
        LEFT_ALONE_COLUMNS: `other_revised_at` is the scene where the other's last matching
        record ended (was revised) while the holder's still held.
    """
    parts = []
    for holder, other in ((first, second), (second, first)):
        mine, theirs = _held(lanes, holder), _held(lanes, other)
        same = match(mine, theirs)
        formed = mine["scene_index"].to_numpy(dtype=float)[:, None]
        ends = mine["end_scene"].to_numpy(dtype=float)[:, None]
        start_b = theirs["scene_index"].to_numpy(dtype=float)[None, :]
        end_b = theirs["end_scene"].to_numpy(dtype=float)[None, :]
        if "revised_at_scene" in theirs:
            revised_b = theirs["revised_at_scene"].notna().to_numpy()[None, :]
        else:  # rows without it: a record ending before the others' last end was revised
            revised_b = (end_b < np.nanmax(end_b, initial=-np.inf)) if len(theirs) else end_b > 0
        shared = same & (start_b <= formed) & (formed < end_b)
        # ... and a matching record of theirs was revised while the holder's still held
        dropped = shared & revised_b & (end_b < ends)
        # ... and no matching record of theirs holds it again by the holder's last scene with
        # it (told again, or revised back), so the holder ends up holding it alone
        revised_at = (
            np.where(dropped, end_b, -np.inf).max(axis=1)
            if len(theirs)
            else np.full(len(mine), -np.inf)
        )
        keep = []
        for row, scene in enumerate(revised_at):
            last = ends[row, 0] - 1
            again = same[row] & (start_b[0] <= last) & (last < end_b[0])
            keep.append(bool(np.isfinite(scene)) and not again.any())
        kept = mine[np.asarray(keep, dtype=bool)] if len(mine) else mine
        at = pd.Series(revised_at, index=mine.index)[kept.index] if len(kept) else []
        parts.append(kept.assign(other=other, other_revised_at=pd.array(at, dtype="Int64")))
    found = pd.concat(parts, ignore_index=True)
    if found.empty:
        return pd.DataFrame(columns=LEFT_ALONE_COLUMNS)
    ordered = found.sort_values(["other_revised_at", "holder", "belief_id"])
    return ordered[LEFT_ALONE_COLUMNS].reset_index(drop=True)


def _spans(start: pd.Series, end: pd.Series, at: np.ndarray) -> np.ndarray:
    """rows × scenes: start <= scene < end."""
    first, stop = start.to_numpy(dtype=float)[:, None], end.to_numpy(dtype=float)[:, None]
    return (first <= at[None, :]) & (at[None, :] < stop)


def split_summary(
    split: pd.DataFrame, first: str, second: str, left: pd.DataFrame | None = None
) -> list[dict]:
    """Per direction: beliefs held alone when formed, how many formed while the other was away,
    how many the other learns later, and (with `left`, rows of `left_alone`) how many shared
    beliefs the holder keeps after the other revised theirs."""
    summary = []
    for holder, other in ((first, second), (second, first)):
        part = split[split["holder"] == holder]
        row = {
            "holds": holder,
            "not held by": other,
            "beliefs": len(part),
            "formed while away": int(part["other_away"].fillna(False).sum()),
            "learned later": int(part["other_learns_at"].notna().sum()),
        }
        if left is not None:
            row["kept after the other revised it"] = int((left["holder"] == holder).sum())
        summary.append(row)
    return summary


def pair_agreement(
    beliefs: pd.DataFrame, pairs: list[dict], match: Matcher
) -> dict[str, float | int]:
    """How a match rule agrees with hand-labelled same-belief pairs: every pair of records of two
    different holders is a pair; a labelled pair is `same` true, false or None (undecided: left
    out), an unlabelled one is not the same belief.

    Args:
        beliefs: records with holder, belief_id, content.
        pairs: {"a": "HOLDER:ID", "b": "HOLDER:ID", "same": bool | None} rows.
        match: the rule (`by_words`, `by_meaning(embed)`).

    Returns:
        pairs, same (labelled same), found, wrong, precision, recall.
    """
    rows = beliefs.assign(words=same_words(beliefs["content"])).reset_index(drop=True)
    keys = (rows["holder"] + ":" + rows["belief_id"]).tolist()
    labels = {frozenset((p["a"], p["b"])): p["same"] for p in pairs}
    unknown = {k for pair in labels for k in pair} - set(keys)
    if unknown:
        raise ValueError(f"same-belief pairs name records not in the beliefs: {sorted(unknown)}")
    matched = match(rows, rows)
    holders = rows["holder"].to_numpy()
    counts = {"pairs": 0, "same": 0, "found": 0, "wrong": 0}
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            if holders[i] == holders[j]:
                continue
            label = labels.get(frozenset((keys[i], keys[j])), False)
            if label is None:
                continue
            counts["pairs"] += 1
            counts["same"] += bool(label)
            if matched[i, j]:
                counts["found" if label else "wrong"] += 1
    found = counts["found"]
    return {
        **counts,
        "precision": found / (found + counts["wrong"]) if found + counts["wrong"] else 0.0,
        "recall": found / counts["same"] if counts["same"] else 0.0,
    }
