"""Where the video settings' material comes from: caption chunks and sampled frames.

Captions are written by `storyscope film caption` (a captioner model over 10-second chunks,
§4.1) and frames are sampled by `storyscope film frames` (opencv, cached on disk, §4.2 at 0.2
fps). A film without them cannot be answered in those settings: `SettingUnavailable` says what
to run first.
"""

from __future__ import annotations

import pandas as pd

from data_access.store import Store


class SettingUnavailable(ValueError):
    """The store lacks what a setting needs for this film; the message says what to run."""


def chunk_captions(store: Store, film_id: str, captioner: str | None) -> pd.DataFrame:
    """The film's caption chunks (start_s, end_s, caption) from one captioner, in time order."""
    from data_access.queries.video import film_captions

    frame = film_captions(store, film_id, captioner)
    if frame.empty:
        who = f" by {captioner}" if captioner else ""
        raise SettingUnavailable(
            f"film {film_id!r} has no 10-second captions{who}: run"
            f" `storyscope film caption --film {film_id} --model M` first"
        )
    return frame


def sampled_frames(store: Store, film: dict, fps: float, width: int) -> list[tuple[float, str]]:
    """(time_s, jpeg_path) of the film's frames at `fps` (the middle of each 1/fps interval),
    extracted on first use and cached on disk (`pipelines.video.sampling`)."""
    from pipelines.video.sampling import NoVideo, sample_frames

    try:
        frames = sample_frames(store, film["film_id"], fps, width=width)
    except NoVideo as exc:  # (its message says how to register a video)
        raise SettingUnavailable(str(exc)) from None
    return [(frame.time_s, str(frame.jpeg_path)) for frame in frames]
