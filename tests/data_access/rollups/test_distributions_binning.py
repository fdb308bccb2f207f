"""The Distributions page's question shape counted in the store: the counts and bins
`distributions_view.question_shape` returns equal what the page computed from one row per
question before (pandas `value_counts` and means, and the evidence-span bins plotly.js chose in
the browser), on random shapes and on the app fixture, from the rollup and live."""

from __future__ import annotations

import math
import random

import pandas as pd
import pytest

from data_access import rollups
from data_access.queries import distributions_view, histogram_bins
from data_access.rollups.questions import SHAPE_SQL, counts_sql
from tests.support.app_fixtures import build_app_fixture

# plotly.js 4.1.1 in Chromium 156: [bin middle, count] of `go.Histogram(x=values, nbinsx=30)`
# (gd.calcdata), from the first to the last non-empty bin
PLOTLY_BINS = {
    "minutes": (
        [3.5, 12.25, 17.0, 23.4, 23.5, 41.0, 44.9, 58.3, 61.2, 95.75],
        [[2.5, 1], [7.5, 0], [12.5, 1], [17.5, 1], [22.5, 2], [27.5, 0], [32.5, 0], [37.5, 0]]
        + [[42.5, 2], [47.5, 0], [52.5, 0], [57.5, 1], [62.5, 1], [67.5, 0], [72.5, 0]]
        + [[77.5, 0], [82.5, 0], [87.5, 0], [92.5, 0], [97.5, 1]],
    ),
    "whole_minutes": (
        [0.0, 5.0, 5.0, 12.0, 30.0, 31.0, 59.0, 60.0],
        [[2, 1], [7, 2], [12, 1], [17, 0], [22, 0], [27, 0], [32, 2], [37, 0], [42, 0]]
        + [[47, 0], [52, 0], [57, 1], [62, 1]],
    ),
    "on_the_edges": (
        [0.0, 10.0, 20.0, 20.0, 30.0, 40.0, 50.0, 60.5],
        [[0, 1], [5, 0], [10, 1], [15, 0], [20, 2], [25, 0], [30, 1], [35, 0], [40, 1]]
        + [[45, 0], [50, 1], [55, 0], [60, 1]],
    ),
    "seconds": (
        [n / 60 for n in (61, 119, 300, 301, 1799, 2400, 3599, 4000)],
        [[0, 2], [5, 2], [10, 0], [15, 0], [20, 0], [25, 0], [30, 1], [35, 0], [40, 1]]
        + [[45, 0], [50, 0], [55, 0], [60, 1], [65, 1]],
    ),
    "one_value": ([23.5, 23.5, 23.5], [[23.5, 3]]),
    "under_a_minute": (
        [0.1, 0.15, 0.2, 0.35, 0.5, 0.55, 0.9],
        [[0.1, 1], [0.15, 1], [0.2, 1], [0.25, 0], [0.30000000000000004, 0], [0.35, 1]]
        + [[0.4, 0], [0.44999999999999996, 0], [0.5, 1], [0.55, 1], [0.6, 0], [0.65, 0]]
        + [[0.7, 0], [0.75, 0], [0.8, 0], [0.85, 0], [0.9, 1]],
    ),
    "fixture": ([45.0, 45.0, 25.0], [[25, 1]] + [[m, 0] for m in range(26, 45)] + [[45, 2]]),
}


def _bins_in_python(values: list[float], nbins: int = 30) -> list[list[float]]:
    """The port applied value by value, as plotly.js does: [bin middle, count]."""
    low, high = min(values), max(values)
    start, size = histogram_bins.first_bins(low, high, nbins)
    counts = histogram_bins.EdgeCounts(
        len(values),
        sum(math.fmod(v, 1) == 0 for v in values),
        sum(histogram_bins.near_edge(v, start, size) for v in values),
        sum(histogram_bins.near_edge(v + size / 2, start, size) for v in values),
    )
    bins = histogram_bins.shifted_bins(start, size, low, high, counts)
    per_bin: dict[int, int] = {}
    for value in values:
        index = histogram_bins.bin_index(value, bins)
        if 0 <= index < bins.count:
            per_bin[index] = per_bin.get(index, 0) + 1
    edges = bins.edges()
    kept = range(min(per_bin), max(per_bin) + 1)
    return [[(edges[b] + edges[b + 1]) / 2, per_bin.get(b, 0)] for b in kept]


@pytest.mark.parametrize("case", list(PLOTLY_BINS))
def test_the_port_picks_plotly_js_bins(case):
    values, drawn = PLOTLY_BINS[case]
    assert _bins_in_python(values) == drawn


