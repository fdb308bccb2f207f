"""Film times (seconds from the start of the film, as the interchange format stores them) as
text: the one formatter every layer uses.

`film_clock` prints what LF-VideoQA's Tables 9–11 print (h:mm:ss, or m:ss under an hour);
`padded=True` gives a fixed-width HH:MM:SS for prompts that list many timed lines.
"""

from __future__ import annotations

import math


def film_clock(seconds: float | None, missing: str = "—", padded: bool = False) -> str:
    """54:46, 2:11:23 (paper style) or 00:54:46 (padded); `missing` for None / NaN."""
    if seconds is None or (isinstance(seconds, float) and math.isnan(seconds)):
        return missing
    try:
        total = int(round(float(seconds)))
    except (TypeError, ValueError):
        return missing  # pandas' NA and other non-numbers
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    if padded:
        return f"{hours:02d}:{minutes:02d}:{secs:02d}"
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
