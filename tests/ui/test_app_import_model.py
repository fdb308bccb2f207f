"""Runs → Import results: lmms-eval's samples file is read with the results summary the
harness wrote beside it (`<date>_results.json`, which names the model), uploaded together; a
samples file alone says the model is unknown, where the harness keeps it, and takes a typed
name, recorded as typed; a summary alone is not mistaken for answers."""

from __future__ import annotations

import json

import pytest

from data_access.importers.errors import ImportFailure
from pipelines.results import import_results
from tests.support.app_fixtures import build_app_fixture
from tests.support.apptest_pages import run_page
from tests.support.harness_fixtures import DATE, lmms_eval_line, write_lmms_eval
from tests.support.paths import REPO_ROOT
from tests.support.store_snapshots import store_dump
from ui.safe_text import inert

MODEL = "lmms-lab/llava-onevision-qwen2-7b-ov"
SAMPLES = f"{DATE}_samples_storyscope_lfvqa.jsonl"
SUMMARY = f"{DATE}_results.json"


@pytest.fixture
def fixture_store(store):
    build_app_fixture(store)
    return store


@pytest.fixture
def run_folder(tmp_path):
    """lmms-eval's model folder: the samples of q1, q2 and an unknown id, and the summary."""
    lines = [
        lmms_eval_line(0, "q1", "Ann believes the boat comes on Friday."),
        lmms_eval_line(1, "q2", "Ben thinks Ann fixed the lamp."),
        lmms_eval_line(2, "nope", "An answer to no question."),
    ]
    return write_lmms_eval(tmp_path / "logs", lines, model=MODEL).parent


def _upload(at, files):
    at.file_uploader(key="import_upload").set_value(
        [(path.name, path.read_bytes(), "application/json") for path in files]
    )
    return at.run()


def _texts(at) -> str:
    return "\n".join(element.value for element in at.text)


def _model_inputs(at):
    return [box for box in at.text_input if box.key.startswith("import_model_")]


def test_samples_with_their_summary_name_the_model(fixture_store, run_folder):
    at = _upload(run_page(REPO_ROOT, "runs_page"), [run_folder / SAMPLES, run_folder / SUMMARY])
    assert not at.exception
    report = _texts(at)
    assert "would import 2 of 3 samples as answers" in report
    assert f"  model       {MODEL}\n" in report
    assert "lmms-eval 0.3.0" in report
    assert not at.warning and not _model_inputs(at)  # the summary named it: nothing to ask

    at = at.button(key="import_commit").click().run()
    assert not at.exception and at.success
    answerer, setting_id = fixture_store.rows(
        "SELECT answerer, setting_id FROM settings WHERE setting_id LIKE 'lmms-eval:%'"
    )[0]
    assert answerer == MODEL
    assert setting_id == f"lmms-eval:{MODEL}:storyscope_lfvqa"


def test_samples_alone_warn_the_model_is_unknown_and_take_a_name(fixture_store, run_folder):
    before = store_dump(fixture_store)
    at = _upload(run_page(REPO_ROOT, "runs_page"), [run_folder / SAMPLES])
    assert not at.exception
    report = _texts(at)
    assert "  model       unknown: the file does not name it\n" in report
    assert (
        f"note: no results summary beside it ({SUMMARY}, which lmms-eval writes with the"
        " samples): the model is unknown" in report
    )
    assert [w.value for w in at.warning] == [
        inert(
            f"Model unknown: {SAMPLES} does not name the model that wrote it. lmms-eval writes"
            f" it in the run's results summary, {SUMMARY}: select that file together with the"
            " samples to read it from there, or name the model here."
        )
    ]
    assert store_dump(fixture_store) == before

    (box,) = _model_inputs(at)
    at = box.set_value("  my-llava-7b ").run()
    assert not at.exception
    assert "  model       my-llava-7b (named at import: the file does not name it)\n" in _texts(at)
    assert not at.warning and len(_model_inputs(at)) == 1  # named: no warning, still editable
    at = at.button(key="import_commit").click().run()
    assert not at.exception and at.success
    answerer, setting_id = fixture_store.rows(
        "SELECT answerer, setting_id FROM settings WHERE setting_id LIKE 'lmms-eval:%'"
    )[0]
    assert (answerer, setting_id) == ("my-llava-7b", "lmms-eval:my-llava-7b:storyscope_lfvqa")
    params = fixture_store.scalar(
        "SELECT params FROM runs WHERE step = 'import.results' ORDER BY started_at DESC LIMIT 1"
    )
    assert json.loads(params)["model_typed"] is True


