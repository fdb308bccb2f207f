"""`storyscope judge`: grade answers' rubric claims (LF-VideoQA §3.3, App. F.2)."""

from __future__ import annotations

import json
import os
from typing import Annotated

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store
from pipelines.cli.parsing import parse_where
from pipelines.cli.scale_options import ExecutorOption, RayAddressOption
from pipelines.judge.backends import backend_names

# --where keys -> JudgeFilter fields (the question-field spellings of check-questions too)
WHERE_KEYS = {
    "film": "films",
    "film_id": "films",
    "qtype": "qtypes",
    "setting_id": "settings",
    "question_id": "question_ids",
    "type": "qtypes",
    "setting": "settings",
    "question": "question_ids",
    "status": "statuses",
}


@app.command()
def judge(
    store: StoreOption = None,
    judge_name: Annotated[
        str | None,
        typer.Option(
            "--judge",
            envvar="STORYSCOPE_JUDGE",
            help="Judge name (default: model@prompt-version, or the offline backend's name).",
        ),
    ] = None,
    backend: Annotated[
        str,
        typer.Option(envvar="STORYSCOPE_JUDGE_BACKEND", help=" | ".join(backend_names())),
    ] = "lexical",
    model: Annotated[str | None, typer.Option(help="Model (openai backend).")] = None,
    prompt: Annotated[
        str,
        typer.Option(
            envvar="STORYSCOPE_JUDGE_PROMPT",
            help="Judge prompt version: judge-claims-v2 (App. F.2's rules only, default) or "
            "judge-claims-v1 (adds our rules; docs/JUDGE.md).",
        ),
    ] = "judge-claims-v2",
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint.")] = None,
    api_key: Annotated[
        str | None,
        typer.Option(help="API key (prefer the env var).", envvar="STORYSCOPE_LLM_API_KEY"),
    ] = None,
    concurrency: Annotated[int | None, typer.Option(help="Requests in flight.")] = None,
    budget_usd: Annotated[float | None, typer.Option(help="Stop once this is spent.")] = None,
    budget_tokens: Annotated[
        int | None, typer.Option(help="Stop once this many tokens are spent.")
    ] = None,
    where: Annotated[
        list[str] | None,
        typer.Option(
            help="Slice filter KEY=V1,V2 (film, type, setting, question, status); several"
            " joined by ';' or the option repeated, for AND."
        ),
    ] = None,
    limit: Annotated[int | None, typer.Option(help="Judge at most N answers.")] = None,
    gold: Annotated[
        bool,
        typer.Option(
            "--gold", help="Gold self-check: judge each reference answer against its own rubric."
        ),
    ] = False,
    dry_run_only: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            envvar="STORYSCOPE_JUDGE_DRY_RUN",
            help="Print items, cache hits and estimated tokens/cost; write nothing.",
        ),
    ] = False,
    background: Annotated[
        bool, typer.Option("--background", help="Run as a background job process and print its id.")
    ] = False,
    executor: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    as_json: JsonOption = False,
) -> None:
    """Label every rubric claim of the selected answers asserted / contradicted / omitted."""
    from pipelines.jobs import job_status, start_job
    from pipelines.judge import JudgeOptions, dry_run
    from pipelines.judge.prompt import check_version
    from pipelines.llm.failures import failure_lines
    from pipelines.scale import executor_name

    if backend not in backend_names():
        raise fail(f"--backend {backend!r}: expected one of {', '.join(backend_names())}")
    try:
        llm = {
            k: v
            for k, v in {
                "model": model,
                "base_url": base_url,
                "concurrency": concurrency,
                "budget_usd": budget_usd,
                "budget_tokens": budget_tokens,
            }.items()
            if v is not None
        }
        options = JudgeOptions(
            backend=backend,
            judge_name=judge_name,
            prompt_version=check_version(prompt),
            where=parse_where(where, WHERE_KEYS),
            limit=limit,
            gold=gold,
            llm=llm,
            executor=executor_name(executor),
            ray_address=ray_address,
        )
        options.identity()
    except ValueError as exc:
        raise fail(str(exc)) from None
    handle = open_store(store, mode="write")
    if dry_run_only:
        plan = dry_run(handle, options)
        _print_plan(plan, as_json)
        return
    env = {"STORYSCOPE_LLM_API_KEY": api_key} if api_key else None
    if api_key and not background:
        os.environ["STORYSCOPE_LLM_API_KEY"] = api_key  # this process only; never stored
    job_id = start_job(
        handle, "judge", options.params(), mode="subprocess" if background else "inline", env=env
    )
    status = job_status(handle, job_id)
    if as_json:
        keys = ("job_id", "state", "run_id", "done", "failed", "total", "cost_usd", "failures")
        typer.echo(json.dumps({k: status[k] for k in keys}, default=str))
    else:
        typer.echo(
            f"job {job_id}: {status['state']}  judge run {status['run_id']}  "
            f"done {status['done']}/{status['total']}  failed {status['failed']}  "
            f"cost ${status['cost_usd']:.4f}"
        )
        for line in failure_lines(status["failures"]):
            typer.echo(line)
    if status["state"] == "failed":
        from pipelines.cli.faults import failed_job_fault

        fault = failed_job_fault(job_id, status["error"])
        raise fail(f"judge {fault.text}", fault.code)


def _print_plan(plan: dict, as_json: bool) -> None:
    if as_json:
        typer.echo(json.dumps(plan, default=str))
        return
    typer.echo(
        f"dry run: judge {plan['judge']} ({plan['backend']}) would grade "
        f"{plan['answers']} answers / {plan['claims']} claims"
    )
    for item in plan["items"][:20]:
        typer.echo(f"  {item['answer_id']}  ({item['setting_id']})")
    if len(plan["items"]) > 20:
        typer.echo(f"  ... and {len(plan['items']) - 20} more")
    if "mode" in plan:
        typer.echo(f"structured output: {plan['mode']} ({plan['mode_source']})")
    typer.echo(
        f"cache hits {plan['cache_hits']}; estimated tokens "
        f"{plan['est_prompt_tokens']:,} in + {plan['est_completion_tokens']:,} out; "
        f"estimated cost ${plan['est_cost_usd']:.4f}"
    )
