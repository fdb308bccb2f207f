"""Store rows -> harness-neutral samples: the id, the prompt, the target, the choices (MCQ) and the
metadata a harness keeps with each sample, so its results come back linked by id.

The id is the store's own key (`question_id` of an LF-VideoQA question, `mcq_id` of a StoryVideoQA
question): inspect_ai logs it as `samples[].id`, lmms-eval keeps the whole document in its
`--log_samples` output (`doc`), and `storyscope import results` links through either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

# StoryScope's own answering instruction (the papers give the judge's and the generators'
# prompts, not the answerers'): LF-VideoQA answers are graded claim by claim against a rubric
# (§3.3), so the answer should state beliefs and their grounds rather than a single phrase.
OPEN_ENDED_INSTRUCTION = (
    "Answer the question about the film in a few sentences. Say what the character knows, "
    "believes or feels at that point, and why: what they saw, were told or inferred."
)


@dataclass(frozen=True)
class TaskSample:
    """One question as a harness sample."""

    id: str
    input: str
    target: str
    choices: list[str] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    video: str | None = None  # where the question's video is, as far as the store knows


def _plain(value: Any) -> Any:
    """A value pandas/DuckDB returned, as JSON-ready Python (numpy scalars and arrays, NaN)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if hasattr(value, "tolist"):
        return _plain(value.tolist())
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, float) and value != value:  # NaN
        return None
    return value


def open_ended_samples(rows: pd.DataFrame) -> list[TaskSample]:
    """LF-VideoQA questions: the input is the film and the question, the target the reference
    answer (or, with none, the rubric's claims joined), the rubric rides in the metadata."""
    samples = []
    for row in rows.to_dict("records"):
        row = _plain(row)
        claims = row["claims"] or []
        title = row["title"] or row["film_id"]
        film = f"{title} ({row['year']})" if row.get("year") else title
        target = row["gold"] or " ".join(claim["text"] for claim in claims)
        samples.append(
            TaskSample(
                id=row["question_id"],
                input=f"Film: {film}\n\nQuestion: {row['text']}",
                target=target,
                metadata={
                    "question_id": row["question_id"],
                    "film_id": row["film_id"],
                    "title": title,
                    "qtype": row["qtype"],
                    "center": row["center"],
                    "anchor_time_s": row["anchor_time_s"],
                    "question": row["text"],
                    "revision": row["revision"],
                    "claims": claims,
                },
                video=row["video_path"] or f"{row['film_id']}.mp4",
            )
        )
    return samples


def mcq_samples(rows: pd.DataFrame) -> list[TaskSample]:
    """StoryVideoQA questions: the choices in their released order (A, B, ...), the target the
    correct letter (`option`), the topic (question type x story element) in the metadata."""
    samples = []
    for row in rows.to_dict("records"):
        row = _plain(row)
        samples.append(
            TaskSample(
                id=row["mcq_id"],
                input=row["question"],
                target=row["option"],
                choices=list(row["choices"]),
                metadata={
                    "mcq_id": row["mcq_id"],
                    "source": row["source"],
                    "vid": row["vid"],
                    "set_name": row["set_name"],
                    "question_type": row["question_type"],
                    "story_element": row["story_element"],
                    "gt": row["gt"],
                    "times": row["times"] or [],
                },
                video=f"{row['vid']}.mp4",
            )
        )
    return samples
