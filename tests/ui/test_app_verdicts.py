"""AppTest: the Verdicts page over the fixture's two judge runs."""

from __future__ import annotations

import pytest

from tests.support.app_fixture_data import JUDGE_LLM
from tests.support.app_fixtures import build_app_fixture
from tests.support.apptest_pages import figures, frame, metrics, run_page, traces
from tests.support.hostile import unescape_markdown
from tests.support.paths import REPO_ROOT


def test_grid_metrics_agreement_and_diff(fixture_runs):
    runs = fixture_runs
    at = run_page(REPO_ROOT, "verdicts_page", {"q": "q1", "run": runs["judge_lexical"]})
    assert not at.exception
    grid = traces(figures(at)["verdict_grid"])
    assert (
        len(grid["asserted"].x) == 3
        and len(grid["contradicted"].x) == 1
        and len(grid["omitted"].x) == 2
    )
    assert any(
        "Screenplay / Qwen3.6: 2/2 core" in unescape_markdown(c.value)
        and "Subtitles / Qwen3.6: 1/2 core" in unescape_markdown(c.value)
        for c in at.caption
    )

    at.radio(key="view").set_value("Metrics").run()
    assert at.query_params["view"] in ("Metrics", ["Metrics"])
    table = at.dataframe[0].value.set_index("setting")
    # Eq. (1) by hand: screenplay F1 = mean(1, 1, 2/3) = 88.9; subtitles = mean(.5, 0, 0) = 16.7
    assert table.loc["Screenplay / Qwen3.6", "F1"].startswith("88.9")
    assert table.loc["Subtitles / Qwen3.6", "F1"].startswith("16.7")
    assert table.loc["Subtitles / Qwen3.6", "Contra"].startswith("27.8")
    assert table.loc["Screenplay / Qwen3.6", "F1 (paper)"] == "61.0"
    assert list(table.index) == ["Screenplay / Qwen3.6", "Subtitles / Qwen3.6"]  # ordered by F1

    at.radio(key="view").set_value("Agreement").run()
    kappa = at.dataframe[0].value
    # 14 shared items, 12 agree; Cohen's κ 0.759 from the confusion counts (the count-based κ and
    # α are checked against scikit-learn / krippendorff on raw labels in
    # tests/viz/test_viz_figures.py)
    assert kappa.loc[0, "items"] == 14 and abs(kappa.loc[0, "agreement"] - 12 / 14) < 1e-3
    assert abs(kappa.loc[0, "kappa"] - 0.759) < 1e-3
    assert metrics(at)["Krippendorff's α (nominal, all judges)"] == "0.764"

    at.radio(key="view").set_value("Diff of two runs").run()
    assert metrics(at)["Flipped claims"] == "2 of 14"


def test_judge_and_order_from_url(fixture_store):
    at = run_page(
        REPO_ROOT,
        "verdicts_page",
        {"judge": JUDGE_LLM, "order": "contradiction", "setting": "subs-qwen", "view": "Metrics"},
    )
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table["setting"]) == ["Subtitles / Qwen3.6"]
    # the LLM run flips q1.c2 and q2.c1 to asserted: subtitles Contra = mean(1/3, 0, 0)
    assert table.loc[0, "Contra"].startswith("11.1")


def test_metrics_are_not_recomputed_when_only_the_order_changes(fixture_store, monkeypatch):
    import streamlit as st

    from pipelines import verdict_metrics

    calls = []
    original = verdict_metrics.slice_metrics
    monkeypatch.setattr(
        verdict_metrics, "slice_metrics", lambda *a, **k: calls.append(k) or original(*a, **k)
    )
    st.cache_data.clear()
    at = run_page(REPO_ROOT, "verdicts_page", {"judge": JUDGE_LLM, "view": "Metrics"})
    assert not at.exception and len(calls) == 2  # by setting, by setting × type
    at.selectbox(key="order").set_value("contradiction").run()
    assert not at.exception and len(calls) == 2  # the bootstrap came from the cache
    contra = [float(cell.split()[0]) for cell in at.dataframe[0].value["Contra"]]
    assert contra == sorted(contra)  # re-ordered, lowest contradiction first


