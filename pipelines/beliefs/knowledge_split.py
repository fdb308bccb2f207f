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
- a belief of A is **unshared at scene s** when A formed it at or before s and B has not formed
  a record with the same words by s (B may never);
- A's belief formed **while B was away** when B was not on screen in that scene (LF-VideoQA
  Table 19's presence levels: only `on_screen` perceives the scene first-hand).
Rejected claims (a told claim the holder does not believe) are not held and do not count.
Plain pandas over `belief_lanes` and `presence_grid` rows; no model.
"""

from __future__ import annotations

import re

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


def _one_side(mine: pd.DataFrame, theirs: pd.DataFrame, presence: pd.DataFrame) -> pd.DataFrame:
    first = theirs.groupby("words")["scene_index"].min()
    # numeric even when the other holds nothing (an empty map gives strings)
    learns = pd.to_numeric(mine["words"].map(first), errors="coerce")
    # shared from the start: the other held the same words when (or before) this one formed
    alone = mine[~(learns <= mine["scene_index"])].assign(other_learns_at=learns)
    status = presence.groupby("scene_index")["status"].first()
    # no presence row for the other in that scene (a story without presence): unknown, not away
    away = alone["scene_index"].map(status.ne("on_screen")).astype("boolean")
    return alone.assign(other_away=away)


def knowledge_split(
    lanes: pd.DataFrame, presence: pd.DataFrame, first: str, second: str
) -> pd.DataFrame:
    """Every belief of `first` or `second` that the other did not hold when it formed.

    Args:
        lanes: `belief_lanes` rows of (at least) both holders.
        presence: `presence_grid` rows (scene_index, character, status) of the film.
        first, second: the two holders.

    Returns:
        SPLIT_COLUMNS, in film order: `other_away` is True when the other was not on screen in
        the scene the belief formed in (NA: no presence row of theirs for that scene); `other_learns_at` the scene where the other first holds
        the same words later (NA: never).
    """
    parts = []
    for holder, other in ((first, second), (second, first)):
        theirs = presence[presence["character"] == other]
        side = _one_side(_held(lanes, holder), _held(lanes, other), theirs)
        parts.append(side.assign(other=other))
    split = pd.concat(parts, ignore_index=True)
    split["other_learns_at"] = split["other_learns_at"].astype("Int64")
    return split.sort_values(["scene_index", "holder", "belief_id"])[SPLIT_COLUMNS].reset_index(
        drop=True
    )


def gap_over_time(split: pd.DataFrame, scenes: pd.DataFrame) -> pd.DataFrame:
    """How many beliefs each holder holds that the other does not, scene by scene.

    Args:
        split: `knowledge_split` rows.
        scenes: the film's scenes (scene_index, start_s), in order.

    Returns:
        holder, other, scene_index, start_s, unshared (formed by then, not yet learned by the
        other), away (of those, formed while the other was not on screen): one row per holder
        and scene.
    """
    rows = []
    for (holder, other), part in split.groupby(["holder", "other"], sort=False):
        formed, learned = part["scene_index"], part["other_learns_at"]
        for scene, start in zip(scenes["scene_index"], scenes["start_s"]):
            open_ = (formed <= scene) & ~(learned.fillna(scene + 1) <= scene)
            rows.append(
                {
                    "holder": holder,
                    "other": other,
                    "scene_index": scene,
                    "start_s": start,
                    "unshared": int(open_.sum()),
                    "away": int((open_ & part["other_away"].fillna(False)).sum()),
                }
            )
    return pd.DataFrame(
        rows, columns=["holder", "other", "scene_index", "start_s", "unshared", "away"]
    )


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
