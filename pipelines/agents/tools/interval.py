"""The three tools over an interval of the film (LF-VideoQA §4.3): `vqa` ("answers a free-form
question about a selected video interval"), `browse_clip` ("a coarse-grained summary of what
happens in a video clip") and `character_presence` ("all characters appearing in a specified
clip"). Each reports the asked interval (clamped to the film) as the span it touched.

Where each tier's answer comes from (every result says it in its first line):

- vqa: regular: the model on the interval's frames and its subtitles; fast: the same and the
  interval's captions; oracle: the model on the screenplay of the interval's scenes.
- browse_clip: regular: the model on the frames and subtitles; fast: the interval's 10-second
  captions; oracle: the summaries of the interval's scenes.
- character_presence: regular: the model on the frames and subtitles; fast: the cast names that
  the interval's captions mention; oracle: the presence records of its scenes.

Without a video (or frames past its end) the regular and fast tiers fall back to text, and say
so: vqa asks the model with the interval's subtitles (fast: and its captions); regular
browse_clip and character_presence list the interval's subtitles. The paper prints no prompt
for its tools; ours are the short instructions below.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd

from pipelines.agents.tools.index import FilmIndex
from pipelines.agents.tools.registry import AgentTool, ToolError, ToolResult, register_tool
from pipelines.agents.tools.search import captions_of, scene_line, scene_lines, scene_people
from pipelines.agents.tools.text import bounded, clock, listing, one_line, span_label

MAX_FRAMES = 8  # frames sent for one interval, at most (a long interval is sampled thinner)
BASE_FPS = 0.5  # the captioner's rate (pipelines.video.captions.CAPTION_FPS): 5 per 10 s
CONTEXT_CHARS = 6000  # text (subtitles, screenplay, captions) sent to the model with the frames

VQA_SYSTEM = (
    "You are shown part of a film: frames in time order, each after its time, and the"
    " dialogue heard then. Answer the question about this part of the film in one to three"
    " sentences, from what it shows. If it does not show the answer, say so."
)
BROWSE_SYSTEM = (
    "You are shown part of a film: frames in time order, each after its time, and the"
    " dialogue heard then. Say in two or three sentences what happens in it: who does what,"
    " where."
)
PRESENCE_SYSTEM = (
    "You are shown part of a film: frames in time order, each after its time, and the"
    " dialogue heard then. List the people who appear in it, one per line. Give a name only"
    " when the frames or the dialogue name the person; otherwise describe them briefly."
)
SCREENPLAY_SYSTEM = (
    "You are given the screenplay of part of a film. Answer the question about this part of"
    " the film in one to three sentences, from the screenplay. If it does not say, say so."
)

INTERVAL_PROPERTIES = {
    "start": {"type": "number", "minimum": 0, "description": "start, seconds into the film"},
    "end": {"type": "number", "exclusiveMinimum": 0, "description": "end, seconds into the film"},
}


def vqa(index: FilmIndex, arguments: dict) -> ToolResult:
    """A question about the interval, answered by the model (what it is shown: per tier)."""
    start, end = asked_interval(index, arguments)
    question = arguments["question"]
    if index.tier == "oracle":
        screenplay = _screenplay_text(index, start, end)
        if not screenplay:
            return _said(
                start,
                end,
                "vqa",
                "the screenplay",
                "(no scene of the screenplay is timed in this interval)",
            )
        messages = [
            {"role": "system", "content": SCREENPLAY_SYSTEM},
            {"role": "user", "content": f"{screenplay}\n\nQuestion: {question}"},
        ]
        return _said(
            start,
            end,
            "vqa",
            "the model on the screenplay of the interval's scenes",
            _ask(index, messages, "vqa"),
        )
    parts, source = _viewer_parts(index, start, end, with_captions=index.tier == "fast")
    if parts is None:
        return _said(
            start,
            end,
            "vqa",
            source,
            "(nothing to look at: no frames and no dialogue in this interval)",
        )
    messages = _messages(VQA_SYSTEM, index, start, end, parts, f"Question: {question}")
    return _said(start, end, "vqa", f"the model on {source}", _ask(index, messages, "vqa"))


def browse_clip(index: FilmIndex, arguments: dict) -> ToolResult:
    """A short summary of the interval (from what: per tier)."""
    start, end = asked_interval(index, arguments)
    if index.tier == "fast":
        captions = rows_in(captions_of(index), start, end)
        items = [
            (f"{span_label(r.start_s, r.end_s)} {one_line(r.caption, 240)}", (start, end))
            for r in captions.itertuples()
        ]
        captioner = captions_of(index)["captioner"].iloc[0]
        header = (
            f"browse_clip {span_label(start, end)} (source: the precomputed 10-second captions"
            f" by {captioner})"
        )
        return _touched(listing(header, items, "(no caption in this interval)"), start, end)
    if index.tier == "oracle":
        scenes = rows_in(index.table("scenes"), start, end)
        items = [
            (f"{span_label(r.start_s, r.end_s)} {scene_line(index, r)}", (start, end))
            for r in scenes.itertuples()
        ]
        header = f"browse_clip {span_label(start, end)} (source: the screenplay's scene summaries)"
        return _touched(
            listing(header, items, "(no scene of the screenplay is timed in this interval)"),
            start,
            end,
        )
    return _viewer_tool(index, start, end, "browse_clip", BROWSE_SYSTEM, "What happens here?")


def character_presence(index: FilmIndex, arguments: dict) -> ToolResult:
    """Who appears in the interval (from what: per tier)."""
    start, end = asked_interval(index, arguments)
    if index.tier == "oracle":
        return _presence_records(index, start, end)
    if index.tier == "fast":
        return _caption_names(index, start, end)
    return _viewer_tool(
        index, start, end, "character_presence", PRESENCE_SYSTEM, "Who appears here?"
    )


def asked_interval(index: FilmIndex, arguments: dict) -> tuple[float, float]:
    """(start, end) of the call, the end clamped to the film's end.

    Raises:
        ToolError: end not after start, or start past the film's end.
    """
    start, end = float(arguments["start"]), float(arguments["end"])
    if not (math.isfinite(start) and math.isfinite(end)):
        raise ToolError(f"start and end must be finite numbers of seconds, got {start}, {end}")
    if end <= start:
        raise ToolError(
            f"end ({end:g}) must be after start ({start:g}); both are seconds into the film"
        )
    if start >= index.duration_s:
        raise ToolError(
            f"start ({start:g} s) is past the film's end: it is {index.duration_s:.1f} s"
            f" ({clock(index.duration_s)}) long"
        )
    return start, min(end, index.duration_s)


def rows_in(frame: pd.DataFrame, start: float, end: float) -> pd.DataFrame:
    """The rows whose span overlaps [start, end), in time order."""
    return frame[(frame["start_s"] < end) & (frame["end_s"] > start)]


def _presence_records(index: FilmIndex, start: float, end: float) -> ToolResult:
    scenes = rows_in(index.table("scenes"), start, end)
    people = scene_people(index)
    items = []
    for scene in scenes.itertuples():
        names, how = people.get(scene.scene_index, ([], "on screen"))
        listed = ", ".join(names) or "(nobody recorded)"
        label = f"{span_label(scene.start_s, scene.end_s)} scene {scene.scene_index}"
        items.append((f"{label} ({how}): {listed}", (start, end)))
    header = (
        f"character_presence {span_label(start, end)} (source: the screenplay's presence"
        " records; who speaks where a scene has none)"
    )
    return _touched(
        listing(header, items, "(no scene of the screenplay is timed in this interval)"), start, end
    )


def _caption_names(index: FilmIndex, start: float, end: float) -> ToolResult:
    """The cast names the captions of the interval mention, with the clips that name them."""
    captions = rows_in(captions_of(index), start, end)
    names = index.table("caption_names")["name"].tolist()
    seen: dict[str, list[str]] = {}
    for row in captions.itertuples():
        for name in names:
            if re.search(rf"\b{re.escape(str(name))}\b", str(row.caption), flags=re.IGNORECASE):
                seen.setdefault(str(name), []).append(clock(row.start_s))
    items = [
        (f"{name}: named in {len(times)} clip(s), from {times[0]}", (start, end))
        for name, times in seen.items()
    ]
    header = (
        f"character_presence {span_label(start, end)} (source: the cast names that the"
        f" {len(captions)} precomputed 10-second captions of the interval mention)"
    )
    return _touched(
        listing(header, items, "(no caption of this interval names anyone)"), start, end
    )


def _viewer_tool(
    index: FilmIndex, start: float, end: float, tool: str, system: str, ask_line: str
) -> ToolResult:
    """The regular tier's browse_clip / character_presence: the model on the frames and the
    dialogue; without frames or a model, the interval's subtitles as they are."""
    parts, source = (None, "")
    if index.video is not None and index.ask is not None:
        parts, source = _viewer_parts(index, start, end, with_captions=False)
    if parts is not None and _has_image(parts):
        messages = _messages(system, index, start, end, parts, ask_line)
        return _said(start, end, tool, f"the model on {source}", _ask(index, messages, tool))
    why = index.video_problem or "no frames in this interval"
    if index.ask is None:
        why = "no model is configured to look at the frames"
    cues = rows_in(index.table("subtitles"), start, end)
    items = [
        (f"{span_label(r.start_s, r.end_s)} {one_line(r.text)}", (start, end))
        for r in cues.itertuples()
    ]
    header = (
        f"{tool} {span_label(start, end)} ({why}; source: the subtitles of the interval,"
        " as they are)"
    )
    return _touched(listing(header, items, "(no dialogue in this interval)"), start, end)


