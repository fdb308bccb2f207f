"""The asymmetry backend's beliefs over a screenplay built in a test."""

from __future__ import annotations

from collections import defaultdict

from pipelines.beliefs.asymmetry.film import asymmetry_rows
from pipelines.beliefs.backend_io import LoadedFilm, Selection
from pipelines.beliefs.rules.engine import Roster, ScriptLine
from tests.support.asymmetry_stories import hashed

CAST = ("OTTO", "PIA", "LENA")


def beliefs(lines: list[tuple], locations: dict[int, str]) -> list[dict]:
    """Asymmetry belief rows of a screenplay: (scene, kind, character, text[, parenthetical,
    mode]) per line."""
    scenes: dict[int, list[ScriptLine]] = defaultdict(list)
    for n, (scene, kind, who, text, *voice) in enumerate(lines):
        paren, mode = (voice + [None, "in_person"])[:2] if voice else (None, "in_person")
        scenes[scene].append(ScriptLine(n, kind, text, who, paren, mode))
    loaded = LoadedFilm({}, dict(scenes), locations, Roster({c: [] for c in CAST}), True)
    return asymmetry_rows("film", loaded, Selection(), embed=hashed).tables["beliefs"]


def of(rows: list[dict], holder: str, word: str) -> list[dict]:
    return [r for r in rows if r["holder"] == holder and word in r["content"].lower()]
