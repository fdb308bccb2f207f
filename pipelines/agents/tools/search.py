"""The two retrieval tools (LF-VideoQA §4.3): `subtitle_search` ("retrieves subtitle segments
relevant to a query") and `find_clips` ("returns the temporal spans of clips that best match a
query"), each returning its top `TOP_K` items with their spans.

What `find_clips` searches, per tier:
- fast: the precomputed 10-second captions (§4.3: "uses precomputed 10-second video captions
  as a representation to do approximate search"), one clip per caption chunk;
- oracle: the screenplay's timed scenes (heading, summary and every line of the scene), one
  clip per scene;
- regular: what a viewer has without a captioner run or the screenplay: the subtitle track in
  fixed windows (`WINDOW_S` long, every `HOP_S`), overlapping hits left out, so a clip is a
  stretch of dialogue. A stretch without dialogue cannot be found this way; `browse_clip` and
  `vqa` look at its frames. The paper does not say what the regular agent's search reads.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pipelines.agents.tools.index import FilmIndex
from pipelines.agents.tools.registry import AgentTool, ToolError, ToolResult, register_tool
from pipelines.agents.tools.text import listing, one_line, span_label

TOP_K = 5  # items a retrieval call returns
WINDOW_S = 60.0  # the regular tier's clip: a minute of dialogue (six caption chunks)
HOP_S = 30.0  # windows start every half window, so an exchange is not cut in two


def _query_schema(what: str) -> dict:
    return {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": what},
        },
        "required": ["query"],
        "additionalProperties": False,
    }


def subtitle_search(index: FilmIndex, arguments: dict) -> ToolResult:
    """The cues that best match the query, best first, with their times."""
    cues = index.table("subtitles")
    ranker = index.ranker("subtitle_search")
    corpus = index.corpus("subtitles", lambda: cues["text"].tolist())
    hits = corpus.top(arguments["query"], ranker, TOP_K)
    items = [_cue_item(cues.iloc[i]) for i in hits]
    header = (
        f"subtitle_search {_quoted(arguments['query'])}: {len(items)} best-matching cues"
        f" (source: the film's subtitle track; ranker: {ranker})"
    )
    return listing(header, items, _no_match("subtitle cue", ranker, cues.empty))


def find_clips(index: FilmIndex, arguments: dict) -> ToolResult:
    """The spans that best match the query, best first (what is searched: per tier)."""
    search = {"fast": _caption_clips, "oracle": _scene_clips, "regular": _window_clips}
    return search[index.tier](index, arguments["query"])


def _caption_clips(index: FilmIndex, query: str) -> ToolResult:
    captions = captions_of(index)
    ranker = index.ranker("find_clips")
    corpus = index.corpus("captions", lambda: captions["caption"].tolist())
    items = []
    for i in corpus.top(query, ranker, TOP_K):
        row = captions.iloc[i]
        span = (float(row.start_s), float(row.end_s))
        items.append((f"{span_label(*span)} {one_line(row.caption)}", span))
    header = (
        f"find_clips {_quoted(query)}: {len(items)} best-matching 10-second clips (source:"
        f" the precomputed captions by {captions['captioner'].iloc[0]}; ranker: {ranker})"
    )
    return listing(header, items, _no_match("caption", ranker, False))


def _scene_clips(index: FilmIndex, query: str) -> ToolResult:
    scenes = index.table("scenes")
    ranker = index.ranker("find_clips")
    corpus = index.corpus("scenes", lambda: scene_texts(index))
    items = []
    for i in corpus.top(query, ranker, TOP_K):
        row = scenes.iloc[i]
        span = (float(row.start_s), float(row.end_s))
        items.append((f"{span_label(*span)} {scene_line(index, row)}", span))
    header = (
        f"find_clips {_quoted(query)}: {len(items)} best-matching scenes (source: the"
        f" screenplay's scenes; ranker: {ranker})"
    )
    return listing(header, items, _no_match("scene", ranker, scenes.empty))


def _window_clips(index: FilmIndex, query: str) -> ToolResult:
    windows = index.cached("windows", lambda: subtitle_windows(index))
    ranker = index.ranker("find_clips")
    corpus = index.corpus("windows", lambda: [text for _, _, text in windows])
    chosen: list[tuple[float, float, str]] = []
    for i in corpus.top(query, ranker, len(windows)):
        start, end, text = windows[i]
        if all(end <= s or start >= e for s, e, _ in chosen):  # overlapping hits left out
            chosen.append(windows[i])
        if len(chosen) == TOP_K:
            break
    items = [(f"{span_label(s, e)} {one_line(text, 240)}", (s, e)) for s, e, text in chosen]
    header = (
        f"find_clips {_quoted(query)}: {len(items)} best-matching {WINDOW_S:.0f}-second"
        f" stretches of dialogue (source: the film's subtitle track; ranker: {ranker})"
    )
    return listing(header, items, _no_match("stretch of dialogue", ranker, not windows))


def subtitle_windows(index: FilmIndex) -> list[tuple[float, float, str]]:
    """(start_s, end_s, the text of the cues starting in it) of every `WINDOW_S` window that
    starts at a multiple of `HOP_S`; windows without a cue left out."""
    cues = index.table("subtitles")
    starts = cues["start_s"].to_numpy()
    texts = cues["text"].tolist()
    last = max(index.duration_s, float(cues["end_s"].max()) if len(cues) else 0.0)
    windows, start = [], 0.0
    while start < last:
        end = min(start + WINDOW_S, last)
        first, stop = np.searchsorted(starts, [start, end], side="left")  # cues in time order
        inside = texts[first:stop]
        if inside:
            windows.append((start, end, " ".join(str(text) for text in inside)))
        start += HOP_S
    return windows


def captions_of(index: FilmIndex) -> pd.DataFrame:
    """The fast tier's captions.

    Raises:
        ToolError: the film has none (the message says how to make them).
    """
    captions = index.table("captions")
    if captions.empty:
        raise ToolError(
            f"film {index.film_id!r} has no 10-second captions, which this tool reads in the"
            f" fast tier (make them: storyscope film caption --film {index.film_id} --model M)"
        )
    return captions


def scene_texts(index: FilmIndex) -> list[str]:
    """Each timed scene's searchable text: heading, summary, then its lines (dialogue as
    `NAME: line`), in scene order."""
    lines = scene_lines(index)
    return [
        " ".join([_text(row.heading), _text(row.summary), *lines.get(row.scene_index, [])]).strip()
        for row in index.table("scenes").itertuples(index=False)
    ]


def scene_lines(index: FilmIndex) -> dict[int, list[str]]:
    """scene_index -> its screenplay lines in order (dialogue as `NAME: line`), built once."""

    def build() -> dict[int, list[str]]:
        by_scene: dict[int, list[str]] = {}
        for row in index.table("script_lines").itertuples(index=False):
            said = f"{row.character}: {row.text}" if row.kind == "dialogue" else str(row.text)
            by_scene.setdefault(row.scene_index, []).append(said)
        return by_scene

    return index.cached("scene_lines", build)


def scene_people(index: FilmIndex) -> dict[int, tuple[list[str], str]]:
    """scene_index -> (who is in it, how known): on screen by the presence records, else who
    speaks in it (a scene the records do not cover); built once."""

    def build() -> dict[int, tuple[list[str], str]]:
        people: dict[int, tuple[list[str], str]] = {}
        for row in index.table("presence").itertuples(index=False):
            people.setdefault(row.scene_index, ([], "on screen"))[0].append(str(row.character))
        for row in index.table("script_lines").itertuples(index=False):
            if row.kind != "dialogue" or row.character is None:
                continue
            names, how = people.setdefault(row.scene_index, ([], "speaking"))
            if how == "speaking" and str(row.character) not in names:
                names.append(str(row.character))
        return people

    return index.cached("scene_people", build)


def scene_line(index: FilmIndex, row) -> str:
    """`scene N HEADING: summary` (the scene's first lines when it has no summary)."""
    summary = _text(row.summary) or " ".join(scene_lines(index).get(row.scene_index, [])[:4])
    return one_line(f"scene {row.scene_index} {_text(row.heading)}: {summary}")


def _cue_item(row) -> tuple[str, tuple[float, float]]:
    span = (float(row.start_s), float(row.end_s))
    return f"{span_label(*span)} {one_line(row.text)}", span


def _text(value) -> str:
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def _quoted(query: str) -> str:
    return '"' + one_line(query, 80) + '"'


def _no_match(what: str, ranker: str, nothing: bool) -> str:
    if nothing:
        return f"(the film has no {what} to search)"
    if ranker == "bm25":
        return f"(no {what} shares a word with the query; try other words, or names)"
    return f"(no {what} found)"


register_tool(
    AgentTool(
        name="subtitle_search",
        description=(
            "Search the film's subtitles (what is said). Returns the subtitle cues that best"
            " match the query, best first, each with its time span in seconds."
        ),
        parameters=_query_schema("words or a phrase to look for in the dialogue"),
        run=subtitle_search,
    )
)
register_tool(
    AgentTool(
        name="find_clips",
        description=(
            "Find the parts of the film that best match a description. Returns up to five"
            " time spans (in seconds), best first, each with a line saying what is there."
        ),
        parameters=_query_schema("what happens, who is there, or where (a short description)"),
        run=find_clips,
    )
)


def warm_index(index: FilmIndex) -> None:
    """Build the retrieval tools' rankers now (BM25's index, the embedding model and the
    corpus's vectors), so their cost is paid at load time rather than inside the first model
    turn that searches: embedding a long film's scenes takes seconds to a minute on a small CPU.
    A tool the film lacks data for (fast, no captions) is left for its call to report."""
    for tool in ("subtitle_search", "find_clips"):
        try:
            TOOLS_BY_NAME[tool](index, {"query": "warm"})
        except ToolError:
            pass


TOOLS_BY_NAME = {"subtitle_search": subtitle_search, "find_clips": find_clips}
