"""The question tables of a synthetic dataset: settings and the judge, then questions with
their rubric claims, evidence, answers and claim verdicts, a chunk of questions at a time.
"""

from __future__ import annotations

import numpy as np

from pipelines.synth.scales import TABLE1_TYPES, SynthScale
from pipelines.synth.vocabulary import WORDS, random_texts

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
QUESTION_TABLES = ["questions", "rubric_claims", "question_evidence", "answers", "claim_verdicts"]


SYNTHETIC_JUDGE = {
    "judge_id": "synthetic-judge",
    "kind": "llm",
    "backend": "synthetic",
    "model": "random draws",
    "prompt_version": "none",
}


def setting_rows(scale: SynthScale) -> list[dict]:
    """The answering settings, cycling through the families of LF-VideoQA §4."""
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


def question_chunks(
    rng,
    scale: SynthScale,
    film_ids: list[str],
    cast_of: dict,
    settings: list,
    questions_per_chunk: int,
):
    """Yield the question tables' rows (table -> rows), `questions_per_chunk` questions at a time.

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
            if q_counter % questions_per_chunk == 0:
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
    texts = random_texts(rng, len(answering), 40)
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
