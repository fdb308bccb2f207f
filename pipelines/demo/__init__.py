"""`storyscope demo`: build the demo store from `samples/` (and real data when given).

Each module `pipelines/demo/step_NN_<name>.py` defines `run(store, data_dir, echo)`; the steps
run in NN order. `data_dir` is None unless `--data-dir` is given (CI and developers pass
../shared/data). A step that needs real data and gets None returns without doing anything.
Steps add data to the store through the same importers and pipelines a user would run.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from data_access.store import Store
from pipelines.progress import report

Echo = Callable[[str], None]


def demo_steps() -> list[ModuleType]:
    """The step modules, in order of their number."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("step_"))
    return [importlib.import_module(f"{__name__}.{name}") for name in names]


def build_demo(
    store: Store, data_dir: Path | None, echo: Echo = print, only: set[str] | None = None
) -> list[str]:
    """Run every demo step (or only those named) against `store`; return the steps run."""
    ran = []
    steps = [
        step
        for step in demo_steps()
        if not only or any(key in step.__name__.rsplit(".", 1)[-1] for key in only)
    ]
    for number, step in enumerate(steps):
        short = step.__name__.rsplit(".", 1)[-1]
        echo(f"demo: {short}")
        step.run(store, data_dir, echo)
        ran.append(short)
        report("demo steps", number + 1, len(steps))
    return ran
