"""AppTest: the Distributions page over the fixture (3 questions, 8 MCQs, 2 methods)."""

from __future__ import annotations

from tests.support.apptest_pages import figures, metrics, run_page, traces
from tests.support.paths import REPO_ROOT


def test_question_shape_and_mcq_figures(fixture_store):
    at = run_page(REPO_ROOT, "distributions_page")
    assert not at.exception
    shown = metrics(at)
    assert shown["Questions"] == "3" and shown["Claims per question"] == "2.3"
    assert "MCQs" not in shown  # MCQ section not run
    open_figures = figures(at)
    at.radio(key="view").set_value("Multiple choice (StoryVideoQA)").run()
    shown.update(metrics(at))
    # span to the latest cited scene's end (Table 1): (45 + 45 + 25) / 3
    assert shown["Evidence span (min, mean)"] == "38.3"
    # 8 MCQs over 8 distinct topics: Gini-Simpson 1 - 8/64, entropy log2 8
    assert shown["Gini (topics)"] == "0.875" and shown["Entropy (bits)"] == "3.000"
    assert shown["Kept (both rules)"] == "75.0%"  # MCQs 3 and 5 dropped
    specs = {**open_figures, **figures(at)}
    assert list(specs["types"].data[0].x) == ["Q1", "Q3", "N2"]
    assert list(specs["anchor_fifths"].data[0].y) == [1, 1, 1]  # fifths 3, 4, 5
    # the spans binned as plotly.js bins them
    # (tests/data_access/rollups/test_distributions_binning.py): 25 | 45 45
    spans = specs["spans"].data[0]
    assert (spans.x[0], spans.x[-1], sum(spans.y), spans.y[-1]) == (25, 45, 3, 2)
    topics = traces(specs["topics"])
    assert sum(topics["perception"].y) == 4 and sum(topics["inference"].y) == 4
    assert len(specs["difficulty"].data) == 4  # D_q, D_a, D_qa, D
    by_bin = traces(specs["accuracy_by_bin"])
    assert list(by_bin["plottree"].y) == [100.0, 100.0, 50.0, 100.0, 0.0]
    by_topic = at.dataframe[0].value.set_index("method")
    assert by_topic.loc["plottree", "Avg"] == 62.5 and by_topic.loc["random", "Avg"] == 25.0


def test_mcq_filters_from_url(fixture_store):
    at = run_page(
        REPO_ROOT,
        "distributions_page",
        {"view": "Multiple choice (StoryVideoQA)", "set": "golden", "source": "Movie"},
    )
    assert not at.exception
    assert at.selectbox(key="set").value == "golden"
    assert metrics(at)["MCQs"] == "8"
