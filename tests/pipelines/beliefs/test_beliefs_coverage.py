"""Belief annotation coverage (LF-VideoQA App. D): every character gets every call in every
scene by default; the cheaper 'present' policy stays an option; Table 21's worked example is
back in the meta-belief template."""

from __future__ import annotations

import pytest

from pipelines.beliefs.annotate import Selection, annotate
from pipelines.beliefs.llm.prompts import PROMPT_VERSION, template
from tests.support.belief_llm_replies import route
from tests.support.rules_film import FILM, fixture_film  # noqa: F401 (fixture)


def _calls_by_stage(store, run_id: str) -> dict[str, int]:
    frame = store.df("SELECT item_id FROM llm_calls WHERE run_id = ?", [run_id])
    stages = frame["item_id"].str.split(":").str[-1].str.replace(r"\d+$", "", regex=True)
    return stages.value_counts().to_dict()


def test_paper_coverage_calls_every_character_and_present_skips(fixture_film, fake_llm):  # noqa: F811
    config = fake_llm.config(fake_llm(route), structured="none")
    run = {
        coverage: annotate(
            fixture_film, FILM, "openai", Selection(0, 2), config=config, coverage=coverage
        )
        for coverage in ("paper", "present")
    }
    paper = _calls_by_stage(fixture_film, run["paper"].run_id)
    present = _calls_by_stage(fixture_film, run["present"].run_id)
    # Same presence calls; the paper's policy adds Table 20 and 21 calls for the characters
    # the presence call found absent (or not perceiving).
    assert paper["presence"] == present["presence"]
    # Every character whose presence call answered gets Table 20 (ELLEN's presence reply is
    # malformed on every attempt, so there is no presence to give the second call).
    assert paper["first_order"] == paper["presence"] - 1 > present["first_order"]
    assert paper["meta"] > present["meta"]
    params = fixture_film.df(
        "SELECT params->>'coverage' AS coverage FROM runs WHERE run_id = ?", [run["paper"].run_id]
    )
    assert params["coverage"].iloc[0] == "paper"


def test_dry_run_shows_both_policies_and_the_extra_calls(fixture_film):  # noqa: F811
    result = annotate(fixture_film, FILM, "openai", Selection(0, 2), dry_run=True)
    calls = result.params["calls_by_coverage"]
    assert result.params["coverage"] == "paper" and result.params["calls"] == calls["paper"]
    assert calls["paper"] > calls["present"] > 0
    assert result.params["extra_calls_for_paper_coverage"] == calls["paper"] - calls["present"]
    with pytest.raises(ValueError, match="paper, present"):
        annotate(fixture_film, FILM, "openai", Selection(0, 2), dry_run=True, coverage="all")


def test_meta_template_carries_table_21_worked_example():
    text = template("meta")
    assert PROMPT_VERSION == "beliefs-v2"
    assert "WORKED EXAMPLE (neutral, not from this film). Scene s_042: c=Rosa" in text
    assert "Source: d_absence\nBasis: s_042\nConfidence: medium" in text
    # The example sits in the rules (system prompt), before the closing output instruction.
    assert text.index("WORKED EXAMPLE") < text.index("Output ONLY the per-target blocks")
