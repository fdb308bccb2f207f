"""The LF-VideoQA settings (§4.1-4.3, Table 3), registered once.

Each builder returns the film's units in film order; `pipelines.settings.build` applies the
context budget and renders the messages. The agent setting (§4.3) has no units: its model
searches the film with tools (`pipelines.agents`), in a tier chosen per run.
"""

from __future__ import annotations

from data_access.queries import film_context
from data_access.store import Store
from pipelines.settings import units as unit_builders
from pipelines.settings.registry import Setting, SettingOptions, register_setting
from pipelines.settings.sources import SettingUnavailable, chunk_captions, sampled_frames


def _screenplay(store: Store, film: dict, options: SettingOptions):
    lines = film_context.screenplay_lines(store, film["film_id"])
    if lines.empty:
        raise SettingUnavailable(f"film {film['film_id']!r} has no parsed screenplay")
    return unit_builders.screenplay_units(lines)


def _subtitles_of(store: Store, film: dict):
    cues = film_context.subtitle_track(store, film["film_id"])
    if cues.empty:
        raise SettingUnavailable(f"film {film['film_id']!r} has no subtitle track")
    return cues


def _subtitles(store: Store, film: dict, options: SettingOptions):
    return unit_builders.subtitle_units(_subtitles_of(store, film))


def _captions(with_subtitles: bool):
    def build(store: Store, film: dict, options: SettingOptions):
        chunks = chunk_captions(store, film["film_id"], options.captioner)
        cues = _subtitles_of(store, film) if with_subtitles else None
        return unit_builders.interleaved_units(chunks, cues, with_subtitles)

    return build


def _video(with_subtitles: bool):
    def build(store: Store, film: dict, options: SettingOptions):
        frames = sampled_frames(store, film, options.fps, options.frame_width)
        if not frames:
            raise SettingUnavailable(f"film {film['film_id']!r}: no frame could be read")
        cues = _subtitles_of(store, film) if with_subtitles else None
        return unit_builders.frame_units(frames, cues, 1.0 / options.fps, with_subtitles)

    return build


QUESTION_ONLY = register_setting(
    Setting(
        "question-only",
        "Question only",
        "No film at all: the control that shows what a model answers blind.",
    )
)
SCREENPLAY = register_setting(
    Setting(
        "screenplay",
        "Screenplay (oracle)",
        "The parsed screenplay, scene headings and lines in order (§4.1).",
        ("screenplay",),
        _screenplay,
    )
)
SUBTITLES = register_setting(
    Setting(
        "subtitles",
        "Subtitles",
        "The time-stamped subtitle track (§4.1).",
        ("subtitles",),
        _subtitles,
    )
)
CAPTIONS = register_setting(
    Setting(
        "captions",
        "Video captions",
        "Captions of 10-second chunks of the video by a captioner model (§4.1).",
        ("captions",),
        _captions(False),
    )
)
CAPTIONS_SUBTITLES = register_setting(
    Setting(
        "captions+subtitles",
        "Video captions + subtitles",
        "The 10-second captions interleaved by time with the subtitles of each chunk (§4.1).",
        ("captions", "subtitles"),
        _captions(True),
    )
)
VIDEO = register_setting(
    Setting(
        "video",
        "Video (frames)",
        "Frames sampled uniformly (0.2 fps by default) as image parts, no audio (§4.2).",
        ("video",),
        _video(False),
    )
)
VIDEO_SUBTITLES = register_setting(
    Setting(
        "video+subtitles",
        "Video (frames) + subtitles",
        "The same frames, each with the subtitles of its interval (§4.2).",
        ("video", "subtitles"),
        _video(True),
    )
)
AGENT = register_setting(
    Setting(
        "agent",
        "Agent (tools)",
        "No film in the prompt: the model searches it with five tools (subtitle search, clip"
        " search, VQA on frames, clip browsing, character presence) before answering, in the"
        " regular, fast (10-second captions) or oracle (screenplay) tier (§4.3).",
        agent=True,
    )
)
