"""Wrap a scripted handler of the fake OpenAI-compatible server so a share of its calls fail.

`FaultyHandler(handler, rate=0.2, seed=...)` answers each request with one of five faults
users meet — 429 with Retry-After, 500, a stall past the client timeout, a body that is not
JSON, a reply cut short by the token limit — with probability `rate`, drawn from a seeded
generator (per request number, so a run is reproducible), and otherwise with the wrapped
handler's reply. It counts what it injected and, per distinct request, whether a good reply
was served after a fault (a recovery).
"""

from __future__ import annotations

import hashlib
import json
import random
import threading
from collections import Counter
from dataclasses import dataclass, field

from tests.support.fake_server import FakeReply

FAULT_KINDS = ("429", "500", "timeout", "malformed", "truncated")


def _body_key(body: dict) -> str:
    text = json.dumps(body.get("messages"), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class FaultyHandler:
    handler: object
    rate: float = 0.2
    seed: int = 19
    stall_s: float = 3.0  # longer than the test config's 2 s client timeout
    injected: Counter = field(default_factory=Counter)
    served_ok: int = 0
    faulted_keys: set = field(default_factory=set)
    recovered_keys: set = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, body: dict, number: int):
        draw = random.Random(self.seed * 1_000_003 + number)
        key = _body_key(body)
        if draw.random() < self.rate:
            kind = draw.choice(FAULT_KINDS)
            with self._lock:
                self.injected[kind] += 1
                self.faulted_keys.add(key)
            return self._fault(kind, body, number)
        reply = self.handler(body, number)
        with self._lock:
            self.served_ok += 1
            if key in self.faulted_keys:
                self.recovered_keys.add(key)
        return reply

    def _fault(self, kind: str, body: dict, number: int) -> FakeReply:
        if kind == "429":
            return FakeReply(status=429, retry_after=0.01, content="rate limited")
        if kind == "500":
            return FakeReply(status=500, content="internal error")
        if kind == "timeout":
            return FakeReply(content="late", delay_s=self.stall_s)
        if kind == "malformed":
            return FakeReply(raw_body="<html>502 Bad Gateway</html>")
        good = self.handler(body, number)
        text = good.content if isinstance(good, FakeReply) else str(good)
        return FakeReply(content=text[: max(1, len(text) // 2)], finish_reason="length")

    @property
    def faults(self) -> int:
        return sum(self.injected.values())

    def figures(self) -> dict:
        return {
            "faults_injected": self.faults,
            "by_kind": dict(self.injected),
            "requests_faulted": len(self.faulted_keys),
            "requests_recovered": len(self.recovered_keys),
        }
