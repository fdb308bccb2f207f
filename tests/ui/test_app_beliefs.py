"""AppTest: the Belief timelines page draws the fixture's lanes, revisions and meta-beliefs."""

from __future__ import annotations

from tests.support.apptest_pages import figures, frame, metrics, run_page, traces
from tests.support.paths import REPO_ROOT


def test_two_characters_lanes_with_false_revised_rejected_and_meta(fixture_store):
    at = run_page(
        REPO_ROOT,
        "beliefs_page",
        {"film": "lighthouse", "who": ["Ann", "Ben"], "belief": "Ann · F1"},
    )
    assert not at.exception
    assert metrics(at) == {"Beliefs": "8", "False": "2", "Revisions": "2", "Meta-beliefs": "2"}
    lanes = figures(at)["belief_lanes"]
    shapes = [shape for shape in lanes.layout.shapes if shape.type == "rect"]
    assert sum(shape.line.dash == "dash" for shape in shapes) == 2  # F1 (Ann), F2 (Ben)
    assert sum(shape.name == "rejected" for shape in shapes) == 1  # Ann rejects Cara's T1
    assert [a.name for a in lanes.layout.annotations] == [
        "revision:Ann · F1->Ann · B2",
        "revision:Ben · F2->Ben · B3",
    ]
    kinds = {name: len(trace.x) for name, trace in traces(lanes).items()}
    assert kinds == {
        "witnessed": 2,
        "told": 2,
        "inferred": 1,
        "false belief": 1,
        "revised": 2,
        "meta-belief": 2,
    }
    assert list(lanes.layout.yaxis.ticktext) == [
        "Ann · B1",
        "Ann · F1",
        "Ann · B3",
        "Ann · T1",
        "Ann · B2",
        "Ann · meta",
        "Ben · B1",
        "Ben · F2",
        "Ben · B3",
    ]
    # the picked belief: told by Ben, false, revised in scene 4; its basis event and the
    # question whose evidence cites scene 1
    assert any("told by Ben" in m.value and "revised in S4" in m.value for m in at.markdown)
    basis, citing = frame(at, "event_id"), frame(at, "question_id")
    assert list(basis["event_id"]) == ["e_001_1"]
    assert list(citing["question_id"]) == ["q1"]
    # read by its words, opened by a link (the bare id is not a column shown)
    assert citing["text"].iloc[0] and citing["open"].iloc[0].endswith("&q=q1")


def test_story_without_times_uses_scene_axis(fixture_store):
    at = run_page(REPO_ROOT, "beliefs_page", {"film": "tom-story-1", "who": ["Sally", "Anne"]})
    assert not at.exception
    lanes = figures(at)["belief_lanes"]
    assert lanes.layout.xaxis.title.text == "scene"
    assert metrics(at)["Meta-beliefs"] == "1"


def test_many_beliefs_are_windowed_by_scene_from_the_url(fixture_store):
    """A screenplay film holds hundreds of beliefs: past 60 rows the page shows a scene window."""
    with fixture_store.transaction() as cursor:
        run_id = cursor.execute("SELECT DISTINCT run_id FROM beliefs").fetchone()[0]
        for n in range(70):
            cursor.execute(
                "INSERT INTO beliefs (film_id, belief_id, holder, scene_index, kind, content, "
                "run_id)"
                " VALUES ('lighthouse', ?, 'Ann', ?, 'inferred', ?, ?)",
                [f"X{n}", n % 6, f"extra belief {n}", run_id],
            )
    at = run_page(REPO_ROOT, "beliefs_page", {"film": "lighthouse", "who": "Ann", "scenes": "4-5"})
    assert not at.exception
    assert at.select_slider(key="scenes").value == (4, 5)
    # the range as Streamlit's URL binding writes it (`?scenes=4&scenes=5`) opens the same window
    bound = run_page(
        REPO_ROOT, "beliefs_page", {"film": "lighthouse", "who": "Ann", "scenes": ["4", "5"]}
    )
    assert bound.select_slider(key="scenes").value == (4, 5)
    assert bound.select_slider(key="scenes").proto.query_param_key == "scenes"
    lanes = figures(at)["belief_lanes"]
    shown = list(lanes.layout.yaxis.ticktext)
    # beliefs forming in scenes 4–5 (B2, X4, X5, X10, ...) and F1, revised in scene 4
    assert {"Ann · B2", "Ann · F1", "Ann · X4", "Ann · X5", "Ann · X11"} <= set(shown)
    assert "Ann · X0" not in shown and "Ann · B1" not in shown
    assert len(shown) == 2 + 22 + 1  # 11 X per scene, + the meta-belief lane (M2)


def test_no_belief_is_opened_until_one_is_picked(fixture_store):
    """The first render draws the lanes only; a belief's basis and citing questions (two more
    queries and tables) wait until the reader picks it."""
    at = run_page(REPO_ROOT, "beliefs_page", {"film": "lighthouse", "who": ["Ann", "Ben"]})
    assert not at.exception
    assert at.selectbox(key="belief").value.startswith("(none")
    assert not [m for m in at.markdown if m.value == "**Basis events**"]
    assert not any(shape.line.width == 4 for shape in figures(at)["belief_lanes"].layout.shapes)
    at.selectbox(key="belief").set_value("Ann · F1").run()
    assert [m for m in at.markdown if m.value == "**Basis events**"]


