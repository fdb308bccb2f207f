"""Run with the interpreter of a venv that has the package installed WITHOUT extras (`make
import-check`): a runtime dependency that only the `test` extra installs fails here.

1. every module of data_access/, pipelines/ and viz/ imports;
2. every import statement of the runtime code (app.py, ui/ and those packages), including the
   lazy ones inside functions, names a module this venv can find — a lazy import is exactly how
   statsmodels hid in `pipelines/verdict_metrics.py`;
3. app.py and every page render over an empty store under Streamlit's AppTest.

Prints what failed and exits 1; nothing else is written outside a temporary folder.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import pkgutil
import sys
import tempfile
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("data_access", "pipelines", "viz")
# Imports a runtime module may make without the package depending on them: each is optional,
# guarded where it is used, and says how to install it.
OPTIONAL = {
    "ray": "`--executor ray` (pip install ray)",
    "llama_cpp": "the llama.cpp test server (test extra)",
    "playwright": "browser tests only",
    "inspect_ai": "`import results --format inspect` (pip install 'storyscope[harness]')",
}


def runtime_files() -> list[Path]:
    files = [ROOT / "app.py", *sorted((ROOT / "ui").glob("*.py"))]
    for package in PACKAGES:
        files += sorted((ROOT / package).rglob("*.py"))
    return files


def imported_names(path: Path) -> set[str]:
    """Top-level module names of every absolute import in the file, at any depth, except those
    inside a `try` that handles ImportError, or inside that handler (an import with a fallback is
    optional by design: `try: import httpx2 / except ImportError: import httpx` takes whichever
    HTTP library the installed openai client is built on)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    guarded = {
        id(node)
        for block in ast.walk(tree)
        if _guards_imports(block)
        for stmt in _guarded_statements(block)
        for node in ast.walk(stmt)
    }
    names = set()
    for node in ast.walk(tree):
        if id(node) in guarded:
            continue
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _guarded_statements(block: ast.Try) -> list[ast.stmt]:
    return [*block.body, *(stmt for handler in block.handlers for stmt in handler.body)]


def _guards_imports(node: ast.AST) -> bool:
    if not isinstance(node, ast.Try):
        return False
    caught = [h.type for h in node.handlers if h.type is not None]
    names = {n.id for t in caught for n in ast.walk(t) if isinstance(n, ast.Name)}
    return bool(names & {"ImportError", "ModuleNotFoundError"})


def unresolved_imports() -> list[str]:
    problems = []
    for path in runtime_files():
        for name in sorted(imported_names(path) - set(OPTIONAL)):
            if importlib.util.find_spec(name) is None:
                problems.append(f"{path.relative_to(ROOT)}: imports {name!r}, not installed")
    return problems


def failed_module_imports() -> list[str]:
    problems = []
    for package in PACKAGES:
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, f"{package}."):
            if info.name.endswith(".__main__"):
                continue  # runs the CLI when imported; its imports are checked as text above
            try:
                importlib.import_module(info.name)
            except Exception as exc:  # report every broken module, not just the first
                if getattr(exc, "name", None) in OPTIONAL:
                    continue
                problems.append(f"{info.name}: {type(exc).__name__}: {exc}")
    return problems


def failed_pages() -> list[str]:
    from streamlit.testing.v1 import AppTest

    problems = []
    with tempfile.TemporaryDirectory() as folder:
        os.environ["STORYSCOPE_STORE"] = str(Path(folder) / "empty.duckdb")
        from data_access.store import Store

        with Store(Path(os.environ["STORYSCOPE_STORE"])).session():
            pass  # an empty store at the current schema
        for script in [ROOT / "app.py", *sorted((ROOT / "ui").glob("*_page.py"))]:
            at = AppTest.from_file(str(script), default_timeout=120)
            try:
                at.run()
            except Exception:
                problems.append(f"{script.relative_to(ROOT)}: {traceback.format_exc(limit=3)}")
                continue
            if at.exception:
                problems.append(f"{script.relative_to(ROOT)}: {at.exception[0].value}")
    return problems


def main() -> int:
    sys.path.insert(0, str(ROOT))  # the checkout's code; the venv supplies only dependencies
    os.chdir(ROOT)
    problems = unresolved_imports() + failed_module_imports()
    if not problems:  # rendering needs the imports to work
        problems += failed_pages()
    for problem in problems:
        print(f"import-check: {problem}", file=sys.stderr)
    print(f"import-check: {len(runtime_files())} files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
