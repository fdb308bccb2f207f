"""The `asymmetry` backend on a film in the store: a screenplay built here, the CLI,
the Ray path, gold-eval beside `rules`, and Hi-ToM / OpenToM read from the narration."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pipelines.beliefs.annotate import annotate
from pipelines.cli import app, load_commands
from tests.support.asymmetry_film import FILM
from tests.support.asymmetry_film import fixture_film as fixture_film  # noqa: F401 (a fixture)

load_commands()


def _beliefs(store, holder: str) -> list[dict]:
    frame = store.df(
        "SELECT * FROM beliefs WHERE holder = ? ORDER BY scene_index, belief_id", [holder]
    )
    return frame.to_dict("records")


def test_absence_a_lie_and_a_revision_on_a_stored_film(fixture_film):
    result = annotate(fixture_film, FILM, "asymmetry")
    assert result.backend == "asymmetry" and result.run_id
    nora = [b for b in _beliefs(fixture_film, "NORA") if "ledger" in b["content"].lower()]
    hid, found = nora[0], nora[-1]
    assert hid["kind"] == "witnessed" and hid["is_false"] and hid["revised_at_scene"] == 3
    assert found["revises"] == hid["belief_id"] and found["kind"] == "revised"
    assert list(found["basis"]) == ["e_003_1"] and not found["is_false"]
    (lie,) = [
        b for b in _beliefs(fixture_film, "ELLEN") if b["kind"] == "told" and "car" in b["content"]
    ]
    assert lie["source_character"] == "SAM" and lie["believed"] and lie["is_false"]
    assert list(lie["basis"]) == ["e_001_2"]
    status = fixture_film.scalar(
        "SELECT status FROM presence WHERE scene_index = 2 AND character = 'NORA'"
    )
    assert status == "offscreen_unaware"  # the move leaves her belief false (Table 19)
    meta = fixture_film.df("SELECT holder, about, source, scene_index FROM meta_beliefs")
    absent = meta[(meta["source"] == "d_absence") & (meta["scene_index"] == 2)]
    # Sam moves the ledger alone: he thinks Nora (hid it) and Ellen (told the car) do not know
    assert set(zip(absent["holder"], absent["about"])) == {("SAM", "NORA"), ("SAM", "ELLEN")}


def test_cli_annotate_with_the_asymmetry_backend(fixture_film):
    args = ["beliefs", "annotate", "--film", FILM, "--backend", "asymmetry"]
    result = CliRunner().invoke(app, [*args, "--store", str(fixture_film.path), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output.strip().splitlines()[-1])
    assert payload["backend"] == "asymmetry" and payload["rows"]["beliefs"] > 0
    assert payload["rows"]["meta_beliefs"] > 0
    backend = fixture_film.scalar("SELECT backend FROM runs WHERE run_id = ?", [payload["run_id"]])
    assert backend == "asymmetry"
    dry = CliRunner().invoke(
        app, [*args, "--store", str(fixture_film.path), "--executor", "ray", "--dry-run"]
    )
    assert dry.exit_code == 2 and "--executor local" in dry.output


@pytest.mark.slow
def test_the_ray_path_writes_what_a_local_run_writes(fixture_film, ray_executor):
    from pipelines.beliefs.scaled import annotate_films

    local = annotate(fixture_film, FILM, "asymmetry", dry_run=True)
    batch = annotate_films(fixture_film, [FILM], ray_executor, backend="asymmetry")
    assert batch.done == 1 and batch.failed == 0
    stored = fixture_film.df(
        "SELECT holder, belief_id, content, is_false, revises FROM beliefs ORDER BY ALL"
    )
    expected = sorted(
        (r["holder"], r["belief_id"], r["content"], r["is_false"], r["revises"])
        for r in local.tables["beliefs"]
    )
    stored = stored.astype(object).where(stored.notna(), None)  # NULL reads back as NaN
    assert [tuple(r) for r in stored.itertuples(index=False)] == expected


def test_gold_eval_scores_asymmetry_beside_rules(store, store_path):
    from data_access.importers.gold import import_gold
    from pipelines.demo import step_30_sample_film, step_46_gold
    from pipelines.goldeval import evaluate_belief_backends, missing_backends
    from pipelines.judge import JudgeOptions, run_judge
    from pipelines.qgen.generate import GenerateOptions, generate

    film = "the-keepers-ledger"
    step_30_sample_film.run(store, None, lambda m: None)
    annotate(store, film, "rules")
    import_gold(store, step_46_gold.GOLD_DIR)
    only_rules = {"film_id": film, "belief_backends": evaluate_belief_backends(store, film)}
    assert list(only_rules["belief_backends"]) == ["rules"]
    assert missing_backends(only_rules) == [
        f"storyscope beliefs annotate --film {film} --backend asymmetry"
    ]
    annotate(store, film, "asymmetry")
    generate(store, GenerateOptions(film, n=4, backend="template"))
    run_judge(store, JudgeOptions(backend="lexical"))
    runner = CliRunner()
    result = runner.invoke(app, ["gold-eval", "--store", str(store_path), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output.strip().splitlines()[-1])
    scores = report["beliefs_by_backend"]
    assert list(scores) == ["rules", "asymmetry"] and report["beliefs"]["backend"] == "rules"
    for name, row in scores.items():
        assert row["backend"] == name
        assert all(0 <= row[k] <= 1 for k in ("precision", "recall", "false_belief_recall"))
    # the rules backend never marks a belief false; the asymmetry backend finds some
    assert scores["rules"]["false_belief_recall"] == 0 < scores["asymmetry"]["false_belief_recall"]
    text = runner.invoke(app, ["gold-eval", "--store", str(store_path)]).output
    assert "beliefs: rules backend vs gold" in text and "beliefs: asymmetry backend vs gold" in text


@pytest.mark.slow
def test_hitom_from_the_narration(shared_data):
    from pipelines.beliefs.asymmetry.tom import evaluate_hitom

    result = evaluate_hitom(shared_data / "hi-tom" / "Hi-ToM_data.json")
    by_order = result.by_order()
    assert result.n == 895 and set(by_order) == {"0", "1", "2", "3", "4"}
    assert by_order["0"] == 1.0 and by_order["1"] >= 0.95  # first order: the film backend's job
    assert by_order["4"] < by_order["1"]  # deeper chains are where it trails the tracker