@pytest.mark.slow
def test_rerun_judge_dry_run_then_job_then_diff(fixture_store, monkeypatch):
    """Offline (no endpoint): the lexical judge is the only backend, labelled; the dry run
    counts the slice; the job runs on a thread and its new run is diffed on completion."""
    from pipelines.jobs import wait_for

    for name in ("STORYSCOPE_LLM_BASE_URL", "STORYSCOPE_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    at = run_page(REPO_ROOT, "verdicts_page", {"film": "lighthouse"}, timeout=180)
    assert at.radio(key="judge_backend").options == [
        "lexical — offline ROUGE-L/MiniLM matcher (no LLM)"
    ]
    at.button(key="judge_dry_run").click().run()
    shown = metrics(at)
    assert (
        shown["Answers"] == "6" and shown["Claims"] == "14" and shown["Est. cost (USD)"] == "0.0000"
    )
    at.button(key="judge_start").click().run()
    wait_for(at.session_state["judge_job"]["job_id"], 300)
    at.run()
    assert not at.exception
    assert at.success[0].value.startswith("Job job-judge-") and "(6 answers)" in at.success[0].value
    flipped = metrics(at)["Flipped against the previous run"]
    assert flipped.endswith("of 14")  # every (answer, claim) was judged by both runs
    assert any("a different judge" in c.value for c in at.caption)


def test_gold_self_check_runs_are_not_offered_as_answer_runs(store):
    """A gold self-check grades reference answers; as the newest run it used to blank the grid."""
    from data_access.queries import verdicts_view

    build_app_fixture(store)
    before = list(verdicts_view.judge_runs(store)["run_id"])
    _add_gold_self_check(
        store, "SELECT ?, judge_id, answer_id, claim_id, verdict FROM claim_verdicts LIMIT 1"
    )
    assert list(verdicts_view.judge_runs(store)["run_id"]) == before


def _add_gold_self_check(store, verdicts_select: str) -> str:
    """A newer finished `judge.gold` run holding the verdicts `verdicts_select` gives (its one
    parameter is the run id)."""
    from data_access.tables.runs import RunSpec, finish_run, insert_run

    with store.transaction() as cursor:
        gold_run = insert_run(cursor, RunSpec(step="judge.gold", backend="lexical"))
        cursor.execute(
            "INSERT INTO claim_verdicts (run_id, judge_id, answer_id, claim_id, verdict) "
            + verdicts_select,
            [gold_run],
        )
        finish_run(cursor, gold_run, n_items=1)
    return gold_run


def test_grid_rows_carry_the_claim_text(fixture_runs):
    at = run_page(REPO_ROOT, "verdicts_page", {"q": "q1", "run": fixture_runs["judge_lexical"]})
    grid = figures(at)["verdict_grid"]
    rows = set(grid.layout.yaxis.categoryarray)
    assert "■ 1 · Ann believes the supply boat comes on Friday." in rows
    assert "□ 3 · The supply boat was cancelled." in rows
    hover = traces(grid)["contradicted"].customdata[0]
    assert hover[0] == "The supply boat was cancelled." and "overlap" in hover[2]


def test_every_settings_answer_is_shown(store):
    """Six settings answer q1: all six answers are drawn (four per row), none dropped."""
    build_app_fixture(store)
    with store.transaction() as cursor:
        run_id = cursor.execute("SELECT run_id FROM answers LIMIT 1").fetchone()[0]
        for n in range(4):
            cursor.execute(
                "INSERT INTO settings VALUES (?, 'extra', 'm', NULL, NULL, ?, ?)",
                [f"extra-{n}", f"Extra setting {n}", run_id],
            )
            cursor.execute(
                "INSERT INTO answers VALUES (?, 'q1', ?, ?, ?)",
                [f"q1:extra-{n}", f"extra-{n}", f"Extra answer {n}.", run_id],
            )
    at = run_page(REPO_ROOT, "verdicts_page", {"q": "q1"})
    assert not at.exception
    shown = {m.value for m in at.markdown}
    for n in range(4):  # one markdown per answer: the setting, its chips, the answer
        assert any(
            m.startswith(f"**Extra setting {n}**")
            and unescape_markdown(m).endswith(f"Extra answer {n}.")
            for m in shown
        )
    assert "**Answers** (6 settings)" in shown


def test_why_table_puts_judges_side_by_side_with_filters(fixture_store):
    at = run_page(REPO_ROOT, "verdicts_page", {"q": "q1"})
    table = frame(at, "claim", "setting", JUDGE_LLM)
    assert {"ord", "claim", "setting", "lexical-overlap", JUDGE_LLM} <= set(table.columns)
    assert len(table) == 6  # 3 claims × 2 settings
    assert table["lexical-overlap"].str.startswith(("asserted", "omitted", "contradicted")).all()
    at.multiselect(key="why").set_value(["judges disagree"]).run()
    table = frame(at, "claim", "setting", JUDGE_LLM)
    # the LLM run flips q1's claim 2 on the subtitles answer only
    assert list(zip(table["ord"], table["setting"])) == [("2", "Subtitles / Qwen3.6")]
    at.multiselect(key="why").set_value(["contradicted"]).run()
    assert list(frame(at, "claim", "setting", JUDGE_LLM)["ord"]) == ["3"]


def test_grid_opens_on_the_judge_named_in_the_url(fixture_store):
    """Compare's "open grid" links name their judge: the grid shows that judge's verdicts."""
    from urllib.parse import parse_qs, urlsplit

    compare = run_page(REPO_ROOT, "verdicts_page", {"judge": JUDGE_LLM, "view": "Compare"})
    links = frame(compare, "question_id", "grid")["grid"]
    assert len(links) and all(
        parse_qs(urlsplit(link).query)["judge"] == [JUDGE_LLM] for link in links
    )
    # the grid shows the named judge's current verdicts (its runs are history): the LLM judge
    # flips q1's claim 2 on the subtitles answer to asserted, so 4 asserted cells against 3
    at = run_page(REPO_ROOT, "verdicts_page", {"q": "q1", "judge": JUDGE_LLM})
    assert at.selectbox(key="run").value == "current"
    assert len(traces(figures(at)["verdict_grid"])["asserted"].x) == 4
    at = run_page(REPO_ROOT, "verdicts_page", {"q": "q1", "judge": "lexical-overlap"})
    assert at.selectbox(key="run").value == "current"
    assert len(traces(figures(at)["verdict_grid"])["asserted"].x) == 3


def test_metrics_say_what_each_column_covers(fixture_store):
    at = run_page(REPO_ROOT, "verdicts_page", {"judge": JUDGE_LLM, "view": "Metrics"})
    note = " ".join(c.value for c in at.caption)
    assert "on this slice, 3 questions per setting at most" in unescape_markdown(note)
    assert "over its full benchmark" in note and "LF-VideoQA Table 3" in unescape_markdown(note)
    only_subtitles = {"judge": JUDGE_LLM, "view": "Metrics", "setting": "subs-qwen"}
    at = run_page(REPO_ROOT, "verdicts_page", only_subtitles)
    note = " ".join(c.value for c in at.caption)
    assert "The paper reports none of these settings" in note and "LF-VideoQA" not in note


def test_rerun_baseline_is_never_a_gold_self_check(store):
    """The rerun's baseline is the judge's latest run over model answers: a newer gold
    self-check (reference answers only) shared nothing with it and showed "flipped 0 of 0"."""
    from data_access.queries import verdicts_view

    runs = build_app_fixture(store)
    _add_gold_self_check(store, "VALUES (?, 'lexical-overlap', 'gold:q1', 'q1.c1', 'asserted')")
    assert verdicts_view.latest_run_of_judge(store, "lexical-overlap") == runs["judge_lexical"]
    assert (
        verdicts_view.latest_run_of_judge(store, "lexical-overlap", "lighthouse")
        == (runs["judge_lexical"])
    )
    assert verdicts_view.latest_run_of_judge(store, "lexical-overlap", "no-such-film") is None
