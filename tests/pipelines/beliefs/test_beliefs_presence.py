"""Who a direction puts on screen and who it only mentions (Table 19's top rung):
snippets built here, then Chinatown, where Mulwray stayed "on screen" long after his death."""

from __future__ import annotations

import re

import pytest

from pipelines.beliefs.rules.engine import Roster, ScriptLine, annotate_scene

ROSTER = Roster(
    {
        "GITTES": ["GITTES' VOICE"],
        "EVELYN": [],
        "MULWRAY": [],
        "MRS. MULWRAY": [],
        "CROSS": [],
        "ESCOBAR": [],
    }
)


def _direction(text: str) -> ScriptLine:
    return ScriptLine(0, "direction", text)


def _says(character: str, text: str, mode: str = "in_person") -> ScriptLine:
    return ScriptLine(0, "dialogue", text, character, mode=mode)


def _on_screen(scenes: list[list[ScriptLine]]) -> list[set[str]]:
    """Who is on screen in each scene, the scenes annotated in order as the backends do."""
    previous, shown = None, []
    for index, lines in enumerate(scenes):
        previous = annotate_scene(index, lines, ROSTER, previous, same_place_as_previous=False)
        shown.append({c for c, s in previous.presence.items() if s == "on_screen"})
    return shown


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Evelyn Mulwray is standing at the table.", {"EVELYN"}),
        ("CLOSE – EVELYN MULWRAY", {"EVELYN"}),
        ("Mrs. Mulwray nods, almost shyly.", {"MRS. MULWRAY"}),
        ("Gittes pulls up in Mulwray's Buick.", {"GITTES"}),
        ("Gittes heads into MULWRAY'S INNER OFFICE.", {"GITTES"}),
        ("Workmen scrape away Mulwray's name. Gittes' glance follows them.", set()),
        ("In the drawer are the photos of Mulwray and the girl in the park.", set()),
        ("He spots a picture of a much younger Mulwray, along with Cross.", set()),
        ("Escobar runs the newsreel footage of Mulwray at the dam.", {"ESCOBAR"}),
        ('The door reads "HOLLIS MULWRAY CHIEF ENGINEER". Escobar knocks.', {"ESCOBAR"}),
        ("She is the woman who posed as Evelyn Mulwray.", set()),
    ],
)
def test_a_mention_does_not_put_a_character_on_screen(text, expected):
    (shown,) = _on_screen([[_direction(text)]])
    assert shown == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Evelyn's hand trembles on the glass.", {"EVELYN"}),
        ("ESCOBAR's POV of the reservoir.", {"ESCOBAR"}),
        ("Gittes's not going anywhere. Cross's waiting outside.", {"GITTES", "CROSS"}),
        ("Mulwray stares at the water, Gittes behind him.", {"MULWRAY", "GITTES"}),
    ],
)
def test_a_body_part_a_point_of_view_or_a_contraction_places_them(text, expected):
    (shown,) = _on_screen([[_direction(text)]])
    assert shown == expected


def test_a_role_on_the_roster_before_a_name_is_that_name_s_title():
    roster = Roster({"DETECTIVE": [], "LOACH": [], "EVELYN": [], "MULWRAY": []})
    assert roster.placed("Detective Loach waits by the car.") == ["LOACH"]
    assert roster.placed("The Detective waits. Evelyn Mulwray joins him.") == [
        "DETECTIVE",
        "EVELYN",
    ]


def test_a_mentioned_character_bears_on_the_scene_but_is_not_there():
    scene = annotate_scene(0, [_direction("Gittes drives Mulwray's car.")], ROSTER, None, False)
    assert scene.presence["MULWRAY"] == "offscreen_unaware"
    assert scene.presence["GITTES"] == "on_screen"
    assert all(event["witnesses"] == ["GITTES"] for event in scene.events)


