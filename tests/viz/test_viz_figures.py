"""Unit tests of the figure builders (DataFrame in, Figure out; no store, no Streamlit)."""

from __future__ import annotations

import pandas as pd
import pytest

from viz.beliefs import belief_lanes_figure, describe_belief, lane_rows
from viz.distributions import accuracy_by_topic_table, count_bars, difficulty_figure, topic_bars
from viz.film import presence_counts, presence_grid_figure, scene_timeline_figure
from viz.plottree import ROOT_COLOUR, level_time_figure, tree_figure
from viz.qlab import leak_histogram, question_map_figure
from viz.questions import (
    claim_range,
    clock,
    evidence_lines,
    evidence_map_figure,
    evidence_summary,
    rubric_markdown,
)
from viz.verdicts import answer_markdown, metrics_table, type_table, verdict_grid_figure


def _beliefs(**override) -> pd.DataFrame:
    rows = [
        dict(
            holder="Ann",
            belief_id="F1",
            kind="told",
            content="Boat on Friday.",
            source_character="Ben",
            believed=True,
            is_false=True,
            revises=None,
            scene_index=1,
            end_scene=4,
            start_s=300.0,
            end_s=2400.0,
            basis="",
            rejected=False,
            revised_at_scene=4,
        ),
        dict(
            holder="Ann",
            belief_id="B2",
            kind="revised",
            content="Boat cancelled.",
            source_character=None,
            believed=None,
            is_false=False,
            revises="F1",
            scene_index=4,
            end_scene=6,
            start_s=2400.0,
            end_s=3600.0,
            basis="",
            rejected=False,
            revised_at_scene=None,
        ),
        dict(
            holder="Ann",
            belief_id="T1",
            kind="told",
            content="Storm passes.",
            source_character="Cara",
            believed=False,
            is_false=False,
            revises=None,
            scene_index=3,
            end_scene=6,
            start_s=1500.0,
            end_s=3600.0,
            basis="",
            rejected=True,
            revised_at_scene=None,
        ),
    ]
    frame = pd.DataFrame(rows)
    for key, value in override.items():
        frame[key] = value
    return frame


META = pd.DataFrame(
    [
        dict(
            holder="Ann",
            meta_id="M1",
            about="Ben",
            scene_index=1,
            start_s=300.0,
            claim="Ben thinks Ann trusts him.",
            type="first_order_about_d",
            change="new",
            source="told",
            order_depth=2,
            basis="",
        )
    ]
)


def test_belief_lanes_dash_false_grey_rejected_arrow_revision_meta_lane():
    figure = belief_lanes_figure(_beliefs(), META, selected="Ann · T1")
    rects = {shape.name: shape for shape in figure.layout.shapes}
    assert (
        rects["false"].line.dash == "dash"
        and rects["false"].x0 == 5.0
        and rects["false"].x1 == 40.0
    )
    assert (
        rects["rejected"].fillcolor.startswith("rgba(160,160,160")
        and rects["rejected"].line.width == 4
    )
    (arrow,) = figure.layout.annotations
    assert (arrow.ax, arrow.x, arrow.ay, arrow.y) == (40.0, 40.0, 0, 1)  # F1's end -> B2's start
    assert list(figure.layout.yaxis.ticktext) == ["Ann · F1", "Ann · B2", "Ann · T1", "Ann · meta"]
    names = [trace.name for trace in figure.data]
    assert names == ["told", "revised", "meta-belief"]
    assert figure.layout.xaxis.title.text == "film time (min)"


def test_belief_lanes_fall_back_to_scene_axis_without_times():
    figure = belief_lanes_figure(_beliefs(start_s=None, end_s=None), META.assign(start_s=None))
    assert figure.layout.xaxis.title.text == "scene"
    false_box = next(shape for shape in figure.layout.shapes if shape.name == "false")
    assert (false_box.x0, false_box.x1) == (1.0, 4.0)


def test_lane_rows_and_description():
    assert lane_rows(_beliefs(), META.iloc[0:0]) == ["Ann · F1", "Ann · B2", "Ann · T1"]
    text = describe_belief(_beliefs().iloc[0])
    assert (
        text == "**Boat on Friday.** — told by Ben · **false** · forms in S1 (5:00) · revised in S4"
    )
    assert describe_belief(_beliefs().iloc[2]).endswith("· held to the end")
    assert "**rejected**" in describe_belief(_beliefs().iloc[2])


