"""AppTest: the Runs page shows scaled-out batches with progress and failed units' reasons."""

from __future__ import annotations

from pipelines.scale import LocalExecutor, Unit, run_batch
from tests.support.app_fixtures import build_app_fixture
from tests.support.apptest_pages import run_page
from tests.support.paths import REPO_ROOT
from tests.support.scale_units import square


def test_runs_page_lists_batches_and_failed_units_as_text(store):
    build_app_fixture(store)
    units = [Unit("u1", {"n": 1}), Unit("<b>u2</b>", {"n": -2}), Unit("u3", {"n": 3})]
    batch = run_batch(
        store, LocalExecutor(), "test.scale", {}, units, square, lambda _c, o: o.value
    )
    at = run_page(REPO_ROOT, "runs_page")
    assert not at.exception
    [frame] = [el.value for el in at.dataframe if "batch_id" in el.value.columns]
    row = frame.set_index("batch_id").loc[batch.batch_id]
    assert (row.done, row.failed, row.total, row.state) == (2, 1, 3, "running")
    assert row.progress == 2 / 3
    [expander] = [e for e in at.expander if e.label.startswith(batch.batch_id)]
    assert expander.label == f"{batch.batch_id}: 1 failed units"
    texts = [t.value for t in at.text]
    assert any(t.startswith("<b>u2</b>: ValueError: negative input -2") for t in texts)
