"""Character coreference: the merge / keep-apart rules of LF-VideoQA Table 17, with evidence."""

from __future__ import annotations

from pipelines.preprocess.coref import resolve_characters, surface_key


def _groups(scenes_by_name, lines=None):
    return {g.canonical: g for g in resolve_characters(scenes_by_name, lines)}


def _alias_sets(scenes_by_name, lines=None):
    return sorted(sorted(g.aliases) for g in resolve_characters(scenes_by_name, lines))


def test_case_spacing_punctuation_and_ocr_variants_always_merge():
    names = {
        "JOHN": {1},
        "John": {1},
        "JJOOHHNN": {2},
        "MARY-ANNE": {3},
        "MARY ANNE": {4},
        "MARYANNE": {5},
        "MR SMITH": {6},
        "MR. SMITH": {7},
    }
    assert _alias_sets(names) == [
        ["JJOOHHNN", "JOHN", "John"],
        ["MARY ANNE", "MARY-ANNE", "MARYANNE"],
        ["MR SMITH", "MR. SMITH"],
    ]


def test_numbers_keep_people_apart_but_number_formats_merge():
    names = {
        "GUARD 1": {1},
        "GUARD #1": {2},
        "Guard 1": {3},
        "GUARD ONE": {4},
        "GUARD 2": {5},
        "FIRST THIEF": {1},
        "SECOND THIEF": {1},
        "PATRON #1": {2},
        "PATRON #2": {2},
    }
    assert _alias_sets(names) == [
        ["FIRST THIEF"],
        ["GUARD #1", "GUARD 1", "GUARD ONE", "Guard 1"],
        ["GUARD 2"],
        ["PATRON #1"],
        ["PATRON #2"],
        ["SECOND THIEF"],
    ]
    assert surface_key("FIRST THIEF") == surface_key("THIEF 1")


def test_first_name_last_name_and_honorifics_with_evidence():
    groups = _groups(
        {
            "ALEX": {1},
            "ALEX MORGAN": {2},
            "MORGAN": {3},
            "DR. CHEN": {4},
            "CHEN": {5},
            "Dr Chen": {6},
        },
        {"ALEX MORGAN": 10, "ALEX": 3, "MORGAN": 1, "CHEN": 5},
    )
    assert sorted(groups["ALEX MORGAN"].aliases) == ["ALEX", "ALEX MORGAN", "MORGAN"]
    assert {e["rule"] for e in groups["ALEX MORGAN"].evidence} == {"first_name", "last_name"}
    assert sorted(groups["CHEN"].aliases) == ["CHEN", "DR. CHEN", "Dr Chen"]
    assert all(e["detail"] for g in groups.values() for e in g.evidence)


def test_nicknames_merge_when_unambiguous():
    assert _alias_sets({"LIZ": {1}, "ELIZABETH WARD": {2}, "BOBBY": {3}, "ROBERT": {4}}) == [
        ["BOBBY", "ROBERT"],
        ["ELIZABETH WARD", "LIZ"],
    ]


def test_shared_first_name_is_ambiguous_and_kept_apart():
    assert _alias_sets({"SAM": {1}, "SAM BELL": {2}, "SAM COLE": {3}}) == [
        ["SAM"],
        ["SAM BELL"],
        ["SAM COLE"],
    ]


def test_two_names_speaking_in_one_scene_are_two_people():
    groups = _groups({"ALEX": {1, 2}, "ALEX MORGAN": {2}})
    assert sorted(groups) == ["ALEX", "ALEX MORGAN"]


def test_groups_and_roles_stay_apart():
    names = {"CROWD": {1}, "SOLDIERS": {2}, "WAITER": {3}, "OLD MAN": {4}, "JOHN WAITER": {5}}
    assert _alias_sets(names) == [["CROWD"], ["JOHN WAITER"], ["OLD MAN"], ["SOLDIERS"], ["WAITER"]]


def test_gendered_honorifics_do_not_merge():
    # Chinatown: MULWRAY (the husband) and MRS. MULWRAY (his wife) are two people
    assert _alias_sets({"MULWRAY": {1}, "MRS. MULWRAY": {2}}) == [["MRS. MULWRAY"], ["MULWRAY"]]
    # Table 17's own example: MRS. SMITH with ELLEN SMITH
    assert _alias_sets({"MRS. SMITH": {1}, "ELLEN SMITH": {2}}) == [["ELLEN SMITH", "MRS. SMITH"]]
    # ... unless MR. SMITH exists too: which Smith Ellen is stays unknown
    assert _alias_sets({"MRS. SMITH": {1}, "MR. SMITH": {3}, "ELLEN SMITH": {2}}) == [
        ["ELLEN SMITH"],
        ["MR. SMITH"],
        ["MRS. SMITH"],
    ]


def test_voice_of_a_character_merges_with_the_character():
    groups = _groups(
        {"CURLY": {2}, "CURLY'S VOICE": {1}, "GITTES": {2}, "GITTES' VOICE": {5}},
        {"CURLY": 20, "GITTES": 500},
    )
    assert sorted(groups["CURLY"].aliases) == ["CURLY", "CURLY'S VOICE"]
    assert sorted(groups["GITTES"].aliases) == ["GITTES", "GITTES' VOICE"]
    assert groups["CURLY"].evidence[0]["rule"] == "voice_of"
