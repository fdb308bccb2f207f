"""The executor seam: heavy pipelines hand it independent work units and get rows back.

    executor = make_executor("ray")             # or "local"; env STORYSCOPE_EXECUTOR
    for outcome in executor.map_units(fn, units):
        ...                                     # the driver writes outcome.value to the store

`fn` is a module-level function `payload -> value` (so it pickles by reference); a unit is a
`Unit(key, payload)`. The payload carries everything the unit needs: workers never open the
DuckDB store, the driver stays its single writer (DESIGN.md, "Scale-out").

- `LocalExecutor` runs the units in this process, in order: the same function on the same
  units as a Ray run, so a Ray run writes the same rows as a local one.
- `RayExecutor` runs them on Ray actors, one per CPU of an embedded local Ray (default) or of a
  cluster (`address="auto"` / `"ray://host:port"`). Actors are long-lived processes, so a model
  cached per process (`pipelines.embeddings`) loads once per worker, not per task. A unit whose
  function raises comes back as a failed outcome with the reason; a worker that dies (killed,
  out of memory) is restarted by Ray and its unit retried (`max_task_retries`), and only when
  the retries are spent does the unit come back failed ("worker died").

We use Ray rather than a home-made process pool: it is the standard engine for
Python ML pipelines, and the same code joins a cluster by address.
"""

from __future__ import annotations

import operator
import os
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import pipelines.scale.kept_workers as kept_workers

EXECUTORS = ("local", "ray")
ENV_EXECUTOR = "STORYSCOPE_EXECUTOR"
ENV_RAY_ADDRESS = "STORYSCOPE_RAY_ADDRESS"
# Retries of a unit whose worker process died; a unit whose function raises is not retried
# (the same input fails the same way) but reported with its reason.
WORKER_RETRIES = 2

UnitFn = Callable[[Any], Any]


@dataclass(frozen=True)
class Unit:
    """One independent piece of work: a key unique in its batch and the unit's input.

    `cost` is the unit's expected work in any unit the batch shares (a video's seconds, a
    video's MCQs): `run_batch` dispatches the costliest first, so one long film is not the
    last unit left running alone while the other workers idle (longest-processing-time
    first, Graham 1969). 0 for all keeps the given order.
    """

    key: str
    payload: Any
    cost: float = 0.0


@dataclass
class UnitOutcome:
    """What came back for one unit: its value, or the reason it failed."""

    key: str
    value: Any = None
    error: str | None = None
    seconds: float = 0.0
    worker: str = ""

    @property
    def ok(self) -> bool:
        return self.error is None


class Executor(Protocol):
    """Runs `fn` over units and yields one outcome per unit (order not guaranteed)."""

    name: str
    workers: int

    def map_units(self, fn: UnitFn, units: Iterable[Unit]) -> Iterator[UnitOutcome]: ...

    def close(self) -> None: ...


@lru_cache(maxsize=1)
def _blas_controller():
    # Finding the loaded BLAS libraries costs tens of ms; do it once per process. A library
    # loaded after this (torch's OpenMP) is not in it: torch's threads are set through torch.
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


@contextmanager
def one_core():
    """Run a unit on one core: BLAS (numpy) and torch limited to one thread, restored after.

    Why: a unit's rows must not depend on where it ran. OpenBLAS sums a matrix product in a
    different order with 2 threads than with 1, and PlotTree's k-means turns such last-bit
    differences into a different split at near-ties (measured: 11 of 617 parent ids moved).
    Ray gives each worker one CPU, so the local executor runs each unit with one thread too;
    parallelism comes from running units side by side. (Torch's threads are fixed when MiniLM
    loads, `pipelines.embeddings.torch_threads`: 1 on machines with <= 2 cores; set
    STORYSCOPE_TORCH_THREADS=1 on bigger ones for bit-identical local and Ray rows.)
    """
    torch = sys.modules.get("torch")
    before = torch.get_num_threads() if torch is not None else None
    with _blas_controller().limit(limits=1):
        if torch is not None:
            torch.set_num_threads(1)
        try:
            yield
        finally:
            if torch is not None:
                torch.set_num_threads(before)


