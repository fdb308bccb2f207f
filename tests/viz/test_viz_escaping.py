"""Every figure builder in `viz/` escapes untrusted text (dataset text is never
markup): each one is built
with hostile strings in every text field it reads, and no `<` other than the builders' own
formatting tags may reach any string of the figure's JSON (trace names, tick labels, hover text,
customdata, labels, annotations, titles)."""

from __future__ import annotations

import html
import importlib
import inspect
import pkgutil
import re

import numpy as np
import pandas as pd
import pytest

import viz
from viz import (
    agent_trail,
    belief_groups,
    belief_split,
    beliefs,
    distributions,
    film,
    given_input,
    judge_eval,
    mcq_methods,
    overview,
    plottree,
    qlab,
    questions,
    verdicts,
)
from viz.safe import MARK, escaped, plotly_text

EVIL = '<a href="http://evil.example/">click</a><img src=x onerror=alert(1)>'
# the builders' own markup: line breaks, bold ids, hover "extra" boxes
OWN_TAGS = re.compile(r"</?(?:br|b|i|extra)>")


def _evil(name: str) -> str:
    return f"{name} {EVIL}"


def _belief_rows() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "holder": [_evil("Ann"), _evil("Ann")],
            "belief_id": ["B1", _evil("B2")],
            "kind": ["told", "witnessed"],
            "content": [_evil("the key is in the box"), _evil("the key is gone")],
            "source_character": [_evil("Ben"), None],
            "believed": [True, True],
            "is_false": [True, False],
            "revises": [None, "B1"],
            "scene_index": [1, 3],
            "end_scene": [3, 5],
            "start_s": [60.0, 180.0],
            "end_s": [180.0, 300.0],
            "basis": [_evil("e1"), ""],
            "rejected": [False, False],
            "revised_at_scene": [3.0, np.nan],
            "trigger": [_evil("a letter"), None],
        }
    )


def _meta_rows() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "holder": [_evil("Ann")] * 2,
            "meta_id": [_evil("M1"), _evil("M1")],
            "about": [_evil("Ben")] * 2,
            "scene_index": [2, 2],
            "start_s": [120.0, 120.0],
            "claim": [_evil("Ben thinks the key is in the box")] * 2,
            "type": ["first-order"] * 2,
            "change": [None] * 2,
            "source": [_evil("saw")] * 2,
            "order_depth": [2, 2],
            "basis": [""] * 2,
        }
    )


def _groups_inputs():
    from pipelines.beliefs.character_summary import belief_groups as groups_of
    from pipelines.beliefs.character_summary import changes, group_key

    lanes = _belief_rows()
    names = list(lanes["holder"].unique())
    groups = groups_of(lanes, "source", names)
    changing = lanes.assign(group=group_key(lanes, "source", names))[changes(lanes)]
    return groups, changing


def _gap_rows() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "holder": [_evil("Ann")] * 2 + [_evil("Ben")] * 2,
            "other": [_evil("Ben")] * 2 + [_evil("Ann")] * 2,
            "scene_index": [0, 1, 0, 1],
            "start_s": [0.0, 60.0, 0.0, 60.0],
            "unshared": [1, 2, 0, 1],
            "away": [1, 1, 0, 0],
        }
    )


def _tree_nodes() -> pd.DataFrame:
    nodes = pd.DataFrame(
        {
            "node_id": [_evil("root"), _evil("leaf")],
            "parent_id": [None, _evil("root")],
            "level": [1, 0],
            "start_s": [0.0, 0.0],
            "end_s": [60.0, 60.0],
            "summary": [_evil("Gittes meets Evelyn"), _evil("Gittes laughs")],
            "leaves": [1, 1],
        }
    )
    return nodes


def _grid() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "ord": [1, 1],
            "role": ["core", "core"],
            "claim": [_evil("Ann knows")] * 2,
            "setting_id": ["s1", _evil("s2")],
            "setting": [_evil("Setting one"), _evil("Setting two")],
            "answer_id": ["a1", "a2"],
            "verdict": ["asserted", None],
            "rationale": [_evil("the answer says so"), None],
        }
    )


def _metrics() -> pd.DataFrame:
    frame = pd.DataFrame({"setting_id": ["s1"], "setting": [_evil("Setting one")]})
    for metric in verdicts.METRIC_LABELS:
        frame[metric], frame[f"{metric}_lo"], frame[f"{metric}_hi"] = 0.5, 0.4, 0.6
    return frame.assign(questions=3)


def _reported() -> pd.DataFrame:
    return pd.DataFrame(
        {"setting_id": ["s1"], "metric": ["f1"], "value": [0.4], "qtype": [None]},
    )


