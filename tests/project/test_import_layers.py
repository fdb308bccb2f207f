"""The layers of DESIGN.md hold: ui -> pipelines | viz -> data_access, and nothing imports
app.py. The contract is `.importlinter` at the repository root, checked by import-linter's own
`lint-imports` (also run by `make lint`); this test puts it in `make test`, beside the cycle test
(tests/project/test_import_cycles.py) which uses the same engine (grimp).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.support.paths import REPO_ROOT

ROOT = REPO_ROOT
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_layered_contract_is_kept():
    result = _lint_imports()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 kept, 0 broken" in result.stdout


def test_the_contract_catches_a_figure_that_imports_the_work(tmp_path):
    # a copy of the layers with one forbidden edge (viz -> pipelines) must break the contract,
    # so a green run above means the contract was checked, not skipped
    for package in ("ui", "pipelines", "viz", "data_access"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "viz" / "figure.py").write_text("def build():\n    import pipelines.work\n")
    (tmp_path / "pipelines" / "work.py").write_text("import data_access\n")
    (tmp_path / ".importlinter").write_text((ROOT / ".importlinter").read_text())
    result = _lint_imports(cwd=tmp_path)
    assert result.returncode != 0
    assert "viz is not allowed to import pipelines" in result.stdout
    assert "viz.figure -> pipelines.work" in result.stdout
