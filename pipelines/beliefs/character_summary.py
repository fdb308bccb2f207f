"""Reading a character's beliefs at film scale: groups, collapsed runs, and a summary.

A screenplay film annotated by the rules backend gives one character hundreds of told beliefs
(every spoken line of four words or more, LF-VideoQA Table 20 read offline), nearly all held
unchanged to the end. Drawn one box per belief that is a wall of identical bars. So the
Belief timelines page groups a character's beliefs (by how they formed, by who told them, by
whom they mention), collapses each group's unchanged beliefs into one span, keeps the beliefs
that change (false, revised, rejected) visible, and sums up per character: how many false
beliefs, when they were corrected, who told them.

Plain pandas over the rows of `data_access.queries.beliefs_view.belief_lanes`; no model.
"""

from __future__ import annotations

import re

import pandas as pd

GROUPINGS = {
    "kind": "how it formed",
    "source": "who told it",
    "mentions": "whom it mentions",
}
NOBODY = "(nobody named)"


def _flag(column: pd.Series) -> pd.Series:
    return column.fillna(False).astype(bool)


def search_beliefs(beliefs: pd.DataFrame, text: str) -> pd.DataFrame:
    """Beliefs whose content, teller or trigger contains `text` (case-insensitive, literal)."""
    if not text:
        return beliefs
    hay = (
        beliefs["content"].fillna("")
        + " "
        + beliefs["source_character"].fillna("")
        + " "
        + beliefs.get("trigger", pd.Series("", index=beliefs.index)).fillna("")
    )
    return beliefs[hay.str.contains(text, case=False, regex=False)]


def mentioned(beliefs: pd.DataFrame, names: list[str]) -> pd.Series:
    """Per belief, the first of `names` its content mentions (whole word, any case), or
    NOBODY; the holder's own name is skipped, so "what it is about" is someone else."""
    content = beliefs["content"].fillna("")
    found = pd.Series(NOBODY, index=beliefs.index, dtype=object)
    for name in sorted(names, key=len, reverse=True):
        pattern = r"\b" + re.escape(name) + r"\b"
        hit = content.str.contains(pattern, case=False, regex=True) & (beliefs["holder"] != name)
        found = found.where(~(hit & (found == NOBODY)), name)
    return found


def group_key(beliefs: pd.DataFrame, by: str, names: list[str]) -> pd.Series:
    """The group each belief falls in under grouping `by` (a key of GROUPINGS)."""
    if by == "kind":
        return beliefs["kind"].fillna("unknown").astype(str)
    if by == "source":
        told = beliefs["source_character"].fillna("").astype(str)
        return told.where(told != "", "(" + beliefs["kind"].fillna("unknown").astype(str) + ")")
    if by == "mentions":
        return mentioned(beliefs, names)
    raise ValueError(f"unknown grouping '{by}'; choose one of {', '.join(GROUPINGS)}")


def changes(beliefs: pd.DataFrame) -> pd.Series:
    """True for beliefs that are not a plain unchanged belief: false, rejected, revising
    another, or revised before the film ends."""
    return (
        _flag(beliefs["is_false"])
        | _flag(beliefs["rejected"])
        | beliefs["revises"].notna()
        | beliefs["revised_at_scene"].notna()
    )


def arcs_first(beliefs: pd.DataFrame) -> pd.DataFrame:
    """The beliefs that change (`changes`) before the unchanged ones, each part in its own order
    (film order), so a cut to the first N rows keeps the arcs rather than the first N told lines."""
    changing = changes(beliefs)
    return pd.concat([beliefs[changing], beliefs[~changing]])


def belief_groups(beliefs: pd.DataFrame, by: str, names: list[str]) -> pd.DataFrame:
    """One row per (holder, group): how many beliefs, how many unchanged (collapsed into one
    span from the first to the last formation), how many change, false and rejected, and the
    time span. Sorted by holder, then largest group first.
    """
    columns = ["holder", "group", "beliefs", "unchanged", "changing", "false", "rejected"]
    if beliefs.empty:
        return pd.DataFrame(columns=[*columns, "first_scene", "last_scene", "start_s", "end_s"])
    frame = beliefs.assign(
        group=group_key(beliefs, by, names),
        changing=changes(beliefs),
        false=_flag(beliefs["is_false"]),
        rejected_=_flag(beliefs["rejected"]),
    )
    grouped = frame.groupby(["holder", "group"], sort=False)
    out = grouped.agg(
        beliefs=("belief_id", "size"),
        changing=("changing", "sum"),
        false=("false", "sum"),
        rejected=("rejected_", "sum"),
        first_scene=("scene_index", "min"),
        last_scene=("scene_index", "max"),
        start_s=("start_s", "min"),
        end_s=("end_s", "max"),
    ).reset_index()
    out["unchanged"] = out["beliefs"] - out["changing"]
    out = out.sort_values(["holder", "beliefs"], ascending=[True, False], kind="stable")
    return out[[*columns, "first_scene", "last_scene", "start_s", "end_s"]].reset_index(drop=True)


def character_summary(beliefs: pd.DataFrame) -> pd.DataFrame:
    """Per holder: beliefs, told / witnessed / inferred counts, false beliefs, how many of those
    were corrected and the median number of scenes until then, and the top three tellers."""
    rows = []
    for holder, own in beliefs.groupby("holder", sort=True):
        false = own[_flag(own["is_false"])]
        corrected = false[false["revised_at_scene"].notna()]
        delay = (corrected["revised_at_scene"] - corrected["scene_index"]).median()
        tellers = own["source_character"].dropna().value_counts().head(3)
        rows.append(
            {
                "holder": holder,
                "beliefs": len(own),
                "told": int((own["kind"] == "told").sum()),
                "witnessed": int((own["kind"] == "witnessed").sum()),
                "inferred": int((own["kind"] == "inferred").sum()),
                "false": len(false),
                "corrected": len(corrected),
                "scenes_until_corrected": None if pd.isna(delay) else float(delay),
                "still_false_at_end": len(false) - len(corrected),
                "told_most_by": ", ".join(f"{n} ({c})" for n, c in tellers.items()) or "—",
            }
        )
    return pd.DataFrame(rows)


def false_beliefs(beliefs: pd.DataFrame) -> pd.DataFrame:
    """Every false belief: who holds it, what, where it formed, who told it, and when (and by
    which belief) it was corrected."""
    false = beliefs[_flag(beliefs["is_false"])]
    revisers = beliefs[beliefs["revises"].notna()][["holder", "revises", "belief_id", "trigger"]]
    merged = false.merge(
        revisers.rename(columns={"revises": "belief_id", "belief_id": "corrected_by"}),
        on=["holder", "belief_id"],
        how="left",
        suffixes=("", "_correction"),
    )
    columns = {
        "holder": "holder",
        "belief_id": "belief",
        "content": "content",
        "scene_index": "formed_in_scene",
        "start_s": "formed_at_s",
        "source_character": "told_by",
        "revised_at_scene": "corrected_in_scene",
        "corrected_by": "corrected_by",
    }
    return merged[list(columns)].rename(columns=columns).reset_index(drop=True)
