"""`storyscope film ingest`: screenplay + subtitles (+ video) → one film in the store, one run.

Steps (LF-VideoQA App. C order): parse (Table 15 scenes), resolve character names (Table 17
rules), align dialogue to cues and time the scenes, then write everything in one transaction
under one run. Any failure before or during the write leaves the store as it was.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from data_access.store import Store
from data_access.store.interrupts import telling_interrupts
from data_access.tables.films import FilmRows, ensure_dataset, write_film
from data_access.tables.runs import RunSpec, finish_run, insert_run
from pipelines.frames import VideoError, probe_video  # noqa: F401 (VideoError: re-exported)
from pipelines.preprocess.coref import CharacterGroup, is_group, is_role, resolve_characters
from pipelines.preprocess.coref_lexicon import HONORIFICS, ROLE_WORDS
from pipelines.preprocess.files import parse_screenplay_file
from pipelines.preprocess.model import Screenplay
from pipelines.preprocess.srt_reader import SubtitleFile, read_srt
from pipelines.preprocess.timing import (
    MIN_SHARE_MATCHED,
    FilmTiming,
    first_spoken_times,
    time_film,
)

BACKEND = "rules"  # the deterministic parser/aligner/coref, named wherever output is shown
STEP = "preprocess.film"
# Words that do not identify a character when heard in a subtitle (first-spoken search).
NAME_SKIP_WORDS = frozenset(
    w.lower() for w in ROLE_WORDS | set(HONORIFICS) | {"VOICE", "OLD", "BIG", "LITTLE"}
)


@dataclass
class IngestReport:
    film_id: str
    run_id: str
    title: str
    scenes: int
    dialogue_lines: int
    share_lines_matched: float
    share_scenes_matched: float
    cues: int
    characters: int

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def slugify(text: str) -> str:
    """'The Keeper's Ledger 2026' -> 'the-keepers-ledger-2026'."""
    text = re.sub(r"['’]", "", text.lower())
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-") or "film"


def resolve_film_characters(screenplay: Screenplay) -> tuple[list[CharacterGroup], dict[str, str]]:
    """Coreference groups and the cue name → canonical name map."""
    scenes, lines = defaultdict(set), Counter()
    for scene_index, event in screenplay.events:
        if event.kind == "dialogue" and event.character:
            scenes[event.character].add(scene_index)
            lines[event.character] += 1
    groups = resolve_characters(dict(scenes), dict(lines))
    canonical = {alias: group.canonical for group in groups for alias in group.aliases}
    return groups, canonical


def build_rows(
    film: dict,
    screenplay: Screenplay,
    subtitles: SubtitleFile,
    timing: FilmTiming,
    groups: list[CharacterGroup],
    canonical: dict[str, str],
) -> FilmRows:
    """The store rows of one film (line indices number every event in film order)."""
    rows = FilmRows(film=film)
    dialogue_times = dict(zip(timing.line_refs, timing.line_times))
    line_index_of_dialogue: list[int] = []
    for scene, scene_time in zip(screenplay.scenes, timing.scene_times):
        rows.scenes.append(
            {
                "scene_index": scene.index,
                "heading": scene.heading,
                "location": scene.location,
                "time_of_day": scene.time_of_day,
                "start_s": scene_time.start_s,
                "end_s": scene_time.end_s,
                "time_source": scene_time.time_source,
            }
        )
        for position, event in enumerate(scene.events):
            span = dialogue_times.get((scene.index, position)) if event.kind == "dialogue" else None
            is_spoken = event.kind == "dialogue"
            if is_spoken:
                line_index_of_dialogue.append(len(rows.lines))
            rows.lines.append(
                {
                    "line_index": len(rows.lines),
                    "scene_index": scene.index,
                    "kind": event.kind,
                    "character": canonical.get(event.character, event.character),
                    "parenthetical": event.parenthetical,
                    "text": event.text,
                    "start_s": span[0] if span else None,
                    "end_s": span[1] if span else None,
                }
            )
            if is_spoken:  # the cue as written: the line's voice, read by belief annotation
                rows.cues.append(
                    {
                        "line_index": rows.lines[-1]["line_index"],
                        "cue": event.character,
                        "cue_extensions": list(event.extensions),
                    }
                )
    for cue, line in zip(subtitles.cues, timing.cue_to_line):
        rows.subtitles.append(
            {
                "cue_index": cue.index,
                "start_s": cue.start_s,
                "end_s": cue.end_s,
                "text": cue.text,
                "matched_line": line_index_of_dialogue[line] if line is not None else None,
            }
        )
    # Role labels and groups ("WAITER", "CROWD") have no name to be spoken (App. F name budget).
    named = {
        g.canonical: [a for a in g.aliases if not is_role(a) and not is_group(a)] for g in groups
    }
    spoken = first_spoken_times(
        {k: v for k, v in named.items() if v}, subtitles.cues, NAME_SKIP_WORDS
    )
    for group in groups:
        rows.characters.append(
            {
                "character_id": slugify(group.canonical),
                "canonical_name": group.canonical,
                "aliases": group.aliases,
                "first_spoken_s": spoken.get(group.canonical),
                "merge_evidence": group.evidence,
            }
        )
    return rows


