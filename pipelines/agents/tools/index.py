"""One film's rows for one agent tier: everything the five tools read (LF-VideoQA §4.3).

    index = FilmIndex.load(store, "the-keepers-ledger", "fast", ask=captioner)
    result = call_tool(index, "find_clips", {"query": "the ledger behind the pane"})

Loading runs one query per table the tier may read (`TIER_TABLES`), and the tools never go
back to the store: an index is a plain object that `to_dict` turns into JSON (an exported
inspect task ships it beside the task) and `from_dict` turns back, with the same results.

What each tier reads (§4.3: "a fast agent that uses precomputed 10-second video captions ...
an Oracle agent that gets access to the screenplay"):

- regular: the film as a viewer has it: its subtitle track and its video (frames, through the
  captioner model `ask`);
- fast: the same, plus the precomputed 10-second captions (`video_captions`);
- oracle: the subtitle track plus the screenplay: timed scenes with their summaries, the
  screenplay's lines and the presence records.

Nothing derived from the screenplay (scenes, lines, presence, a cue's matched line) is loaded
for the regular and fast tiers; that is the oracle's advantage.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from pipelines.agents.tools.ranking import RANKERS, RankedCorpus
from pipelines.agents.tools.registry import TIERS, ToolError

Ask = Callable[[list[dict]], str]  # OpenAI chat messages (text and image_url parts) -> reply text

INDEX_FORMAT = 1  # the version of `to_dict`'s layout

# The store tables each tier's index is loaded from (docs/SETTINGS.md, Agents → "The tools").
TIER_TABLES = {
    "regular": ("films", "subtitles"),
    "fast": ("films", "subtitles", "video_captions"),
    "oracle": ("films", "subtitles", "scenes", "scene_summaries", "script_lines", "presence"),
}

# The ranker of each retrieval tool and tier, chosen by `benchmarks/bench_agent_retrieval.py`:
# the one whose top 5 results cover the larger share of the gold film's evidence scenes (25
# questions; docs/SETTINGS.md has the figures). BM25 over the dialogue (cues: 0.41 against
# 0.27; minute windows: 0.84 against 0.72), the embedding over the screenplay's scenes (0.82
# against 0.78). The gold film has no captions, so the fast tier's find_clips is unmeasured:
# BM25, the ranker that needs no model, until a captioned film's questions say otherwise.
DEFAULT_RANKERS = {
    ("subtitle_search", "regular"): "bm25",
    ("subtitle_search", "fast"): "bm25",
    ("subtitle_search", "oracle"): "bm25",
    ("find_clips", "regular"): "bm25",
    ("find_clips", "fast"): "bm25",
    ("find_clips", "oracle"): "embedding",
}

# The tables of an index, in `to_dict` order, with the columns the tools read.
TABLE_COLUMNS = {
    "subtitles": ["cue_index", "start_s", "end_s", "text"],
    "captions": ["chunk_index", "start_s", "end_s", "caption", "captioner"],
    # the film's cast as named to the captioner, pooled over the whole film: per chunk those
    # names come from the presence records (App. I's stand-in), so only the pooled list is kept
    "caption_names": ["name"],
    "scenes": ["scene_index", "heading", "start_s", "end_s", "summary", "summary_backend"],
    "script_lines": ["scene_index", "line_index", "kind", "character", "text"],
    "presence": ["scene_index", "character"],
}
TIER_INDEX_TABLES = {
    "regular": ("subtitles",),
    "fast": ("subtitles", "captions", "caption_names"),
    "oracle": ("subtitles", "scenes", "script_lines", "presence"),
}


@dataclass(frozen=True)
class VideoRef:
    """The film's registered video, checked readable at load time."""

    path: str
    fps: float
    duration_s: float


