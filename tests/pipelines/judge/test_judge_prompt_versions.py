"""Judge prompt versions: v2 keeps to App. F.2's stated rules; v1 stays a named variant."""

from __future__ import annotations

import pytest

from pipelines.judge.prompt import PROMPT_VERSION, PROMPT_VERSIONS, judge_messages, template

CLAIMS = [
    {"ord": 1, "role": "core", "text": "Ann knows the letter is forged."},
    {"ord": 2, "role": "context", "text": "Bob wrote the letter."},
]


def test_v2_is_the_default_and_v1_stays_selectable():
    assert PROMPT_VERSION == "judge-claims-v2"
    assert set(PROMPT_VERSIONS) == {"judge-claims-v1", "judge-claims-v2"}
    with pytest.raises(ValueError, match="judge-claims-v1"):
        template("judge-claims-v9")


def test_v2_states_only_the_rules_of_app_f2():
    system, user = judge_messages("Q?", CLAIMS, "Ann may suspect Bob.")
    text = (system["content"] + user["content"]).lower()
    # F.2: the three labels, judged only against the answer's text; beyond-rubric content is
    # not graded; declining omits every claim.
    for rule in ("asserted", "contradicted", "omitted", "only against the text"):
        assert rule in text
    assert "beyond the rubric is not graded" in text and "declines" in text
    # Our additions in v1 are absent: hedging, vague/partial, multi-part, roles shown.
    for ours in ("hedge", "vaguely", "partially", "every part", "[core]", "[context]"):
        assert ours not in text
    assert "1. Ann knows the letter is forged." in user["content"]


def test_v1_keeps_its_own_rules_and_shows_roles():
    system, user = judge_messages("Q?", CLAIMS, "An answer.", "judge-claims-v1")
    assert "Hedged statements" in system["content"] and "vaguely or partially" in system["content"]
    assert "1. [core] Ann knows" in user["content"] and "2. [context] Bob" in user["content"]


def test_gold_self_check_renders_the_same_template():
    from pipelines.judge.run import JudgeOptions

    plain, gold = JudgeOptions(backend="openai"), JudgeOptions(backend="openai", gold=True)
    assert plain.prompt_version == gold.prompt_version == PROMPT_VERSION