def _viewer_parts(index: FilmIndex, start: float, end: float, with_captions: bool):
    """(content parts: frames and the interval's text, what they are) — parts None when there
    is nothing to show."""
    frames = _frame_parts(index, start, end)
    texts = []
    if with_captions and not index.table("captions").empty:
        captions = rows_in(index.table("captions"), start, end)
        texts += [f"[{clock(r.start_s)}] Caption: {r.caption}" for r in captions.itertuples()]
    cues = rows_in(index.table("subtitles"), start, end)
    texts += [f"[{clock(r.start_s)}] Subtitle: {r.text}" for r in cues.itertuples()]
    text_part = (
        [{"type": "text", "text": bounded("\n".join(texts), CONTEXT_CHARS)}] if texts else []
    )
    kinds = ["subtitles"] + (["captions"] if with_captions else [])
    if frames:
        count = sum(part["type"] == "image_url" for part in frames)
        frames_said = f"{count} frame{'' if count == 1 else 's'}"
        source = f"{frames_said} of the interval and its {' and '.join(kinds)}"
        return frames + text_part, source
    why = index.video_problem or "the video has no frames in this interval"
    source = f"the interval's {' and '.join(kinds)} only ({why})"
    return (text_part or None), source


def _frame_parts(index: FilmIndex, start: float, end: float) -> list[dict]:
    """Each frame's time (a text part) and the frame (an image part), in time order: at
    `BASE_FPS`, thinned to `MAX_FRAMES`, at least one (on the film's global frame grid,
    `pipelines.video.sampling`)."""
    if index.video is None:
        return []
    from pipelines.frames import VideoError
    from pipelines.settings import jpeg_data_url
    from pipelines.video.sampling import FRAME_WIDTH, FilmVideo, sample_video_frames

    length = end - start
    fps = max(1.0 / length, min(BASE_FPS, MAX_FRAMES / length))
    video = FilmVideo(
        index.film_id, Path(index.video.path), index.video.fps, index.video.duration_s
    )
    try:
        frames = sample_video_frames(video, fps, start, end, FRAME_WIDTH)
    except (VideoError, OSError):
        return []
    parts = []
    for frame in frames[:MAX_FRAMES]:
        parts.append({"type": "text", "text": f"[{clock(frame.time_s)}]"})
        parts.append({"type": "image_url", "image_url": {"url": jpeg_data_url(frame.jpeg_path)}})
    return parts


