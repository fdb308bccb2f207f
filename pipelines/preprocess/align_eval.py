"""`align-eval`: our cue → script alignment and the release's automatic one, scored against the
human-corrected sheet of a StoryVideoQA aligned-script file (StoryMindv2 §3.1, App. B.2).

What the human sheet corrects. StoryMindv2 says each automatic (DTW) alignment "would be manually
verified to correct any mismatched content". The released `results_human` sheets show *what* the
annotators edited (measured on the 7 films in ../shared/data, cues matched to `results`):

- the scene (`scene_index`, with its `location`) on 25–385 cues per film, and the speaker
  (`characters`) on 145–934 cues per film; every row is then marked `consistent` = 1;
- the script row (`index_result`) on only 8–124 cues per film. Where they moved a cue to another
  scene they mostly left its row as the DTW had it: on 23–382 cues per film the human row lies in
  a different scene from the human's own `scene_index` (`stale_rows`).

So the human judgement of a cue is its (scene, speaker), and `index_result` in `results_human` is
the automatic answer wherever the humans fixed the scene or speaker instead. The headline measure
(`ours`, `automatic`) therefore counts a cue as right when the script row an aligner gives it has
the human's scene **and** the human's speaker (our choice where the issue named `index_result`;
documented in docs/PREPROCESSING.md). The row, scene and speaker agreements are reported
separately too, each with how many cues the humans edited and how often we agree with the edit.

Two properties of the gold bound what any aligner that picks script rows can score (reported
per file): `gold_pair_absent` counts cues whose human (scene, speaker) is no dialogue
row of the script — the humans re-voiced a cue and kept the automatic's scene, so a row can have
the human scene or the human speaker, not both (`scene_where_pair_exists` is the scene agreement
on the other cues); `human_scene_monotone` is the share of cues on the longest run of human scene
numbers that never goes back in script order — near 1.0 on every file, so the gold follows the
script's scene order even where the film plays a scene's words elsewhere.

Speakers are compared as names (`speakers_agree`): extensions such as (V.O.) and (CONT'D)
dropped, case, spacing and punctuation folded (`coref.surface_key`), and a two-speaker label
("ANDY-RED") agreeing with either of its names.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from pathlib import Path

from pipelines.preprocess.aligned_script import (
    AlignedScriptError,
    align_sheets,
    automatic_sheet,
    human_sheet,
    load_sheets,
    row_id,
    row_key,
    sheet,
)
from pipelines.preprocess.common import EXTENSION_RE
from pipelines.preprocess.coref import surface_key

FIELDS = ("scene", "speaker", "row")
# (V.O.) and friends typed without parentheses, and the "(MORE)" the release's parser left as a
# speaker on speeches split over a page.
_BARE_EXTENSION_RE = re.compile(
    r"\b(?:V\.?\s?O|O\.?\s?S|O\.?\s?C|CONT'?D|MORE)\b\.?", re.IGNORECASE
)
# "ANDY-RED", "WAYNE/RACHEL", "MAN & WOMAN": one cue, two speakers.
_SPEAKER_SPLIT_RE = re.compile(r"\s*(?:[-/&,+]|\bAND\b)\s*", re.IGNORECASE)


def speaker_names(label: str | None) -> frozenset[str]:
    """The speaker names in a `characters` label, folded for comparison."""
    text = _BARE_EXTENSION_RE.sub(" ", EXTENSION_RE.sub(" ", label or ""))
    return frozenset(key for part in _SPEAKER_SPLIT_RE.split(text) if (key := surface_key(part)))


def speakers_agree(label: str | None, gold: str | None) -> bool:
    """True when the labels share a speaker; two empty labels (no speaker) agree too."""
    names, gold_names = speaker_names(label), speaker_names(gold)
    return bool(names & gold_names) if gold_names else not names


@dataclass
class Agreement:
    """One field's agreement with the human sheet: ours, the automatic's, and on the cues where
    the humans changed the automatic's value (`edited`), how often ours has the human value."""

    ours: float
    automatic: float
    edited: int
    ours_on_edited: float | None

    def as_dict(self) -> dict:
        rounded = None if self.ours_on_edited is None else round(self.ours_on_edited, 4)
        return {
            "ours": round(self.ours, 4),
            "automatic": round(self.automatic, 4),
            "edited": self.edited,
            "ours_on_edited": rounded,
        }


