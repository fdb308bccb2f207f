"""Belief records: ToM dataset importers, a symbolic belief tracker, the offline rules backend
for screenplays and the LLM annotation stages of LF-VideoQA (§3.1, App. D, Tables 18–21).

Public entry points:
- `track` / `BeliefTracker` / `Trace`: replay events, read nested beliefs and perceivers;
- `EVALUATORS`: dataset name -> `evaluate(path) -> EvalResult` (`storyscope beliefs eval`).
"""

from pipelines.beliefs.tom.events import StoryEvent, TomQuestion, TomStory
from pipelines.beliefs.tom.tracker import BeliefTracker, Trace, track


def _evaluators():
    from pipelines.beliefs.tom import bigtom, hitom, opentom, perceptom

    return {
        "hitom": hitom.evaluate,
        "perceptom": perceptom.evaluate,
        "bigtom": bigtom.evaluate,
        "opentom": opentom.evaluate,
    }


def evaluator(name: str):
    """The evaluator of one ToM dataset (KeyError for an unknown name)."""
    return _evaluators()[name]


__all__ = ["BeliefTracker", "StoryEvent", "TomQuestion", "TomStory", "Trace", "evaluator", "track"]
