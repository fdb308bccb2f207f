"""`storyscope beliefs annotate`: belief records for a film already in the store.

Backends: 'rules' (offline, `pipelines.beliefs.rules_backend`) and 'openai' (the LLM stages of
Tables 18–21 through the gateway, `pipelines.beliefs.llm_stages`). Both read the stored scenes
and script lines, so any ingested film works (screenplays ingested by preprocessing, StoryVideoQA
aligned scripts). Output rows carry the run's backend; a dry run computes without writing.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from data_access import beliefs as belief_store
from data_access.runs import RunSpec
from data_access.store import Store
from pipelines.beliefs import rules_backend as rules


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
    """Rows of one annotation, ready for `data_access.beliefs.write_annotation`."""

    film_id: str
    backend: str
    tables: dict[str, list[dict]] = field(default_factory=dict)
    params: dict = field(default_factory=dict)
    run_id: str | None = None
    counts: dict[str, int] = field(default_factory=dict)


def load_film(store: Store, film_id: str):
    """The film row, its lines by scene and its roster; AnnotateError when unusable."""
    film = belief_store.film_record(store, film_id)
    if film is None:
        raise AnnotateError(f"no film {film_id!r} in {store.path}")
    frame = belief_store.film_scene_text(store, film_id)
    if frame.empty:
        raise AnnotateError(f"film {film_id!r} has no script lines; ingest its screenplay first")
    dialogue = int((frame["kind"] == "dialogue").sum())
    voices = rules.recover_voices(film.get("source"), dialogue)
    scenes = rules.lines_from_frame(frame, voices)
    locations = frame.groupby("scene_index")["location"].first().to_dict()
    cast = belief_store.film_characters(store, film_id)
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
    return film, scenes, locations, rules.Roster(names), voices is not None


def annotate_rules(store: Store, film_id: str, selection: Selection) -> AnnotationResult:
    """Presence, witnessed events and told lines for the selected scenes (backend 'rules')."""
    return rules_rows(film_id, load_film(store, film_id), selection)


def rules_rows(film_id: str, loaded: tuple, selection: Selection) -> AnnotationResult:
    """`annotate_rules` on a `load_film` result (pure: a scale-out unit, pipelines.scale)."""
    film, scenes, locations, roster, voices = loaded
    result = AnnotationResult(
        film_id,
        rules.BACKEND,
        defaultdict(list),
        {"voices_from_source": voices, "scenes": sorted(scenes)},
    )
    previous, tags = None, defaultdict(int)
    for index in sorted(scenes):
        same_place = previous is not None and locations.get(index) == locations.get(
            previous.scene_index
        )
        scene = rules.annotate_scene(index, scenes[index], roster, previous, same_place)
        previous = scene
        if selection.has_scene(index):
            _scene_rows(result, film_id, scene, selection, tags)
        else:
            # count the tags of unselected scenes too: a partial run's belief ids are the ones a
            # full run gives, so the two merge cell by cell (migration 301) without clashing
            for told in scene.told:
                tags[told["holder"]] += 1
    return result


def _scene_rows(result, film_id, scene, selection, tags) -> None:
    for event in scene.events:
        result.tables["scene_events"].append({"film_id": film_id, **event})
    for character, status in scene.presence.items():
        if selection.has_character(character):
            result.tables["presence"].append(
                {
                    "film_id": film_id,
                    "scene_index": scene.scene_index,
                    "character": character,
                    "status": status,
                    "witnessed_events": scene.witnessed.get(character, []),
                }
            )
    for told in scene.told:
        if selection.has_character(told["holder"]):
            tags[told["holder"]] += 1
            result.tables["beliefs"].append(
                {
                    "film_id": film_id,
                    "belief_id": f"B{tags[told['holder']]}",
                    "holder": told["holder"],
                    "scene_index": scene.scene_index,
                    "kind": "told",
                    "content": told["content"],
                    "source_character": told["source"],
                    "believed": None,
                    "basis": [told["event_id"]],
                    "is_false": False,
                }
            )


def annotate(
    store: Store,
    film_id: str,
    backend: str = "rules",
    selection: Selection | None = None,
    dry_run: bool = False,
    **llm_options,
) -> AnnotationResult:
    """Annotate a film with one backend and (unless dry_run) store the rows as one run."""
    selection = selection or Selection()
    if backend == "rules":
        result = annotate_rules(store, film_id, selection)
        spec_extra = {}
    elif backend == "openai":
        from pipelines.beliefs.llm_stages import annotate_llm

        return annotate_llm(store, film_id, selection, dry_run=dry_run, **llm_options)
    else:
        raise AnnotateError(f"unknown backend {backend!r}: use rules or openai")
    result.counts = {table: len(rows) for table, rows in result.tables.items()}
    if dry_run:
        return result
    params = {
        **result.params,
        "scenes": [selection.first, selection.stop],
        "characters": selection.characters,
        **spec_extra,
    }
    spec = RunSpec(
        "beliefs.annotate",
        backend=result.backend,
        params=params,
        source=film_id,
        note="offline rules over the stored screenplay (no LLM)",
    )
    result.run_id, result.counts = belief_store.write_annotation(store, spec, result.tables)
    return result