def run_unit(fn: UnitFn, unit: Unit) -> UnitOutcome:
    """Run one unit here, on one core, and catch its failure as a reason (both executors)."""
    started = time.perf_counter()
    worker = f"pid {os.getpid()}"
    try:
        with one_core():
            value = fn(unit.payload)
    except Exception as exc:  # noqa: BLE001 - a unit's failure is data: reported, not raised
        last = traceback.extract_tb(exc.__traceback__)[-1:]
        where = f" ({last[0].filename.rsplit('/', 1)[-1]}:{last[0].lineno})" if last else ""
        return UnitOutcome(
            unit.key,
            error=f"{type(exc).__name__}: {exc}{where}",
            seconds=time.perf_counter() - started,
            worker=worker,
        )
    return UnitOutcome(unit.key, value, seconds=time.perf_counter() - started, worker=worker)


class LocalExecutor:
    """Units run one after another in this process (the default)."""

    name = "local"
    workers = 1

    def map_units(self, fn: UnitFn, units: Iterable[Unit]) -> Iterator[UnitOutcome]:
        for unit in units:
            yield run_unit(fn, unit)

    def close(self) -> None:
        pass


def _process_cpu(_payload) -> float:
    return time.process_time()


def _unit_worker_class():
    import ray

    @ray.remote(num_cpus=1, max_restarts=WORKER_RETRIES, max_task_retries=WORKER_RETRIES)
    class UnitWorker:
        """A long-lived worker process: models it loads stay cached for its next units."""

        def __init__(self, torch_threads: int) -> None:
            # One torch thread per worker CPU, so N workers use N cores, not N x cores.
            os.environ["STORYSCOPE_TORCH_THREADS"] = str(torch_threads)

        def run(self, fn: UnitFn, unit: Unit) -> UnitOutcome:
            return run_unit(fn, unit)

        def reconstructed(self) -> bool:
            """Whether Ray restarted this actor (`kept_workers` keeps only those it did not)."""
            return ray.get_runtime_context().was_current_actor_reconstructed

    return UnitWorker


