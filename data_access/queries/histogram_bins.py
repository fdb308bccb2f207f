"""Plotly.js's automatic histogram bins, ported so the store can count what a browser would draw.

A `go.Histogram(x=values, nbinsx=N)` sends every value to the browser, where plotly.js picks the
bins (`Axes.autoBin` with `nbins`, then `autoShiftNumericBins`) and counts them
(`traces/histogram/calc.js`). The Distributions page drew its evidence spans that way: one
value per question (63k at ten times the paper). Here the same rule picks the bins from a few
aggregates the store computes (`SpanStats`), the store counts them, and the figure draws the
counts: the same bars at any store size, for a few numbers sent.

Ported from plotly.js 4.2 (the bundle Streamlit ships): `axes.autoBin`, `axes.autoTicks` (linear
axis), `axes.tickFirst`, `lib/increment.js`, `lib.findBin` and the bin loop of
`histogram/calc.js`, with the float arithmetic in the same order, and JavaScript's `String(x)`
where the increment's rounding test reads its length. Checked against plotly.js in Chromium 156
(tests/data_access/rollups/test_distributions_binning.py holds its answers); an older V8 computed
`10 ** -5` an ulp
low, which moves bin edges by an ulp for data spanning under a thousandth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

# findBin's tolerance: a value a hair below an edge counts in the bin above it
FIND_BIN_EPSILON = 1e-9
_LN10 = math.log(10)
_ROUND_BASE_10 = (2, 5, 10)


@dataclass(frozen=True)
class EdgeCounts:
    """What `autoShiftNumericBins` counts over the values, for a first bin start and size."""

    values: int  # numeric values
    integers: int  # values with no fractional part
    near_edge: int  # values within 1% of a bin edge
    near_middle: int  # values within 1% of a bin's middle


@dataclass(frozen=True)
class Bins:
    """Uniform bins: value v falls in bin `floor((v - start) / size + 1e-9)`, of `count`."""

    start: float
    size: float
    count: int

    def edges(self) -> list[float]:
        """The bins' edges as plotly.js steps them (count + 1 values)."""
        edges, left = [], self.start
        for _ in range(self.count):
            edges.append(left)
            left = js_increment(left, self.size)
        return [*edges, left]


def _js_number_text(x: float) -> str:
    """`String(x)` in JavaScript (Number::toString: the shortest digits, JS's layout)."""
    if math.isnan(x) or math.isinf(x):
        return "NaN" if math.isnan(x) else ("-" if x < 0 else "") + "Infinity"
    if x == 0:
        return "0"
    _, digit_tuple, exponent = Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    k, n = len(digits), exponent + len(digits)  # x = 0.digits * 10^n
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = f"{digits[:n]}.{digits[n:]}"
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        mantissa = digits[0] + (f".{digits[1:]}" if k > 1 else "")
        text = f"{mantissa}e{'+' if n - 1 >= 0 else '-'}{abs(n - 1)}"
    return ("-" if x < 0 else "") + text


def js_increment(x: float, delta: float) -> float:
    """plotly.js `lib/increment.js`: x + delta, stepped in integer units of delta where delta
    is below 1, and rounded to 12 digits when the sum's text looks like a rounding error."""
    if not delta:
        return x
    scale = 1 / abs(delta)
    stepped = (scale * x + scale * delta) / scale if scale > 1 else x + delta
    length = len(_js_number_text(stepped))
    if length > 16 and length >= len(_js_number_text(x)) + len(_js_number_text(delta)):
        text = f"{stepped:.11e}"  # toPrecision(12), kept unless it is written with "e+"
        if int(text.split("e")[1]) < 12:
            stepped = float(text)
    return stepped


def auto_dtick(rough: float) -> float:
    """`axes.autoTicks` on a linear axis: the 2, 5 or 10 times a power of ten above `rough`."""
    if rough > 0:
        base = 10.0 ** math.floor(math.log(rough) / _LN10)
        ratio = rough / base
        # Lib.roundUp(ratio, [2, 5, 10]): the first entry above ratio, else the last
        dtick = base * next((r for r in _ROUND_BASE_10 if r > ratio), _ROUND_BASE_10[-1])
    else:
        dtick = 0.0  # 10 ** -Infinity is 0 in JavaScript
    return dtick or 1.0


def first_bins(low: float, high: float, nbins: int) -> tuple[float, float]:
    """`axes.autoBin` before the shift: the first bin's start and the bin size for data in
    [low, high] asked to fill at most `nbins` bins."""
    dtick = auto_dtick((high - low) / nbins)
    below = low - (high - low) * 0.000001  # tickFirst's expandRange
    first_tick = math.ceil(below / dtick) * dtick  # tick0 = 0
    return js_increment(first_tick, -dtick), dtick


def near_edge(value: float, start: float, size: float) -> bool:
    """`autoShiftNumericBins`' nearEdge: within 1% of a bin edge."""
    return math.fmod(1 + (value - start) * 100 / size, 100) < 2


def shifted_bins(start: float, size: float, low: float, high: float, counts: EdgeCounts) -> Bins:
    """`autoShiftNumericBins` and the bin count of `axes.autoBin`: integer data is centred on
    its bins, and data piled at the edges moves half a bin."""
    if counts.integers == counts.values:
        if size < 1:
            start = low - 0.5 * size
        else:
            start -= 0.5
            if start + size < low:
                start += size
    elif counts.near_middle < counts.values * 0.1 and (
        counts.near_edge > counts.values * 0.3
        or near_edge(low, start, size)
        or near_edge(high, start, size)
    ):
        half = size / 2
        start += half if start + half < low else -half
    end = start + (1 + math.floor((high - start) / size)) * size
    return Bins(start, size, _bin_count(start, end, size))


def _bin_count(start: float, end: float, size: float) -> int:
    # histogram/calc.js: step from start while below end (less a millionth of a bin)
    stop = end + (start - js_increment(start, size)) / 1e6
    count, left = 0, start
    while left < stop and count < 1_000_000:
        right = js_increment(left, size)
        count += 1
        if right <= left:
            break
        left = right
    return count


def bin_index(value: float, bins: Bins) -> int:
    """`lib.findBin` for uniform bins (the store's SQL computes the same expression)."""
    return math.floor((value - bins.start) / bins.size + FIND_BIN_EPSILON)
