"""`storyscope beliefs annotate`: belief records for a film already in the store.

A dispatcher over the backends of the registry (`pipelines.beliefs.backends`): 'rules'
(offline), 'asymmetry' (offline information-asymmetry tracker: false beliefs, revisions,
meta-beliefs) and 'openai' (the LLM stages of Tables 18–21 through the gateway). All read
the stored scenes and script lines (`pipelines.beliefs.backend_io.load_film`), so any ingested
film works, and all write through `data_access.tables.belief_records.write_annotation`. Output rows
carry the run's backend; a dry run computes without writing.
"""

from __future__ import annotations

from data_access.store import Store
from pipelines.beliefs.backend_io import (
    AnnotateError,
    AnnotationResult,
    Selection,
    parse_scene_range,
)
from pipelines.beliefs.backends import backend_names, belief_backend

__all__ = ["AnnotateError", "AnnotationResult", "Selection", "annotate", "parse_scene_range"]


def annotate(
    store: Store,
    film_id: str,
    backend: str = "rules",
    selection: Selection | None = None,
    dry_run: bool = False,
    **llm_options,
) -> AnnotationResult:
    """Annotate a film with one backend and (unless dry_run) store the rows as one run."""
    selection = selection or Selection()
    found = belief_backend(backend)
    if found is None:
        raise AnnotateError(f"unknown backend {backend!r}: use {', '.join(backend_names())}")
    # (imported on first use, so the offline path never loads the LLM client)
    run = found.annotate_function()
    options = {} if found.offline else llm_options
    return run(store, film_id, selection, dry_run=dry_run, **options)
