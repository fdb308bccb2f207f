"""The local executor with every unit and outcome pickled as Ray pickles them, and a record
of what was dispatched: checks a scaled step's units without starting Ray."""

from __future__ import annotations

import cloudpickle

from pipelines.scale.executor import LocalExecutor


class PicklingExecutor(LocalExecutor):
    """The local executor, with every unit and outcome pickled as Ray pickles them; `sent`
    holds each dispatched unit, pickled, in dispatch order."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def map_units(self, fn, units):
        for unit in units:
            blob = cloudpickle.dumps(unit)
            self.sent.append(blob)
            for outcome in super().map_units(fn, [cloudpickle.loads(blob)]):
                yield cloudpickle.loads(cloudpickle.dumps(outcome))

    def payload(self, index: int):
        """The payload of the `index`-th unit dispatched, as the worker received it."""
        return cloudpickle.loads(self.sent[index]).payload