def test_scene_timeline_and_presence_grid():
    scenes = pd.DataFrame(
        dict(
            scene_index=[0, 1, 2],
            heading=["A", "B", "C"],
            start_s=[0.0, 60.0, 180.0],
            end_s=[60.0, 180.0, 240.0],
            time_source=["matched", "interpolated", "matched"],
        )
    )
    figure = scene_timeline_figure(scenes, runtime_s=300.0, highlight_scene=1)
    bars = {trace.name: trace for trace in figure.data}
    assert list(bars["matched"].base) == [0.0, 3.0] and list(bars["matched"].x) == [1.0, 1.0]
    assert list(bars["interpolated"].marker.line.width) == [3]
    assert tuple(figure.layout.xaxis.range) == (0, 5.0)
    presence = pd.DataFrame(
        dict(
            scene_index=[0, 0, 1],
            character=["Ann", "Ben", "Ann"],
            status=["on_screen", "offscreen_unaware", "on_screen"],
        )
    )
    grid = presence_grid_figure(presence)
    assert presence_counts(grid) == {"on screen": 2, "offscreen unaware": 1}
    # the legend names the statuses shown, one entry each
    assert [t.name for t in grid.data if t.type == "scatter"] == ["on screen", "offscreen unaware"]


EVIDENCE = pd.DataFrame(
    dict(
        ord=[1, 2, 3],
        time_s=[3286.0, 3803.0, 3803.0],
        location=["The Winning Ticket", "Kitchen", "Kitchen"],
        scene_index=[10, 11, 11],
        claim_ords=[[1, 2, 3, 4, 5], [5], []],
        is_anchor=[True, False, False],
    )
)
RUBRIC = pd.DataFrame(
    dict(
        ord=[1, 2, 3, 4, 5],
        role=["core", "context", "core", "context", "core"],
        text=[f"claim {i}" for i in range(1, 6)],
    )
)


def test_evidence_map_matches_the_paper_header_and_lines():
    # LF-VideoQA Table 9, Q1 (The Holdovers): "3 core / 5 claims evidence: 2 scenes over 10 min",
    # "54:46 The Winning Ticket (claims 1–5)", "1:03:23 Kitchen (claim 5)"
    # without scene ends the span runs to the last evidence time (8.6 min); with the Kitchen scene
    # ending at 1:04:30 it runs to that end, as Table 1 defines it
    assert evidence_summary(RUBRIC, EVIDENCE) == "3 core / 5 claims · evidence: 2 scenes over 9 min"
    with_ends = EVIDENCE.assign(scene_end_s=[3400.0, 3870.0, 3870.0])
    assert (
        evidence_summary(RUBRIC, with_ends) == "3 core / 5 claims · evidence: 2 scenes over 10 min"
    )
    assert evidence_lines(EVIDENCE) == [
        "54:46 The Winning Ticket (claims 1–5)",
        "1:03:23 Kitchen (claim 5)",
    ]
    figure = evidence_map_figure(EVIDENCE, runtime_s=7883.0)
    traces = {trace.name: trace for trace in figure.data}
    assert list(traces["evidence"].text) == ["54:46", "1:03:23"]
    # neighbouring evidence labels alternate above and below the line (they printed over each
    # other where two scenes were close)
    assert list(traces["evidence"].textposition) == ["top center", "bottom center"]
    assert list(traces["anchor ▲"].x) == [pytest.approx(3286.0 / 60)]
    assert figure.layout.annotations[1].text == "end of film, 2:11:23"
    assert rubric_markdown(RUBRIC.iloc[:2]).splitlines() == ["■ 1 claim 1  ", "□ 2 claim 2  "]


def test_clock_and_claim_ranges():
    assert clock(3286) == "54:46" and clock(7883) == "2:11:23" and clock(None) == "—"
    assert claim_range([1, 2]) == "claims 1, 2" and claim_range([2, 3, 4]) == "claims 2–4"
    assert claim_range([3]) == "claim 3" and claim_range([]) == "anchor"


GRID = pd.DataFrame(
    dict(
        ord=[1, 2, 1, 2],
        role=["core", "context"] * 2,
        claim=["a", "b", "a", "b"],
        setting_id=["s1", "s1", "s2", "s2"],
        setting=["One", "One", "Two", "Two"],
        answer_id=["x", "x", "y", "y"],
        verdict=["asserted", "contradicted", "omitted", None],
    )
)


