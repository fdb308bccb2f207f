"""AppTest: `ui.common.chart` builds a figure once per distinct input, across reruns and
sessions, and again when the input changes (a page switch must not redo plotly's validation)."""

from __future__ import annotations

import functools

import pandas as pd
from streamlit.testing.v1 import AppTest


def _page(rows: int) -> None:
    import pandas as pd

    from ui.common import chart
    from viz import overview

    sets = pd.DataFrame(
        {"set_name": ["golden", "silver"][:rows], "source": ["movies", "tv"][:rows]}
    ).assign(questions=[30, 12][:rows])
    chart(overview.mcq_sets_figure, sets, key="sets")


def test_chart_builds_once_per_input(monkeypatch):
    from viz import overview

    built = []
    original = overview.mcq_sets_figure

    @functools.wraps(original)
    def counting(frame: pd.DataFrame):
        built.append(len(frame))
        return original(frame)

    monkeypatch.setattr(overview, "mcq_sets_figure", counting)
    for rows in (2, 2, 1, 2):  # two sessions on the same input, a new input, the first again
        at = AppTest.from_function(_page, args=(rows,), default_timeout=60)
        at.run()
        assert not at.exception
        assert len(at.get("plotly_chart")) == 1
    assert built == [2, 1]


def test_charts_carry_their_own_look_and_skip_streamlits_theme():
    """Streamlit's chart theme is applied in the browser on every draw (up to 0.35 s of a
    PlotTree switch), so figures bring `viz.theme`'s template and are drawn with theme=None."""
    import json

    from viz.theme import PALETTE

    at = AppTest.from_function(_page, args=(2,), default_timeout=60)
    at.run()
    (element,) = at.get("plotly_chart")
    assert element.proto.theme == ""  # theme=None; "streamlit" otherwise
    layout = json.loads(element.proto.spec)["layout"]
    assert layout["template"]["layout"]["colorway"] == PALETTE
    assert layout["template"]["layout"]["plot_bgcolor"] == "white"