def test_the_dead_are_not_on_screen_until_they_speak_again():
    shown = _on_screen(
        [
            [_direction("Mulwray kneels in the mud.")],
            [_direction("Escobar stands over the body of Mulwray."), _says("ESCOBAR", "Drowned.")],
            [_direction("Gittes lowers the sheet on Mulwray.")],
            [_says("MULWRAY", "I only narrate this.", mode="voice_over")],
            [_direction("Mulwray walks in, dripping."), _says("MULWRAY", "Not quite.")],
            [_direction("Mulwray sits down.")],
        ]
    )
    assert "MULWRAY" in shown[0]
    assert all("MULWRAY" not in scene for scene in shown[1:4])
    assert "ESCOBAR" in shown[1] and "GITTES" in shown[2]
    assert "MULWRAY" in shown[4] and "MULWRAY" in shown[5]  # he spoke in person: alive


def test_a_death_reads_past_a_full_name_and_a_possessive_body_is_not_one():
    assert ROSTER.deaths("Evelyn Mulwray dies in the car.") == ["EVELYN"]
    assert ROSTER.deaths("Escobar stands over the body of Mulwray.") == ["MULWRAY"]
    assert ROSTER.deaths("We glide up Evelyn's body, in the passenger seat.") == []


def test_someone_who_dies_stops_witnessing_from_that_line():
    lines = [
        _direction("Cross and Escobar argue on the pier."),
        _direction("Cross dies. Escobar looks to the ladder."),
        _direction("Escobar climbs the ladder."),
    ]
    scene = annotate_scene(0, lines, ROSTER, None, False)
    assert scene.presence["CROSS"] == "on_screen"  # he was there, acting, before he died
    assert [e["witnesses"] for e in scene.events] == [["CROSS", "ESCOBAR"], ["ESCOBAR"]] + [
        ["ESCOBAR"]
    ]
    assert scene.dead == {"CROSS"}


@pytest.mark.slow
def test_chinatown_mulwray_is_off_screen_once_found_dead(store, shared_data):
    from pipelines.beliefs.annotate import annotate
    from pipelines.preprocess.ingest import ingest_film

    folder = shared_data / "screenplays" / "srt-pairs-robertjvt" / "scripts_subtitles"
    ingest_film(store, folder / "chinatown.txt", folder / "chinatown.srt")
    annotate(store, "chinatown", "rules")
    lines = store.df(
        "SELECT scene_index, kind, character, text FROM script_lines"
        " WHERE film_id = 'chinatown' AND scene_index IS NOT NULL ORDER BY line_index"
    )
    directions = lines[lines["kind"] == "direction"]
    # The screenplay's own words: at the reservoir "They start to pull the body into the
    # skiff"; the next scene opens over "the body of Mulwray" at the coroner's.
    found = directions[directions["text"].str.contains("pull the body into the skiff")]
    coroner = directions[directions["text"].str.contains("the body of Mulwray")]
    found_scene = int(found["scene_index"].iloc[0])
    assert int(coroner["scene_index"].iloc[0]) == found_scene + 1
    presence = store.df(
        "SELECT scene_index, status FROM presence WHERE film_id = 'chinatown'"
        " AND character = 'MULWRAY' ORDER BY scene_index"
    )
    on_screen = set(presence.loc[presence["status"] == "on_screen", "scene_index"])
    spoke = set(lines.loc[lines["character"] == "MULWRAY", "scene_index"])
    assert spoke and spoke <= on_screen  # where he speaks (the council hearing) he is there
    assert not {s for s in on_screen if s > found_scene}
    # Mentions after his death still bear on him: "Mulwray's Buick", "photos of Mulwray"
    mentioned_later = directions[
        (directions["scene_index"] > found_scene)
        & directions["text"].str.contains(r"Mulwray's (?:Buick|car)", flags=re.I)
    ]
    later = set(presence.loc[presence["status"] == "offscreen_unaware", "scene_index"])
    assert set(mentioned_later["scene_index"]) <= later
    told_after = store.scalar(
        "SELECT count(*) FROM beliefs WHERE film_id = 'chinatown' AND holder = 'MULWRAY'"
        " AND scene_index > ?",
        [found_scene],
    )
    assert told_after == 0
    # "Evelyn Mulwray is standing at the table" puts Evelyn, not her dead husband, there
    (scene,) = directions.loc[
        directions["text"].str.contains("Evelyn Mulwray is standing"), "scene_index"
    ]
    status = store.scalar(
        "SELECT status FROM presence WHERE film_id = 'chinatown' AND scene_index = ?"
        " AND character = 'EVELYN'",
        [int(scene)],
    )
    assert status == "on_screen"
