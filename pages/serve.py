"""`python -m pages.serve run app.py [streamlit options]`: `streamlit run`, minus one legacy trap.

Streamlit decides per process whether the app uses the legacy `pages/` directory (multipage v1)
on the first session, before app.py has called `st.navigation`. When that first session is a
shared deep link (`/verdicts?film=...`) on a fresh server, the legacy mode answers it — a "Page
not found" dialog, and the sidebar lists the helper modules of `pages/` as pages. Our pages are
declared with `st.navigation` only, so we switch the legacy mode off before the server starts;
everything else is the plain `streamlit` command line.
"""

from __future__ import annotations

import ast
import importlib
import os
import sys
import threading
from pathlib import Path

APP_ROOT = Path(__file__).resolve().parent.parent


def page_imports(root: Path = APP_ROOT) -> list[str]:
    """The modules app.py and the page scripts import at their top, in file order: what a fresh
    server's first sessions would otherwise import themselves. (Imports inside functions are
    left alone: those are deferred on purpose, like the LLM client or the embedding model.)"""
    names: list[str] = []
    for script in [root / "app.py", *sorted((root / "pages").glob("*.py"))]:
        for node in ast.parse(script.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                names += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.append(node.module)
    return list(dict.fromkeys(names))


def _prewarm() -> None:
    import time

    from streamlit import runtime

    # once the server's runtime exists: the pages' caches then find its storage, as in a session
    deadline = time.monotonic() + 30
    while not runtime.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    for name in page_imports():
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the page reports its own import error when it runs
            pass


def main() -> None:
    """Run the streamlit CLI with the legacy pages-directory mode disabled.

    While the server starts, a background thread imports what the pages import (pandas, plotly,
    the query, pipeline and figure modules: 1-2 s of CPU), so the first visitor after a start
    does not wait for it (a fresh server's first session took ~2 s more than the
    next). `STORYSCOPE_PREWARM=0` turns it off."""
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.web.cli import main as streamlit_main

    if os.environ.get("STORYSCOPE_PREWARM", "1") != "0":
        threading.Thread(target=_prewarm, name="storyscope-prewarm", daemon=True).start()
    PagesManager.uses_pages_directory = False
    sys.argv = ["streamlit", *sys.argv[1:]]
    streamlit_main()


if __name__ == "__main__":
    main()