def test_verdict_grid_colours_and_core_labels():
    figure = verdict_grid_figure(GRID, {"One": "1/1 core", "Two": "0/1 core"})
    colours = {trace.name: trace.marker.color for trace in figure.data}
    assert colours == {
        "asserted": "#1f77b4",
        "contradicted": "#d62728",
        "omitted": "#bdbdbd",
        "not judged": "#ffffff",
    }
    assert list(figure.layout.xaxis.categoryarray) == ["1. One<br>1/1 core", "2. Two<br>0/1 core"]
    # a long setting name is cut in the column title (the full name is in the hover)
    long = GRID.assign(setting=GRID["setting"] + " · a model with a long <name> here")
    titles = list(verdict_grid_figure(long).layout.xaxis.categoryarray)
    assert titles[0] == "1. One · a model with a lo…<br>"
    assert "&lt;" not in titles[0] and all(len(t) <= 40 for t in titles)
    # rows: role, number and the claim's text, cut short with the whole in the hover
    assert list(figure.layout.yaxis.categoryarray) == ["□ 2 · b", "■ 1 · a"]
    wordy = GRID.assign(claim="Ann believes the supply boat comes on Friday, as Ben told her.")
    rows = list(verdict_grid_figure(wordy).layout.yaxis.categoryarray)
    assert rows[1] == "■ 1 · Ann believes the supply boat comes on Friday, a…"
    hover = verdict_grid_figure(wordy).data[0].customdata[0][0]
    assert hover.replace("<br>", " ") == wordy["claim"][0]
    chips = answer_markdown("text", GRID[GRID["setting"] == "One"])
    assert chips.startswith(":blue-background[■1 asserted] :red-background[□2 contradicted]")


METRICS = pd.DataFrame(
    dict(
        setting_id=["s1", "s2"],
        setting=["One", "Two"],
        qtype=[None, None],
        questions=[3, 3],
        recall=[0.5, 0.9],
        recall_lo=[0.4, 0.8],
        recall_hi=[0.6, 1.0],
        precision=[1.0, 0.5],
        precision_lo=[1.0, 0.3],
        precision_hi=[1.0, 0.7],
        f1=[0.6, 0.7],
        f1_lo=[0.5, float("nan")],
        f1_hi=[0.7, float("nan")],
        contradiction=[0.0, 0.2],
        contradiction_lo=[0.0, 0.1],
        contradiction_hi=[0.0, 0.3],
    )
)


def test_metrics_table_orders_formats_and_puts_paper_beside():
    reported = pd.DataFrame(dict(setting_id=["s1"], metric=["f1"], value=[0.61], qtype=[None]))
    table = metrics_table(METRICS, reported, order_by="f1")
    assert list(table["setting"]) == ["Two", "One"]
    assert table.loc[1, "F1"] == "60.0 [50.0, 70.0]" and table.loc[0, "F1"] == "70.0"
    assert list(table["F1 (paper)"]) == ["", "61.0"]
    assert list(metrics_table(METRICS, None, order_by="contradiction")["setting"]) == ["One", "Two"]
    by_type = type_table(METRICS.assign(qtype=["N2", "Q1"]))
    assert list(by_type.columns) == ["setting", "Q1", "N2"]


def test_distribution_figures():
    bars = count_bars(pd.Series(["N1", "Q2", "Q2"]).value_counts(), "types", "type", ["Q2", "N1"])
    assert list(bars.data[0].x) == ["Q2", "N1"] and list(bars.data[0].y) == [2, 1]
    assert bars.layout.xaxis.type == "category"
    # counts on a number line: 13 cited scenes stand apart from 8, not next to it
    scenes = count_bars(pd.Series([1, 1, 8, 13]).value_counts(), "scenes", "scenes")
    assert list(scenes.data[0].x) == [1, 8, 13] and scenes.layout.xaxis.type == "linear"
    # the codes of the topic axis are explained on it
    assert (
        "characters"
        in topic_bars(
            pd.DataFrame(dict(question_type=["P"], story_element=["C"], n=[1]))
        ).layout.xaxis.ticktext[0]
    )
    topics = topic_bars(
        pd.DataFrame(dict(question_type=["P", "I"], story_element=["C", "CAL"], n=[3, 2]))
    )
    by_type = {trace.name: list(trace.y) for trace in topics.data}
    assert by_type["perception"] == [3, 0, 0, 0, 0, 0, 0] and by_type["inference"][-1] == 2
    buckets = pd.DataFrame(
        dict(measure=["d_q", "d"], left_edge=[0.1, 0.2], bucket_width=[0.05, 0.05], n=[4, 5])
    )
    assert len(difficulty_figure(buckets).data) == 2
    acc = pd.DataFrame(
        dict(
            method=["m", "m"],
            question_type=["P", "I"],
            story_element=["C", "C"],
            accuracy=[100.0, 0.0],
            n=[3, 1],
        )
    )
    table = accuracy_by_topic_table(acc)
    assert list(table.columns) == ["method", "P-C", "I-C", "Avg"] and table.loc[0, "Avg"] == 75.0


