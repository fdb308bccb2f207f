"""A screenplay and its subtitles, as text."""

from __future__ import annotations

from tests.support.paths import REPO_ROOT

SAMPLE = REPO_ROOT / "samples" / "films"


SCREENPLAY, SUBTITLES = SAMPLE / "the_keepers_ledger.fountain", SAMPLE / "the_keepers_ledger.srt"
