"""The `storyscope import` group: every dataset and result file into the store, one command each.

- `import lfvqa DIR`, `import storyvideoqa DIR`: the interchange format, a StoryVideoQA release
- `import storysumm DIR`, `import fables FILE`: human judge labels (pipelines/agreement/)
- `import tom DATASET PATH`: a ToM dataset as stories with tracker beliefs (pipelines/beliefs/)
- `import mcq-predictions FILE`: MCQ method predictions (pipelines/mcq/predictions.py)
- `import results PATH`: a harness's per-sample outputs (pipelines/results/, docs/FORMAT.md
  "Bring your results")

Each command says how it opens the store where it opens it (`open_store(..., mode=...)`): the
dataset imports may create a new store; predictions and results link to questions already in
one, so they open an existing store only. The names these commands had before the group held
them all, `beliefs import` and `mcq import-predictions`, stay as aliases.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from data_access.importers.results.formats import FORMAT_NAMES, MAP_FIELDS
from pipelines.cli.app import JsonOption, StoreOption, fail, import_app, open_store
from pipelines.cli.cmd_beliefs import DatasetArg, PathArg, beliefs_app
from pipelines.cli.cmd_mcq import mcq_app

FolderArg = Annotated[Path, typer.Argument(help="The dataset folder.", show_default=False)]


def _print_report(report, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(report.as_dict(), indent=2))
        return
    typer.echo(f"imported {report.source} as dataset {report.dataset_id} (run {report.run_id})")
    for table, n in report.rows.items():
        typer.echo(f"  {table:<20} {n:>10,}")
    for note in report.notes:
        typer.echo(f"  note: {note}")


def _run_import(importer, folder: Path, store: Path | None, as_json: bool) -> None:
    from data_access.importers import ImportFailure

    try:
        report = importer(open_store(store, mode="create"), folder)
    except ImportFailure as exc:
        raise fail(exc.describe()) from None
    _print_report(report, as_json)


@import_app.command("lfvqa")
def import_lfvqa(folder: FolderArg, store: StoreOption = None, as_json: JsonOption = False) -> None:
    """Import a folder in the interchange format (manifest.json + one file per table)."""
    from data_access.importers import import_lfvqa_dir

    _run_import(import_lfvqa_dir, folder, store, as_json)


@import_app.command("storyvideoqa")
def import_storyvideoqa(
    folder: FolderArg, store: StoreOption = None, as_json: JsonOption = False
) -> None:
    """Import a StoryVideoQA release: golden questions and aligned scripts (.xlsx or JSON)."""
    from data_access.importers import import_storyvideoqa_dir

    _run_import(import_storyvideoqa_dir, folder, store, as_json)


@import_app.command("storysumm")
def import_storysumm_cmd(
    directory: Annotated[
        Path, typer.Argument(help="StorySumm checkout (storysumm.json + predicted_labels/).")
    ],
    file: Annotated[
        Path | None, typer.Option(help="Main labels file (default DIR/storysumm.json).")
    ] = None,
    store: StoreOption = None,
) -> None:
    """Import StorySumm human sentence labels and recorded judge predictions."""
    from pipelines.agreement import import_storysumm

    if not directory.is_dir():
        raise fail(f"{directory}: not a directory")
    try:
        report = import_storysumm(open_store(store, mode="create"), directory, file)
    except (ValueError, OSError) as exc:
        raise fail(str(exc)) from None
    for note in report.notes:
        typer.echo(f"note: {note}")
    typer.echo(
        f"storysumm: {report.summaries} summaries; sentence labels "
        + ", ".join(f"{k} {v}" for k, v in report.sentence_labels.items())
    )
    typer.echo(
        "storysumm-summary: summary labels "
        + ", ".join(f"{k} {v}" for k, v in report.summary_labels.items())
    )
    for item in report.skipped:
        typer.echo(f"skipped: {item}")


@import_app.command("fables")
def import_fables_cmd(
    file: Annotated[Path, typer.Argument(help="FABLES.json (with or without its wrapper).")],
    lexical_evidence: Annotated[
        bool,
        typer.Option(
            "--lexical-evidence",
            help="Also label each claim against its evidence quotes with the "
            "offline lexical matcher (judge 'lexical-evidence').",
        ),
    ] = False,
    books: Annotated[int | None, typer.Option(help="Only the first N books.")] = None,
    store: StoreOption = None,
) -> None:
    """Import FABLES human claim labels (Yes/No/PartialSupport/Inapplicable)."""
    from pipelines.agreement import import_fables

    if not file.is_file():
        raise fail(f"{file}: no such file")
    try:
        report = import_fables(open_store(store, mode="create"), file, lexical_evidence, books)
    except (ValueError, OSError) as exc:
        raise fail(str(exc)) from None
    labels = ", ".join(f"{k} {v}" for k, v in sorted(report.by_label.items()))
    typer.echo(
        f"fables: {report.books} books, {report.summaries} summaries, {report.claims} "
        f"claims ({labels})"
        + (f"; lexical-evidence labels {report.lexical}" if report.lexical else "")
    )


@import_app.command("tom")
def import_tom(
    dataset: DatasetArg,
    path: PathArg,
    store: StoreOption = None,
    limit: Annotated[
        int | None, typer.Option(min=1, help="Import only the first N stories.")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Import a ToM dataset as stories (a story = a film, a sentence = a scene) with belief
    records computed by the symbolic tracker."""
    from data_access.tables.dataset_ids import DatasetIdTaken
    from data_access.tables.films import FilmIdTaken
    from pipelines.beliefs.tom.hitom import TomFormatError
    from pipelines.beliefs.tom.importers import import_tom as run_import

    if not path.exists():
        raise fail(f"{path}: no such file or folder")
    try:
        summary = run_import(open_store(store, mode="create"), dataset.value, path, limit)
    except (TomFormatError, FilmIdTaken, DatasetIdTaken) as exc:
        raise fail(str(exc)) from None
    if as_json:
        typer.echo(json.dumps(summary.__dict__))
        return
    rows = ", ".join(f"{table} {n:,}" for table, n in summary.rows.items())
    typer.echo(
        f"{summary.dataset_id}: {summary.stories} stories; {rows}"
        f" (tracker run {summary.tracker_run})"
    )


