"""A review save that is stopped half-way (the visitor closed the browser and Streamlit stops the
script with its StopException, a BaseException; or Ctrl-C) leaves no half-written review: not
the run row, not the judge, not a verdict."""

from __future__ import annotations

import pytest
from streamlit.runtime.scriptrunner_utils.exceptions import StopException

from data_access.tables import review_labels
from data_access.tables.review_labels import ClaimLabel
from tests.support.lfvqa_rows import build_slice
from tests.support.store_snapshots import store_dump


@pytest.mark.parametrize("stop", [StopException, KeyboardInterrupt])
def test_a_stopped_save_writes_nothing(store, monkeypatch, stop):
    build_slice(store)
    item = store.rows(
        "SELECT a.answer_id, c.claim_id FROM answers a JOIN rubric_claims c USING (question_id)"
        " ORDER BY 1, 2 LIMIT 1"
    )[0]
    before = store_dump(store)
    real_write = review_labels.write_verdicts

    def stopped_mid_write(cursor, *args):
        real_write(cursor, *args)  # the run, the judge and the verdicts are written by now
        raise stop()

    monkeypatch.setattr(review_labels, "write_verdicts", stopped_mid_write)
    with pytest.raises(stop):
        review_labels.label_claims(store, "alice", [ClaimLabel(*item, "asserted")])
    assert store_dump(store) == before
    monkeypatch.setattr(review_labels, "write_verdicts", real_write)
    review_labels.label_claims(
        store, "alice", [ClaimLabel(*item, "asserted")]
    )  # the lock was freed
    assert store.scalar("SELECT count(*) FROM claim_verdicts WHERE judge_id = 'human:alice'") == 1
