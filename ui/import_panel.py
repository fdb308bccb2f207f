"""Runs → Import results: upload one harness's results file (lmms-eval, VLMEvalKit,
inspect_ai, lm-evaluation-harness, OpenAI Batch output, or a table), see the dry-run report
first (what would link, what would be left out and why), then import it in one transaction
through `pipelines.results.import_results` — the same call as `storyscope import results`.

Local mode only: in read-only mode the panel is not drawn and an import is refused. The upload is
written to a private temporary folder for the reader (formats are told by file name and content)
and removed right after; nothing else is written outside the store. Report text names samples
from the file, so it is shown as plain text. A file that cannot be imported gets the reader's
error (file, record, field), never a traceback, and never the server's paths.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shlex
import tempfile
from pathlib import Path
from urllib.parse import urlencode

import streamlit as st

from data_access.importers.results.formats import upload_types
from ui.common import (
    current_store,
    mark_store_written,
    read_only,
    read_only_note,
    refuse_if_read_only,
)
from ui.safe_text import inert

# Streamlit's own cap (server.maxUploadSize) is 200 MB; results files of a full benchmark run are
# a few MB (6k open-ended answers), so the panel takes less and says to use the CLI beyond it.
UPLOAD_LIMIT_ENV = "STORYSCOPE_UPLOAD_LIMIT_MB"
DEFAULT_UPLOAD_LIMIT_MB = 50
UPLOAD_TYPES = upload_types()  # every ending a registered results format reads
_REPORT_KEY = "import_dry_run"
_log = logging.getLogger(__name__)


def upload_limit_mb() -> int:
    """The largest upload the panel takes, in MB: STORYSCOPE_UPLOAD_LIMIT_MB, else 50."""
    text = os.environ.get(UPLOAD_LIMIT_ENV) or str(DEFAULT_UPLOAD_LIMIT_MB)
    return int(text) if text.isdigit() and int(text) > 0 else DEFAULT_UPLOAD_LIMIT_MB


def _run_import(
    files: list[tuple[str, bytes]],
    format: str,
    setting: str | None,
    dry_run: bool,
    model: str | None = None,
):
    """`import_results` over the uploaded files, saved under their own names (the format, and
    which summary goes with which samples file, are told from them, as the harness named them)
    in a temporary folder removed afterwards: one file is imported as a file, several as the
    harness's run folder. Returns the report or an error text."""
    from data_access.importers.errors import ImportFailure
    from data_access.store import StoreBusy, StoreProblem
    from pipelines.results import import_results

    with tempfile.TemporaryDirectory(prefix="storyscope-upload-") as folder:
        for name, data in files:
            (Path(folder) / Path(name).name).write_bytes(data)
        path = Path(folder) / _import_target(files)
        try:
            return import_results(
                current_store(),
                path,
                format=format,
                setting=setting,
                dry_run=dry_run,
                model=model,
            )
        except (ImportFailure, StoreProblem, StoreBusy) as exc:
            return _without_folder(str(exc), folder)
        except Exception as exc:  # a reader fault without its own message: never a traceback
            _log.exception("importing the upload %s failed", path.name)
            shown = path.name if len(files) == 1 else ", ".join(name for name, _ in files)
            return (
                f"{shown}: could not be read ({type(exc).__name__}); nothing was written."
                " `storyscope import results FILE` names the record."
            )


def _import_target(files: list[tuple[str, bytes]]) -> str:
    """What to import in the upload folder: the one file, the one samples file beside its
    summary (every harness version pairs them by name, lmms-eval 0.2.0's `<task>.json` with
    `results.json` too), else the folder as a harness's run folder ("" is the folder)."""
    from pipelines.results.harness_samples import is_summary_name

    names = [Path(name).name for name, _ in files]
    samples = [name for name in names if not is_summary_name(name)]
    if len(names) == 1 or len(samples) == 1:
        return names[0] if len(names) == 1 else samples[0]
    return ""


def _without_folder(text: str, folder: str) -> str:
    """The message with the temporary folder the upload sat in taken out (the visitor named
    the file, not the server's path)."""
    return text.replace(folder + os.sep, "").replace(folder, "(upload)")


def _show(report) -> None:
    if isinstance(report, str):
        st.error("The file cannot be imported; nothing was written.")
        st.text(report)
        return
    st.text("\n".join(report.lines()))


