"""The paper's Tables 8-9 as shipped (samples/storyvideoqa_paper) against the paper's text."""

from __future__ import annotations

import re

import pytest

from pipelines.mcq.paper_tables import paper_accuracy_by_topic
from pipelines.mcq.topics import TOPICS
from tests.support.paths import REPO_ROOT

SEEDS = REPO_ROOT.parent / "shared" / "seeds"


def test_both_tables_are_complete():
    table8 = paper_accuracy_by_topic("StoryVideoQA Table 8")
    table9 = paper_accuracy_by_topic("StoryVideoQA Table 9")
    assert (len(table8), len(table9)) == (13, 24)
    assert table9["method"].is_unique  # the agents carry their LLM
    cells = table9[[*TOPICS, "Avg"]]
    assert cells.notna().all().all() and ((cells >= 0) & (cells <= 100)).all().all()
    # each row's Avg lies within its topics' range (a weighted mean of them)
    both = paper_accuracy_by_topic()
    assert (both["Avg"] >= both[list(TOPICS)].min(axis=1)).all()
    assert (both["Avg"] <= both[list(TOPICS)].max(axis=1)).all()


def test_rows_match_the_paper_text():
    papers = sorted(SEEDS.glob("storyvideoqa_*.txt")) if SEEDS.is_dir() else []
    if not papers:
        pytest.skip(f"the StoryVideoQA paper text is not at {SEEDS}")
    text = papers[0].read_text("utf-8")
    rows = paper_accuracy_by_topic()
    for table_ref, part in rows.groupby("table_ref"):
        number = table_ref.rsplit(" ", 1)[1]
        start = text.index(f"Table {number}: ")
        block = text[start : text.index("\n\n", text.index("| Method", start) + 200)]
        printed = [
            [float(v) for v in cells[2:]]
            for line in block.splitlines()
            if line.startswith("| ")
            and len(cells := [c.strip() for c in line.strip("|").split("|")]) == 17
            and re.fullmatch(r"[\d.]+", cells[-1])
        ]
        assert part[[*TOPICS, "Avg"]].to_numpy().tolist() == printed