def ingest_film(
    store: Store,
    screenplay_path: Path | str,
    subtitles_path: Path | str,
    *,
    title: str | None = None,
    year: int | None = None,
    video: Path | str | None = None,
    film_id: str | None = None,
    dataset_id: str = "ingested_films",
    dataset_name: str = "Ingested screenplays",
    licence: str | None = None,
    lenient_subtitles: bool = False,
    min_match: float | None = None,
) -> IngestReport:
    """Parse, align and store one film as one run (all or nothing).

    `min_match` lowers (or raises) the share of dialogue lines that must match a cue (default
    `MIN_SHARE_MATCHED`, 15%): an early draft of the right film can match 4%. The
    share and the threshold are recorded in the run, so the Film page can show a low match;
    scenes with no matched line get interpolated times and say so (`time_source`).

    Raises:
        ScreenplayError, SubtitleError, AlignmentFailed, VideoError: bad input; nothing written.
    """
    screenplay_path, subtitles_path = Path(screenplay_path), Path(subtitles_path)
    screenplay = parse_screenplay_file(screenplay_path)
    subtitles = read_srt(subtitles_path, lenient=lenient_subtitles)
    threshold = MIN_SHARE_MATCHED if min_match is None else min_match
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"--min-match {threshold}: expected a fraction between 0 and 1")
    timing = time_film(screenplay, subtitles.cues, min_share=threshold)
    groups, canonical = resolve_film_characters(screenplay)
    fps, duration = probe_video(Path(video)) if video else (None, None)
    title = title or screenplay.title or screenplay_path.stem.replace("_", " ").title()
    film = {
        "film_id": film_id or slugify(f"{title} {year or ''}"),
        "dataset_id": dataset_id,
        "title": title,
        "year": year,
        "kind": "film",
        "runtime_s": duration or max((c.end_s for c in subtitles.cues), default=None),
        "source": str(screenplay_path),
        "video_path": str(video) if video else None,
        "fps": fps,
    }
    rows = build_rows(film, screenplay, subtitles, timing, groups, canonical)
    spec = RunSpec(
        step=STEP,
        backend=BACKEND,
        source=f"{screenplay_path} + {subtitles_path}",
        params={
            "parser": screenplay.source_format,
            "skip_cost": 0.02,
            "match_share": 0.5,
            "subtitle_encoding": subtitles.encoding,
            "skipped_cues": len(subtitles.skipped),
            "min_match": threshold,
            "share_lines_matched": round(timing.share_lines_matched, 4),
        },
    )
    told = telling_interrupts(store, STEP, spec.source, f"the ingest of {screenplay_path}")
    with told, store.transaction() as cursor:
        run_id = insert_run(cursor, spec)
        ensure_dataset(
            cursor, dataset_id, dataset_name, "lfvqa", "storyscope film ingest", licence, run_id
        )
        write_film(cursor, rows, run_id)
        finish_run(cursor, run_id, n_items=len(rows.lines))
    return IngestReport(
        film["film_id"],
        run_id,
        title,
        len(screenplay.scenes),
        len(timing.line_refs),
        round(timing.share_lines_matched, 4),
        round(timing.share_scenes_matched, 4),
        len(subtitles.cues),
        len(groups),
    )