class RayExecutor:
    """Units run on Ray actors; outcomes come back as units finish.

    Args:
        address: None starts an embedded local Ray with `num_cpus` (default: this machine's
            cores); "auto" joins the cluster this machine belongs to, "ray://host:port" a
            remote one through Ray Client.
        num_cpus: CPUs of the embedded Ray (ignored when joining a cluster).
        workers: actors to start (default: the CPUs Ray reports).
        in_flight: units a worker holds at once (running + queued), so it does not wait on
            the driver between units; a unit is queued behind a busy worker only while
            more units remain than workers.
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        num_cpus: int | None = None,
        workers: int | None = None,
        in_flight: int = 2,
    ) -> None:
        import ray

        self._ray = ray
        self._owns_ray = not ray.is_initialized()
        if self._owns_ray:
            start_ray(address, num_cpus)
        cpus = int(ray.cluster_resources().get("CPU", 1))
        self.workers = max(1, workers or cpus)
        self.in_flight = max(1, in_flight)
        # inside `keep_workers()`, the workers an earlier executor of this driver handed back
        self._actors = kept_workers.take(ray, self.workers)
        worker_class = _unit_worker_class()
        self._actors += [worker_class.remote(1) for _ in range(self.workers - len(self._actors))]
        self._in_flight = 0

    def map_units(self, fn: UnitFn, units: Iterable[Unit]) -> Iterator[UnitOutcome]:
        """Run the units in the order given, each on the first worker with room for it.

        `units` is read lazily: a unit is taken (and so, in `run_batch`, prepared on the
        driver) only when a worker has room, so the workers start on the first units while
        the driver still prepares the later ones.
        """
        ray = self._ray
        source = iter(units)
        left = operator.length_hint(units, -1)  # -1: unknown (a generator)
        fn_ref = ray.put(fn)
        running: dict[Any, tuple[Unit, int]] = {}
        load = [0] * len(self._actors)

        def room(slot_load: int) -> bool:
            # An idle worker always takes the next unit. A busy one queues a unit behind its
            # current one (so it never waits on the driver between units) only while more
            # units remain than workers: near the end a queued unit could wait behind a long
            # one while another worker sits idle.
            if slot_load == 0:
                return True
            return slot_load < self.in_flight and (left < 0 or left > len(self._actors))

        def submit() -> None:
            nonlocal left
            while room(min(load)):
                unit = next(source, None)
                if unit is None:
                    return
                if left > 0:
                    left -= 1
                slot = load.index(min(load))
                running[self._actors[slot].run.remote(fn_ref, unit)] = (unit, slot)
                load[slot] += 1
                self._in_flight += 1

        submit()
        while running:
            [ready], _ = ray.wait(list(running), num_returns=1)
            unit, slot = running.pop(ready)
            load[slot] -= 1
            self._in_flight -= 1
            submit()
            yield self._collect(ready, unit)

    def _collect(self, ref, unit: Unit) -> UnitOutcome:
        try:
            return self._ray.get(ref)
        except self._ray.exceptions.RayActorError as exc:
            return UnitOutcome(unit.key, error=f"worker died ({WORKER_RETRIES} retries): {exc}")
        except self._ray.exceptions.RayError as exc:
            return UnitOutcome(unit.key, error=f"{type(exc).__name__}: {exc}")

    def worker_cpu_seconds(self) -> float:
        """CPU seconds the workers' processes have used since they started (benchmarks; inside
        `keep_workers()` that includes the batches of earlier executors)."""
        refs = [a.run.remote(_process_cpu, Unit("cpu", None)) for a in self._actors]
        return float(sum(o.value for o in self._ray.get(refs) if o.ok))

    def close(self) -> None:
        """Kill the workers (or, inside `keep_workers()`, hand them back) and stop an embedded
        Ray this executor started. Workers still running abandoned units are always killed."""
        actors, self._actors = self._actors, []
        keep = not self._owns_ray and self._in_flight == 0
        if not (keep and kept_workers.hand_back(self._ray, actors)):
            for actor in actors:
                self._ray.kill(actor)
        if self._owns_ray:
            self._ray.shutdown()


def start_ray(address: str | None = None, num_cpus: int | None = None, attempts: int = 3) -> None:
    """`ray.init` for an embedded Ray or a cluster, retried when the local node is slow to start.

    Why: Ray gives its raylet a fixed 30 s to register; on an oversubscribed machine (a shared
    2-core CI box) it sometimes misses that and `ray.init` raises. A second try usually works.
    """
    import ray

    if not address:
        # Ray starts its workers at niceness 15, so on a laptop or a shared box an embedded
        # Ray's workers yield to every other process while the local executor runs at the
        # user's priority (measured: Ray 1.3-1.8x slower than local beside other work). An
        # embedded Ray's workers are the job itself: same priority as the command. A cluster
        # keeps its own setting.
        os.environ.setdefault("RAY_worker_niceness", "0")
    for attempt in range(1, attempts + 1):
        try:
            ray.init(**_init_args(address, num_cpus))
            return
        except Exception as exc:  # noqa: BLE001 - Ray raises a bare Exception for this
            if "timed out during startup" not in str(exc) or attempt == attempts:
                raise
            ray.shutdown()


def _init_args(address: str | None, num_cpus: int | None) -> dict[str, Any]:
    common = {"ignore_reinit_error": True, "log_to_driver": False, "configure_logging": False}
    if address:
        return {"address": address, **common}
    return {
        **common,
        "num_cpus": num_cpus or os.cpu_count() or 1,
        "include_dashboard": False,
        # Rows travel back through the object store; a small one suits a laptop and keeps
        # Ray from reserving a third of RAM on a shared machine.
        "object_store_memory": 256 * 1024 * 1024,
    }


def executor_name(name: str | None = None) -> str:
    """The executor asked for: `name`, else $STORYSCOPE_EXECUTOR, else local."""
    chosen = (name or os.environ.get(ENV_EXECUTOR) or "local").strip().lower()
    if chosen not in EXECUTORS:
        raise ValueError(f"executor {chosen!r}: expected one of {', '.join(EXECUTORS)}")
    return chosen


def make_executor(
    name: str | None = None, address: str | None = None, num_cpus: int | None = None
) -> Executor:
    """A local or Ray executor (`address` defaults to $STORYSCOPE_RAY_ADDRESS, else embedded).

    Raises:
        ValueError: an unknown executor name, or `ray` when Ray is not installed.
    """
    if executor_name(name) == "local":
        return LocalExecutor()
    try:
        import ray  # noqa: F401
    except ImportError as exc:
        raise ValueError(
            "--executor ray needs Ray: pip install 'storyscope[ray]' (docs/SCALE.md)"
        ) from exc
    return RayExecutor(address or os.environ.get(ENV_RAY_ADDRESS) or None, num_cpus)
