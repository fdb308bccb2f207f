"""Migrations never import live code (data_access/store/migrations/__init__.py: a migration's
effect is fixed once applied, so it must not change when the code it would import changes)."""

import ast
from pathlib import Path

import numpy as np

from tests.support.paths import REPO_ROOT

MIGRATIONS = REPO_ROOT / "data_access" / "store" / "migrations"
# what a migration may import: the registry, and libraries (never the project's live modules)
ALLOWED_PROJECT = {"data_access.store.migrations"}
PROJECT_ROOTS = {"data_access", "pipelines", "ui", "viz", "app", "tests", "benchmarks"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
        elif isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))  # relative: the project's own
    return found


def test_no_migration_imports_live_project_code():
    offenders = {}
    modules = sorted(MIGRATIONS.glob("m[0-9][0-9][0-9][0-9]_*.py"))
    assert len(modules) > 20
    for path in modules:
        live = {
            name
            for name in _imports(path)
            if name not in ALLOWED_PROJECT
            and (name.startswith(".") or name.split(".")[0] in PROJECT_ROOTS)
        }
        if live:
            offenders[path.name] = sorted(live)
    assert offenders == {}


def test_m0761s_frozen_packing_writes_what_the_live_packing_wrote():
    """Self-contained, same result: the float16 BLOBs are byte for byte the live writer's."""
    from data_access.store.migrations.m0761_plottree_vectors_f16 import _pack_f16
    from data_access.tables.vectors import pack_f16, unpack_f16

    vectors = np.random.default_rng(7).normal(size=(5, 384)).astype(np.float32)
    assert _pack_f16(vectors) == pack_f16(vectors)
    assert all(len(blob) == 768 for blob in _pack_f16(vectors))
    np.testing.assert_allclose(unpack_f16(_pack_f16(vectors)), vectors, atol=2e-3)
