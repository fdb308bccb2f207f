"""The LF-VideoQA question types, the one place they are spelled out (LF-VideoQA §3.2, Table 1):
eight belief-state types Q1–Q8 and three narrative-arc types N1–N3.

It lives at the bottom layer (beside the interchange format) so every layer can import it:
the format's `QuestionType`, `pipelines.qgen.entries.ALL_TYPES`, viz orderings, page filters.
"""

from __future__ import annotations

BELIEF_STATE_TYPES = ("Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8")
ARC_TYPES = ("N1", "N2", "N3")
ALL_TYPES = BELIEF_STATE_TYPES + ARC_TYPES
