"""The LF-VideoQA question types, the one place they are spelled out (LF-VideoQA §3.2, Table 1):
eight belief-state types Q1–Q8 and three narrative-arc types N1–N3.

It lives at the bottom layer (beside the interchange format) so every layer can import it:
the format's `QuestionType`, `pipelines.qgen.entries.ALL_TYPES`, viz orderings, page filters.
"""

from __future__ import annotations

BELIEF_STATE_TYPES = ("Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7", "Q8")
ARC_TYPES = ("N1", "N2", "N3")
ALL_TYPES = BELIEF_STATE_TYPES + ARC_TYPES

# Each type's name (LF-VideoQA Table 1) and what it asks (§3.2's definitions, in its words):
# the legend every page that shows a type code gives beside it.
TYPE_NAMES = {
    "Q1": "Knowledge split",
    "Q2": "Realization",
    "Q3": "False belief",
    "Q4": "Knowledge source",
    "Q5": "First-order belief",
    "Q6": "Second-order belief",
    "Q7": "Accepting a claim",
    "Q8": "Order of discovery",
    "N1": "Epistemic arc",
    "N2": "Trust evolution",
    "N3": "Causal chain",
}
TYPE_ASKS = {
    "Q1": "how several characters' knowledge of the same situation differs",
    "Q2": "when the center character's understanding changes",
    "Q3": "what they take to be the case right before acting on a false belief",
    "Q4": "how they come to know a fact",
    "Q5": "what they take another character to believe",
    "Q6": "what they take another character to believe about a third",
    "Q7": "what they make of a claim they are told",
    "Q8": "the order in which they learn a set of facts",
    "N1": "what they come to know across the film, and how",
    "N2": "how their view of another character changes",
    "N3": "the chain of events that leads them to a belief",
}


def type_label(code: str) -> str:
    """`Q1 · Knowledge split` for a type code; an unknown code as it is."""
    name = TYPE_NAMES.get(code)
    return f"{code} · {name}" if name else code