def _add_film_without_beliefs(store, film_id: str = "aaa-empty") -> str:
    """A film with scenes and no belief records (titled to sort first)."""
    with store.transaction() as cursor:
        run_id = cursor.execute("SELECT DISTINCT run_id FROM scenes LIMIT 1").fetchone()[0]
        cursor.execute(
            "INSERT INTO films (film_id, dataset_id, title, kind, runtime_s, run_id)"
            " VALUES (?, 'fixture', 'Aaa Empty', 'film', 600, ?)",
            [film_id, run_id],
        )
        cursor.execute(
            "INSERT INTO scenes (film_id, scene_index, heading, start_s, end_s, time_source,"
            " run_id) VALUES (?, 0, 'INT. ROOM', 0, 600, 'matched', ?)",
            [film_id, run_id],
        )
    return film_id


def _run_with_state(params: dict, state: dict):
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(REPO_ROOT / "ui" / "beliefs_page.py"), default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def test_a_film_carried_over_without_beliefs_falls_back_to_one_with_them(fixture_store):
    """Film page → Belief timelines: the Film page's film has no beliefs, so this page opens on
    a film that has some and says so (it opened on "No belief records" before)."""
    empty = _add_film_without_beliefs(fixture_store)
    at = _run_with_state({"film": empty}, {"film": empty, "_film_chosen_on": ("scenes", empty)})
    assert not at.exception
    assert at.selectbox(key="film").value == "lighthouse"
    assert not at.info
    assert any("Aaa Empty (film) has no beliefs yet: showing" in c.value for c in at.caption)
    assert "belief_lanes" in figures(at)
    # picked on another page that shares ?film= (Verdicts, Questions) after a visit here
    at = _run_with_state(
        {"film": empty}, {"film": empty, "_film_chosen_on": ("beliefs", "lighthouse")}
    )
    assert at.selectbox(key="film").value == "lighthouse" and not at.info


def test_a_film_picked_here_without_beliefs_says_the_command(fixture_store):
    empty = _add_film_without_beliefs(fixture_store)
    at = run_page(REPO_ROOT, "beliefs_page", {"film": "lighthouse"})
    at.selectbox(key="film").set_value(empty).run()
    assert not at.exception
    assert at.selectbox(key="film").value == empty  # picked here: kept, and explained
    (info,) = at.info
    assert f"`storyscope beliefs annotate --film {empty} --backend asymmetry`" in info.value


def test_gold_score_is_shown_for_its_own_film_only(fixture_store):
    from data_access.tables.gold_evals import EVAL_STEP
    from data_access.tables.runs import RunSpec, finish_run, insert_run

    scores = {"backend": "rules", "precision": 0.5, "recall": 0.4}
    scores |= {"false_belief_recall": 0.3, "revision_recall": 0.2}
    with fixture_store.transaction() as cursor:
        spec = RunSpec(step=EVAL_STEP, backend="gold", source="lighthouse")
        spec.params = {"beliefs": scores}
        run_id = insert_run(cursor, spec)
        finish_run(cursor, run_id)
    own = run_page(REPO_ROOT, "beliefs_page", {"film": "lighthouse"})
    assert any(c.value.startswith("Scored on this film's gold") for c in own.caption)
    story = run_page(REPO_ROOT, "beliefs_page", {"film": "tom-story-1"})
    assert not story.exception
    assert not [c for c in story.caption if "Scored on" in c.value]


def test_story_groups_are_drawn_over_scenes_not_film_time(fixture_store):
    from viz.belief_groups import STORY_AXIS

    at = run_page(REPO_ROOT, "beliefs_page", {"film": "tom-story-1"})
    groups = figures(at)["belief_groups"]
    assert groups.layout.xaxis.title.text == STORY_AXIS
    bars = traces(groups)["unchanged beliefs"]
    assert len(bars.y) > 0 and all(b is not None for b in bars.base)


def test_changing_the_film_keeps_characters_picked(fixture_store):
    at = run_page(REPO_ROOT, "beliefs_page", {"film": "lighthouse", "who": ["Ann", "Ben"]})
    at.selectbox(key="film").set_value("tom-story-1").run()
    assert not at.exception
    assert at.multiselect(key="who").value  # the story's first characters, not an empty pick
    assert "belief_lanes" in figures(at)
    assert not [c for c in at.caption if c.value == "Pick at least one character."]


def test_two_characters_show_their_knowledge_split(fixture_store):
    at = run_page(REPO_ROOT, "beliefs_page", {"film": "lighthouse", "who": ["Ann", "Ben"]})
    assert not at.exception
    summary = frame(at, "holds", "not held by", "formed while away")
    # Ann: B1 and F1 with Ben on screen, B3 while he was away (T1 rejected, B2 he held first);
    # Ben: B1 learned by Ann in scene 4, F2 and B3 with Ann on screen
    assert summary.to_dict("records") == [
        {
            "holds": "Ann",
            "not held by": "Ben",
            "beliefs": 3,
            "formed while away": 1,
            "learned later": 0,
            "kept after the other revised it": 0,  # no belief of theirs was ever shared
        },
        {
            "holds": "Ben",
            "not held by": "Ann",
            "beliefs": 3,
            "formed while away": 0,
            "learned later": 1,
            "kept after the other revised it": 0,
        },
    ]
    # the fixture's backend is not known to paraphrase: matched by the same words, and said so
    assert any(c.value.startswith("Matched by the same words") for c in at.caption)
    gap = traces(figures(at)["knowledge_gap"])
    assert list(gap["Ben holds, Ann does not"].y) == [0, 1, 2, 2, 1, 1]  # Ann learns B1 in 4
    assert list(gap["… formed while Ben was away"].y) == [0, 0, 1, 1, 1, 1]


def test_one_character_shows_no_knowledge_split(fixture_store):
    at = run_page(REPO_ROOT, "beliefs_page", {"film": "lighthouse", "who": ["Ann"]})
    assert not at.exception
    assert "knowledge_gap" not in figures(at)
