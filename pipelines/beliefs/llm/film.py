"""One LLM belief annotation of a film (`storyscope beliefs annotate --backend openai`): the
calls a dry run would make, the run's provenance, and the run itself.

`--dry-run` counts the calls of both coverage policies. Otherwise the stages (llm/stages.py) run
scene by scene through one gateway (cache, retries, budget); a rerun replays cached calls, so an
interrupted run resumes at no cost. Rows are written at the end in one transaction, with what the
parsers could not use.
"""

from __future__ import annotations

from data_access.store import Store
from data_access.tables import belief_records
from data_access.tables.runs import RunSpec, start_run
from pipelines.beliefs.backend_io import AnnotationResult, Selection, load_film
from pipelines.beliefs.llm.prompts import PROMPT_VERSION
from pipelines.beliefs.llm.stages import (
    DEFAULT_COVERAGE,
    GROUP_SIZE,
    BeliefAnnotator,
    check_coverage,
)
from pipelines.llm import Gateway, load_config

BACKEND = "openai"


def planned_calls(store: Store, film_id: str, selection: Selection) -> dict[str, int]:
    """Calls per coverage policy: 'paper' is exact (every character, every call, every scene);
    'present' is an estimate that takes the characters a scene lists (speakers, names in its
    directions) as the ones the presence call will find present, since the real count depends
    on the model's presence replies."""
    annotator = BeliefAnnotator.__new__(BeliefAnnotator)
    annotator.selection = selection
    loaded = load_film(store, film_id)
    annotator.scenes, annotator.roster = loaded.scenes, loaded.roster
    characters = annotator.characters()
    scenes = [i for i in annotator.scenes if selection.has_scene(i)]
    groups = max(1, -(-max(len(characters) - 1, 0) // GROUP_SIZE))
    paper = len(scenes) * (1 + 2 * len(characters) + len(characters) * groups)
    present = 0
    for index in scenes:
        listed = set(annotator.listed(annotator.scenes[index])) & set(characters)
        present += 1 + len(characters) + len(listed) * (1 + groups)
    return {"paper": paper, "present": present}


def llm_run_spec(film_id: str, selection: Selection, coverage: str, config) -> RunSpec:
    """The `beliefs.annotate` run of an LLM annotation of `selection`."""
    return RunSpec(
        "beliefs.annotate",
        backend=BACKEND,
        model=config.model,
        prompt_version=PROMPT_VERSION,
        source=film_id,
        params={
            "scenes": [selection.first, selection.stop],
            "characters": selection.characters,
            "coverage": coverage,
            **config.public_dict(),
        },
    )


def annotate_llm(
    store: Store,
    film_id: str,
    selection: Selection,
    dry_run: bool = False,
    config=None,
    budget_usd: float | None = None,
    coverage: str = DEFAULT_COVERAGE,
) -> AnnotationResult:
    """Annotate a film through the gateway (backend 'openai'); see the module docstring.

    Args:
        coverage: 'paper' (every character, every call, every scene; App. D) or 'present'.
    """
    check_coverage(coverage)
    config = config or load_config({"budget_usd": budget_usd})
    if dry_run:
        calls = planned_calls(store, film_id, selection)
        params = {
            "calls": calls[coverage],
            "calls_by_coverage": calls,
            "extra_calls_for_paper_coverage": calls["paper"] - calls["present"],
            "coverage": coverage,
            "model": config.model,
        }
        return AnnotationResult(film_id, BACKEND, {}, params)
    load_film(store, film_id)  # fail before a run exists when the film is unusable
    run_id = start_run(store, llm_run_spec(film_id, selection, coverage, config))
    gateway = Gateway(store, config, run_id)
    annotator = BeliefAnnotator(store, film_id, selection, gateway, coverage)
    annotator.run()
    status = "stopped" if annotator.stopped else "finished"
    _, counts = belief_records.write_annotation(
        store, run_id, annotator.tables, annotator.issues, status, annotator.failed
    )
    return AnnotationResult(
        film_id,
        BACKEND,
        dict(annotator.tables),
        {"failed": annotator.failed, "unparsed": len(annotator.issues), "status": status},
        run_id,
        counts,
    )