@dataclass
class FilmIndex:
    """One film's rows for one tier (see the module docstring for what each tier reads).

    Attributes:
        film_id, tier, title: the film and the tier.
        duration_s: the film's length (the stored runtime, else the video's, else the end of
            the last row the tier reads).
        tables: name -> DataFrame, only the tier's tables (`TIER_INDEX_TABLES`).
        video: the readable video, or None; `video_problem` then says why (for the results).
        ask: the captioner model (vqa, and regular browse_clip / character_presence), or None.
        rankers: (tool, tier) -> ranker, defaulting to `DEFAULT_RANKERS`.
    """

    film_id: str
    tier: str
    title: str
    duration_s: float
    tables: dict[str, pd.DataFrame]
    video: VideoRef | None = None
    video_problem: str | None = None
    ask: Ask | None = None
    rankers: dict[tuple[str, str], str] = field(default_factory=lambda: dict(DEFAULT_RANKERS))
    _corpora: dict[str, Any] = field(default_factory=dict, repr=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)

    @classmethod
    def load(cls, store, film_id: str, tier: str, ask: Ask | None = None) -> FilmIndex:
        """The film's rows for `tier`, one query per table.

        Raises:
            ToolError: unknown tier or film.
        """
        from data_access.queries import agent_index

        _check_tier(tier)
        film = agent_index.agent_film(store, film_id)
        if film is None:
            raise ToolError(f"no film {film_id!r} in the store")
        readers = {
            "subtitles": agent_index.agent_subtitles,
            "captions": agent_index.agent_captions,
            "scenes": agent_index.agent_scenes,
            "script_lines": agent_index.agent_script_lines,
            "presence": agent_index.agent_presence,
        }
        tables = {
            name: readers[name](store, film_id)
            for name in TIER_INDEX_TABLES[tier]
            if name in readers
        }
        if "captions" in tables:
            tables["caption_names"] = _pooled_names(tables["captions"])
        video, problem = _video_of(film_id, film)
        return cls(
            film_id=film_id,
            tier=tier,
            title=str(film["title"]),
            duration_s=_duration(film.get("runtime_s"), video, tables),
            tables={name: _plain_frame(frame, name) for name, frame in tables.items()},
            video=video,
            video_problem=problem,
            ask=ask,
        )

    def to_dict(self) -> dict:
        """The index as JSON-serialisable data (`from_dict` reads it back)."""
        return {
            "format": INDEX_FORMAT,
            "film_id": self.film_id,
            "tier": self.tier,
            "title": self.title,
            "duration_s": self.duration_s,
            "video": None if self.video is None else vars(self.video).copy(),
            "video_problem": self.video_problem,
            "rankers": [[tool, tier, ranker] for (tool, tier), ranker in self.rankers.items()],
            "tables": {
                name: {"columns": list(frame.columns), "rows": _plain_rows(frame)}
                for name, frame in self.tables.items()
            },
        }

    @classmethod
    def from_dict(cls, data: dict, ask: Ask | None = None) -> FilmIndex:
        """An index from `to_dict`'s data.

        Raises:
            ToolError: not an index of this format.
        """
        if not isinstance(data, dict) or data.get("format") != INDEX_FORMAT:
            raise ToolError(f"not a film index of format {INDEX_FORMAT}")
        _check_tier(data["tier"])
        video = data.get("video")
        return cls(
            film_id=data["film_id"],
            tier=data["tier"],
            title=data["title"],
            duration_s=float(data["duration_s"]),
            tables={
                name: _plain_frame(pd.DataFrame(table["rows"], columns=table["columns"]), name)
                for name, table in data["tables"].items()
            },
            video=None if video is None else VideoRef(**video),
            video_problem=data.get("video_problem"),
            ask=ask,
            rankers={(tool, tier): ranker for tool, tier, ranker in data["rankers"]},
        )

    def table(self, name: str) -> pd.DataFrame:
        """One of the tier's tables.

        Raises:
            ToolError: the tier does not read it (a tool of another tier asked).
        """
        if name not in self.tables:
            raise ToolError(f"the {self.tier} tier has no {name}")
        return self.tables[name]

    def ranker(self, tool: str) -> str:
        ranker = self.rankers.get((tool, self.tier), "bm25")
        if ranker not in RANKERS:
            raise ToolError(f"unknown ranker {ranker!r} for {tool}")
        return ranker

    def corpus(self, key: str, texts: Callable[[], list[str]]) -> RankedCorpus:
        """The ranked corpus `key`, built from `texts()` on first use and kept."""
        with self._lock:
            if key not in self._corpora:
                self._corpora[key] = RankedCorpus(texts())
            return self._corpora[key]

    def cached(self, key: str, build: Callable[[], Any]) -> Any:
        """A derived object (windows, joined text) built once per index."""
        key = f"derived:{key}"  # apart from the corpora's keys
        with self._lock:
            if key not in self._corpora:
                self._corpora[key] = build()
            return self._corpora[key]


def _pooled_names(captions: pd.DataFrame) -> pd.DataFrame:
    """Every name given to the captioner anywhere in the film, sorted (not per chunk)."""
    names = {
        str(name)
        for cell in captions["characters"]
        for name in (list(cell) if cell is not None else [])
    }
    return pd.DataFrame({"name": sorted(names)})


def _check_tier(tier: str) -> None:
    if tier not in TIERS:
        raise ToolError(f"unknown tier {tier!r}; the tiers are {', '.join(TIERS)}")


def _video_of(film_id: str, film: dict) -> tuple[VideoRef | None, str | None]:
    """The film's readable video, or (None, why not)."""
    from pipelines.video.sampling import NoVideo, checked_video

    if not isinstance(film.get("video_path"), str) or not film["video_path"]:
        return None, "no video is registered for this film"
    try:
        video = checked_video(film_id, film)  # the row read already: no second query
    except NoVideo as exc:
        return None, str(exc)
    return VideoRef(str(video.path), float(video.fps), float(video.duration_s)), None


def _duration(runtime_s, video: VideoRef | None, tables: dict[str, pd.DataFrame]) -> float:
    if runtime_s is not None and not pd.isna(runtime_s) and runtime_s > 0:
        return float(runtime_s)
    if video is not None:
        return video.duration_s
    ends = [float(frame["end_s"].max()) for frame in tables.values() if "end_s" in frame]
    ends = [end for end in ends if not math.isnan(end)]
    return max(ends, default=0.0)


def _plain(value):
    """A JSON-ready Python value (numpy scalars and arrays, NaN as None)."""
    if isinstance(value, np.ndarray):
        return [_plain(item) for item in value.tolist()]
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _plain_rows(frame: pd.DataFrame) -> list[list]:
    return [[_plain(value) for value in row] for row in frame.itertuples(index=False)]


def _plain_frame(frame: pd.DataFrame, name: str) -> pd.DataFrame:
    """The table's columns with plain values: floats for times, None for missing text, lists
    for list cells, so a loaded index and its round trip through JSON read the same."""
    columns = TABLE_COLUMNS[name]
    rows = _plain_rows(frame.reindex(columns=columns))
    plain = pd.DataFrame(rows, columns=columns, dtype=object)
    for column in ("start_s", "end_s"):
        if column in plain:
            plain[column] = plain[column].astype(float)
    return plain.reset_index(drop=True)
