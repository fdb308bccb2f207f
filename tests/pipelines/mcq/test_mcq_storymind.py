"""The StoryMindv2 loop against the scripted local server (no network, no real model)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from data_access.tables.mcq import mcq_questions, storymind_stage_counts
from pipelines.cli import app, load_commands
from pipelines.mcq.reviewers import reviewer_stats
from pipelines.mcq.storymind import StoryMindOptions, generate_for_video, plan
from pipelines.mcq.topics import TOPICS
from tests.support.plottree_film import FILM, write_fixture_film

load_commands()


def scripted(body: dict, number: int) -> str:
    """Generator / supervisor / feedback / reviewer replies, chosen by the prompt."""
    system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
    if "generator of StoryMindv2" in system:
        active = [line.split("`")[1] for line in user.splitlines() if line.startswith("- tool `")]
        qas = []
        for k, topic in enumerate(active[:4]):
            wrong = k == 0 and "Feedback from the supervisor" not in user  # one fault per batch
            qas.append(
                {
                    "topic": topic,
                    "question": f"{'WRONG ' if wrong else ''}Who fixes the "
                    f"lamp ({topic}, {number})?",
                    "choices": ["Ann", "Ben", "Cara", "Dan", "Eve"],
                    "answer": "A",
                    "times": ["00:08:20-00:08:26"],
                    "characters": ["Ann"],
                    "locations": ["Lamp Room"],
                }
            )
        qas.append(
            {"topic": "P-XYZ", "question": "Bad tool?", "choices": list("abcde"), "answer": "A"}
        )
        return json.dumps({"qas": qas})
    if "delete the incorrect ones" in system:
        lines = [line for line in user.splitlines() if line[:1].isdigit() and ". {" in line]
        return json.dumps(
            {
                "verdicts": [
                    {"index": i, "correct": "WRONG" not in line, "reason": ""}
                    for i, line in enumerate(lines)
                ]
            }
        )
    if "targeted feedback" in system:
        return json.dumps({"feedback": "Do not write questions marked WRONG."})
    reviewer = system.split("'")[1]
    # gpt and claude agree with the GT; gemini picks another answer for C-topics
    if reviewer == "gemini" and "-C," in user:
        return json.dumps({"correct": True, "answer": "Ben"})
    if reviewer == "claude" and "(I-CAL" in user:
        return json.dumps({"correct": False, "answer": "Ann"})
    return json.dumps({"correct": True, "answer": "Ann"})


def test_loop_balances_topics_supervises_and_votes(store, fake_llm):
    write_fixture_film(store)
    server = fake_llm(scripted)
    config = fake_llm.config(server, structured="json_object")
    options = StoryMindOptions(FILM, config, per_topic=1, per_batch=4, max_batches=8)
    assert plan(store, options)["target_qas"] == 14
    report = generate_for_video(store, options)
    # every topic tool reached T = 1, then was deactivated
    assert report["supervisor_kept"] == 14 and set(report["topic_counts"]) == set(TOPICS)
    stages = storymind_stage_counts(store, report["run_id"])
    assert stages["supervisor_deleted"] >= 1 and stages["feedback"] >= 1
    assert stages["tool_inactive"] >= 1  # the P-XYZ tool does not exist
    assert stages["review"] == 14
    # I-CAL fails unanimous correctness (claude says False); gemini's dissent alone is outvoted
    assert stages["rejected"] == 1 and stages["kept"] == 13 and report["final_kept"] == 13
    generated = mcq_questions(store, set_name="generated")
    assert len(generated) == 13 and not generated["question"].str.contains("WRONG").any()
    voting = reviewer_stats(generated)["sets"][-1]
    assert voting["kept"] == 1.0 and voting["reviewer_gt_rate"]["gemini"] < 1.0
    assert report["self_bleu_2"] is not None
    # the fault archive carries vectors for the supervisor's RAG step
    assert store.scalar("SELECT count(*) FROM embeddings WHERE item_kind = 'fault'") >= 1
    # the supervisor's second batch saw the feedback: no new WRONG questions after batch 0
    later = store.df("SELECT payload FROM storymind_items WHERE stage = 'generated' AND batch > 0")
    assert not later["payload"].str.contains("WRONG").any()


def test_dry_run_and_unknown_video(store):
    write_fixture_film(store)
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "storymind",
            "generate",
            "--video",
            FILM,
            "--dry-run",
            "--per-topic",
            "3",
            "--store",
            str(store.path),
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["target_qas"] == 42
    bad = runner.invoke(
        app, ["storymind", "generate", "--video", "nope", "--dry-run", "--store", str(store.path)]
    )
    assert bad.exit_code != 0 and "no script lines" in bad.output
    assert store.scalar("SELECT count(*) FROM runs WHERE step = 'storymind.generate'") == 0
