"""The hand-made gold annotation of The Keeper's Ledger (samples/gold): what it must
hold, that its questions pass the automatic checks, and that it imports (and fails cleanly)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from data_access.importers import ImportFailure
from data_access.importers.gold import import_gold
from pipelines.demo import step_30_sample_film
from pipelines.qgen.checks import CheckContext, check_question
from tests.support.paths import REPO_ROOT

GOLD = REPO_ROOT / "samples" / "gold" / "the_keepers_ledger"
CAST = {"MARA", "KIT", "JUNE", "RUTH", "TOMAS", "ELIAS"}


def rows(name: str) -> list[dict]:
    path = GOLD / "lfvqa" / f"{name}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_belief_records_show_the_films_secrets_lies_and_discoveries():
    beliefs = rows("beliefs")
    assert len(beliefs) >= 60
    assert sum(b.get("is_false", False) for b in beliefs) >= 8
    revisions = [b for b in beliefs if b.get("revises")]
    assert len(revisions) >= 8
    assert all(b["basis"] for b in revisions)
    assert {b["holder"] for b in beliefs} == CAST
    assert {b["kind"] for b in beliefs} >= {"witnessed", "told", "inferred", "revised"}
    assert len(rows("meta_beliefs")) >= 12
    # every revised belief is closed at the scene of its revision
    by_key = {(b["holder"], b["belief_id"]): b for b in beliefs}
    for revision in revisions:
        revised = by_key[(revision["holder"], revision["revises"])]
        assert revised["revised_at_scene"] == revision["scene_index"]


def test_presence_covers_every_character_in_every_scene_with_all_four_levels():
    presence = rows("presence")
    assert len({(p["scene_index"], p["character"]) for p in presence}) == 19 * len(CAST)
    assert {p["status"] for p in presence} == {
        "on_screen",
        "offscreen_aware",
        "offscreen_unaware",
        "absent_unmentioned",
    }


def test_questions_cover_all_eleven_types_and_pass_the_automatic_checks():
    questions = rows("questions")
    assert len(questions) >= 24
    assert {q["qtype"] for q in questions} == {f"Q{i}" for i in range(1, 9)} | {"N1", "N2", "N3"}
    for question in questions:
        result = check_question(question["text"], CheckContext(gold=question["gold"]))
        assert result.passed, (question["question_id"], result.failures)
    claims = Counter((c["question_id"], c["role"]) for c in rows("rubric_claims"))
    anchors = Counter(e["question_id"] for e in rows("question_evidence") if e["is_anchor"])
    for question in questions:
        assert claims[(question["question_id"], "core")] >= 1
        assert anchors[question["question_id"]] == 1


def test_every_claim_of_every_answer_has_a_gold_verdict():
    answers = rows("answers")
    assert len({a["setting_id"] for a in answers}) >= 5
    claims_of = Counter(c["question_id"] for c in rows("rubric_claims"))
    verdicts = Counter(v["answer_id"] for v in rows("claim_verdicts"))
    for answer in answers:
        assert verdicts[answer["answer_id"]] == claims_of[answer["question_id"]]
    labels = Counter(v["verdict"] for v in rows("claim_verdicts"))
    assert set(labels) == {"asserted", "contradicted", "omitted"}


def test_mcqs_cover_the_fourteen_topics_with_three_reviewers():
    items = json.loads((GOLD / "mcq" / "StoryScope_golden.json").read_text(encoding="utf-8"))
    assert len(items) >= 40
    topics = Counter((i["question_type"], i["story_element"]) for i in items)
    assert len(topics) == 14
    disagreements = 0
    for item in items:
        assert item["GT"] in item["choices"] and item["times"]
        assert item["choices"]["ABCDE".index(item["option"])] == item["GT"]
        picks = [item[f"{r}_check"] for r in ("gemini", "claude", "gpt")]
        disagreements += any(p[0] != "True" or p[1] != item["GT"] for p in picks)
    assert 0 < disagreements < len(items) / 2
    assert len({i["option"] for i in items}) == 5


@pytest.fixture
def film_store(store):
    step_30_sample_film.run(store, None, lambda message: None)
    return store


def test_gold_imports_as_backend_gold(film_store):
    report = import_gold(film_store, GOLD)
    assert report.rows["beliefs"] == len(rows("beliefs"))
    assert report.rows["mcq_questions"] >= 40
    run = film_store.df("SELECT step, backend, note FROM runs WHERE run_id = ?", [report.run_id])
    assert run.iloc[0].to_dict() == {
        "step": "import.gold",
        "backend": "gold",
        "note": "hand-annotated by the StoryScope authors",
    }
    scenes = film_store.df(
        "SELECT summary, summary_backend, time_source FROM current_scenes"
        " WHERE film_id = 'the-keepers-ledger'"
    )
    assert len(scenes) == 19 and set(scenes["summary_backend"]) == {"gold"}
    assert scenes["summary"].str.len().min() > 80
    assert set(scenes["time_source"]) <= {"matched", "interpolated"}
    current = film_store.scalar(
        "SELECT count(*) FROM current_beliefs WHERE film_id = 'the-keepers-ledger'"
    )
    assert current == len(rows("beliefs"))


def test_bad_gold_names_file_record_and_field_and_leaves_the_store_unchanged(film_store, tmp_path):
    broken = tmp_path / "gold"
    shutil.copytree(GOLD, broken)
    lines = (broken / "scene_summaries.jsonl").read_text(encoding="utf-8").splitlines()
    lines[2] = json.dumps({"film_id": "the-keepers-ledger", "scene_index": 2, "summary": 7})
    (broken / "scene_summaries.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    before = film_store.scalar("SELECT count(*) FROM runs")
    with pytest.raises(ImportFailure) as caught:
        import_gold(film_store, broken)
    assert "scene_summaries.jsonl" in str(caught.value)
    assert "line 3" in str(caught.value) and "summary" in str(caught.value)
    assert film_store.scalar("SELECT count(*) FROM runs") == before
    import_gold(film_store, GOLD)
    with pytest.raises(ImportFailure, match="already in the store"):
        import_gold(film_store, Path(GOLD))
