"""Module names in `data_access/` say what they hold and need no alias: each stem exists once
(a table family in `tables/`, a page's view in `queries/<page>_view`), and no caller renames a
`tables/` or `queries/` module on import."""

from __future__ import annotations

import ast
from collections import Counter

from tests.support.paths import REPO_ROOT

SOURCE_DIRS = ("app.py", "ui", "pipelines", "data_access", "viz", "tests", "benchmarks")


def _stems() -> list[str]:
    return [
        path.stem
        for path in (REPO_ROOT / "data_access").rglob("*.py")
        if path.name != "__init__.py" and "migrations" not in path.parts
    ]


def _python_files():
    for name in SOURCE_DIRS:
        root = REPO_ROOT / name
        yield from [root] if root.is_file() else root.rglob("*.py")


def _aliased_imports(path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in (
            "data_access.tables",
            "data_access.queries",
        ):
            found += [f"{node.module}.{a.name} as {a.asname}" for a in node.names if a.asname]
    return found


def test_every_data_access_module_name_exists_once():
    twice = sorted(stem for stem, n in Counter(_stems()).items() if n > 1)
    assert twice == [], f"module names used twice under data_access/: {twice}"


def test_tables_and_queries_modules_are_imported_under_their_own_names():
    aliased = {
        str(path.relative_to(REPO_ROOT)): names
        for path in _python_files()
        if (names := _aliased_imports(path))
    }
    assert aliased == {}


def test_the_checks_see_the_tree():
    # a walk that found nothing would pass the two tests above vacuously
    assert len(_stems()) > 60
    assert sum(1 for _ in _python_files()) > 400
