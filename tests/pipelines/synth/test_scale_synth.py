"""`synth --scale 10x`: ten times the paper, written a chunk at a time (bounded memory)."""

from __future__ import annotations

import dataclasses

import pyarrow.parquet as pq
import pytest

from pipelines.synth import SCALES, paper_scale, write_synthetic_dataset


def test_ten_times_the_paper_is_ten_times_every_table():
    paper, ten = SCALES["paper"], SCALES["10x"]
    assert (ten.films, ten.questions, ten.settings) == (940, 63_270, 330)
    assert sum(ten.mcq_per_source.values()) == 10 * sum(paper.mcq_per_source.values())
    # 33 of the 330 settings answer each question: answers grow 10x, not 100x
    assert ten.questions * ten.settings_per_question == 10 * paper.questions * paper.settings
    predictions = sum(ten.mcq_per_source.values()) * ten.mcq_methods
    assert predictions == 72_600_000


def _rows(folder, name):
    return pq.read_table(folder / f"{name}.parquet").to_pylist()


@pytest.fixture
def small_subset(monkeypatch):
    """The small scale with 6 settings, each question answered by 2 of them."""
    name = "small-subset"
    scale = dataclasses.replace(SCALES["small"], name=name, settings=6, settings_per_question=2)
    monkeypatch.setitem(SCALES, name, scale)
    return name


def test_chunk_sizes_do_not_change_a_single_row(tmp_path, monkeypatch, small_subset):
    write_synthetic_dataset(tmp_path / "whole", scale=small_subset, seed=5)
    monkeypatch.setattr(paper_scale, "FILMS_PER_CHUNK", 1)
    monkeypatch.setattr(paper_scale, "QUESTIONS_PER_CHUNK", 3)
    monkeypatch.setattr(paper_scale, "MCQS_PER_CHUNK", 7)
    counts = write_synthetic_dataset(tmp_path / "chunked", scale=small_subset, seed=5)
    # films and questions draw per film / per question, so chunking changes nothing; MCQs draw
    # per chunk (vectorised), so only their counts are the same across chunk sizes
    for name in counts:
        chunked, whole = _rows(tmp_path / "chunked", name), _rows(tmp_path / "whole", name)
        if name.startswith("mcq_"):
            assert len(chunked) == len(whole), name
        else:
            assert chunked == whole, name
    # many row groups: each chunk is written as it is made
    assert pq.ParquetFile(tmp_path / "chunked" / "questions.parquet").num_row_groups > 1


def test_each_question_is_answered_by_its_own_draw_of_settings(tmp_path, small_subset):
    counts = write_synthetic_dataset(tmp_path, scale=small_subset, fmt="parquet")
    answers = _rows(tmp_path, "answers")
    by_question: dict[str, set[str]] = {}
    for row in answers:
        by_question.setdefault(row["question_id"], set()).add(row["setting_id"])
    assert len(by_question) == counts["questions"]
    assert all(len(settings) == 2 for settings in by_question.values())
    assert len({frozenset(s) for s in by_question.values()}) > 1  # drawn per question
    answer_ids = {row["answer_id"] for row in answers}
    assert all(v["answer_id"] in answer_ids for v in _rows(tmp_path, "claim_verdicts"))
