"""`storyscope beliefs annotate`: belief records for a film already in the store.

A dispatcher over the backends: 'rules' (offline, `pipelines.beliefs.rules_annotate`),
'asymmetry' (offline information-asymmetry tracker: false beliefs, revisions, meta-beliefs;
`pipelines.beliefs.asymmetry_film`, issue 28) and 'openai' (the LLM stages of Tables 18–21
through the gateway, `pipelines.beliefs.llm_annotate`). All read the stored scenes and script
lines (`pipelines.beliefs.annotation.load_film`), so any ingested film works, and all write
through `data_access.writes.beliefs.write_annotation`. Output rows carry the run's backend; a dry
run
computes without writing.
"""

from __future__ import annotations

from data_access.store import Store
from pipelines.beliefs.annotation import (
    AnnotateError,
    AnnotationResult,
    Selection,
    parse_scene_range,
)

__all__ = ["AnnotateError", "AnnotationResult", "Selection", "annotate", "parse_scene_range"]

BACKENDS = ("rules", "asymmetry", "openai")


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
    if backend == "rules":
        from pipelines.beliefs.rules_annotate import annotate_with_rules

        return annotate_with_rules(store, film_id, selection, dry_run=dry_run)
    if backend == "asymmetry":
        from pipelines.beliefs.asymmetry_film import annotate_with_asymmetry

        return annotate_with_asymmetry(store, film_id, selection, dry_run=dry_run)
    if backend == "openai":
        # imported here so the offline path never loads the LLM client
        from pipelines.beliefs.llm_annotate import annotate_llm

        return annotate_llm(store, film_id, selection, dry_run=dry_run, **llm_options)
    raise AnnotateError(f"unknown backend {backend!r}: use {', '.join(BACKENDS)}")
