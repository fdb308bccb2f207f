"""Knowledge split: what one character holds that another does not, and whether the other was
away when it formed (issue 28: "who knows what, who was absent").

Theory of mind is about asymmetry. A film whose offline belief records hold few false beliefs
or revisions (Chinatown's screenplay states few contradicting states) still shows it in who was
in the room: a character who learns something in a scene the other is not in holds it alone
until the other is told. This module reads that from stored rows, for any backend:

- two holders **share** a belief when their records say it in the same words (case, spacing
  and end punctuation aside). The offline backends (`rules`, `asymmetry`) write one text for
  every witness and listener of an event, so this is exact for them; records written in each
  holder's own words (the gold, an LLM) are shared only where the words agree, so their split
  overstates the gap. A paraphrase match (MiniLM) would close that, at the cost of a model on
  every page view; it was left out.
- a belief is **held** from the scene it forms in until the scene it is revised in (exclusive;
  `end_scene` of `belief_lanes`), so a belief revised away is no longer shared: in a Sally-Anne
  story, Sally's "the marble is in the basket" is held alone once Anne has seen it moved;
- a belief of A is **held alone at scene s** when A holds it at s and B holds no record with
  the same words at s; the split lists every belief of A that B does not hold when it forms,
  with the first later scene where B does (B may never);
- A's belief formed **while B was away** when B was not on screen in that scene (LF-VideoQA
  Table 19's presence levels: only `on_screen` perceives the scene first-hand).
Rejected claims (a told claim the holder does not believe) are not held and do not count.
Plain pandas over `belief_lanes` and `presence_grid` rows; no model.
"""

from __future__ import annotations

import re

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
_SPACE = re.compile(r"\s+")


def same_words(content: pd.Series) -> pd.Series:
    """The text two records must share to hold one belief: casefolded, spaces collapsed, end
    punctuation dropped ("Ruth has the log." and "ruth has the log" are one)."""
    text = content.fillna("").astype(str).str.casefold()
    return text.map(lambda t: _SPACE.sub(" ", t).strip().rstrip(".!?;: ").strip())


def _held(lanes: pd.DataFrame, holder: str) -> pd.DataFrame:
    rows = lanes[(lanes["holder"] == holder) & ~lanes["rejected"].fillna(False).astype(bool)]
    return rows.assign(words=same_words(rows["content"]))


def _first_learned(mine: pd.DataFrame, theirs: pd.DataFrame) -> pd.Series:
    """The first scene after each belief of `mine` formed where `theirs` forms the same words."""
    later = mine.reset_index().merge(
        theirs[["words", "scene_index"]], on="words", suffixes=("", "_b")
    )
    later = later[later["scene_index_b"] > later["scene_index"]]
    first = later.groupby("index")["scene_index_b"].min()
    return pd.Series(first.reindex(mine.index).to_numpy(), index=mine.index).astype("Int64")


def _side(lanes: pd.DataFrame, presence: pd.DataFrame, holder: str, other: str):
    """(the holder's held beliefs with `other_away`, the other's held beliefs)."""
    mine, theirs = _held(lanes, holder), _held(lanes, other)
    status = presence[presence["character"] == other].groupby("scene_index")["status"].first()
    # no presence row for the other in that scene (a story without presence): unknown, not away
    away = mine["scene_index"].map(status.ne("on_screen")).astype("boolean")
    return mine.assign(other=other, other_away=away), theirs


def knowledge_split(
    lanes: pd.DataFrame, presence: pd.DataFrame, first: str, second: str
) -> pd.DataFrame:
    """Every belief of `first` or `second` that the other does not hold when it forms.

    Args:
        lanes: `belief_lanes` rows of (at least) both holders.
        presence: `presence_grid` rows (scene_index, character, status) of the film.
        first, second: the two holders.

    Returns:
        SPLIT_COLUMNS, in film order: `other_away` is True when the other was not on screen in
        the scene the belief formed in (NA: no presence row of theirs for that scene);
        `other_learns_at` the first later scene where the other forms the same words (NA: never).
    """
    parts = []
    for holder, other in ((first, second), (second, first)):
        mine, theirs = _side(lanes, presence, holder, other)
        formed = mine["scene_index"].to_numpy()
        # held alone in the scene it forms in: the diagonal of beliefs × their own scenes
        alone = mine[np.diagonal(_alone_by_scene(mine, theirs, formed))]
        parts.append(alone.assign(other_learns_at=_first_learned(alone, theirs)))
    split = pd.concat(parts, ignore_index=True)
    split["other_learns_at"] = split["other_learns_at"].astype("Int64")
    ordered = split.sort_values(["scene_index", "holder", "belief_id"])
    return ordered[SPLIT_COLUMNS].reset_index(drop=True)


def gap_over_time(
    lanes: pd.DataFrame, presence: pd.DataFrame, first: str, second: str, scenes: pd.DataFrame
) -> pd.DataFrame:
    """How many beliefs each of two holders holds alone, scene by scene.

    Args:
        lanes, presence, first, second: as for `knowledge_split`.
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
        alone = _alone_by_scene(mine, theirs, at)
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


def _alone_by_scene(mine: pd.DataFrame, theirs: pd.DataFrame, at: np.ndarray) -> np.ndarray:
    """beliefs × scenes: the belief is held then and no record of `theirs` with its words is."""
    held = _spans(mine["scene_index"], mine["end_scene"], at)
    pairs = (
        mine.reset_index(drop=True)
        .reset_index()
        .merge(theirs[["words", "scene_index", "end_scene"]], on="words", suffixes=("", "_b"))
    )
    covered = np.zeros_like(held)
    np.logical_or.at(
        covered, pairs["index"].to_numpy(), _spans(pairs["scene_index_b"], pairs["end_scene_b"], at)
    )
    return held & ~covered


def _spans(start: pd.Series, end: pd.Series, at: np.ndarray) -> np.ndarray:
    """rows × scenes: start <= scene < end."""
    first, stop = start.to_numpy(dtype=float)[:, None], end.to_numpy(dtype=float)[:, None]
    return (first <= at[None, :]) & (at[None, :] < stop)


def split_summary(split: pd.DataFrame, first: str, second: str) -> list[dict]:
    """Per direction: beliefs held alone, how many formed while the other was away, and how
    many the other learns later (in the same words)."""
    summary = []
    for holder, other in ((first, second), (second, first)):
        part = split[split["holder"] == holder]
        summary.append(
            {
                "holds": holder,
                "not held by": other,
                "beliefs": len(part),
                "formed while away": int(part["other_away"].fillna(False).sum()),
                "learned later": int(part["other_learns_at"].notna().sum()),
            }
        )
    return summary