@import_app.command("mcq-predictions")
def import_predictions_cmd(
    path: Annotated[
        Path, typer.Argument(help="CSV, JSON or JSONL: mcq_id, method, predicted_option.")
    ],
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Import method predictions (question id, method, predicted option) for MCQs."""
    from pipelines.mcq.predictions import PredictionsError, import_predictions

    try:
        result = import_predictions(open_store(store, mode="write"), path)
    except PredictionsError as exc:
        raise fail(str(exc)) from exc
    if as_json:
        typer.echo(json.dumps(result, indent=2))
        return
    typer.echo(f"imported {result['n']} predictions (run {result['run_id']})")
    for method, row in result["methods"].items():
        typer.echo(f"  {method}: n={row['n']}  accuracy {row['accuracy']:.2f}%")


# the --format choices: `auto` and every registered format (data_access/importers/results/
# formats.py), so a new format is offered here without being listed again
ResultsFormat = StrEnum(
    "ResultsFormat", {name.replace("-", "_"): name for name in ("auto", *FORMAT_NAMES)}
)


class SettingSource(StrEnum):
    screenplay = "screenplay"
    subtitles = "subtitles"
    captions = "captions"
    captions_subtitles = "captions+subtitles"
    video = "video"
    video_subtitles = "video+subtitles"
    agent = "agent"


def _column_map(pairs: list[str]) -> dict[str, str]:
    mapping = {}
    for pair in pairs:
        field, sep, column = pair.partition("=")
        if not sep or not field.strip() or not column.strip():
            raise fail(f"--map {pair!r}: expected FIELD=COLUMN (e.g. question_id=doc_id)")
        mapping[field.strip()] = column.strip()
    return mapping


@import_app.command("results")
def import_results_command(
    path: Annotated[
        Path, typer.Argument(help="A harness's results file, or its folder.", show_default=False)
    ],
    format: Annotated[
        ResultsFormat, typer.Option("--format", help="The harness that wrote the file.")
    ] = ResultsFormat("auto"),
    setting: Annotated[
        str | None,
        typer.Option(help="Setting (or MCQ method) name; default <harness>:<model>:<task>."),
    ] = None,
    column_map: Annotated[
        list[str] | None,
        typer.Option(
            "--map",
            envvar="STORYSCOPE_IMPORT_RESULTS_MAP",
            help=f"FIELD=COLUMN ({', '.join(MAP_FIELDS)}; each format takes those its reader"
            " uses); repeatable.",
        ),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Read, link and report; write nothing.")
    ] = False,
    source: Annotated[
        SettingSource, typer.Option(help="What the model saw (the new setting's source).")
    ] = SettingSource.video,
    batch_input: Annotated[
        Path | None,
        typer.Option(help="The OpenAI Batch input JSONL the output answers.", show_default=False),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(
            help="The model, for a file that does not name it (samples without their results"
            " summary, a table).",
            show_default=False,
        ),
    ] = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Import per-sample results of lmms-eval, VLMEvalKit, inspect_ai, lm-evaluation-harness,
    the OpenAI Batch API or any table, linked to questions already in the store."""
    from data_access.importers import ImportFailure
    from pipelines.results import import_results

    try:
        report = import_results(
            open_store(store, mode="write"),
            path,
            format=format.value,
            setting=setting,
            column_map=_column_map(column_map or []),
            dry_run=dry_run,
            source=source.value,
            batch_input=batch_input,
            model=model,
        )
    except ImportFailure as exc:  # one line: the first problem names file, record and field
        more = f" (and {len(exc.problems) - 1} more)" if len(exc.problems) > 1 else ""
        would = "dry run: the import would be refused; " if dry_run else ""
        raise fail(f"{would}nothing was written: {exc.first}{more}") from None
    if as_json:
        typer.echo(json.dumps(report.as_dict(), indent=2))
    else:
        typer.echo("\n".join(report.lines()))
    if report.would_refuse:  # the dry run reported; it exits as the import would
        raise fail(
            f"dry run: the import would be refused; nothing was written: {report.would_refuse}"
        )


# the names these commands had before the import group held them all
beliefs_app.command("import", help="Alias of `storyscope import tom`.")(import_tom)
mcq_app.command("import-predictions", help="Alias of `storyscope import mcq-predictions`.")(
    import_predictions_cmd
)
