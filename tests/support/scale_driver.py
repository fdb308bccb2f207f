"""A driver process for the resume test: `python -m tests.support.scale_driver STORE ADDRESS N`
runs N slow units on the Ray cluster at ADDRESS and writes them to STORE (the test kills it
with SIGKILL mid-run, then runs the same command again)."""

from __future__ import annotations

import sys

from data_access.store import Store
from pipelines.scale import RayExecutor, Unit, run_batch
from tests.support.scale_units import square


def main(store_path: str, address: str, n: int) -> None:
    executor = RayExecutor(address=address)
    units = [Unit(f"u{i:02d}", {"n": i, "sleep": 0.4}) for i in range(n)]
    result = run_batch(
        Store(store_path),
        executor,
        "test.scale",
        {"n": n},
        units,
        square,
        lambda _cursor, outcome: outcome.value,
    )
    executor.close()
    print(f"done {result.done} resumed_from {result.resumed_from}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