def _messages(
    system: str, index: FilmIndex, start: float, end: float, parts: list[dict], last: str
) -> list[dict]:
    head = {"type": "text", "text": f"Film: {index.title}. From {clock(start)} to {clock(end)}."}
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": [head, *parts, {"type": "text", "text": last}]},
    ]


def _screenplay_text(index: FilmIndex, start: float, end: float) -> str:
    scenes = rows_in(index.table("scenes"), start, end)
    lines = scene_lines(index)
    blocks = [
        "\n".join(
            [f"Scene {scene.scene_index}: {scene.heading}", *lines.get(scene.scene_index, [])]
        )
        for scene in scenes.itertuples()
    ]
    return bounded("\n\n".join(blocks), CONTEXT_CHARS)


def _ask(index: FilmIndex, messages: list[dict], tool: str) -> str:
    """The model's reply.

    Raises:
        ToolError: no model configured, or the call failed (the cause is chained).
    """
    if index.ask is None:
        raise ToolError(
            f"{tool} needs a model to look at the film, and none is configured for this run"
        )
    try:
        reply = index.ask(messages)
    except ToolError:
        raise
    except Exception as exc:  # a gateway failure is a failed tool call, recorded in the trail
        raise ToolError(f"{tool}: the model call failed ({type(exc).__name__}: {exc})") from exc
    return " ".join(str(reply or "").split()) or "(the model gave no answer)"


def _said(start: float, end: float, tool: str, source: str, body: str) -> ToolResult:
    return ToolResult(
        bounded(f"{tool} {span_label(start, end)} (source: {source}):\n{body}"), ((start, end),)
    )


def _touched(result: ToolResult, start: float, end: float) -> ToolResult:
    """The listing of an interval tool touched the asked interval, whatever it listed."""
    return ToolResult(result.text, ((start, end),))


def _has_image(parts: list[dict]) -> bool:
    return any(part["type"] == "image_url" for part in parts)


def _interval_schema(extra: dict | None = None) -> dict:
    properties = dict(INTERVAL_PROPERTIES, **(extra or {}))
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


register_tool(
    AgentTool(
        name="vqa",
        description=(
            "Ask a question about what happens between start and end (seconds into the film)."
            " Returns a short answer from what that part of the film shows."
        ),
        parameters=_interval_schema(
            {"question": {"type": "string", "minLength": 1, "description": "the question"}}
        ),
        run=vqa,
    )
)
register_tool(
    AgentTool(
        name="browse_clip",
        description=(
            "A short summary of what happens between start and end (seconds into the film)."
        ),
        parameters=_interval_schema(),
        run=browse_clip,
    )
)
register_tool(
    AgentTool(
        name="character_presence",
        description="Who appears between start and end (seconds into the film).",
        parameters=_interval_schema(),
        run=character_presence,
    )
)