@dataclass
class EvalResult:
    """One file: `ours` / `automatic` are the scene-and-speaker agreement (see the module doc)."""

    file: str
    cues: int
    ours: float
    automatic: float
    fields: dict[str, Agreement]
    stale_rows: int  # human rows whose script row lies outside the human's own scene
    method: str = "dp"
    gold_pair_absent: int = 0  # cues whose human (scene, speaker) is no script dialogue row
    scene_where_pair_exists: Agreement | None = None
    human_scene_monotone: float | None = None  # share of cues on the longest monotone scene run


@dataclass
class _Judged:
    """Per field, per cue: does ours / the automatic have the human value; did the humans edit
    it."""

    ours: list[bool]
    automatic: list[bool]
    edited: list[bool]

    def agreement(self) -> Agreement:
        n = len(self.ours)
        on_edited = [o for o, e in zip(self.ours, self.edited) if e]
        return Agreement(
            sum(self.ours) / n,
            sum(self.automatic) / n,
            len(on_edited),
            sum(on_edited) / len(on_edited) if on_edited else None,
        )


def _field_checks(candidate: dict, gold: dict) -> dict[str, bool]:
    return {
        "scene": str(candidate.get("scene_index", "")).strip()
        == str(gold.get("scene_index", "")).strip(),
        "speaker": speakers_agree(candidate.get("characters"), gold.get("characters")),
        "row": row_id(candidate) == str(gold.get("index_result", "")).strip(),
    }


def _as_row(results_row: dict | None) -> dict:
    """An automatic results row seen as the script row it names (its own scene and speaker)."""
    if results_row is None:
        return {}
    return {**results_row, "Unnamed: 0": str(results_row.get("index_result", "")).strip()}


def evaluate_file(path: Path, method: str = "dp") -> EvalResult:
    """Our alignment (by `method`) and the automatic one, against `results_human`, on one file."""
    sheets = load_sheets(path)
    source = str(path)
    subtitles = sheet(sheets, "subtitle", source)
    script_rows = {row_id(r): r for r in sheet(sheets, "script", source)}
    human = _first_by_key(human_sheet(sheets, source))
    automatic = _first_by_key(automatic_sheet(sheets, source))
    ours = align_sheets(sheets, source, method)
    speakers_by_scene = _speakers_by_scene(script_rows.values())
    judged = {name: _Judged([], [], []) for name in (*FIELDS, "verified", "scene_pair_exists")}
    gold_scenes = []
    for index, cue in enumerate(subtitles):
        gold = human.get(row_key(cue))
        if gold is None:
            continue
        gold_scenes.append(str(gold.get("scene_index", "")).strip())
        auto_row = _as_row(automatic.get(row_key(cue)))
        mine = _field_checks(script_rows.get(ours[index], {}), gold)
        theirs = _field_checks(auto_row, gold)  # the automatic is right where nobody edited it
        for name in FIELDS:
            judged[name].ours.append(mine[name])
            judged[name].automatic.append(theirs[name])
            judged[name].edited.append(not theirs[name])
        if _gold_pair_exists(gold, speakers_by_scene):
            judged["scene_pair_exists"].ours.append(mine["scene"])
            judged["scene_pair_exists"].automatic.append(theirs["scene"])
            judged["scene_pair_exists"].edited.append(not theirs["scene"])
        judged["verified"].ours.append(mine["scene"] and mine["speaker"])
        judged["verified"].automatic.append(theirs["scene"] and theirs["speaker"])
        judged["verified"].edited.append(not (theirs["scene"] and theirs["speaker"]))
    if not judged["row"].ours:
        raise AlignedScriptError(f"{source}: no subtitle row matches a row of results_human")
    verified = judged["verified"].agreement()
    return EvalResult(
        path.name,
        len(judged["row"].ours),
        verified.ours,
        verified.automatic,
        {name: judged[name].agreement() for name in FIELDS},
        _stale_rows(human.values(), script_rows),
        method,
        len(judged["row"].ours) - len(judged["scene_pair_exists"].ours),
        judged["scene_pair_exists"].agreement() if judged["scene_pair_exists"].ours else None,
        monotone_share(gold_scenes),
    )


