"""The StoryVideoQA topics, the one place they are spelled out (StoryVideoQA §2, Figure 3): a
topic is question type (P perception, I inference) x story elements (C, A, L, CA, CL, AL, CAL),
14 in all.

It lives at the bottom layer, beside `question_types`, so the topic measures
(`pipelines.mcq.topics`) and the figures that order by topic (`viz.mcq_methods`) share it
without viz importing pipelines.
"""

from __future__ import annotations

QUESTION_TYPES = ("P", "I")
STORY_ELEMENTS = ("C", "A", "L", "CA", "CL", "AL", "CAL")
TOPICS = tuple(f"{t}-{e}" for t in QUESTION_TYPES for e in STORY_ELEMENTS)
