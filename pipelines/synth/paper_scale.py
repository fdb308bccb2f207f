"""Write a synthetic dataset of a given scale as interchange-format files (one per table).

Arrays are built with numpy and written with pyarrow, so the paper scale (about 9 million rows,
most of them MCQ predictions) takes seconds. Deterministic for a given seed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipelines.synth.scales import SCALES, TABLE1_TYPES, SynthScale

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


def _film_tables(rng: np.random.Generator, scale: SynthScale) -> dict[str, pa.Table]:
    films, scenes, lines, characters, subtitles, presence, events, beliefs, metas = (
        [] for _ in range(9)
    )
    cast_of: dict[str, list[str]] = {}
    for f in range(scale.films):
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
        cast_of[film_id] = cast
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
                        "witnessed_events": [
                            f"e_{s:03d}_{k}" for k in range(scale.events_per_scene)
                        ],
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
            beliefs.extend(
                _beliefs(rng, film_id, name, n_scenes, scale.beliefs_per_character, cast)
            )
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
    return {
        "films": films,
        "scenes": scenes,
        "script_lines": lines,
        "characters": characters,
        "subtitles": subtitles,
        "presence": presence,
        "scene_events": events,
        "beliefs": beliefs,
        "meta_beliefs": metas,
        "_cast": cast_of,
    }


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


def _question_tables(
    rng, scale: SynthScale, films: list[dict], cast_of: dict, settings: list[dict]
) -> dict:
    questions, claims, evidence, answers, verdicts = [], [], [], [], []
    skill = rng.uniform(0.1, 0.7, size=len(settings))  # how often a setting asserts a claim
    q_counter = 0
    for qtype, count in scale.type_counts.items():
        _, core_avg, context_avg, scenes_avg = TABLE1_TYPES[qtype]
        for _ in range(count):
            film = films[int(rng.integers(0, len(films)))]
            film_id, q_id = film["film_id"], f"synth-q{q_counter:05d}"
            q_counter += 1
            anchor = int(rng.integers(0, scale.scenes_per_film))
            questions.append(
                {
                    "question_id": q_id,
                    "film_id": film_id,
                    "qtype": qtype,
                    "center": str(rng.choice(cast_of[film_id])),
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
                claims.append(
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
                evidence.append(
                    {
                        "question_id": q_id,
                        "ord": e,
                        "scene_index": int(rng.integers(0, scale.scenes_per_film)),
                        "claim_ords": [1 + e % len(roles)],
                        "is_anchor": e == 0,
                    }
                )
            draws = rng.random((len(settings), len(roles)))
            for s_index, setting in enumerate(settings):
                a_id = f"{q_id}|{setting['setting_id']}"
                answers.append(
                    {
                        "answer_id": a_id,
                        "question_id": q_id,
                        "setting_id": setting["setting_id"],
                        "text": " ".join(rng.choice(WORDS, size=40)),
                    }
                )
                for k in range(len(roles)):
                    p = draws[s_index, k]
                    verdict = (
                        "asserted"
                        if p < skill[s_index]
                        else ("contradicted" if p < skill[s_index] + 0.08 else "omitted")
                    )
                    verdicts.append(
                        {
                            "judge_id": "synthetic-judge",
                            "answer_id": a_id,
                            "claim_id": f"{q_id}:c{k + 1}",
                            "verdict": verdict,
                        }
                    )
    return {
        "questions": questions,
        "rubric_claims": claims,
        "question_evidence": evidence,
        "answers": answers,
        "claim_verdicts": verdicts,
    }


def _mcq_tables(rng, scale: SynthScale) -> dict[str, pa.Table]:
    sources = np.concatenate([[src] * n for src, n in scale.mcq_per_source.items()])
    n = len(sources)
    ids = [f"synth:{src}:{i}" for i, src in enumerate(sources)]
    texts = _words(rng, n, 14)
    choice_sets = [[f"{w} ({k})" for k, w in enumerate(t.split()[:5])] for t in _words(rng, n, 5)]
    options = rng.integers(0, 5, size=n)
    letters = np.array(list("ABCDE"))
    topic_p = np.array([0.12, 0.09, 0.07, 0.1, 0.06, 0.05, 0.05])
    elements = rng.choice(TOPIC_ELEMENTS, size=n, p=topic_p / topic_p.sum())
    mcq = pa.table(
        {
            "mcq_id": ids,
            "set_name": ["synthetic"] * n,
            "source": sources.tolist(),
            "vid": [f"{src}-V{i % 40:02d}" for i, src in enumerate(sources)],
            "qid": np.arange(n),
            "question": [t + "?" for t in texts],
            "choices": choice_sets,
            "gt": [c[o] for c, o in zip(choice_sets, options)],
            "option": letters[options].tolist(),
            "question_type": rng.choice(["P", "I"], size=n).tolist(),
            "story_element": elements.tolist(),
            "characters": [["Ann"]] * n,
            "locations": [["Cafe"]] * n,
            "times": [["00:01:00-00:01:20"]] * n,
        }
    )
    accuracy = np.linspace(
        0.2, 0.76, scale.mcq_methods
    )  # StoryVideoQA §6.2: VLMs < 23%, MLLMs up to 76%
    correct = rng.random((scale.mcq_methods, n)) < accuracy[:, None]
    wrong = (options[None, :] + rng.integers(1, 5, size=(scale.mcq_methods, n))) % 5
    predicted = np.where(correct, options[None, :], wrong)
    mcq_index = np.tile(np.arange(n, dtype=np.int32), scale.mcq_methods)
    method_index = np.repeat(np.arange(scale.mcq_methods, dtype=np.int32), n)
    predictions = pa.table(
        {
            "mcq_id": pa.DictionaryArray.from_arrays(mcq_index, pa.array(ids)),
            "method": pa.DictionaryArray.from_arrays(
                method_index, pa.array([f"method-{m:02d}" for m in range(scale.mcq_methods)])
            ),
            "predicted_option": pa.DictionaryArray.from_arrays(
                predicted.ravel().astype(np.int32), pa.array(list("ABCDE"))
            ),
        }
    )
    return {"mcq_questions": mcq, "mcq_predictions": predictions}


def _write(out: Path, name: str, rows, fmt: str) -> int:
    table = rows if isinstance(rows, pa.Table) else pa.Table.from_pylist(rows)
    if fmt == "parquet":
        pq.write_table(table, out / f"{name}.parquet")
    else:
        with open(out / f"{name}.jsonl", "w", encoding="utf-8") as handle:
            for record in table.to_pylist():
                handle.write(json.dumps({k: v for k, v in record.items() if v is not None}) + "\n")
    return table.num_rows


def write_synthetic_dataset(
    out_dir: Path, scale: str = "paper", seed: int = 7, fmt: str = "parquet"
) -> dict[str, int]:
    """Write a synthetic dataset; return rows written per table.

    Args:
        out_dir: folder to write `manifest.json` and one file per table into.
        scale: a name in `SCALES` ("paper" or "small").
        seed: random seed; the same seed gives the same files.
        fmt: "parquet" or "jsonl".
    """
    spec = SCALES[scale]
    rng = np.random.default_rng(seed)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {
        "format": "storyscope-lfvqa",
        "version": 1,
        "dataset_id": f"synthetic_{scale}",
        "name": f"Synthetic dataset at {scale} scale (random words, seed {seed})",
        "kind": "synthetic",
        "source": "storyscope synth",
        "licence": "CC0-1.0",
        "reported_by_paper": False,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    film_part = _film_tables(rng, spec)
    cast_of = film_part.pop("_cast")
    settings = _settings(spec)
    tables = dict(
        film_part,
        settings=settings,
        judges=[
            {
                "judge_id": "synthetic-judge",
                "kind": "llm",
                "backend": "synthetic",
                "model": "random draws",
                "prompt_version": "none",
            }
        ],
    )
    tables.update(_question_tables(rng, spec, film_part["films"], cast_of, settings))
    tables.update(_mcq_tables(rng, spec))
    return {name: _write(out, name, rows, fmt) for name, rows in tables.items()}