def _old_page_numbers(rows: pd.DataFrame) -> dict:
    """What the page computed from one row per question before (value_counts, means)."""
    spans = rows["span_min"].dropna()
    return {
        "questions": len(rows),
        "means": [rows["claims"].mean(), rows["cited_scenes"].mean(), spans.mean()],
        "counts": {
            m: rows[m].dropna().value_counts().sort_index().astype("int64")
            for m in distributions_view.SHAPE_MEASURES
        },
        "spans": _bins_in_python(list(spans)) if len(spans) else [],
    }


def _assert_counted_like_the_page(shape: distributions_view.QuestionShape, rows: pd.DataFrame):
    old = _old_page_numbers(rows)
    assert shape.questions == old["questions"]
    means = [shape.mean_claims, shape.mean_cited_scenes, shape.mean_span_min]
    for got, want in zip(means, old["means"]):
        assert (got is None and math.isnan(want)) or got == pytest.approx(want, rel=1e-12)
    for measure, want in old["counts"].items():
        got = shape.value_counts(measure).sort_index()
        assert list(got.index) == list(want.index), measure
        assert list(got) == list(want), measure
    bins = shape.span_bins
    middles = ((bins["left_edge"] + bins["right_edge"]) / 2).tolist()
    assert [list(pair) for pair in zip(middles, bins["n"].tolist())] == old["spans"]


def _random_shapes(seed: int, n: int) -> pd.DataFrame:
    rng = random.Random(seed)
    spans = [
        rng.choice(
            [
                None,
                round(rng.uniform(0, 90), 2),
                float(rng.randint(0, 60)),  # whole minutes
                rng.randint(0, 5400) / 60,  # seconds
                10.0 * rng.randint(0, 6),  # on the edges
            ]
        )
        for _ in range(n)
    ]
    return pd.DataFrame(
        {
            "film_id": [rng.choice(["f1", "f2", "f3"]) for _ in range(n)],
            "qtype": [rng.choice(["Q1", "Q3", "N2", "Q8", None]) for _ in range(n)],
            "claims": [rng.randint(1, 12) for _ in range(n)],
            "cited_scenes": [rng.randint(0, 9) for _ in range(n)],
            "span_min": pd.array(spans, dtype="Float64"),
            "anchor_fifth": pd.array(
                [rng.choice([None, 1, 2, 3, 4, 5]) for _ in range(n)], dtype="Int32"
            ),
            # the counts also count each film's centers (measure 'centers', not drawn here)
            "center": [rng.choice(["Ann", "Ben", "Cara"]) for _ in range(n)],
        }
    )


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_store_counts_what_the_page_counted(store, seed):
    rows = _random_shapes(seed, 400)
    for film in (None, "f2"):
        shown = (rows if film is None else rows[rows["film_id"] == film]).reset_index(drop=True)
        with store.session() as cursor:  # counted as the live path counts (and the rollup)
            cursor.register("shapes", shown)
            counts = cursor.execute(
                f"SELECT measure, value, n FROM ({counts_sql('shapes')})"
                " WHERE film_id IS NOT DISTINCT FROM ? AND measure <> 'centers'",
                [film],
            ).fetchall()
            shape = distributions_view._counted_shape(cursor, "shapes", film, counts)
        _assert_counted_like_the_page(shape, shown)


def test_the_fixture_from_the_rollup_and_live(store):
    build_app_fixture(store)
    live_rows = store.df(SHAPE_SQL.format(questions="TRUE"))
    assert live_rows["span_min"].notna().sum() == 3
    stale = distributions_view.question_shape(store)
    rollups.refresh(store)
    assert rollups.rollups_fresh(store)
    fresh = distributions_view.question_shape(store)
    for shape in (stale, fresh):
        _assert_counted_like_the_page(shape, live_rows)
    film = live_rows["film_id"].iloc[0]
    _assert_counted_like_the_page(
        distributions_view.question_shape(store, film),
        live_rows[live_rows["film_id"] == film].reset_index(drop=True),
    )


def test_centers_per_film_counts_films_and_their_median(store):
    build_app_fixture(store)
    per_film = store.df(
        "SELECT film_id, count(DISTINCT center) AS centers FROM questions GROUP BY film_id"
    )
    centers = distributions_view.centers_per_film(store)
    want = per_film["centers"].value_counts().sort_index()
    assert list(centers["centers"]) == list(want.index)
    assert list(centers["films"]) == list(want)
    assert centers["median_centers"].iloc[0] == per_film["centers"].median()