def _speakers_by_scene(script_rows) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for row in script_rows:
        if str(row.get("record_type", "")).strip() == "dialog":
            scene = str(row.get("scene_index", "")).strip()
            found.setdefault(scene, []).append(str(row.get("characters", "")))
    return found


def _gold_pair_exists(gold: dict, speakers_by_scene: dict[str, list[str]]) -> bool:
    """Whether some dialogue row of the human's scene has the human's speaker."""
    scene = str(gold.get("scene_index", "")).strip()
    return any(
        speakers_agree(label, gold.get("characters")) for label in speakers_by_scene.get(scene, [])
    )


def monotone_share(scenes: list[str]) -> float | None:
    """Share of the sequence on its longest non-decreasing subsequence (scene numbers in time
    order; None when a scene id is not a number). 1.0: the labels never go back in the script."""
    try:
        numbers = [float(s) for s in scenes]
    except ValueError:
        return None
    tails: list[float] = []  # patience sorting: O(n log n)
    for value in numbers:
        at = bisect.bisect_right(tails, value)
        tails[at : at + 1] = [value]
    return len(tails) / len(numbers) if numbers else None


def _first_by_key(rows: list[dict]) -> dict[tuple[str, str], dict]:
    """The first results row of each cue (a cue the DTW stretched over lines has one per line)."""
    found: dict[tuple[str, str], dict] = {}
    for row in rows:
        found.setdefault(row_key(row), row)
    return found


def _stale_rows(human_rows, script_rows: dict[str, dict]) -> int:
    """Human rows whose `index_result` points into another scene than their own `scene_index`."""
    stale = 0
    for row in human_rows:
        named = script_rows.get(str(row.get("index_result", "")).strip())
        stale += (
            named is not None
            and str(named.get("scene_index", "")).strip() != str(row.get("scene_index", "")).strip()
        )
    return stale


def file_group(name: str) -> str:
    """films | GOT | sitcoms: sitcom human and automatic sheets are identical, so they are
    reported apart (the human gold is informative for films and GOT only)."""
    upper = name.upper()
    if upper.startswith("GOT"):
        return "GOT"
    if upper.startswith(("FRIENDS", "BIGBANG")):
        return "sitcoms"
    return "films"


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def summarise(results: list[EvalResult]) -> dict:
    """The `align-eval --json` object ({"files", "ours_mean", "automatic_mean"}), plus per-group
    means under `groups` for the text report."""
    rows = [
        {
            "file": r.file,
            "cues": r.cues,
            "ours": round(r.ours, 4),
            "automatic": round(r.automatic, 4),
            "measure": "scene+speaker",
            "method": r.method,
            **{name: r.fields[name].as_dict() for name in FIELDS},
            "stale_rows": r.stale_rows,
            "gold_pair_absent": r.gold_pair_absent,
            "scene_where_pair_exists": (
                r.scene_where_pair_exists.as_dict() if r.scene_where_pair_exists else None
            ),
            "human_scene_monotone": (
                None if r.human_scene_monotone is None else round(r.human_scene_monotone, 4)
            ),
        }
        for r in results
    ]
    summary = {
        "files": rows,
        "ours_mean": _mean([r.ours for r in results]),
        "automatic_mean": _mean([r.automatic for r in results]),
    }
    groups: dict[str, list[EvalResult]] = {}
    for result in results:
        groups.setdefault(file_group(result.file), []).append(result)
    summary["groups"] = {
        group: {
            "files": len(members),
            "ours_mean": _mean([r.ours for r in members]),
            "automatic_mean": _mean([r.automatic for r in members]),
            "wins": sum(r.ours >= r.automatic for r in members),
            **{
                f"{name}_mean": {
                    "ours": _mean([r.fields[name].ours for r in members]),
                    "automatic": _mean([r.fields[name].automatic for r in members]),
                }
                for name in FIELDS
            },
        }
        for group, members in groups.items()
    }
    return summary
