"""The one job panel behind "Rerun judge on this slice" and "Generate on this slice":
backend choice (openai only when an endpoint is configured, else the offline backend,
labelled as such), a dry run that writes nothing, a start button, the job's progress polled by a
fragment off the script thread, and the ended job's outcome.

What differs between the two buttons (what a plan shows, how progress reads, what the outcome
shows) is passed in as a `JobPanel`; widget and session keys are `<prefix>_backend`,
`<prefix>_dry_run`, `<prefix>_plan`, `<prefix>_start` and `<prefix>_job`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from ui.common import current_store, read_only, read_only_note, refuse_if_read_only

NO_ENDPOINT = (
    "No LLM endpoint configured (STORYSCOPE_LLM_BASE_URL, an API key or "
    ".streamlit/secrets.toml): only the {offline} is available."
)


def configured_endpoint():
    """The configured LLM endpoint, or None when none is configured."""
    from pipelines.llm import load_config

    config = load_config()
    return config if (config.base_url or config.api_key) else None


@dataclass(frozen=True)
class JobPanel:
    """One button's specifics; the panel does the rest."""

    prefix: str  # session and widget key prefix
    job_kind: str  # the `pipelines.jobs` kind started
    noun: str  # "Judge" / "Generation", as messages name the job
    verb: str  # "judge" / "generate": what the job does to the slice
    backend_label: str  # the radio's label
    offline_backend: str
    offline_label: str  # how the offline backend is named wherever it shows
    offline_name: str  # "offline lexical judge", for the no-endpoint note
    start_label: str
    plan: Callable  # (store, options) -> plan dict; raises one of plan_errors when it cannot
    has_work: Callable[[dict], bool]  # plan -> whether starting makes sense
    show_plan: Callable  # (plan, endpoint) -> None
    progress: Callable[[dict], tuple[float, str]]  # job status -> (fraction, text)
    show_outcome: Callable  # (started, finished job status) -> None
    remember: Callable = lambda store, options, plan: {}  # extra state kept with the job
    plan_errors: tuple[type[Exception], ...] = ()
    dry_run_label: str = "Dry run"  # told apart where two panels share a page


def choose_backend(panel: JobPanel):
    """The backend radio; returns (backend, endpoint or None). Not drawn in read-only mode,
    where no job can start (`dry_run_start_and_follow` says so)."""
    if read_only():
        return panel.offline_backend, None
    endpoint = configured_endpoint()
    backends = (["openai"] if endpoint else []) + [panel.offline_backend]
    backend = st.radio(
        panel.backend_label,
        backends,
        key=f"{panel.prefix}_backend",
        horizontal=True,
        format_func=lambda b: (
            panel.offline_label if b == panel.offline_backend else f"openai · {endpoint.model}"
        ),
    )
    if not endpoint:
        st.caption(NO_ENDPOINT.format(offline=panel.offline_name))
    return backend, endpoint


def dry_run_start_and_follow(panel: JobPanel, options, endpoint) -> None:
    """Dry run, start, then progress while the job runs or its outcome once it has ended."""
    if read_only():
        read_only_note(f"Starting a {panel.verb} job (it writes a run and spends API budget)")
        return
    _dry_run_and_start(panel, options, endpoint)
    started = st.session_state.get(f"{panel.prefix}_job")
    if not started:
        return
    from pipelines.jobs import job_status

    status = job_status(current_store(), started["job_id"])
    if status["state"] in ("queued", "running"):
        job_progress(panel)
    elif status["state"] != "finished":
        st.error(
            f"{panel.noun} job {started['job_id']} ended {status['state']}: "
            f"{status['error'] or 'no error recorded'}"
        )
    else:
        panel.show_outcome(started, status)


def _dry_run_and_start(panel: JobPanel, options, endpoint) -> None:
    # the plan is kept with the slice it was made for: changing a filter asks for a new dry run
    slice_key = repr(options.params())
    plan_key = f"{panel.prefix}_plan"
    if st.button(panel.dry_run_label, key=f"{panel.prefix}_dry_run"):
        try:
            st.session_state[plan_key] = (slice_key, panel.plan(current_store(), options))
        except panel.plan_errors as exc:
            st.session_state[plan_key] = (slice_key, {"error": str(exc)})
    made_for, plan = st.session_state.get(plan_key, (None, None))
    if plan is None or made_for != slice_key:
        st.caption(
            f"Start with a dry run: it shows what the job would {panel.verb} and cost,"
            " and writes nothing."
        )
    elif "error" in plan:
        st.warning(f"Cannot {panel.verb} on this slice: {plan['error']}")
    else:
        panel.show_plan(plan, endpoint)
        start = st.button(
            panel.start_label,
            key=f"{panel.prefix}_start",
            type="primary",
            disabled=not panel.has_work(plan),
        )
        if start:
            _start(panel, options, plan)


def _start(panel: JobPanel, options, plan: dict) -> None:
    from pipelines.jobs import start_job

    if refuse_if_read_only(f"a {panel.verb} job"):
        return
    store = current_store()
    extra = panel.remember(store, options, plan)  # before the job writes its run
    job_id = start_job(store, panel.job_kind, options.params(), mode="thread")
    st.session_state[f"{panel.prefix}_job"] = {"job_id": job_id, **extra}


@st.fragment(run_every=1.0)
def job_progress(panel: JobPanel) -> None:
    """Polls the job row (uncached: progress moves); reruns the page once the job has ended."""
    from pipelines.jobs import job_status

    started = st.session_state[f"{panel.prefix}_job"]
    status = job_status(current_store(), started["job_id"])
    fraction, text = panel.progress(status)
    st.progress(min(1.0, fraction), text=f"job {started['job_id']} · {status['state']} · {text}")
    if status["state"] not in ("queued", "running"):
        st.rerun()
