"""The film tables of a synthetic dataset (films, scenes, lines, characters, subtitles,
presence, events, beliefs, meta-beliefs), a chunk of films at a time.
"""

from __future__ import annotations

import numpy as np

from pipelines.synth.scales import SynthScale
from pipelines.synth.vocabulary import WORDS, random_names, random_texts

FILM_TABLES = [
    "films",
    "scenes",
    "script_lines",
    "characters",
    "subtitles",
    "presence",
    "scene_events",
    "beliefs",
    "meta_beliefs",
]


def film_chunks(rng: np.random.Generator, scale: SynthScale, cast_of: dict, films_per_chunk: int):
    """Yield the film tables' rows (table -> rows) `films_per_chunk` films at a time, filling
    `cast_of` (film -> character names) for the questions."""
    for first in range(0, scale.films, films_per_chunk):
        chunk: dict[str, list[dict]] = {name: [] for name in FILM_TABLES}
        for f in range(first, min(first + films_per_chunk, scale.films)):
            cast_of.update(_one_film(rng, scale, f, chunk))
        yield chunk


def _one_film(rng: np.random.Generator, scale: SynthScale, f: int, chunk: dict) -> dict:
    films, scenes, lines, characters, subtitles, presence, events, beliefs, metas = (
        chunk[name] for name in FILM_TABLES
    )
    film_id = f"synth-film-{f:03d}"
    runtime = float(rng.integers(5400, 10800))
    films.append(
        {
            "film_id": film_id,
            "title": f"Synthetic Film {f:03d}",
            "year": int(rng.integers(2023, 2026)),
            "kind": "film",
            "runtime_s": runtime,
            "source": "synthetic",
        }
    )
    cast = random_names(rng, scale.characters_per_film)
    n_scenes = scale.scenes_per_film
    bounds = np.sort(rng.uniform(0, runtime, size=n_scenes - 1))
    starts = np.concatenate([[0.0], bounds])
    ends = np.concatenate([bounds, [runtime]])
    interpolated = rng.random(n_scenes) < 0.1
    for s in range(n_scenes):
        scenes.append(
            {
                "film_id": film_id,
                "scene_index": s,
                "heading": f"INT. {WORDS[s % len(WORDS)].upper()} - DAY",
                "location": WORDS[s % len(WORDS)].title(),
                "time_of_day": "DAY",
                "start_s": float(starts[s]),
                "end_s": float(ends[s]),
                "time_source": "interpolated" if interpolated[s] else "matched",
                "summary": " ".join(rng.choice(WORDS, size=12)),
            }
        )
        present = rng.choice(cast, size=min(6, len(cast)), replace=False)
        for c in present:
            presence.append(
                {
                    "film_id": film_id,
                    "scene_index": s,
                    "character": str(c),
                    "status": "on_screen",
                    "witnessed_events": [f"e_{s:03d}_{k}" for k in range(scale.events_per_scene)],
                }
            )
        for k in range(scale.events_per_scene):
            events.append(
                {
                    "film_id": film_id,
                    "event_id": f"e_{s:03d}_{k}",
                    "scene_index": s,
                    "ord": k,
                    "description": " ".join(rng.choice(WORDS, size=8)),
                    "participants": [str(x) for x in present[:2]],
                    "witnesses": [str(x) for x in present],
                }
            )
    for i, text in enumerate(random_texts(rng, n_scenes * scale.lines_per_scene, 10)):
        dialogue = i % 3 != 0
        lines.append(
            {
                "film_id": film_id,
                "line_index": i,
                "scene_index": i // scale.lines_per_scene,
                "kind": "dialogue" if dialogue else "direction",
                "character": cast[i % len(cast)] if dialogue else None,
                "text": text,
            }
        )
    cue_starts = np.sort(rng.uniform(0, runtime - 5, size=scale.subtitles_per_film))
    for i, text in enumerate(random_texts(rng, scale.subtitles_per_film, 7)):
        subtitles.append(
            {
                "film_id": film_id,
                "cue_index": i,
                "start_s": float(cue_starts[i]),
                "end_s": float(cue_starts[i] + 2.5),
                "text": text,
                "matched_line": _matched_line(
                    rng, i, n_scenes * scale.lines_per_scene, scale.subtitles_per_film
                ),
            }
        )
    for c_index, name in enumerate(cast):
        spoken = rng.random() > 0.1
        characters.append(
            {
                "film_id": film_id,
                "character_id": f"c{c_index:02d}",
                "canonical_name": name,
                "aliases": [name.upper()],
                "first_spoken_s": float(rng.uniform(0, runtime)) if spoken else None,
            }
        )
        beliefs.extend(_beliefs(rng, film_id, name, n_scenes, scale.beliefs_per_character, cast))
        for m in range(scale.metas_per_character):
            other = cast[(c_index + m + 1) % len(cast)]
            metas.append(
                {
                    "film_id": film_id,
                    "meta_id": f"m_{c_index:02d}_{m}",
                    "holder": name,
                    "about": other,
                    "scene_index": int(rng.integers(0, n_scenes)),
                    "claim": " ".join(rng.choice(WORDS, size=9)),
                    "type": "first_order_about_d",
                    "change": "new",
                    "source": "told",
                    "basis": [f"e_{int(rng.integers(0, n_scenes)):03d}_0"],
                }
            )
    return {film_id: cast}


def _matched_line(rng, cue: int, n_lines: int, n_cues: int) -> int | None:
    """A monotone cue -> line assignment with about one cue in five unmatched."""
    return None if rng.random() < 0.2 else min(n_lines - 1, cue * n_lines // n_cues)


def _beliefs(rng, film_id: str, holder: str, n_scenes: int, n: int, cast: list[str]) -> list[dict]:
    kinds = ["witnessed", "told", "inferred", "false", "revised"]
    rows = []
    formed = np.sort(rng.integers(0, n_scenes, size=n))
    for b in range(n):
        kind = kinds[int(rng.integers(0, len(kinds)))]
        revised_at = int(rng.integers(formed[b], n_scenes)) if rng.random() < 0.3 else None
        rows.append(
            {
                "film_id": film_id,
                "belief_id": f"B{b}",
                "holder": holder,
                "scene_index": int(formed[b]),
                "kind": kind,
                "content": " ".join(rng.choice(WORDS, size=10)),
                "source_character": str(rng.choice(cast)) if kind == "told" else None,
                "believed": bool(rng.random() > 0.2) if kind == "told" else None,
                "basis": [f"e_{int(formed[b]):03d}_0"],
                "is_false": kind == "false",
                "revises": f"B{b - 1}" if kind == "revised" and b > 0 else None,
                "revised_at_scene": revised_at,
            }
        )
    return rows
