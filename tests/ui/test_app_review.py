"""AppTest: the human review flows on the fixture store — the review queue on Verdicts, human
labels flowing into agreement, the paired comparison, question decisions on Questions and the
Question Lab summary."""

from __future__ import annotations

import pytest

from data_access.queries import review_view
from data_access.tables import review_labels
from tests.support.app_fixture_data import JUDGE_LEXICAL
from tests.support.apptest_pages import frame, metrics, run_page
from tests.support.paths import REPO_ROOT


@pytest.fixture
def fixture_store(fixture_store, monkeypatch):
    monkeypatch.setenv("STORYSCOPE_REVIEWER", "alice")
    return fixture_store


def _button(at, label: str):
    return next(b for b in at.button if b.label == label)


def test_review_queue_saves_the_most_contested_claim_first(fixture_store):
    at = run_page(REPO_ROOT, "verdicts_page", {"view": "Review"})
    assert not at.exception
    assert any("0 of 14 claims labelled by you" in str(p.proto) for p in at.get("progress"))
    assert any("judges disagree: 0.50" in m.value for m in at.markdown)
    at.radio(key="review_verdict").set_value("contradicted")
    at.text_input(key="review_note").input("the answer says the opposite")
    _button(at, "Save and next").click().run()
    assert not at.exception
    labels = fixture_store.df(
        "SELECT answer_id, claim_id, verdict, rationale FROM current_claim_verdicts"
        " WHERE judge_id = 'human:alice'"
    )
    assert labels["verdict"].tolist() == ["contradicted"]
    assert labels["rationale"].tolist() == ["the answer says the opposite"]
    # the LLM judge flipped q1.c2 and q2.c1 on subtitles: the queue offers one of them first
    assert labels["claim_id"].iloc[0] in {"q1.c2", "q2.c1"}
    assert any("1 of 14 claims labelled by you" in str(p.proto) for p in at.get("progress"))


def test_a_label_lands_on_the_claim_the_reviewer_read(fixture_store):
    """The same reviewer labels the shown claim in another tab before this tab saves: the queue
    has moved on by the submit run, but this tab's verdict still goes to the claim it showed."""
    from ui.common import mark_store_written

    at = run_page(REPO_ROOT, "verdicts_page", {"view": "Review"})
    shown = review_view.review_queue(fixture_store, "human:alice", limit=1).iloc[0]
    other_tab = review_labels.ClaimLabel(shown.answer_id, shown.claim_id, "asserted")
    review_labels.label_claims(fixture_store, "alice", [other_tab])
    mark_store_written()  # the other tab ran in this process: its write is seen at once
    at.radio(key="review_verdict").set_value("omitted")
    _button(at, "Save and next").click().run()
    assert not at.exception
    labels = fixture_store.df(
        "SELECT answer_id, claim_id, verdict FROM current_claim_verdicts"
        " WHERE judge_id = 'human:alice'"
    )
    assert labels.values.tolist() == [[shown.answer_id, shown.claim_id, "omitted"]]


def test_human_labels_show_in_agreement_by_role_and_type(fixture_store):
    queue = review_view.review_queue(fixture_store, "human:alice", limit=100)
    labels = [
        review_labels.ClaimLabel(a, c, "asserted") for a, c in zip(queue.answer_id, queue.claim_id)
    ]
    review_labels.label_claims(fixture_store, "alice", labels)
    at = run_page(REPO_ROOT, "verdicts_page", {"view": "Agreement"})
    assert not at.exception
    kappas = frame(at, "judge", "human", "by", "group")
    assert set(kappas["by"]) == {"all", "role", "type"}
    assert set(kappas["human"]) == {"human:alice"}
    lexical = kappas[(kappas["judge"] == JUDGE_LEXICAL) & (kappas["by"] == "all")].iloc[0]
    assert lexical["items"] == 14


def test_compare_section_shows_paired_statistics(fixture_store):
    at = run_page(
        REPO_ROOT,
        "verdicts_page",
        {
            "view": "Compare",
            "judge": JUDGE_LEXICAL,
            "cmp_a": "subs-qwen",
            "cmp_b": "screenplay-qwen",
        },
    )
    assert not at.exception
    shown = metrics(at)
    assert shown["Questions both answered"] == "3"
    assert shown["Wins / ties / losses of B"] == "3 / 0 / 0"
    top = frame(at, "question_id", "diff", "grid")
    assert top["grid"].str.startswith("verdicts?").all()


def test_question_decision_from_the_questions_page(fixture_store):
    at = run_page(REPO_ROOT, "questions_page", {"q": "q2"})
    assert not at.exception
    at.radio(key="qr_action_q2").set_value("reject").run()
    at.multiselect(key="qr_reasons_q2").set_value(["ambiguous holder"])
    at.text_input(key="qr_note_q2").input("two Bens")
    _button(at, "Save: reject").click().run()
    assert not at.exception
    assert (
        fixture_store.scalar("SELECT status FROM questions WHERE question_id = 'q2'") == "retired"
    )
    history = review_view.question_decision(fixture_store, "q2")
    assert list(history["reasons"].iloc[0]) == ["ambiguous holder"]


