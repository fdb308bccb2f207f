"""Demo step 60 checks the paper questions and skips generation when the sample film has no
belief records (the full path runs in `storyscope demo`; generation itself is tested in
test_qgen_generate.py and test_qgen_real.py)."""

from __future__ import annotations

from data_access.importers import import_lfvqa_dir
from pipelines.demo import step_60_generate_sample
from tests.support.paths import REPO_ROOT


def test_step_60_checks_paper_questions_and_skips_without_beliefs(store):
    import_lfvqa_dir(store, REPO_ROOT / "samples" / "lfvqa_paper")
    messages: list[str] = []
    step_60_generate_sample.run(store, None, messages.append)
    assert messages[0].startswith("  paper questions: 14/14 pass")
    assert "generation skipped" in messages[1]
    assert store.scalar("SELECT count(*) FROM question_check_results WHERE passed") == 14
    messages.clear()
    step_60_generate_sample.run(store, None, messages.append)  # rerun: no second check run
    assert store.scalar("SELECT count(*) FROM runs WHERE step = 'qgen.check'") == 1
