"""The paper's accuracy tables by topic (StoryVideoQA Tables 8 and 9), shown beside the store's
methods on Distributions.

`samples/storyvideoqa_paper/accuracy_by_topic.jsonl` holds every row of both tables as printed
(percent correct per topic P/I x C, A, L, CA, CL, AL, CAL, and Avg): Table 8 on the full 363K
set, Table 9 on StoryVideoQA-G — the released golden set the store imports, so Table 9 is the
one a run on `--where set=golden` compares with. Transcribed from the paper's text;
tests/pipelines/mcq/test_mcq_paper_tables.py checks it against the paper where the paper is at hand.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import pandas as pd

from pipelines.mcq.topics import TOPICS

TABLES_FILE = (
    Path(__file__).resolve().parents[2]
    / "samples"
    / "storyvideoqa_paper"
    / "accuracy_by_topic.jsonl"
)


@lru_cache(maxsize=1)
def _rows() -> tuple[dict, ...]:
    return tuple(json.loads(line) for line in TABLES_FILE.read_text("utf-8").splitlines() if line)


def paper_accuracy_by_topic(table_ref: str | None = None) -> pd.DataFrame:
    """The reported rows: table, group, method (agents named with their LLM, as the table groups
    them), venue, the 14 topics and Avg; optionally of one table ('StoryVideoQA Table 9')."""
    frame = pd.DataFrame(list(_rows()))
    if table_ref is not None:
        frame = frame[frame["table_ref"] == table_ref]
    agents = frame["group"].str.startswith("Agents (Powered by ")
    backbone = frame["group"].str.removeprefix("Agents (Powered by ").str.removesuffix(")")
    frame = frame.assign(method=frame["method"].where(~agents, frame["method"] + " · " + backbone))
    columns = ["table_ref", "subset", "group", "method", "venue", *TOPICS, "Avg"]
    return frame[columns].reset_index(drop=True)
