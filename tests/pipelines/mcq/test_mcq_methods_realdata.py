"""StoryScope's MCQ methods on the real StoryVideoQA release (../shared/data/storyvideoqa), as
the real-data demo imports it: one Friends episode's golden questions and aligned subtitles."""

from __future__ import annotations

import json

import pytest

from data_access.importers import import_storyvideoqa_dir
from data_access.queries import distributions_view
from data_access.queries.mcq_methods import subtitle_cues
from pipelines.mcq.methods import AnswerOptions, answer_mcqs
from pipelines.mcq.subtitle_budget import cue_line
from tests.support.storyvideoqa_release import EPISODE, one_episode_release


@pytest.mark.realdata
def test_subtitle_baseline_on_a_real_episode(store, shared_data, tmp_path, fake_llm):
    import_storyvideoqa_dir(store, one_episode_release(shared_data, tmp_path / "r", False))
    questions = store.df("SELECT mcq_id, option, times FROM mcq_questions WHERE vid = ?", [EPISODE])
    cues = subtitle_cues(store, EPISODE)
    assert len(questions) > 20 and len(cues) > 200

    server = fake_llm(lambda body, n: json.dumps({"option": "A"}))
    budget = 1000  # well below the episode's track: the rule must cut
    result = answer_mcqs(
        store,
        AnswerOptions(
            "subtitles", where={"vid": [EPISODE]}, budget=budget, llm_config=fake_llm.config(server)
        ),
    )
    assert result["questions"] == len(questions) and result["failed"] == 0
    # every question got the same subtitle lines, whatever its evidence times
    contexts = {
        body["messages"][-1]["content"].split("Description: \n", 1)[1].split("\n\n\nQuestion:")[0]
        for body in server.log.bodies
    }
    assert len(contexts) == 1 and len(questions["times"].map(tuple).unique()) > 1
    [context] = contexts
    lines = context.splitlines()
    assert len(context) / 4 <= budget and len(lines) < len(cues)
    every = [cue_line(s, t) for s, t in zip(cues["start_s"], cues["text"])]
    positions = [every.index(line) for line in lines]
    stride = len(every) / len(lines)
    assert positions[0] < stride and positions[-1] >= len(every) - stride  # start to end

    # GT is A for some questions only; accuracy is the share of them, by topic too
    expected = 100.0 * (questions["option"] == "A").mean()
    assert result["accuracy"] == pytest.approx(expected, abs=0.01)
    by_topic = distributions_view.accuracy_by_topic(store)
    overall = (by_topic["accuracy"] * by_topic["n"]).sum() / by_topic["n"].sum()
    assert overall == pytest.approx(expected)


@pytest.mark.realdata
@pytest.mark.slow
def test_plottree_offline_on_a_real_episode_as_the_demo_runs_it(store, shared_data, tmp_path):
    from data_access.queries.mcq_methods import prediction_retrieval, question_predictions
    from pipelines.demo import step_55_plottrees

    import_storyvideoqa_dir(store, one_episode_release(shared_data, tmp_path / "r", False))
    messages = []
    step_55_plottrees.run(store, shared_data, messages.append)
    assert any(f"{EPISODE}: " in m and "plottree:minilm-option-match" in m for m in messages)
    rows = question_predictions(store, "plottree:minilm-option-match")
    n = store.scalar("SELECT count(*) FROM mcq_questions WHERE vid = ?", [EPISODE])
    assert len(rows) == n and rows["retrieved"].all() and rows["predicted_option"].notna().all()
    nodes = prediction_retrieval(store, rows.run_id[0], rows.mcq_id[0])
    tree = store.scalar("SELECT count(*) FROM current_plottree_nodes WHERE film_id = ?", [EPISODE])
    assert len(nodes) == min(32, tree) and nodes["summary"].notna().all()  # §6.1: top-32
    assert list(nodes["start_s"]) == sorted(nodes["start_s"])
    # a choice is a letter among the question's options, and correctness is recorded against GT
    assert (rows["correct"] == (rows["predicted_option"] == rows["option"])).all()
