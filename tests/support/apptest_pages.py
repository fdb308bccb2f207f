"""Run an explorer page under Streamlit's AppTest and read what it shows: figures (with
Plotly's typed arrays decoded), traces, metrics and data frames.

Kept apart from the fixture store (app_fixtures.py): these helpers read any page on any store.
"""

from __future__ import annotations

import json


def run_page(repo_root, page: str, params: dict | None = None, timeout: float = 60):
    """Run one page script under AppTest with the given URL query parameters."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(repo_root / "ui" / f"{page}.py"), default_timeout=timeout)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.run()
    return at


def figures(at) -> dict:
    """Plotly figures on the page, by chart key (the part after the last '-' of the element id);
    rebuilt with plotly.io so typed arrays come back as numbers."""
    import plotly.graph_objects as go

    return {
        el.proto.id.rsplit("-", 1)[-1]: go.Figure(
            _decode(json.loads(el.proto.spec)), skip_invalid=True
        )
        for el in at.get("plotly_chart")
    }


def _decode(value):
    """Plotly's typed arrays ({"dtype", "bdata"[, "shape"]}) back to lists of numbers."""
    import base64

    import numpy as np

    if isinstance(value, dict):
        if "bdata" in value and "dtype" in value:
            array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
            if "shape" in value:
                array = array.reshape([int(n) for n in str(value["shape"]).split(",")])
            return array.tolist()
        return {key: _decode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_decode(item) for item in value]
    return value


def traces(figure) -> dict:
    """Traces of a figure by name."""
    return {trace.name: trace for trace in figure.data}


def metrics(at) -> dict[str, str]:
    """Metric label -> shown value."""
    return {m.label: m.value for m in at.metric}


def frame(at, *columns: str):
    """The first DataFrame on the page that has all these columns (st.dataframe keys are not
    visible to AppTest)."""
    for element in at.dataframe:
        value = element.value
        if all(column in value.columns for column in columns):
            return value
    raise KeyError(f"no dataframe with columns {columns}")
