"""Write a synthetic dataset of a given scale as interchange-format files (one per table).

Arrays are built with numpy and written with pyarrow, so the paper scale (about 9 million rows,
most of them MCQ predictions) takes seconds. Deterministic for a given seed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from pipelines.synth.scales import SCALES, TABLE1_TYPES, SynthScale
from pipelines.synth.sink import TableSink

WORDS = [
    "letter",
    "key",
    "door",
    "night",
    "train",
    "promise",
    "secret",
    "money",
    "gun",
    "photo",
    "plan",
    "truth",
    "lie",
    "brother",
    "sister",
    "house",
    "car",
    "station",
    "river",
    "party",
    "office",
    "doctor",
    "police",
    "ring",
    "map",
    "phone",
    "debt",
    "deal",
    "warning",
    "fire",
    "ship",
    "storm",
    "garden",
    "church",
    "bridge",
    "window",
    "knife",
    "book",
    "song",
    "dance",
    "coffee",
    "market",
    "road",
    "shelter",
]
SYLLABLES = [
    "al",
    "an",
    "ar",
    "bel",
    "cor",
    "da",
    "el",
    "fa",
    "gor",
    "ha",
    "is",
    "jo",
    "ka",
    "lu",
    "ma",
    "ne",
    "or",
    "pa",
    "ra",
    "sa",
    "ti",
    "vo",
    "wen",
    "ya",
]
TOPIC_ELEMENTS = ["C", "A", "L", "CA", "CL", "AL", "CAL"]
SETTING_FAMILIES = [  # (source, answerer, captioner, tier): the families of LF-VideoQA §4 / Table 4
    ("screenplay", None, None, None),
    ("subtitles", None, None, None),
    ("captions", "qwen", None, None),
    ("captions+subtitles", "qwen", None, None),
    ("video", None, None, None),
    ("video+subtitles", None, None, None),
    ("agent", None, None, "oracle"),
    ("agent", None, None, "fast"),
    ("agent", None, None, "regular"),
]
ANSWERERS = ["qwen3.6", "qwen3.8", "gemma4", "keye-vl", "internvl3.5"]


def _words(rng: np.random.Generator, n_texts: int, length: int) -> list[str]:
    picks = rng.integers(0, len(WORDS), size=(n_texts, length))
    vocabulary = np.array(WORDS)
    return [" ".join(row) for row in vocabulary[picks]]


def _names(rng: np.random.Generator, n: int) -> list[str]:
    names: list[str] = []
    while len(names) < n:
        name = "".join(rng.choice(SYLLABLES, size=2)).capitalize()
        if name not in names:
            names.append(name)
    return names


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
QUESTION_TABLES = ["questions", "rubric_claims", "question_evidence", "answers", "claim_verdicts"]
# Every table file, in the order `write_synthetic_dataset` reports them.
TABLES = (
    FILM_TABLES + ["settings", "judges"] + QUESTION_TABLES + ["mcq_questions", "mcq_predictions"]
)
FILMS_PER_CHUNK = 25  # ~115k film-table rows held at once, whatever the scale
QUESTIONS_PER_CHUNK = 1000  # with 33 answering settings: ~33k answers, ~130k verdicts
MCQS_PER_CHUNK = 250_000


def _film_chunks(rng: np.random.Generator, scale: SynthScale, cast_of: dict):
    """Yield the film tables' rows (table -> rows) `FILMS_PER_CHUNK` films at a time, filling
    `cast_of` (film -> character names) for the questions."""
    for first in range(0, scale.films, FILMS_PER_CHUNK):
        chunk: dict[str, list[dict]] = {name: [] for name in FILM_TABLES}
        for f in range(first, min(first + FILMS_PER_CHUNK, scale.films)):
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
    cast = _names(rng, scale.characters_per_film)
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
    for i, text in enumerate(_words(rng, n_scenes * scale.lines_per_scene, 10)):
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
    for i, text in enumerate(_words(rng, scale.subtitles_per_film, 7)):
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


def _settings(scale: SynthScale) -> list[dict]:
    rows = []
    for i in range(scale.settings):
        source, answerer, captioner, tier = SETTING_FAMILIES[i % len(SETTING_FAMILIES)]
        answerer = answerer or ANSWERERS[(i // len(SETTING_FAMILIES)) % len(ANSWERERS)]
        if source.startswith("captions"):
            captioner = ANSWERERS[i % len(ANSWERERS)]
        label = (
            f"{source} / {answerer}"
            + (f" / {captioner}" if captioner else "")
            + (f" / {tier}" if tier else "")
        )
        rows.append(
            {
                "setting_id": f"set{i:02d}",
                "source": source,
                "answerer": answerer,
                "captioner": captioner,
                "tier": tier,
                "label": f"{label} #{i:02d}",
            }
        )
    return rows


def _question_chunks(rng, scale: SynthScale, film_ids: list[str], cast_of: dict, settings: list):
    """Yield the question tables' rows (table -> rows), `QUESTIONS_PER_CHUNK` questions at a time.

    Each question is answered by `scale.settings_per_question` settings drawn for it (all of them
    when unset, as in the paper), and every answer is judged on every rubric claim.
    """
    skill = rng.uniform(0.1, 0.7, size=len(settings))  # how often a setting asserts a claim
    chunk: dict[str, list[dict]] = {name: [] for name in QUESTION_TABLES}
    q_counter = 0
    for qtype, count in scale.type_counts.items():
        for _ in range(count):
            question = _Question(f"synth-q{q_counter:05d}", qtype, film_ids, cast_of)
            _one_question(rng, scale, question, settings, skill, chunk)
            q_counter += 1
            if q_counter % QUESTIONS_PER_CHUNK == 0:
                yield chunk
                chunk = {name: [] for name in QUESTION_TABLES}
    yield chunk


class _Question:
    """What `_one_question` needs to know about the question it writes."""

    def __init__(self, q_id: str, qtype: str, film_ids: list[str], cast_of: dict) -> None:
        self.q_id, self.qtype, self.film_ids, self.cast_of = q_id, qtype, film_ids, cast_of


def _one_question(rng, scale: SynthScale, question: _Question, settings, skill, chunk) -> None:
    q_id, qtype = question.q_id, question.qtype
    _, core_avg, context_avg, scenes_avg = TABLE1_TYPES[qtype]
    film_id = question.film_ids[int(rng.integers(0, len(question.film_ids)))]
    anchor = int(rng.integers(0, scale.scenes_per_film))
    chunk["questions"].append(
        {
            "question_id": q_id,
            "film_id": film_id,
            "qtype": qtype,
            "center": str(rng.choice(question.cast_of[film_id])),
            "anchor_scene": anchor,
            "status": "released",
            "text": " ".join(rng.choice(WORDS, size=18)) + "?",
            "gold": " ".join(rng.choice(WORDS, size=60)),
            "source": "synthetic",
        }
    )
    n_core = max(1, int(rng.poisson(core_avg - 1)) + 1)
    n_context = int(rng.poisson(context_avg))
    roles = ["core"] * n_core + ["context"] * n_context
    for k, role in enumerate(roles, start=1):
        chunk["rubric_claims"].append(
            {
                "claim_id": f"{q_id}:c{k}",
                "question_id": q_id,
                "ord": k,
                "role": role,
                "text": " ".join(rng.choice(WORDS, size=12)),
                "evidence_scenes": [anchor],
            }
        )
    for e in range(max(2, int(rng.poisson(scenes_avg)))):
        chunk["question_evidence"].append(
            {
                "question_id": q_id,
                "ord": e,
                "scene_index": int(rng.integers(0, scale.scenes_per_film)),
                "claim_ords": [1 + e % len(roles)],
                "is_anchor": e == 0,
            }
        )
    _answers_and_verdicts(rng, scale, q_id, len(roles), settings, skill, chunk)


def _answers_and_verdicts(rng, scale, q_id: str, n_claims: int, settings, skill, chunk) -> None:
    answering = np.arange(len(settings))
    if scale.settings_per_question and scale.settings_per_question < len(settings):
        answering = np.sort(rng.choice(answering, size=scale.settings_per_question, replace=False))
    draws = rng.random((len(answering), n_claims))
    texts = _words(rng, len(answering), 40)
    for row, s_index in enumerate(answering):
        a_id = f"{q_id}|{settings[s_index]['setting_id']}"
        chunk["answers"].append(
            {
                "answer_id": a_id,
                "question_id": q_id,
                "setting_id": settings[s_index]["setting_id"],
                "text": texts[row],
            }
        )
        for k in range(n_claims):
            p = draws[row, k]
            verdict = (
                "asserted"
                if p < skill[s_index]
                else ("contradicted" if p < skill[s_index] + 0.08 else "omitted")
            )
            chunk["claim_verdicts"].append(
                {
                    "judge_id": "synthetic-judge",
                    "answer_id": a_id,
                    "claim_id": f"{q_id}:c{k + 1}",
                    "verdict": verdict,
                }
            )


def _mcq_sources(scale: SynthScale) -> tuple[np.ndarray, pa.Array]:
    """Each MCQ's source, and its id (built once as Arrow strings: 3.6M ids at 10x)."""
    sources = np.concatenate([np.repeat(src, n) for src, n in scale.mcq_per_source.items()])
    index = pa.array(np.arange(len(sources))).cast(pa.string())
    # "synth:" + source + ":" + index, joined with ":" as the separator
    ids = pc.binary_join_element_wise("synth", pa.array(sources), index, ":")
    return sources, ids