def test_question_lab_shows_reasons_and_check_prediction(fixture_store):
    review_labels.decide_question(fixture_store, "alice", "q1", "reject", ["wrong anchor"])
    review_labels.decide_question(fixture_store, "alice", "q2", "accept")
    at = run_page(REPO_ROOT, "qlab_page")
    assert not at.exception
    reasons = frame(at, "generator_run", "reason", "n")
    assert "wrong anchor" in set(reasons["reason"])


def test_grid_shows_your_labels_and_saves_error_tags(fixture_store):
    review_labels.label_claims(
        fixture_store, "alice", [review_labels.ClaimLabel("q1:subs-qwen", "q1.c1", "omitted", "n")]
    )
    at = run_page(REPO_ROOT, "verdicts_page", {"q": "q1", "view": "Claims × settings"})
    assert not at.exception
    editor = frame(at, "my_label", "judge_verdict", "note")
    mine = editor[(editor["answer_id"] == "q1:subs-qwen") & (editor["ord"] == 1)].iloc[0]
    assert (mine["my_label"], mine["note"]) == ("omitted", "n")
    assert (editor["my_label"] == "—").sum() == len(editor) - 1
    at.multiselect(key="tags_q1:subs-qwen").set_value(["wrong holder", "hedging"])
    _button(at, "Save tags").click().run()
    assert not at.exception
    tags = review_view.tag_counts(fixture_store)
    assert set(tags["tag"]) == {"wrong holder", "hedging"}
    at.radio(key="view").set_value("Metrics").run()
    assert not at.exception
    counts = frame(at, "tagged answers")
    assert counts["tagged answers"].tolist() == [1]


def test_edit_a_question_keeps_the_original(fixture_store):
    at = run_page(REPO_ROOT, "questions_page", {"q": "q1"})
    at.radio(key="qr_action_q1").set_value("edit").run()
    assert not at.exception
    at.text_area(key="qr_text_q1").input("On the jetty at dawn, what does Ann believe?")
    at.text_input(key="qr_c_q1.c3").input("The boat was cancelled that morning.")
    _button(at, "Save as new revision").click().run()
    assert not at.exception
    revisions = review_view.question_revisions(fixture_store, "q1")
    assert revisions["revision"].tolist() == [0, 1]
    assert revisions["text"].iloc[1] == "On the jetty at dawn, what does Ann believe?"
    assert revisions["text"].iloc[0].startswith("On the jetty, what does Ann believe")
    claims = review_view.current_claim_texts(fixture_store, "q1").set_index("claim_id")
    assert claims.loc["q1.c3", "text"] == "The boat was cancelled that morning."
    assert claims.loc["q1.c1", "revision"] == 0
    assert (
        fixture_store.scalar("SELECT status FROM questions WHERE question_id = 'q1'") == "released"
    )


def test_question_panel_shows_what_is_decided_and_chooses_nothing(fixture_store):
    """The question, its gold and its rubric are on screen beside the decision, no decision is
    preselected (a reviewer who reads nothing cannot save one), and the reasons include wrong
    gold and malformed."""
    question = fixture_store.scalar("SELECT text FROM questions WHERE question_id = 'q2'")
    lab = run_page(REPO_ROOT, "qlab_page", {"review_q": "q2"})
    assert not lab.exception
    shown = [t.value for t in lab.text]
    assert f"Question: {question}" in shown
    assert any(t.startswith("Gold answer: ") for t in shown)
    assert not frame(lab, "ord", "role", "text").empty
    assert lab.radio(key="qr_action_q2").value is None
    at = run_page(REPO_ROOT, "questions_page", {"q": "q2"})
    assert not at.exception
    assert at.radio(key="qr_action_q2").value is None
    assert not [b for b in at.button if b.label.startswith("Save:")]
    at.radio(key="qr_action_q2").set_value("reject").run()
    options = at.multiselect(key="qr_reasons_q2").options
    assert {"wrong gold", "malformed"} <= set(options)
    at.multiselect(key="qr_reasons_q2").set_value(["wrong gold"])
    _button(at, "Save: reject").click().run()
    assert not at.exception
    assert (
        fixture_store.scalar("SELECT status FROM questions WHERE question_id = 'q2'") == "retired"
    )


def test_review_queue_preselects_no_verdict_and_enter_saves_nothing(fixture_store):
    at = run_page(REPO_ROOT, "verdicts_page", {"view": "Review"})
    assert not at.exception
    assert at.radio(key="review_verdict").value is None
    at.text_input(key="review_note").input("pressed Enter without choosing")
    _button(at, "Save and next").click().run()
    assert not at.exception
    assert any("choose a verdict first" in w.value for w in at.warning)
    saved = fixture_store.scalar(
        "SELECT count(*) FROM current_claim_verdicts WHERE judge_id = 'human:alice'"
    )
    assert saved == 0


def test_question_lab_describes_the_film_on_screen_and_what_checks_cover(fixture_store):
    at = run_page(REPO_ROOT, "qlab_page")
    assert not at.exception
    captions = " ".join(c.value for c in at.caption)
    assert "Questions of The Lighthouse Keeper" in captions
    assert "Keeper's Ledger's gold" not in captions  # not the gold film's score
    assert any("What these checks cover" in e.label for e in at.expander)
    assert any("What they do not" in m.value for m in at.markdown)
    # the fixture's run used an older version of the checks: the page says so (the text is
    # escaped for markdown, hence the backslashes removed)
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert any("checks-v1" in w and "checks-v3" in w for w in warnings)
