"""Backend 'rules' of `storyscope beliefs annotate`: the offline rules of `rules.engine` run
over a stored film's scenes, turned into presence, event and told-belief rows."""

from __future__ import annotations

from collections import defaultdict

from data_access.store import Store
from data_access.tables import belief_records
from pipelines.beliefs.backend_io import (
    AnnotationResult,
    LoadedFilm,
    Selection,
    load_film,
    offline_run_spec,
)
from pipelines.beliefs.rules import engine as rules


def annotate_rules(store: Store, film_id: str, selection: Selection) -> AnnotationResult:
    """Presence, witnessed events and told lines for the selected scenes (backend 'rules')."""
    return rules_rows(film_id, load_film(store, film_id), selection)


def rules_rows(film_id: str, loaded: LoadedFilm, selection: Selection) -> AnnotationResult:
    """`annotate_rules` on a `load_film` result (pure: a scale-out unit, pipelines.scale)."""
    scenes, locations, roster = loaded.scenes, loaded.locations, loaded.roster
    result = AnnotationResult(
        film_id,
        rules.BACKEND,
        defaultdict(list),
        {"voices_from_source": loaded.voices_known, "scenes": sorted(scenes)},
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


def annotate_with_rules(
    store: Store, film_id: str, selection: Selection, dry_run: bool = False
) -> AnnotationResult:
    """Annotate with the rules and (unless dry_run) store the rows as one run."""
    result = annotate_rules(store, film_id, selection)
    result.counts = {table: len(rows) for table, rows in result.tables.items()}
    if dry_run:
        return result
    spec = offline_run_spec(film_id, result, selection)
    result.run_id, result.counts = belief_records.write_annotation(store, spec, result.tables)
    return result
