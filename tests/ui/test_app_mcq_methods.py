"""AppTest: StoryScope's MCQ methods on Distributions — the methods table with provenance, the
accuracy by topic beside the paper's Table 9, and the per-question view (with the PlotTree
retrieval where the method retrieved)."""

from __future__ import annotations

import json

import pytest

from pipelines.mcq.methods import AnswerOptions, answer_mcqs
from tests.support.apptest_pages import figures, metrics, run_page
from tests.support.mcq_records import load_records, make_mcq
from tests.support.paths import REPO_ROOT
from tests.support.plottree_film import FILM, write_fixture_film

MCQ_VIEW = {"view": "Multiple choice (StoryVideoQA)"}


def _frames(at) -> dict:
    """The page's data frames by a column that names them."""
    found = {}
    for element in at.dataframe:
        columns = set(element.value.columns)
        for name, marker in (
            ("methods", "prompt_version"),
            ("beside", "source"),
            ("questions", "mcq_id"),
            ("options", "text"),
            ("retrieval", "node_id"),
        ):
            if marker in columns:
                found[name] = element.value
    return found


def _store_with_answers(store, fake_llm):
    write_fixture_film(store)
    load_records(
        store,
        [
            make_mcq(
                "Movie",
                FILM,
                1,
                "P",
                "C",
                question="Who took the <b>spare</b> key?",
                option="B",
                choices=["Ann", "Cara", "Ben", "Dan", "Eve"],
            ),
            make_mcq("Movie", FILM, 2, "I", "CA", question="Why does Ann shout?", option="A"),
        ],
    )
    server = fake_llm(lambda body, n: json.dumps({"option": "B"}))
    answer_mcqs(store, AnswerOptions("subtitles", budget=30, llm_config=fake_llm.config(server)))


def test_own_method_appears_beside_the_paper_with_its_choices(store, fake_llm):
    _store_with_answers(store, fake_llm)
    at = run_page(REPO_ROOT, "distributions_page", MCQ_VIEW)
    assert not at.exception
    frames = _frames(at)
    methods = frames["methods"].set_index("method")
    row = methods.loc["subtitles@30:fake-model"]
    assert (row["origin"], row["backend"], row["model"]) == ("StoryScope", "openai", "fake-model")
    assert row["given"].startswith("budget 30 tokens; ") and row["accuracy"] == 50.0
    beside = frames["beside"]
    ours = beside[beside["source"] == "this store (StoryScope)"].set_index("method")
    assert ours.loc["subtitles@30:fake-model", "P-C"] == 100.0
    assert ours.loc["subtitles@30:fake-model", "I-CA"] == 0.0
    paper = beside[beside["source"] == "StoryVideoQA Table 9 (reported)"].set_index("method")
    assert paper.loc["PlotTree · Gemini-2.0-Flash", "Avg"] == 86.5 and len(paper) == 24
    assert "beside_paper_heatmap" in figures(at)

    assert methods.loc["subtitles@30:fake-model"].notna().all()  # no "None" cells
    questions = frames["questions"]
    assert questions["bin"].tolist() == ["—", "—"]  # no difficulty computed: said, not "None"
    assert questions["chosen"].tolist() == ["B", "B"] and questions["correct option"].tolist() == [
        "B",
        "A",
    ]
    options = frames["options"]  # the first question is shown
    assert options["text"].tolist() == ["Ann", "Cara", "Ben", "Dan", "Eve"]
    assert options.set_index("option").loc["B", "chosen"] == "◀ chosen"
    assert options.set_index("option").loc["B", "correct"] == "✓"
    assert "Who took the <b>spare</b> key?" in [t.value for t in at.text]  # as text, not HTML
    assert "retrieval" not in frames  # the subtitle method retrieves nothing
    given = [c.value for c in at.caption if "Given to the model" in c.value]
    assert len(given) == 1 and "subtitle cues" in given[0] and "evenly\\-spaced\\-cues" in given[0]

    at.checkbox(key="mcq_wrong_only").check().run()
    assert _frames(at)["questions"]["mcq_id"].tolist() == [f"Movie:{FILM}:2"]
    shown = metrics(at)
    assert (shown["Chosen"], shown["Correct"]) == ("B", "A")


def test_paper_table_8_is_offered(store, fake_llm):
    _store_with_answers(store, fake_llm)
    at = run_page(
        REPO_ROOT, "distributions_page", {**MCQ_VIEW, "paper_table": "Table 8 (full set)"}
    )
    assert not at.exception
    beside = _frames(at)["beside"]
    paper = beside[beside["source"] == "StoryVideoQA Table 8 (reported)"].set_index("method")
    assert paper.loc["VideoLLaMA3", "Avg"] == 76.32 and len(paper) == 13


@pytest.mark.slow
def test_plottree_choice_shows_its_retrieval(store):
    from pipelines.plottree.build import build_film_tree

    write_fixture_film(store)
    load_records(store, [make_mcq("Movie", FILM, 1, "P", "C", question="Who took the key?")])
    build_film_tree(store, FILM)
    answer_mcqs(store, AnswerOptions("plottree", top_m=3))
    at = run_page(
        REPO_ROOT, "distributions_page", {**MCQ_VIEW, "mcq_method": "plottree:minilm-option-match"}
    )
    assert not at.exception
    methods = _frames(at)["methods"].set_index("method")
    assert methods.loc["plottree:minilm-option-match", "model"] == "—"  # offline: no model
    retrieval = _frames(at)["retrieval"]
    assert len(retrieval) == 3 and retrieval["position"].tolist() == [1, 2, 3]
    assert retrieval["start_s"].is_monotonic_increasing