def import_results_panel() -> None:
    """Upload, dry-run report, then "Import" (a new run and setting, or a no-op if imported)."""
    from pipelines.results import FORMATS

    st.subheader("Import results")
    if read_only():
        read_only_note("Importing results")
        return
    st.caption(
        "A harness's per-sample output: lmms-eval `--log_samples` JSONL, VLMEvalKit predictions,"
        " an inspect_ai log, lm-evaluation-harness samples, OpenAI Batch output, or a table with"
        " question_id and answer columns. Select lmms-eval's or lm-evaluation-harness's samples"
        " file together with the run's results summary (`<date>_results.json`): the summary names"
        " the model. Samples link to the store's questions by id; larger files: `storyscope"
        " import results FILE`."
    )
    limit_mb = upload_limit_mb()
    uploaded = st.file_uploader(  # the browser refuses a larger file; the size is checked below
        "Results file(s)",
        type=UPLOAD_TYPES,
        key="import_upload",
        max_upload_size=limit_mb,
        accept_multiple_files=True,
    )
    left, right = st.columns(2)
    fmt = left.selectbox("Format", ["auto", *FORMATS], key="import_format")
    setting = right.text_input("Setting name (optional)", key="import_setting").strip() or None
    if not uploaded:
        return
    files = _checked_files(uploaded, limit_mb)
    if files is None:
        return
    digest = hashlib.sha256(b"".join(hashlib.sha256(d).digest() for _, d in files)).hexdigest()
    model_key = f"import_model_{digest[:16]}"  # a new upload starts with no model typed
    model = (st.session_state.get(model_key) or "").strip() or None
    request = (digest, tuple(name for name, _ in files), fmt, setting, model)
    made_for, report = st.session_state.get(_REPORT_KEY, (None, None))
    if made_for != request:  # new files or new options: a new dry run, which writes nothing
        report = _run_import(files, fmt, setting, dry_run=True, model=model)
        st.session_state[_REPORT_KEY] = (request, report)
    st.markdown("**Dry run** (nothing written yet)")
    _show(report)
    if not isinstance(report, str) and (report.model is None or report.model_typed):
        _model_unknown(report, model_key)
    can_import = not isinstance(report, str) and report.n_matched > 0 and not report.would_refuse
    if st.button("Import", key="import_commit", type="primary", disabled=not can_import):
        if refuse_if_read_only("importing results"):
            return
        done = _run_import(files, fmt, setting, dry_run=False, model=model)
        st.session_state.pop(_REPORT_KEY, None)
        mark_store_written()  # the new run shows on this rerun, not 2 s later
        _show(done)
        if not isinstance(done, str):
            st.success(f"Imported {done.n_matched} samples as run {done.run_id}.")
            _next_steps(done)


def _checked_files(uploaded, limit_mb: int) -> list[tuple[str, bytes]] | None:
    """(name, bytes) of the uploads, or None after saying why they cannot be read together:
    over the size limit, two files of one name, or a results summary without its samples."""
    from pipelines.results.harness_samples import is_summary_name

    total = sum(file.size for file in uploaded)
    if total > limit_mb * 2**20:
        st.error(
            f"The upload is {total / 2**20:.1f} MB, over the panel's {limit_mb} MB limit"
            f" ({UPLOAD_LIMIT_ENV}): import it with `storyscope import results`."
        )
        return None
    names = [Path(file.name).name for file in uploaded]
    doubled = sorted({name for name in names if names.count(name) > 1})
    if doubled:
        st.error("Two uploaded files have one name; upload one of them:")
        st.text(", ".join(doubled))
        return None
    if all(is_summary_name(name) for name in names):
        st.warning(
            "That is a run's results summary: it names the model and holds the harness's"
            " scores, not the answers. Select it together with its samples file"
            " (lmms-eval: `<date>_samples_<task>.jsonl` beside `<date>_results.json`)."
        )
        return None
    return [(name, file.getvalue()) for name, file in zip(names, uploaded)]


def _model_unknown(report, model_key: str) -> None:
    """The file names no model: say so, say where the harness keeps it, and take a name."""
    from pipelines.results.harness_samples import expected_summary

    if not report.model_typed:
        summary = expected_summary(report.format, report.source)
        where = (
            f"{report.harness} writes it in the run's results summary, {summary}: select that"
            " file together with the samples to read it from there, or name the model here."
            if summary
            else "Name it here to record it with the answers, or import without one."
        )
        # one text: inert() trims the edges of what it is given, so two calls lose the space
        st.warning(
            inert(f"Model unknown: {report.source} does not name the model that wrote it. {where}")
        )
    st.text_input(
        "Model (the file does not name it)",
        key=model_key,
        help="Recorded as named at import, and part of the setting's name.",
    )


def _next_steps(done) -> None:
    """Where to go after an import: judge the new answers, or open them (plain relative
    links, as ui/generate_button.py: they work under app.py's navigation and alone)."""
    if done.kind == "answers":
        slice_of = urlencode({"setting": done.setting_id})
        # the Verdicts page's judge panel judges its slice: here, this setting's answers
        st.markdown(
            f"Next: [judge these answers](verdicts?{slice_of}#rerun-judge-on-this-slice)"
            f" · [open them in Verdicts](verdicts?{slice_of})"
        )
        st.caption("or from a shell:")
        where = shlex.quote(f"setting_id={done.setting_id}")
        st.code(f"storyscope judge --backend lexical --where {where}", language="bash")
    elif done.kind == "predictions":
        st.markdown("Next: [see the method's accuracy in Distributions](distributions)")