def _mcq_question_chunks(rng, sources: np.ndarray, ids: pa.Array, options: np.ndarray):
    """Yield `mcq_questions` tables of `MCQS_PER_CHUNK` rows, filling `options` with each MCQ's
    GT option index (the predictions are drawn against it)."""
    letters = np.array(list("ABCDE"))
    topic_p = np.array([0.12, 0.09, 0.07, 0.1, 0.06, 0.05, 0.05])
    for first in range(0, len(sources), MCQS_PER_CHUNK):
        n = min(MCQS_PER_CHUNK, len(sources) - first)
        part = sources[first : first + n]
        texts = _words(rng, n, 14)
        choice_sets = [
            [f"{w} ({k})" for k, w in enumerate(t.split()[:5])] for t in _words(rng, n, 5)
        ]
        chosen = rng.integers(0, 5, size=n)
        options[first : first + n] = chosen
        elements = rng.choice(TOPIC_ELEMENTS, size=n, p=topic_p / topic_p.sum())
        yield pa.table(
            {
                "mcq_id": ids.slice(first, n),
                "set_name": pa.array(["synthetic"] * n),
                "source": part.tolist(),
                "vid": [f"{src}-V{i % 40:02d}" for i, src in enumerate(part, start=first)],
                "qid": np.arange(first, first + n),
                "question": [t + "?" for t in texts],
                "choices": choice_sets,
                "gt": [c[o] for c, o in zip(choice_sets, chosen)],
                "option": letters[chosen].tolist(),
                "question_type": rng.choice(["P", "I"], size=n).tolist(),
                "story_element": elements.tolist(),
                "characters": [["Ann"]] * n,
                "locations": [["Cafe"]] * n,
                "times": [["00:01:00-00:01:20"]] * n,
            }
        )


