"""The synthetic dataset: valid interchange records, deterministic, paper-scale figures."""

from __future__ import annotations

import hashlib
import json

import pyarrow.parquet as pq

from data_access.formats import TABLE_FILES
from data_access.formats.lfvqa_records import Manifest
from pipelines.synth import SCALES, write_synthetic_dataset
from pipelines.synth.scales import TABLE1_TYPES


def _jsonl(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_every_record_validates_against_the_format_models(tmp_path):
    counts = write_synthetic_dataset(tmp_path, scale="small", fmt="jsonl")
    Manifest.model_validate_json((tmp_path / "manifest.json").read_text())
    models = {t.name: t.model for t in TABLE_FILES}
    for name, n in counts.items():
        records = _jsonl(tmp_path / f"{name}.jsonl")
        assert len(records) == n > 0
        for record in records:
            models[name].model_validate(record)


def test_references_resolve(tmp_path):
    write_synthetic_dataset(tmp_path, scale="small", fmt="jsonl")
    claims = {r["claim_id"] for r in _jsonl(tmp_path / "rubric_claims.jsonl")}
    answers = {r["answer_id"] for r in _jsonl(tmp_path / "answers.jsonl")}
    verdicts = _jsonl(tmp_path / "claim_verdicts.jsonl")
    assert all(v["claim_id"] in claims and v["answer_id"] in answers for v in verdicts)
    # one verdict per (answer, claim of its question)
    assert len({(v["answer_id"], v["claim_id"]) for v in verdicts}) == len(verdicts)


def test_same_seed_same_files(tmp_path):
    digests = []
    for run in ("a", "b"):
        write_synthetic_dataset(tmp_path / run, scale="small", seed=3, fmt="jsonl")
        digests.append(
            hashlib.sha256((tmp_path / run / "claim_verdicts.jsonl").read_bytes()).hexdigest()
        )
    assert digests[0] == digests[1]


def test_paper_scale_matches_the_papers_figures():
    paper = SCALES["paper"]
    assert paper.questions == 6327  # LF-VideoQA Table 1, "All questions"
    assert paper.films == 94 and paper.settings == 33
    assert paper.questions * paper.settings == 208_791  # "209k answers"
    assert sum(paper.mcq_per_source.values()) == 363_000  # StoryVideoQA Table 6
    core = sum(n * c for n, c, _, _ in TABLE1_TYPES.values()) / paper.questions
    context = sum(n * x for n, _, x, _ in TABLE1_TYPES.values()) / paper.questions
    assert abs(core - 2.4) < 0.06 and abs(context - 1.4) < 0.06  # §3.4: 2.4 core + 1.4 context


def test_parquet_predictions_are_plain_strings_to_readers(tmp_path):
    write_synthetic_dataset(tmp_path, scale="small", fmt="parquet")
    table = pq.read_table(tmp_path / "mcq_predictions.parquet")
    rows = table.to_pylist()
    assert len(rows) == 100 * 3
    assert {r["predicted_option"] for r in rows} <= set("ABCDE")
    assert rows[0]["mcq_id"].startswith("synth:")


def test_small_synthetic_dataset_imports_with_scored_predictions(tmp_path, store):
    from data_access.importers import import_lfvqa_dir
    from data_access.queries.stats import table_counts

    counts = write_synthetic_dataset(tmp_path / "small", scale="small", fmt="parquet")
    import_lfvqa_dir(store, tmp_path / "small")
    stored = table_counts(store)
    for table in (
        "films",
        "questions",
        "rubric_claims",
        "answers",
        "claim_verdicts",
        "mcq_questions",
        "mcq_predictions",
    ):
        assert stored[table] == counts[table], table
    # `correct` is derived on import: predicted option equals the question's GT option.
    mismatches = store.scalar(
        "SELECT count(*) FROM mcq_predictions p JOIN mcq_questions q USING (mcq_id)"
        " WHERE p.correct IS DISTINCT FROM (p.predicted_option = q.option)"
    )
    assert mismatches == 0
    assert 0 < store.scalar("SELECT avg(correct::INT) FROM mcq_predictions") < 1
