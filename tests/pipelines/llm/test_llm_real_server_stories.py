"""The story stages end to end against a real OpenAI-compatible server: belief
annotation, PlotTree condensation and answering, scene summaries. The same plumbing checks as
test_llm_real_server.py (tests/support/llm_plumbing.py), in a module of their own so the two
modules' servers run on two test workers at once.
"""

from __future__ import annotations

import re

import pytest

from tests.support.llm_plumbing import check_plumbing, real_config
from tests.support.rules_film import FILM as BELIEF_FILM
from tests.support.rules_film import fixture_film  # noqa: F401 (fixture)

pytestmark = [pytest.mark.slow, pytest.mark.realserver]


def test_belief_stages(fixture_film, llama_server):  # noqa: F811
    from pipelines.beliefs.annotate import Selection, annotate

    config = real_config(llama_server, max_tokens=160)
    # two of the scene's four characters: every stage (presence, beliefs, meta-beliefs) still
    # runs, with half of the tiny model's long-prompt calls
    selection = Selection(0, 1, ["NORA", "SAM"])
    result = annotate(fixture_film, BELIEF_FILM, "openai", selection, config=config)
    check_plumbing(fixture_film, result.run_id)


def test_plottree_condensation_and_mcq_answering(store, llama_server):
    from pipelines.plottree.ask import Question, ask
    from pipelines.plottree.build import build_film_tree
    from tests.support.plottree_film import FILM, write_fixture_film

    write_fixture_film(store)
    config = real_config(llama_server, max_tokens=96)
    # one-minute leaves: ten leaves and their merges exercise condensation as 120 would
    built = build_film_tree(store, FILM, leaf_seconds=60.0, llm_config=config)
    # a cluster whose reply the tiny model got wrong falls back to an extractive summary, and the
    # run's label says so (condense.py): either label is right plumbing, a bare offline one is not
    model_label = f"llm:{llama_server.model}"
    assert built.backend in (model_label, f"{model_label}+extractive-centroid")
    check_plumbing(store, built.run_id)
    question = Question("mcq:1", "Who took the spare key?", ["Ann", "Cara", "Ben", "Dan", "Eve"])
    [(retrieval, answer)] = ask(store, FILM, [question], top_m=3, llm_config=config)
    assert len(retrieval.nodes) == 3
    row = store.df("SELECT answer_backend FROM plottree_retrievals").iloc[0]
    assert row["answer_backend"] == f"llm:{llama_server.model}"
    # PlotTree QA and the subtitle baseline as MCQ methods (`mcq answer`): the letter comes back
    # under the schema's grammar (or fails with its raw reply) and joins the predictions
    from pipelines.mcq.methods import AnswerOptions, answer_mcqs
    from tests.support.mcq_records import load_records, make_mcq

    choices = ["Ann", "Cara", "Ben", "Dan", "Eve"]
    load_records(store, [make_mcq("Movie", FILM, 1, question=question.text, choices=choices)])
    for method, budget in (("plottree", None), ("subtitles", 200)):
        options = AnswerOptions(method, budget=budget, top_m=3, llm_config=config)
        result = answer_mcqs(store, options)
        check_plumbing(store, result["run_id"])
        assert (result["status"], result["questions"]) == ("finished", 1)
    assert store.scalar("SELECT count(*) FROM mcq_predictions") == 2


def _opening_scenes(tmp_path, scenes: int = 3, cues: int = 20):
    """The sample film cut to its opening scenes and their subtitles: the plumbing is the same
    for 3 scenes as for 19, and the tiny model's generation is most of this module's time."""
    from tests.support.paths import REPO_ROOT

    films = REPO_ROOT / "samples" / "films"
    script = (films / "the_keepers_ledger.fountain").read_text(encoding="utf-8")
    heading = re.compile(r"^(?:INT|EXT)\. ", re.M)
    cut = [m.start() for m in heading.finditer(script)][scenes]
    subtitles = (films / "the_keepers_ledger.srt").read_text(encoding="utf-8")
    blocks = subtitles.strip().split("\n\n")[:cues]
    screenplay, srt = tmp_path / "opening.fountain", tmp_path / "opening.srt"
    screenplay.write_text(script[:cut], encoding="utf-8")
    srt.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    return screenplay, srt


def test_scene_summaries(store, llama_server, tmp_path):
    from data_access.tables.scene_summaries import current_summaries
    from pipelines.preprocess.ingest import ingest_film
    from pipelines.preprocess.summaries import summarise_film

    ingest_film(store, *_opening_scenes(tmp_path), film_id="ledger")
    llm = real_config(llama_server, max_tokens=120).public_dict()
    report = summarise_film(store, "ledger", "openai", llm)
    counts = check_plumbing(store, report.run_id)
    assert report.scenes + report.failed == 3  # every scene summarised or failed with a reason
    assert (report.scenes, report.failed) == (counts["ok"], counts["failed"])
    written = current_summaries(store, "ledger")
    assert written["summary_backend"].str.startswith(llama_server.model).sum() == counts["ok"]
