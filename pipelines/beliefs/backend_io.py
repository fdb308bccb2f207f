"""What every belief-annotation backend shares: the selection, the result, the error, the film.

`annotate.py` dispatches over the backends (`rules/film.py`, `llm/stages.py`); both import
these types from here, so neither backend imports the dispatcher (no import cycle).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from data_access.store import Store
from data_access.tables import belief_records
from data_access.tables.runs import RunSpec
from pipelines.beliefs.backends import belief_backend
from pipelines.beliefs.rules import engine as rules


class AnnotateError(ValueError):
    """A film or selection that cannot be annotated; the message says why."""


@dataclass
class Selection:
    """Which scenes (half-open slice of scene indices) and characters to annotate."""

    first: int | None = None
    stop: int | None = None
    characters: list[str] | None = None

    def has_scene(self, index: int) -> bool:
        return (self.first is None or index >= self.first) and (
            self.stop is None or index < self.stop
        )

    def has_character(self, name: str) -> bool:
        return not self.characters or name in self.characters


def parse_scene_range(text: str | None) -> tuple[int | None, int | None]:
    """'a:b' -> (a, b) as a half-open range of 0-based scene indices; 'a:' and ':b' allowed."""
    if not text:
        return None, None
    parts = text.split(":")
    if len(parts) != 2:
        raise AnnotateError(f"--scenes must look like a:b, not {text!r}")
    try:
        first, stop = (int(p) if p.strip() else None for p in parts)
    except ValueError:
        raise AnnotateError(f"--scenes must hold integers, not {text!r}") from None
    if first is not None and stop is not None and stop <= first:
        raise AnnotateError(f"--scenes {text}: the end must be after the start")
    return first, stop


@dataclass
class AnnotationResult:
    """Rows of one annotation, ready for `data_access.tables.belief_records.write_annotation`."""

    film_id: str
    backend: str
    tables: dict[str, list[dict]] = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    run_id: str | None = None
    counts: dict[str, int] = field(default_factory=dict)


class LoadedFilm(NamedTuple):
    """A stored film as every backend reads it (`load_film`)."""

    film: dict  # the films row
    scenes: dict[int, list[rules.ScriptLine]]  # script lines by scene index, with their voices
    locations: dict[int, str | None]  # each scene's location
    roster: rules.Roster  # the film's characters and how to spot each in text
    voices_known: bool  # whether the store recorded the lines' cues (V.O., O.S.) at ingest


def load_film(store: Store, film_id: str) -> LoadedFilm:
    """The film row, its lines by scene and its roster; AnnotateError when unusable."""
    film = belief_records.film_record(store, film_id)
    if film is None:
        raise AnnotateError(f"no film {film_id!r} in {store.path}")
    frame = belief_records.film_scene_text(store, film_id)
    if frame.empty:
        raise AnnotateError(f"film {film_id!r} has no script lines; ingest its screenplay first")
    voices = rules.stored_voices(frame)
    scenes = rules.lines_from_frame(frame, voices)
    locations = frame.groupby("scene_index")["location"].first().to_dict()
    cast = belief_records.film_characters(store, film_id)
    names = {
        row.canonical_name: list(row.aliases if row.aliases is not None else [])
        for row in cast.itertuples(index=False)
    }
    if not names:
        names = {
            c: [] for c in frame.loc[frame["kind"] == "dialogue", "character"].dropna().unique()
        }
    # A joint cue is not a character: its members are (added when the roster lacks them).
    for joint in [n for n in names if len(rules.split_group(n)) > 1]:
        del names[joint]
        for member in rules.split_group(joint):
            names.setdefault(member, [])
    return LoadedFilm(film, scenes, locations, rules.Roster(names), voices is not None)


def offline_run_spec(film_id: str, result: AnnotationResult, selection: Selection) -> RunSpec:
    """The `beliefs.annotate` run of an offline (`rules` or `asymmetry`) annotation of
    `selection`: one spec for both, so a local, a scene-range and a scaled run record alike."""
    params = {
        **result.params,
        "scenes": [selection.first, selection.stop],
        "characters": selection.characters,
    }
    return RunSpec(
        "beliefs.annotate",
        backend=result.backend,
        params=params,
        source=film_id,
        note=belief_backend(result.backend).note,
    )
