"""The pages import no heavy library at module level: scikit-learn, scipy, nltk, torch and
sentence-transformers each take seconds to import, and a page that imports them (even through a
pipeline module it only needs one function of) makes its first visit after a server start that
much slower. Such imports belong inside the function that needs them.

One fresh interpreter imports every module the page scripts import (not the scripts themselves,
which would draw the pages); a meta-path hook records which of our modules first pulled in a heavy
library, so a failure names the import to make lazy.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys

from tests.support.paths import REPO_ROOT

HEAVY = ("sklearn", "scipy", "nltk", "torch", "sentence_transformers", "umap", "cv2", "openai")
OURS = ("data_access", "pipelines", "ui", "viz")

PROBE = """
import json, sys, traceback
sys.path.insert(0, {root!r})
HEAVY = {heavy!r}
pulled = {{}}

class Recorder:
    def find_spec(self, name, path, target=None):
        if name in HEAVY and name not in pulled:
            ours = [f"{{f.filename}}:{{f.lineno}}" for f in traceback.extract_stack()
                    if f.filename.startswith({root!r}) and "/.venv/" not in f.filename]
            pulled[name] = ours[-1] if ours else "?"
        return None

sys.meta_path.insert(0, Recorder())
for module in {modules!r}:
    __import__(module)
print(json.dumps(pulled))
"""


def _page_imports() -> list[str]:
    """Every module of ours that a page script (or app.py) imports at its top level."""
    scripts = [REPO_ROOT / "app.py", *sorted((REPO_ROOT / "ui").glob("*.py"))]
    modules = set()
    for script in scripts:
        for node in ast.parse(script.read_text()).body:
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            modules |= {name for name in names if name.split(".")[0] in OURS}
    return sorted(modules)


def _importable(module: str) -> bool:
    # `from ui.common import query` lists `ui.common.query`, which is no module
    path = REPO_ROOT.joinpath(*module.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def test_pages_pull_in_no_heavy_library_at_import():
    modules = [m for m in _page_imports() if _importable(m)]
    assert "ui.common" in modules and len(modules) > 20
    probe = PROBE.format(root=str(REPO_ROOT), heavy=HEAVY, modules=modules)
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, check=True
    )
    pulled = json.loads(result.stdout.strip().splitlines()[-1])
    assert pulled == {}, f"heavy libraries imported by the pages (library: our import): {pulled}"
