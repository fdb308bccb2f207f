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

from pipelines.settings import ANSWER_INSTRUCTION, GivenInput, content_parts, user_text

# The answering instruction is the settings' own (one definition for StoryScope's answers and
# the exported tasks).
OPEN_ENDED_INSTRUCTION = ANSWER_INSTRUCTION


@dataclass(frozen=True)
class TaskSample:
    """One question as a harness sample."""

    id: str
    input: str
    target: str
    choices: list[str] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    video: str | None = None  # where the question's video is, as far as the store knows
    # a video setting's input as parts in order (`pipelines.settings.content_parts`): text, and
    # images whose `path` the writer makes relative to the task folder
    parts: list[dict] | None = None


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


def open_ended_samples(
    rows: pd.DataFrame, given: dict[str, GivenInput] | None = None
) -> list[TaskSample]:
    """LF-VideoQA questions: the input is the film and the question, the target the reference
    answer (or, with none, the rubric's claims joined), the rubric rides in the metadata.

    Args:
        rows: questions (`task_questions.open_ended_questions`).
        given: question id -> the input a setting built for it (`pipelines.settings`); the
            sample's input is then exactly what `storyscope answer` sends in that setting (its
            frames as image `parts`). Without it, the input names the film and asks the question.
    """
    samples = []
    for row in rows.to_dict("records"):
        row = _plain(row)
        claims = row["claims"] or []
        title = row["title"] or row["film_id"]
        film = f"{title} ({row['year']})" if row.get("year") else title
        target = row["gold"] or " ".join(claim["text"] for claim in claims)
        setting_input = (given or {}).get(row["question_id"])
        metadata = {
            "question_id": row["question_id"],
            "film_id": row["film_id"],
            "title": title,
            "qtype": row["qtype"],
            "center": row["center"],
            "anchor_time_s": row["anchor_time_s"],
            "question": row["text"],
            "revision": row["revision"],
            "claims": claims,
        }
        text, parts = f"Film: {film}\n\nQuestion: {row['text']}", None
        if setting_input is not None:
            text = user_text(setting_input)
            parts = content_parts(setting_input) if setting_input.frames else None
            metadata["setting"] = setting_input.setting
            metadata["given"] = _plain(
                {k: v for k, v in setting_input.record.items() if k != "build_ms"}
            )
        samples.append(
            TaskSample(
                id=row["question_id"],
                input=text,
                target=target,
                metadata=metadata,
                video=row["video_path"] or f"{row['film_id']}.mp4",
                parts=parts,
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
