"""Context-sets (App. F.1, Table 6), the four discard rules, and balanced sampling."""

from __future__ import annotations

from collections import Counter

from data_access.tables.qgen_records import film_records
from pipelines.qgen.context_sets import anchor_location_rivals, name_budget
from pipelines.qgen.entries import ALL_TYPES
from pipelines.qgen.film_view import FilmView
from pipelines.qgen.generate import build_context_sets
from pipelines.qgen.sampling import runtime_fifth, sample_context_sets
from tests.support.qgen_film import build_film


def _view(store) -> FilmView:
    return FilmView.from_records(film_records(store, build_film(store)))


def test_each_discard_rule_fires_on_the_belief_built_for_it(store):
    sets = build_context_sets(_view(store), ALL_TYPES)
    reasons = {(cs.qtype, cs.center, cs.anchor_scene): cs.discard_reason for cs in sets}
    assert reasons[("Q4", "Line Judge", 3)] == "center_never_named"  # B8
    assert reasons[("Q4", "Mara", 7)] == "cited_events_outside"  # B11 cites scene 0
    assert reasons[("Q4", "Tom", 6)] == "center_absent_from_anchor"  # B10
    assert reasons[("Q4", "Mara", 4)] == "anchor_interpolated"  # B9
    counts = Counter(cs.discard_reason for cs in sets)
    assert counts[None] == 20 and len(sets) == 27


def test_arc_types_are_not_discarded_for_an_absent_center(store):
    view = _view(store)
    n1 = [cs for cs in build_context_sets(view, ["N1"]) if cs.center == "Tom"]
    assert len(n1) == 1 and n1[0].kept
    assert not view.is_present(6, "Tom")  # Tom's N1 entries include B10, formed where he is absent


def test_name_budget_splits_spoken_later_and_never(store):
    view = _view(store)
    assert name_budget(view, 2) == {
        "spoken_by_anchor": ["Mara", "Tom"],
        "named_later": ["Ivy"],
        "forbidden_names": ["Line Judge"],
    }
    assert name_budget(view, 5)["spoken_by_anchor"] == ["Ivy", "Mara", "Tom"]


def test_anchor_location_rivals_count_same_place_scenes_with_the_holder(store):
    view = _view(store)
    assert anchor_location_rivals(view, 2, ["Mara"]) == 2  # lighthouse scenes 0 and 7
    assert anchor_location_rivals(view, 1, ["Ivy"]) == 1  # harbour scene 6 (Ivy alone)
    assert anchor_location_rivals(view, 1, ["Tom", "Ivy"]) == 0
    assert anchor_location_rivals(view, 3, ["Tom"]) == 1  # pub scene 5


def test_payload_carries_table_6_fields_and_no_screenplay_text(store):
    sets = build_context_sets(_view(store), ["Q7"])
    payload = next(cs.payload for cs in sets if cs.center == "Ivy")
    assert set(payload) >= {
        "holder",
        "anchor",
        "anchor_location_rivals",
        "name_budget",
        "scenes",
        "belief_entries",
        "type_spec",
        "events",
    }
    entry = payload["belief_entries"][0]
    assert (
        entry["c_told_d"] == "the lamp was repaired last week" and entry["believed_by_c"] is False
    )
    assert "Line of scene" not in str(payload)


def test_q1_center_is_a_group(store):
    q1 = build_context_sets(_view(store), ["Q1"])
    assert any(
        cs.members == ["Ivy", "Mara", "Tom"] and cs.center == "Ivy + Mara + Tom" for cs in q1
    )


def test_sampling_spreads_types_fifths_and_centers_and_is_seeded(store):
    view = _view(store)
    sets = build_context_sets(view, ALL_TYPES)
    picked = sample_context_sets(sets, 11, view.film_end(), seed=0)
    assert len(picked) == 11 and all(cs.kept for cs in picked)
    kept_types = {cs.qtype for cs in sets if cs.kept}
    assert len(kept_types) == 10  # no N3 chain in this film
    assert {cs.qtype for cs in picked[:10]} == kept_types  # one of each type first
    fifths = Counter(runtime_fifth(cs.payload["anchor"]["time_s"], 1000.0) for cs in picked)
    assert max(fifths.values()) - min(fifths.values()) <= 3
    again = sample_context_sets(sets, 11, view.film_end(), seed=0)
    assert [cs.context_set_id for cs in again] == [cs.context_set_id for cs in picked]
    other = sample_context_sets(sets, 5, view.film_end(), seed=7)
    assert [cs.context_set_id for cs in other] != [cs.context_set_id for cs in picked[:5]]