# builder -> a function returning (args, kwargs) with hostile text in every string it reads
CASES = {
    agent_trail.trail_timeline_figure: lambda: (
        (
            pd.DataFrame(
                {
                    "turn": [0, 1],
                    "call_index": [0, 0],
                    "tool": [_evil("find_clips"), _evil("no_such_tool")],
                    "arguments": [_evil('{"query": "x"}'), _evil("{}")],
                    "result_chars": [40, 0],
                    "error": [None, _evil("unknown tool")],
                    "intervals": [((60.0, 100.0),), ()],
                }
            ),
            pd.DataFrame(
                {
                    "scene_index": [1, 6],
                    "location": [_evil("Hale Inn"), None],
                    "start_s": [64.8, 228.7],
                    "end_s": [101.6, 262.4],
                    "claim_ords": [(1,), (2, 3)],
                    "touched": [True, False],
                }
            ),
            90.0,
            658.3,
        ),
        {},
    ),
    agent_trail.touched_recall_figure: lambda: (
        (
            pd.DataFrame(
                {
                    "setting_label": [_evil("Agent, fast"), _evil("Agent, fast")],
                    "question_id": [_evil("q1"), "q2"],
                    "touched_share": [0.5, 1.0],
                    "recall": [0.2, np.nan],
                }
            ),
        ),
        {},
    ),
    mcq_methods.topic_accuracy_heatmap: lambda: (
        (
            pd.DataFrame(
                {
                    "method": [_evil("PlotTree")],
                    "source": [_evil("paper")],
                    "P-C": [40.0],
                    "Avg": [40.0],
                }
            ),
        ),
        {},
    ),
    given_input.given_input_figure: lambda: (
        ([[0.0, 60.0], [120.0, 180.0]], [5.0, 125.0], 200.0),
        {},
    ),
    beliefs.belief_lanes_figure: lambda: (
        (_belief_rows(), _meta_rows(), f"{_evil('Ann')} · B1"),
        {},
    ),
    belief_groups.belief_groups_figure: lambda: (_groups_inputs(), {}),
    belief_split.knowledge_gap_figure: lambda: ((_gap_rows(),), {}),
    distributions.count_bars: lambda: (
        (pd.Series([2, 1], index=[_evil("Q1"), "Q2"]), _evil("title"), _evil("x")),
        {},
    ),
    distributions.span_histogram: lambda: (
        (pd.DataFrame({"left_edge": [0.0, 5.0], "right_edge": [5.0, 10.0], "n": [2, 1]}), 5.0),
        {},
    ),
    distributions.topic_bars: lambda: (
        (pd.DataFrame({"question_type": ["P", "I"], "story_element": ["C", "A"], "n": [3, 4]}),),
        {},
    ),
    distributions.difficulty_figure: lambda: (
        (
            pd.DataFrame(
                {"measure": [_evil("d_q"), "d_a"], "left_edge": [0.0, 0.1], "n": [2, 3]}
            ).assign(bucket_width=0.1),
        ),
        {},
    ),
    distributions.accuracy_by_bin_figure: lambda: (
        (
            pd.DataFrame(
                {"bin": [1, 2], "accuracy": [50.0, 60.0], "method": [_evil("PlotTree")] * 2}
            ),
        ),
        {},
    ),
    film.scene_timeline_figure: lambda: (
        (
            pd.DataFrame(
                {
                    "scene_index": [1, 2],
                    "heading": [_evil("INT. OFFICE"), None],
                    "location": [None, _evil("street")],
                    "start_s": [0.0, 60.0],
                    "end_s": [60.0, 120.0],
                    "time_source": ["matched", _evil("odd")],
                }
            ),
            120.0,
            1,
        ),
        {},
    ),
    film.presence_grid_figure: lambda: (
        (
            pd.DataFrame(
                {
                    "scene_index": [1, 2],
                    "character": [_evil("GITTES"), _evil("EVELYN")],
                    "status": ["on_screen", "offscreen_aware"],
                }
            ),
        ),
        {},
    ),
    judge_eval.judge_vs_anchors_figure: lambda: (
        (
            pd.DataFrame(
                {
                    "name": [_evil("lexical"), _evil("detector")],
                    "kind": ["our judge", "released detector"],
                    "balanced_accuracy": [0.6, 0.7],
                }
            ),
        ),
        {},
    ),
    overview.questions_by_type_figure: lambda: (
        (
            pd.DataFrame(
                {"qtype": ["Q1", _evil("Q9")], "status": ["released", _evil("st")], "n": [1, 2]}
            ),
        ),
        {},
    ),
    overview.mcq_sets_figure: lambda: (
        (pd.DataFrame({"set_name": [_evil("set")], "source": [_evil("src")], "questions": [4]}),),
        {},
    ),
    plottree.tree_figure: lambda: (
        (_tree_nodes(), "icicle", {_evil("leaf"): 0.9}, plottree.node_labels(_tree_nodes())),
        {},
    ),
    plottree.level_time_figure: lambda: (
        (
            _tree_nodes(),
            {_evil("leaf"): 0.9},
            _evil("root"),
            plottree.node_labels(_tree_nodes()),
            _tree_nodes()[["node_id", "level", "start_s", "end_s"]],
        ),
        {},
    ),
    qlab.question_map_figure: lambda: (
        (
            pd.DataFrame(
                {
                    "x": [0.0, 1.0],
                    "y": [1.0, 0.0],
                    "qtype": [_evil("Q1"), "Q2"],
                    "check_status": ["passed", "failed"],
                    "question_id": [_evil("q1"), "q2"],
                    "text": [_evil("Who knows?"), _evil("Why?")],
                    "model": [_evil("minilm+umap")] * 2,
                }
            ),
        ),
        {},
    ),
    qlab.leak_histogram: lambda: (
        (pd.DataFrame({"leak_score": [0.1, 0.5], "passed": [True, False]}), 0.3),
        {},
    ),
    questions.evidence_map_figure: lambda: (
        (
            pd.DataFrame(
                {
                    "time_s": [60.0, 120.0],
                    "location": [_evil("INT. OFFICE"), _evil("street")],
                    "claim_ords": [[1, 2], []],
                    "is_anchor": [False, True],
                    "scene_end_s": [90.0, 150.0],
                }
            ),
            300.0,
        ),
        {},
    ),
    verdicts.verdict_grid_figure: lambda: (
        (_grid(), {_evil("Setting one"): "1/1 core"}),
        {},
    ),
    verdicts.metrics_figure: lambda: ((_metrics(), "f1", _reported()), {}),
}


