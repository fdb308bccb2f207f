"""ui.serve warms a fresh server by importing what the pages import at their top,
never what a page defers on purpose (imports inside functions: the LLM client, the judge)."""

from __future__ import annotations

from ui.serve import page_imports


def test_prewarm_imports_the_pages_top_level_modules_only():
    names = page_imports()
    assert {"streamlit", "pandas", "ui.common", "viz.film", "viz.verdicts"} <= set(names)
    assert "pipelines.judge.explain" not in names  # deferred inside verdicts_page._why_table
    assert len(names) == len(set(names))
