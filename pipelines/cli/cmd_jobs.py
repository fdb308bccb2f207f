"""`storyscope jobs ...`: list, inspect, run, resume and stop background jobs."""

from __future__ import annotations

import json

import typer

from pipelines.cli.app import JsonOption, StoreOption, app, fail, open_store

jobs_app = typer.Typer(help="Background jobs (judge, generation, ...).", no_args_is_help=True)
app.add_typer(jobs_app, name="jobs")
_FIELDS = (
    "job_id",
    "kind",
    "state",
    "run_id",
    "done",
    "failed",
    "total",
    "cost_usd",
    "tokens",
    "error",
)


@jobs_app.command("list")
def list_(store: StoreOption = None, as_json: JsonOption = False) -> None:
    """The newest jobs (a dead `running` job shows `interrupted`, as in `jobs status`)."""
    from pipelines.jobs import list_jobs

    frame = list_jobs(open_store(store, mode="read"))
    if as_json:
        typer.echo(frame.to_json(orient="records", date_format="iso"))
        return
    for row in frame.itertuples():
        typer.echo(
            f"{row.job_id}  {row.kind:<8} {row.state:<9} {row.done}/{row.total}"
            f"  failed {row.failed}  ${row.cost_usd:.4f}"
        )


@jobs_app.command()
def status(job_id: str, store: StoreOption = None, as_json: JsonOption = False) -> None:
    """One job's state and progress (a dead `running` job shows `interrupted`)."""
    from pipelines.jobs import job_status

    try:
        found = job_status(open_store(store, mode="read"), job_id)
    except ValueError as exc:
        raise fail(str(exc)) from None
    shown = {k: found[k] for k in (*_FIELDS, "alive", "resumable", "failures")}
    typer.echo(
        json.dumps(shown, default=str)
        if as_json
        else "\n".join(f"{k}: {v}" for k, v in shown.items())
    )


@jobs_app.command()
def run(job_id: str, store: StoreOption = None) -> None:
    """Execute a recorded job in this process (what background job processes run)."""
    from pipelines.cli.faults import IO_FAULT, failed_job_fault
    from pipelines.jobs import job_status, run_job_here

    handle = open_store(store, mode="write")
    try:
        state = run_job_here(handle, job_id)
    except ValueError as exc:
        raise fail(str(exc)) from None
    if state == "failed":
        fault = failed_job_fault(job_id, job_status(handle, job_id)["error"])
        if fault.code == IO_FAULT:  # a full disk, as the command that started the job says
            raise fail(fault.text, fault.code)
        raise typer.Exit(1)


@jobs_app.command()
def resume(
    job_id: str, store: StoreOption = None, background: bool = typer.Option(False, "--background")
) -> None:
    """Continue an interrupted, failed or stopped job under its run."""
    from pipelines.jobs import job_status, resume_job

    handle = open_store(store, mode="write")
    try:
        resume_job(handle, job_id, mode="subprocess" if background else "inline")
    except ValueError as exc:
        raise fail(str(exc)) from None
    found = job_status(handle, job_id)
    typer.echo(f"job {job_id}: {found['state']}  done {found['done']}/{found['total']}")


@jobs_app.command()
def stop(job_id: str, store: StoreOption = None) -> None:
    """Ask a job to stop after its current batch."""
    from pipelines.jobs import stop_job

    try:
        stop_job(open_store(store, mode="write"), job_id)
    except ValueError as exc:
        raise fail(str(exc)) from None
    typer.echo(f"stop requested for {job_id}")
