"""`python -m ui.serve run app.py [streamlit options]`: `streamlit run app.py` with the pages'
imports warmed while the server starts.

`streamlit run app.py` alone serves every page (the page scripts live in `ui/`, not in a
`pages/` folder beside app.py, so Streamlit's legacy multipage mode never answers a deep link).
This launcher adds one thing: a background thread imports what the pages import, so the first
visitor after a start does not wait for it. `make run` uses it; `STORYSCOPE_PREWARM=0` turns
the warming off.
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
    for script in [root / "app.py", *sorted((root / "ui").glob("*.py"))]:
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
    """Run the streamlit CLI, importing what the pages import on a background thread meanwhile
    (pandas, plotly, the query, pipeline and figure modules: 1-2 s of CPU that a fresh server's
    first session would otherwise wait for)."""
    from streamlit.web.cli import main as streamlit_main

    if os.environ.get("STORYSCOPE_PREWARM", "1") != "0":
        threading.Thread(target=_prewarm, name="storyscope-prewarm", daemon=True).start()
    sys.argv = ["streamlit", *sys.argv[1:]]
    streamlit_main()


if __name__ == "__main__":
    main()
