"""What each belief backend can and cannot see, said where its records are shown: every
belief view names the backend that wrote its records and shows its measured quality, so no
record passes for more than its method can see.

A backend's measured quality is its `storyscope gold-eval` score where the film has a gold
annotation; elsewhere these sentences say what the backend reads and what it misses, with the
measurements made so far (docs/BELIEFS_ASYMMETRY.md, docs/TOM_DATASETS.md).
"""

from __future__ import annotations

from pipelines.beliefs.backends import offline_backend_names

# the offline annotation backends, and the ToM datasets' symbolic tracker (no model either)
OFFLINE = (*offline_backend_names(), "symbolic-tracker")
# backends that write one text for every witness and listener of an event, so two holders'
# records of one belief are the same words (the knowledge split's `words` rule is exact there)
ONE_TEXT_PER_EVENT = OFFLINE
# sources known to write each holder's records in that holder's own words (hand annotation, an
# LLM's per-character calls): there the knowledge split matches by meaning by default
OWN_WORDS = ("gold", "openai")

SCOPE = {
    "asymmetry": (
        "an offline baseline, no model: it reads who is on screen, state changes the directions"
        " narrate (where a thing is, who holds it) and the claims spoken lines make, and gives a"
        " false belief to whoever was away or was told what the story later contradicts. It"
        " cannot see intent, lies the text never contradicts, or what the film shows but the"
        " screenplay does not write; read by hand against held-out real screenplays, none of"
        " its 19 false beliefs and 21 revisions held up (9 revisions were right but trivial"
        " prop or place updates)."
    ),
    "rules": (
        "an offline baseline, no model: presence, one witnessed event per script line, and the"
        " statements a line tells to those present. It forms no false belief or revision from"
        " what is said, so a film's arcs are missing, not absent."
    ),
    "symbolic-tracker": (
        "the symbolic tracker of the ToM datasets' own events (no model): exact on what the"
        " story narrates (Hi-ToM 0.876 of 895 answers, OpenToM 0.921 of 5,960;"
        " docs/BELIEFS_ASYMMETRY.md), blind to anything the narration does not state."
    ),
    "openai": (
        "an LLM through the configured endpoint with LF-VideoQA App. D's prompts: its quality is"
        " the model's, and is measured only where the film has a gold annotation."
    ),
    "gold": (
        "hand-annotated by the StoryScope authors: the reference the offline backends are scored"
        " against, not a backend's output."
    ),
}


def scope(backend: str) -> str:
    """The sentence for `backend`, or a neutral one for a backend this build does not know."""
    return SCOPE.get(
        backend, "a backend this build has no measurement of; read its records with care."
    )


def llm_calls(scenes: int, characters: int) -> int:
    """The paper's cost of LLM annotation (LF-VideoQA §3, App. D): at least one call per
    character per scene (`beliefs annotate --dry-run` counts the exact calls)."""
    return max(scenes, 0) * max(characters, 0)
