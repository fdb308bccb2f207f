"""Generation end to end on a real screenplay (Chinatown, ../shared/data) with the template
backend: ingest (engineer C), rules belief records (engineer E), then context-sets, discard
rules, Stages 1–3, checks and retirement."""

from __future__ import annotations

import pytest

from pipelines.beliefs.annotate import annotate
from pipelines.preprocess.ingest import ingest_film
from pipelines.qgen.checks import names_mentioned
from pipelines.qgen.generate import generate

PAIRS = "screenplays/srt-pairs-robertjvt/scripts_subtitles"


@pytest.mark.slow
def test_template_generation_on_chinatown(store, shared_data):
    folder = shared_data / PAIRS
    ingest_film(store, folder / "chinatown.txt", folder / "chinatown.srt", film_id="chinatown",
                dataset_id="screenplay_pairs", dataset_name="Screenplay pairs (research only)")
    annotate(store, "chinatown", "rules")
    report = generate(store, "chinatown", n=30, with_analytics=False)
    discards = report.discards
    # names the film never speaks (role labels such as COUNCILMAN) and interpolated anchors
    # are discarded before any question is written (App. F.1)
    assert discards["center_never_named"] > 50 and discards["anchor_interpolated"] > 10
    assert discards["kept"] > 300 and report.sampled == 30
    candidates = [d for d in report.drafts if d.status == "candidate"]
    assert len(candidates) >= 20
    names = store.df("SELECT canonical_name, first_spoken_s IS NULL AS never FROM current_characters"
                     " WHERE film_id = 'chinatown'")
    forbidden = names.loc[names["never"], "canonical_name"].tolist()
    spoken = names.loc[~names["never"], "canonical_name"].tolist()
    for draft in candidates:
        assert draft.checks.passed and len(draft.core_claims()) >= 2
        # a forbidden part shared with a spoken name ("VOICE" of "IDA'S VOICE") is allowed
        assert not names_mentioned(draft.question, forbidden, spoken)
    retired = [d for d in report.drafts if d.status == "retired"]
    assert all(d.retire_reason for d in retired)
    assert len({d.context_set.qtype for d in report.drafts}) >= 5
