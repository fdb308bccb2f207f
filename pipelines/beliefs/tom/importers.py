"""Import ToM datasets into the store as stories with tracker-computed belief records.

Everything is parsed and tracked before the store is touched; then one transaction writes the
import run (films, scenes, script lines, scene events) and the tracker run (presence, beliefs,
meta-beliefs, backend 'symbolic-tracker'), so a bad file leaves the store as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from data_access.store import Store, append_rows
from data_access.store.interrupts import telling_interrupts
from data_access.tables import belief_records
from data_access.tables.films import ensure_dataset
from data_access.tables.runs import RunSpec, finish_run, insert_run
from pipelines.beliefs.tom import bigtom, hitom, opentom, perceptom
from pipelines.beliefs.tom.events import TomStory
from pipelines.beliefs.tom.records import (
    BACKEND,
    StoryRecords,
    labelled_perceiver_records,
    story_records,
)
from pipelines.beliefs.tom.tracker import Trace, track


@dataclass(frozen=True)
class TomSource:
    """How one ToM dataset is read, tracked and described."""

    dataset_id: str
    name: str
    licence: str
    source: str
    load: Callable[[Path], list[TomStory]]
    trace: Callable[[TomStory], Trace]
    title: Callable[[TomStory], str]


def _plain_trace(story: TomStory) -> Trace:
    return track(story.events, story.agents)


def _bigtom_trace(story: TomStory) -> Trace:
    return track(story.events, [story.meta["agent"]])


def _hitom_title(story: TomStory) -> str:
    meta = story.meta
    tell = "deception" if meta.get("deception") else "no deception"
    return (
        f"Hi-ToM {meta.get('prompting_type')} #{meta.get('sample_id')} · order"
        f" {meta.get('question_order')} · {tell} · {meta.get('story_length')} chapter(s)"
    )


def _perceptom_load(path: Path) -> list[TomStory]:
    path = Path(path)
    return perceptom.load_tomi(path / "Percept-ToMi.csv" if path.is_dir() else path)


SOURCES: dict[str, TomSource] = {
    "hitom": TomSource(
        "hitom",
        "Hi-ToM",
        "Apache-2.0",
        "github.com/ying-hui-he/Hi-ToM_dataset",
        hitom.load_stories,
        hitom.trace_story,
        _hitom_title,
    ),
    "perceptom": TomSource(
        "perceptom",
        "Percept-ToMi",
        "none stated (research only)",
        "github.com/chanijung/PercepToM",
        _perceptom_load,
        _plain_trace,
        lambda s: f"Percept-ToMi {s.story_id.rsplit('-', 1)[-1]} · {s.meta['qType']}",
    ),
    "bigtom": TomSource(
        "bigtom",
        "BigToM",
        "MIT",
        "github.com/cicl-stanford/procedural-evals-tom",
        bigtom.load_stories,
        _bigtom_trace,
        lambda s: f"BigToM #{s.meta['row']} · {s.meta['condition'].replace('_', ' ')}",
    ),
    "opentom": TomSource(
        "opentom",
        "OpenToM",
        "CC BY-NC 4.0",
        "github.com/seacowx/OpenToM",
        opentom.load_stories,
        _plain_trace,
        lambda s: (
            f"OpenToM {s.story_id.split('-', 1)[1]} · "
            f"{'observed' if s.meta.get('observed') else 'unobserved'}"
        ),
    ),
}


@dataclass
class ImportSummary:
    """What an import wrote."""

    dataset_id: str
    stories: int
    rows: dict[str, int]
    import_run: str
    tracker_run: str


def build_records(name: str, path: Path, limit: int | None = None) -> list[StoryRecords]:
    """Parse and track a dataset (no store access); raises TomFormatError on bad input."""
    source = SOURCES[name]
    stories = source.load(Path(path))[:limit] if limit else source.load(Path(path))
    records = []
    for story in stories:
        chains = [q.chain for q in story.questions if len(q.chain) > 2]
        records.append(story_records(story, source.trace(story), source.title(story), chains))
    return records


def fantom_records(path: Path, limit: int | None = None) -> list[StoryRecords]:
    """Percept-FANToM parts with the dataset's labelled perceivers (no tracker involved)."""
    stories = perceptom.load_fantom(path)[:limit] if limit else perceptom.load_fantom(path)
    return [
        labelled_perceiver_records(s, f"Percept-FANToM part {s.meta['part_id']}") for s in stories
    ]


def import_tom(store: Store, name: str, path: Path, limit: int | None = None) -> ImportSummary:
    """Import one ToM dataset (all of it, or its first `limit` stories) in one transaction.

    For PercepToM given as a folder, the Percept-FANToM conversations come too, their presence
    and told rows under a run labelled 'dataset-perceivers' (the dataset's labels, not ours).
    """
    source, path = SOURCES[name], Path(path)
    groups = [
        (
            build_records(name, path, limit),
            BACKEND,
            "symbolic belief tracker over the dataset's events (no LLM)",
        )
    ]
    fantom = path / "Percept-FANToM.csv"
    if name == "perceptom" and path.is_dir() and fantom.is_file():
        groups.append(
            (
                fantom_records(fantom, limit),
                "dataset-perceivers",
                "presence and told lines from Percept-FANToM's labelled perceivers",
            )
        )
    records = [r for group, _, _ in groups for r in group]
    params = {"dataset": name, "limit": limit, "stories": len(records)}
    counts: dict[str, int] = {}
    told = telling_interrupts(store, f"import.{name}", str(path), f"the import of {path}")
    with told, store.transaction() as cursor:
        import_run = insert_run(
            cursor, RunSpec(f"import.{name}", backend="import", params=params, source=str(path))
        )
        ensure_dataset(
            cursor, source.dataset_id, source.name, "tom", source.source, source.licence, import_run
        )
        belief_records.ensure_films(cursor, [r.film for r in records], import_run)
        _write_tables(
            cursor, records, ("scenes", "script_lines", "scene_events"), import_run, counts
        )
        belief_runs = []
        for group, backend, note in groups:
            run_id = insert_run(
                cursor,
                RunSpec(
                    "beliefs.track", backend=backend, params=params, source=str(path), note=note
                ),
            )
            _write_tables(cursor, group, ("presence", "beliefs", "meta_beliefs"), run_id, counts)
            finish_run(cursor, run_id, n_items=len(group), n_failed=0)
            belief_runs.append(run_id)
        finish_run(cursor, import_run, n_items=len(records), n_failed=0)
    return ImportSummary(source.dataset_id, len(records), counts, import_run, belief_runs[0])


def _write_tables(cursor, records: list[StoryRecords], tables, run_id: str, counts: dict) -> None:
    for table in tables:
        rows = [row for r in records for row in getattr(r, table)]
        counts[table] = counts.get(table, 0) + append_rows(
            cursor, table, rows, belief_records.COLUMNS[table], fixed={"run_id": run_id}
        )
