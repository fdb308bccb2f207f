"""The one registry of belief-annotation backends: a name, whether it is offline, and its
runners.

`storyscope beliefs annotate` and `annotate-many` take their `--backend` choices and help from
`BELIEF_BACKENDS`, the dispatcher (`annotate.annotate`) and the scaled path
(`scaled.annotate_films`) their functions, an offline run its `runs.note`, and gold-eval the
offline backends it scores. Adding a backend is one `register_backend` here. Functions are
named "module:function" and imported on first use (as `pipelines.jobs.JOB_KINDS` does), so
reading the registry loads neither MiniLM nor the LLM client.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BeliefBackend:
    """One belief backend.

    Attributes:
        name: the `--backend` value and the `belief_*` rows' backend column.
        description: one line for the CLI's help and the docs.
        annotate: "module:function" `(store, film_id, selection, dry_run=..., **options)`
            annotating one film (`annotate.annotate` dispatches to it).
        note: an offline run's `runs.note` (what it is); None for an LLM backend, whose run
            names its model.
        rows: an offline backend's "module:function" `(film_id, loaded, selection)` computing
            a scene range's rows on a worker (`scaled.annotate_films`); None for an LLM one.
        many: "module:function" annotating many films on an executor, where the backend has
            its own scaled path (the LLM stages, `llm.scaled`).
    """

    name: str
    description: str
    annotate: str
    note: str | None = None
    rows: str | None = None
    many: str | None = None

    @property
    def offline(self) -> bool:
        return self.note is not None

    def annotate_function(self):
        return _resolve(self.annotate)

    def rows_function(self):
        return _resolve(self.rows) if self.rows else None

    def many_function(self):
        return _resolve(self.many) if self.many else None


BELIEF_BACKENDS: dict[str, BeliefBackend] = {}


def register_backend(backend: BeliefBackend) -> BeliefBackend:
    """Add a backend to the registry (its name must be new)."""
    if backend.name in BELIEF_BACKENDS:
        raise ValueError(f"belief backend {backend.name!r} registered twice")
    BELIEF_BACKENDS[backend.name] = backend
    return backend


def belief_backend(name: str) -> BeliefBackend | None:
    """The backend called `name`, or None."""
    return BELIEF_BACKENDS.get(name)


def backend_names() -> tuple[str, ...]:
    return tuple(BELIEF_BACKENDS)


def offline_backend_names() -> tuple[str, ...]:
    return tuple(name for name, backend in BELIEF_BACKENDS.items() if backend.offline)


def backends_help() -> str:
    """The `--backend` help: every backend with its one line."""
    return "; ".join(f"{b.name}: {b.description}" for b in BELIEF_BACKENDS.values())


def backends_table() -> str:
    """The docs' table of the backends (docs/BELIEFS_ASYMMETRY.md holds it; a test keeps it
    current)."""
    rows = ["| backend | offline | what it is |", "|---|---|---|"]
    rows += [
        f"| `{b.name}` | {'yes' if b.offline else 'no (LLM)'} | {b.description} |"
        for b in BELIEF_BACKENDS.values()
    ]
    return "\n".join(rows)


def _resolve(target: str) -> Any:
    module, name = target.split(":", 1)
    return getattr(importlib.import_module(module), name)


register_backend(
    BeliefBackend(
        "rules",
        "offline rules: presence, witnessed events, statements told",
        annotate="pipelines.beliefs.rules.film:annotate_with_rules",
        note="offline rules over the stored screenplay (no LLM)",
        rows="pipelines.beliefs.rules.film:rules_rows",
    )
)
register_backend(
    BeliefBackend(
        "asymmetry",
        "offline information-asymmetry tracker: false beliefs, revisions, meta-beliefs",
        annotate="pipelines.beliefs.asymmetry.film:annotate_with_asymmetry",
        note="offline information-asymmetry tracker over the stored screenplay (no LLM)",
        rows="pipelines.beliefs.asymmetry.film:asymmetry_rows",
    )
)
register_backend(
    BeliefBackend(
        "openai",
        "the LLM stages of LF-VideoQA Tables 18-21 through the gateway",
        annotate="pipelines.beliefs.llm.film:annotate_llm",
        many="pipelines.beliefs.llm.scaled:annotate_films_llm",
    )
)