def _mcq_prediction_chunks(rng, scale: SynthScale, options: np.ndarray, ids: pa.Array):
    """Yield one `mcq_predictions` table per method (dictionary-encoded: ids are not repeated)."""
    accuracy = np.linspace(
        0.2, 0.76, scale.mcq_methods
    )  # StoryVideoQA §6.2: VLMs < 23%, MLLMs up to 76%
    n = len(options)
    mcq_index = pa.array(np.arange(n, dtype=np.int32))
    letters = pa.array(list("ABCDE"))
    for m in range(scale.mcq_methods):
        correct = rng.random(n) < accuracy[m]
        wrong = (options + rng.integers(1, 5, size=n)) % 5
        predicted = np.where(correct, options, wrong).astype(np.int32)
        yield pa.table(
            {
                "mcq_id": pa.DictionaryArray.from_arrays(mcq_index, ids),
                "method": pa.DictionaryArray.from_arrays(
                    pa.array(np.zeros(n, dtype=np.int32)), pa.array([f"method-{m:02d}"])
                ),
                "predicted_option": pa.DictionaryArray.from_arrays(pa.array(predicted), letters),
            }
        )


def _write_mcq_tables(rng, scale: SynthScale, sinks: dict) -> None:
    sources, ids = _mcq_sources(scale)
    options = np.empty(len(sources), dtype=np.int32)
    for table in _mcq_question_chunks(rng, sources, ids, options):
        sinks["mcq_questions"].write(table)
    for table in _mcq_prediction_chunks(rng, scale, options, ids):
        sinks["mcq_predictions"].write(table)


def write_synthetic_dataset(
    out_dir: Path, scale: str = "paper", seed: int = 7, fmt: str = "parquet"
) -> dict[str, int]:
    """Write a synthetic dataset, streamed a chunk at a time; return rows written per table.

    Memory stays bounded whatever the scale (the largest thing held is one method's
    predictions as Arrow arrays: 3.6M rows at 10x).

    Args:
        out_dir: folder to write `manifest.json` and one file per table into.
        scale: a name in `SCALES` ("paper", "10x" or "small").
        seed: random seed; the same seed gives the same files.
        fmt: "parquet" or "jsonl".
    """
    spec = SCALES[scale]
    rng = np.random.default_rng(seed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "manifest.json").write_text(json.dumps(_manifest(scale, seed), indent=2), "utf-8")
    sinks = {name: TableSink(out, name, fmt) for name in TABLES}
    try:
        film_ids: list[str] = []
        cast_of: dict[str, list[str]] = {}
        for chunk in _film_chunks(rng, spec, cast_of):
            film_ids.extend(row["film_id"] for row in chunk["films"])
            for name, rows in chunk.items():
                sinks[name].write(rows)
        settings = _settings(spec)
        sinks["settings"].write(settings)
        sinks["judges"].write([SYNTHETIC_JUDGE])
        for chunk in _question_chunks(rng, spec, film_ids, cast_of, settings):
            for name, rows in chunk.items():
                sinks[name].write(rows)
        _write_mcq_tables(rng, spec, sinks)
    finally:
        counts = {name: sink.close() for name, sink in sinks.items()}
    return counts


SYNTHETIC_JUDGE = {
    "judge_id": "synthetic-judge",
    "kind": "llm",
    "backend": "synthetic",
    "model": "random draws",
    "prompt_version": "none",
}


def _manifest(scale: str, seed: int) -> dict:
    return {
        "format": "storyscope-lfvqa",
        "version": 1,
        "dataset_id": f"synthetic_{scale}",
        "name": f"Synthetic dataset at {scale} scale (random words, seed {seed})",
        "kind": "synthetic",
        "source": "storyscope synth",
        "licence": "CC0-1.0",
        "reported_by_paper": False,
    }
