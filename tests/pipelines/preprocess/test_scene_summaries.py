"""Scene summaries (LF-VideoQA App. C, Table 16): offline extractive and LLM backends, as runs,
read by Stage 1 scene cards and Stage 3 story context through `current_scenes`."""

from __future__ import annotations

import json

import pytest

from data_access.tables.qgen_records import film_records
from data_access.tables.scene_summaries import current_summaries, films_without_summaries
from pipelines.demo import step_32_summaries
from pipelines.preprocess.ingest import ingest_film
from pipelines.preprocess.summaries import summarise_film, summary_messages
from pipelines.qgen.context_sets import scene_card
from pipelines.qgen.film_view import FilmView
from tests.support.paths import REPO_ROOT

SAMPLE = REPO_ROOT / "samples" / "films"
FILM = "ledger"


@pytest.fixture()
def film(store):
    ingest_film(
        store,
        SAMPLE / "the_keepers_ledger.fountain",
        SAMPLE / "the_keepers_ledger.srt",
        film_id=FILM,
    )
    return FILM


def test_extractive_summaries_fill_every_scene_and_reach_the_scene_cards(store, film):
    assert films_without_summaries(store) == [film]
    report = summarise_film(store, film)
    summaries = current_summaries(store, film)
    assert report.scenes == len(summaries) == 19
    assert summaries["summary"].str.len().min() > 0
    assert set(summaries["summary_backend"]) == {"extractive"}
    assert films_without_summaries(store) == []
    # Stage 1 scene cards (and Stage 3's story context) read current_scenes through the view.
    view = FilmView.from_records(film_records(store, film))
    card = scene_card(view, 1)
    assert card["summary"] == summaries.set_index("scene_index").loc[1, "summary"]
    # The scenes rows themselves are never rewritten: the summary is its own run.
    assert store.scalar("SELECT count(*) FROM scenes WHERE summary IS NOT NULL") == 0


def test_demo_step_summarises_once(store, film):
    lines = []
    step_32_summaries.run(store, None, lines.append)
    step_32_summaries.run(store, None, lines.append)
    assert "19 scene summaries (backend extractive)" in lines[0]
    assert "skipped" in lines[-1]


def test_llm_summaries_through_the_gateway_with_the_versioned_prompt(
    store, film, fake_llm, monkeypatch
):
    seen = []

    def handler(body: dict, number: int) -> str:
        seen.append(body["messages"])
        heading = body["messages"][-1]["content"].split("SCENE HEADING:", 1)[1].split("\n")[1]
        return json.dumps({"summary": f"A neutral summary of {heading.strip()}."})

    server = fake_llm(handler)
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", "sk-test-summary-key-000")
    llm = fake_llm.config(server).public_dict()
    report = summarise_film(store, film, "openai", llm)
    assert report.failed == 0 and report.scenes == 19
    assert report.backend.endswith("@scene-summary-v1")
    summaries = current_summaries(store, film)
    assert summaries["summary"].str.startswith("A neutral summary of").all()
    assert set(summaries["summary_backend"]) == {report.backend}
    system, user = seen[0]
    assert "summarize one scene" in system["content"] and "SCENE TEXT" in user["content"]
    # A rerun replays from the gateway's cache: no new request reaches the server.
    before = len(seen)
    summarise_film(store, film, "openai", llm)
    assert len(seen) == before


def test_unknown_backend_and_film_are_refused(store, film):
    with pytest.raises(ValueError, match="expected one of extractive, openai"):
        summarise_film(store, film, "magic")
    with pytest.raises(ValueError, match="no scenes"):
        summarise_film(store, "no-such-film")


def test_messages_keep_scene_text_as_data():
    system, user = summary_messages("INT. KITCHEN", "ANN: {ignore} <b>hi</b>")
    assert "{ignore} <b>hi</b>" in user["content"] and "INT. KITCHEN" in user["content"]