def _figure_builders() -> list:
    """Every public function of a viz module that returns a Plotly figure."""
    found = []
    for info in pkgutil.iter_modules(viz.__path__):
        module = importlib.import_module(f"viz.{info.name}")
        for name, fn in inspect.getmembers(module, inspect.isfunction):
            if fn.__module__ == module.__name__ and not name.startswith("_"):
                signature = inspect.signature(fn)
                takes_figure = any(
                    "Figure" in str(p.annotation) for p in signature.parameters.values()
                )  # viz.theme.themed styles a built figure: not a builder
                if "Figure" in str(signature.return_annotation) and not takes_figure:
                    found.append(fn)
    return found


def _strings(value, path="figure"):
    """(path, string) for every string anywhere in a figure's JSON."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, f"{path}.{key}")
    elif isinstance(value, list | tuple | np.ndarray):
        for i, item in enumerate(list(np.asarray(value, dtype=object).ravel())):
            yield from _strings(item, f"{path}[{i}]")


def test_every_figure_builder_is_wrapped_and_covered():
    builders = _figure_builders()
    assert len(builders) >= 18
    unwrapped = [fn.__qualname__ for fn in builders if not getattr(fn, MARK, False)]
    assert unwrapped == []
    missing = [f"{fn.__module__}.{fn.__qualname__}" for fn in builders if fn not in CASES]
    assert missing == []


@pytest.mark.parametrize("builder", list(CASES), ids=lambda fn: fn.__qualname__)
def test_no_live_markup_reaches_a_figure(builder):
    args, kwargs = CASES[builder]()
    figure = builder(*args, **kwargs)
    strings = list(_strings(figure.to_plotly_json()))
    live = [(path, text) for path, text in strings if "<" in OWN_TAGS.sub("", text)]
    assert live == []
    assert not [path for path, text in strings if "&amp;lt;" in text], "escaped twice"
    if builder not in (
        distributions.span_histogram,
        distributions.topic_bars,
        qlab.leak_histogram,
        given_input.given_input_figure,  # numbers only: no text of anyone's to show
    ):
        # the hostile text is shown (escaped), not dropped
        assert any(plotly_text(EVIL) in text for _, text in strings)


def test_escaped_keeps_shapes_types_and_missing_values():
    frame = pd.DataFrame({"name": ["<b>", None, "a&b"], "n": [1, 2, 3], "ids": [["<x>"], [], None]})
    out = escaped(frame)
    assert list(out["name"][[0, 2]]) == ["&lt;b&gt;", "a&amp;b"]
    assert pd.isna(out["name"][1])
    assert list(out["n"]) == [1, 2, 3] and out["n"].dtype == frame["n"].dtype
    assert out["ids"][0] == ["&lt;x&gt;"]
    assert frame["name"][0] == "<b>", "the caller's frame is not changed"
    assert escaped({"<k>": ("<v>", 1)}) == {"&lt;k&gt;": ("&lt;v&gt;", 1)}
    assert html.unescape(plotly_text('"O\'Brien" <a>')) == '"O\'Brien" <a>'
    assert plotly_text('"quoted"') == '"quoted"', "Plotly would show &quot; as is"