NODES = pd.DataFrame(
    dict(
        node_id=["root", "a", "b"],
        parent_id=[None, "root", "root"],
        level=[1, 0, 0],
        start_s=[0.0, 0.0, 600.0],
        end_s=[1200.0, 600.0, 1200.0],
        summary=["r", "x", "y"],
        leaves=[2, 1, 1],
    )
)


def test_plottree_figures_highlight_retrieved_nodes():
    plain = tree_figure(NODES, "icicle")
    assert plain.data[0].type == "icicle" and list(plain.data[0].parents) == ["", "root", "root"]
    assert plain.data[0].marker.colors is None
    # the chosen node (the top box) is drawn, not left transparent as Plotly does by default
    assert plain.data[0].root.color == ROOT_COLOUR
    scored = tree_figure(NODES, "sunburst", {"b": 0.8})
    assert list(scored.data[0].marker.colors) == ["#c6dbef", "#c6dbef", "#d62728"]
    timeline = level_time_figure(NODES, selected="a").data[0]
    assert list(timeline.y) == ["level 1", "level 0", "level 0"] and list(timeline.base) == [
        0.0,
        0.0,
        10.0,
    ]
    assert list(timeline.marker.line.width) == [0.5, 3, 0.5]


def test_question_lab_figures():
    points = pd.DataFrame(
        dict(
            question_id=["q1", "q2"],
            x=[0.0, 1.0],
            y=[0.0, 1.0],
            model=["m+umap"] * 2,
            qtype=["Q1", "Q2"],
            text=["a?", "b?"],
            check_status=["passed", "failed"],
        )
    )
    by_status = question_map_figure(points, "check_status")
    assert {trace.name: trace.marker.color for trace in by_status.data} == {
        "passed": "#1f77b4",
        "failed": "#d62728",
    }
    assert "umap" in by_status.layout.title.text
    histogram = leak_histogram(pd.DataFrame(dict(leak_score=[0.1, 0.7], passed=[True, False])), 0.5)
    assert histogram.layout.shapes[0].x0 == 0.5
    assert sorted(trace.name for trace in histogram.data) == ["failed", "passed"]


def test_count_based_kappa_and_alpha_match_the_libraries_on_raw_labels():
    import krippendorff
    from sklearn.metrics import cohen_kappa_score

    from pipelines.verdict_metrics import alpha_from_patterns, kappa_pairs

    a = ["asserted", "asserted", "omitted", "contradicted", "omitted", "asserted", "omitted"]
    b = ["asserted", "omitted", "omitted", "contradicted", "asserted", "asserted", "omitted"]
    confusions = (
        pd.DataFrame(dict(verdict_a=a, verdict_b=b))
        .value_counts()
        .rename("n")
        .reset_index()
        .assign(judge_a="j1", judge_b="j2")
    )
    row = kappa_pairs(confusions).iloc[0]
    assert row["items"] == 7 and row["kappa"] == pytest.approx(cohen_kappa_score(a, b), abs=1e-9)
    labels = {"asserted": 0, "contradicted": 1, "omitted": 2}
    units = pd.DataFrame(
        {
            name: [int(x == name) + int(y == name) for x, y in zip(a, b)]
            for name in ["asserted", "contradicted", "omitted"]
        }
    ).assign(other=0)
    patterns = units.value_counts().rename("items").reset_index()
    expected = krippendorff.alpha(
        reliability_data=[[labels[x] for x in a], [labels[y] for y in b]],
        level_of_measurement="nominal",
    )
    assert alpha_from_patterns(patterns) == pytest.approx(expected, abs=1e-9)


def test_belief_lanes_read_null_flags_as_false():
    """Tracker output can leave `believed` NULL on told beliefs: no crash, a plain box."""
    beliefs = _beliefs(rejected=pd.array([None, None, None], dtype="boolean"))
    figure = belief_lanes_figure(beliefs, META.iloc[0:0])
    assert [shape.name for shape in figure.layout.shapes] == ["false", "belief", "belief"]
    assert "rejected" not in describe_belief(beliefs.iloc[2])


def test_metrics_figure_draws_the_best_settings_up_to_its_limit():
    from viz.verdicts import metrics_figure

    metrics = pd.DataFrame(
        {
            "setting_id": ["a", "b", "c"],
            "setting": ["A", "B", "C"],
            "f1": [0.2, 0.9, 0.5],
            "f1_lo": [0.1, 0.8, 0.4],
            "f1_hi": [0.3, 1.0, 0.6],
        }
    )
    assert len(metrics_figure(metrics, "f1").data[0].x) == 3
    bars = metrics_figure(metrics, "f1", limit=2).data[0]
    assert [name for name in bars.customdata] == ["B", "C"]  # the best two by F1
