"""`storyscope plottree build|ask|ask-mcqs` (StoryVideoQA §5)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store
from pipelines.cli.scale_options import ExecutorOption, RayAddressOption
from pipelines.progress import report

plottree_app = typer.Typer(
    help="PlotTree: build hierarchical plot trees and ask them (§5).", no_args_is_help=True
)
app.add_typer(plottree_app, name="plottree")

FilmOption = Annotated[str, typer.Option("--film", help="Film / episode id (e.g. Friends-S01E01).")]
BackendOption = Annotated[
    str,
    typer.Option(
        "--backend",
        envvar="STORYSCOPE_PLOTTREE_BACKEND",
        help="offline (extractive summaries; MCQs answered by minilm-option-match) or openai"
        " (the LLM gateway).",
    ),
]
ModelOption = Annotated[str | None, typer.Option("--model", help="LLM model (openai backend).")]


def _llm_config(backend: str, model: str | None):
    if backend == "offline":
        return None
    if backend != "openai":
        raise fail(f"--backend {backend!r}: expected offline or openai")
    from pipelines.llm import load_config

    try:
        return load_config({"model": model})
    except ValueError as exc:
        raise fail(str(exc)) from exc


def _films_to_build(
    handle, film: str | None, all_films: bool, dataset: str | None, skip_built: bool
) -> list[str]:
    from data_access.queries.plottree_view import films_with_tree
    from data_access.tables.plottree_records import films_with_timeline

    if not all_films:
        return [film] if film else []
    films = list(films_with_timeline(handle, dataset)["film_id"])
    if skip_built:
        built = set(films_with_tree(handle)["film_id"])
        films = [f for f in films if f not in built]
    return films


@plottree_app.command("build")
def build(
    film: Annotated[str | None, typer.Option("--film", help="Film / episode id.")] = None,
    all_films: Annotated[
        bool,
        typer.Option(
            "--all", envvar="STORYSCOPE_PLOTTREE_BUILD_ALL", help="Every film with subtitles."
        ),
    ] = False,
    dataset: Annotated[
        str | None,
        typer.Option(
            "--dataset", help="With --all: only this dataset's films (e.g. storyvideoqa)."
        ),
    ] = None,
    skip_built: Annotated[
        bool,
        typer.Option(
            "--skip-built", help="With --all: leave films that already have a tree (resume)."
        ),
    ] = False,
    leaf_seconds: Annotated[
        float | None,
        typer.Option(
            "--leaf-seconds",
            help="Fixed leaf windows of this many seconds (1 = the paper's 1 fps). "
            "Default: one leaf per timed scene, else per subtitle clip.",
        ),
    ] = None,
    node_embedding: Annotated[
        str,
        typer.Option(
            "--node-embedding",
            help="segment-pooled (each distinct segment encoded once) "
            "or full-text (each node text encoded whole; about 3x slower).",
        ),
    ] = "segment-pooled",
    backend: BackendOption = "offline",
    model: ModelOption = None,
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Build a film's PlotTree from its aligned subtitles and script (leaves -> root).

    Offline trees run one unit per film on --executor (a killed run resumes when the same
    command is given again); LLM summaries run here, film by film.
    """
    import time

    from pipelines.plottree.build import NODE_EMBEDDINGS, build_film_tree

    if node_embedding not in NODE_EMBEDDINGS:
        raise fail(
            f"--node-embedding {node_embedding!r}: expected one of {', '.join(NODE_EMBEDDINGS)}"
        )
    handle = open_store(store, mode="write")
    films = _films_to_build(handle, film, all_films, dataset, skip_built)
    if not films:
        raise fail("give --film F or --all (no film with subtitles left to build in the store)")
    config = _llm_config(backend, model)
    echo = (lambda m: typer.echo(m, err=True)) if as_json else typer.echo
    if config is None:
        built = _build_on_executor(
            handle, films, executor, ray_address, leaf_seconds, node_embedding, echo
        )
        if as_json:
            typer.echo(json.dumps({"trees": built}, indent=2))
        return
    if executor != "local":
        raise fail(
            "--backend openai builds trees here (--executor local): its summaries "
            "are cached through the store, which workers never open"
        )
    built, cpu, wall = [], time.process_time(), time.perf_counter()
    for number, film_id in enumerate(films):
        report("plottree build", number, len(films))
        try:
            built.append(
                build_film_tree(
                    handle, film_id, leaf_seconds, config, echo, node_embedding
                ).__dict__
            )
        except ValueError as exc:
            raise fail(str(exc)) from exc
    report("plottree build", len(films), len(films))
    if len(films) > 1:
        echo(
            f"plottree: {len(built)} trees in {time.perf_counter() - wall:.1f}s wall, "
            f"{time.process_time() - cpu:.1f}s CPU"
        )
    if as_json:
        typer.echo(json.dumps({"trees": built}, indent=2))