def test_a_summary_alone_is_not_taken_for_answers(fixture_store, run_folder):
    at = _upload(run_page(REPO_ROOT, "runs_page"), [run_folder / SUMMARY])
    assert not at.exception
    assert [w.value for w in at.warning] == [
        "That is a run's results summary: it names the model and holds the harness's scores,"
        " not the answers. Select it together with its samples file (lmms-eval:"
        " `<date>_samples_<task>.jsonl` beside `<date>_results.json`)."
    ]
    assert not [m for m in at.markdown if "Dry run" in m.value]  # nothing read as samples
    assert not [button for button in at.button if button.key == "import_commit"]


def test_a_typed_model_never_overrides_the_files_own(fixture_store, run_folder):
    with pytest.raises(ImportFailure) as refused:
        import_results(fixture_store, run_folder / SAMPLES, model="other-model", dry_run=True)
    assert f"the file names its model {MODEL!r}" in str(refused.value.first)
    same = import_results(fixture_store, run_folder / SAMPLES, model=MODEL, dry_run=True)
    assert same.model == MODEL and not same.model_typed


def test_a_renamed_samples_file_says_nothing_can_pair_with_it(fixture_store, run_folder):
    renamed = run_folder / "answers.jsonl"
    renamed.write_bytes((run_folder / SAMPLES).read_bytes())
    report = import_results(fixture_store, renamed, format="lmms-eval", dry_run=True)
    assert report.model is None
    assert report.notes == [
        "answers.jsonl is not named as lmms-eval names its samples files, so no results"
        " summary can be paired with it: the model is unknown and the harness's own scores are"
        " not read; import the files under their own names, or name the model (--model)"
    ]


def test_cli_names_the_model_of_samples_without_their_summary(store_path, tmp_path):
    from typer.testing import CliRunner

    from data_access.store import Store
    from pipelines.cli import app, load_commands

    load_commands()
    build_app_fixture(Store(store_path))
    folder = write_lmms_eval(tmp_path / "logs", [lmms_eval_line(0, "q1", "Ann waits.")]).parent
    (folder / SUMMARY).unlink()
    base = ["import", "results", str(folder / SAMPLES), "--store", str(store_path), "--json"]
    unnamed = json.loads(CliRunner().invoke(app, [*base, "--dry-run"]).output)
    assert (unnamed["model"], unnamed["model_typed"]) == (None, False)
    result = CliRunner().invoke(app, [*base, "--model", "my-llava-7b"])
    assert result.exit_code == 0, result.output
    named = json.loads(result.output)
    assert (named["model"], named["model_typed"]) == ("my-llava-7b", True)
    assert named["setting_id"] == "lmms-eval:my-llava-7b:storyscope_lfvqa"


def test_lmms_eval_0_2_0s_task_document_pairs_with_its_results_json(fixture_store, tmp_path):
    """lmms-eval to 0.2.2 wrote `<task>.json` (samples under `logs`) beside `results.json`:
    uploaded together, the model is read from results.json as the harness wrote it."""
    from tests.support import harness_versions as hv

    lines = [hv.lmms_line(0, "Ann waits for the boat.", "svqa_score", {"question_id": "q1"})]
    document = hv.write_lmms_run(tmp_path / "o", "svqa", lines, {}, version="0.2.0")
    at = _upload(run_page(REPO_ROOT, "runs_page"), [document, document.parent / "results.json"])
    assert not at.exception
    report = _texts(at)
    assert "svqa.json [lmms-eval]: would import 1 of 1 samples as answers" in report
    assert f"  model       {MODEL}\n" in report
    assert not at.warning
