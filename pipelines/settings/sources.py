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
    from data_access.queries import film_context

    frame = film_context.chunk_captions(store, film_id, captioner)
    if frame.empty:
        who = f" by {captioner}" if captioner else ""
        raise SettingUnavailable(
            f"film {film_id!r} has no 10-second captions{who}: run"
            f" `storyscope film caption --film {film_id} --model M` first"
        )
    return frame


def sampled_frames(store: Store, film: dict, fps: float, width: int) -> list[tuple[float, str]]:
    """(time_s, jpeg_path) of the film's frames at `fps`, extracted and cached on first use."""
    if not film.get("video_path"):
        raise SettingUnavailable(
            f"film {film['film_id']!r} has no registered video: run"
            f" `storyscope film video {film['film_id']} FILE` first"
        )
    from pipelines.video.sampling import sample_frames

    return [
        (f.time_s, str(f.jpeg_path))
        for f in sample_frames(store, film["film_id"], fps, width=width)
    ]