def _build_on_executor(
    handle, films, executor, ray_address, leaf_seconds, node_embedding, echo
) -> list[dict]:
    from pipelines.cli.scale_options import open_executor, progress_bar
    from pipelines.plottree.build import describe
    from pipelines.plottree.scaled import build_trees

    runner = open_executor(executor, ray_address)
    try:
        built, batch = build_trees(
            handle, films, runner, leaf_seconds, node_embedding, progress_bar("plottree")
        )
    except ValueError as exc:
        raise fail(str(exc)) from exc
    finally:
        runner.close()
    for tree in built:
        echo(describe(tree))
    echo(
        f"plottree: {batch.done}/{batch.total} trees on {batch.executor} "
        f"({batch.workers} workers) in {batch.wall_s:.1f}s wall"
        + (f", {batch.resumed_from} written before (resumed)" if batch.resumed_from else "")
    )
    if batch.failed:
        raise fail(f"{batch.failed} films failed (see above); run the same command to retry them")
    return [tree.__dict__ for tree in built]


@plottree_app.command("ask")
def ask_cmd(
    question: Annotated[str, typer.Argument(help="The question.")],
    film: FilmOption,
    top_m: Annotated[int, typer.Option("--top-m", help="M nodes to retrieve.")] = 32,
    backend: BackendOption = "offline",
    model: ModelOption = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """Retrieve the top-M nodes for a question (and answer it through the gateway)."""
    from pipelines.plottree.ask import ask, free_question

    if top_m < 1:
        raise fail("--top-m must be at least 1")
    config = _llm_config(backend, model)
    try:
        [(retrieval, answer)] = ask(
            open_store(store, mode="write"), film, [free_question(question)], top_m, config
        )
    except ValueError as exc:
        raise fail(str(exc)) from exc
    nodes = [
        {
            "id": r.node_id,
            "level": int(r.level),
            "score": round(float(r.score), 4),
            "start": float(r.start_s),
            "end": float(r.end_s),
        }
        for r in retrieval.nodes.itertuples()
    ]
    if as_json:
        typer.echo(json.dumps({"nodes": nodes, "answer": answer}, indent=2))
        return
    for node in nodes:
        typer.echo(
            f"{node['score']:.3f}  L{node['level']}  {node['start'] / 60:6.1f}-"
            f"{node['end'] / 60:6.1f} min  {node['id']}"
        )
    typer.echo(f"answer: {answer if answer is not None else '(none: offline backend)'}")


@plottree_app.command("ask-mcqs")
def ask_mcqs(
    film: FilmOption,
    top_m: Annotated[int, typer.Option("--top-m")] = 32,
    backend: BackendOption = "offline",
    model: ModelOption = None,
    store: StoreOption = None,
    as_json: JsonOption = False,
) -> None:
    """PlotTree QA on every MCQ of a film: `mcq answer --method plottree --where vid=FILM`
    (retrievals stored for the page, choices stored as the method's predictions)."""
    from pipelines.mcq.methods import AnswerOptions, answer_mcqs

    options = AnswerOptions(
        "plottree", where={"vid": [film]}, llm_config=_llm_config(backend, model), top_m=top_m
    )
    try:
        result = answer_mcqs(open_store(store, mode="write"), options)
    except ValueError as exc:
        message = f"no MCQs for film '{film}' in the store" if "no MCQs" in str(exc) else str(exc)
        raise fail(message) from exc
    if film in result["skipped"]:
        raise fail(f"film '{film}': {result['skipped'][film]}")
    summary = {"film": film, "questions": result["questions"], "answered": result["answered"]}
    typer.echo(
        json.dumps({**summary, "method": result["method"], "accuracy": result["accuracy"]})
        if as_json
        else f"{film}: {result['questions']} MCQs retrieved, {result['answered']} answered by"
        f" {result['method']} (accuracy {result['accuracy']}%)"
    )
