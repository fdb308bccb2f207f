"""The range every numeric setting must fall in, by name: no traceback,
nothing out of range accepted silently, no setting that makes a wait hang.

A number a user types reaches SQL (`LIMIT ?`), a cast, a semaphore or a timeout. Out of range it
fails there with a traceback (`--limit -1`, an integer past 64 bits), is taken silently
(`--concurrency 0`, `--books -1` dropping the last book), or never ends (a NaN timeout never
expires). So every numeric setting is checked against one table before anything uses it:

- `OPTION_RANGES`: CLI options by parameter name, whether given on the command line or by env
  var (pipelines/cli/option_ranges.py applies it to every numeric option of every command);
- `ENV_RANGES`: numbers read straight from the environment by name (the LLM gateway's
  settings, the store's lock timeout, torch's threads), checked by the CLI before a command
  runs and by `pipelines.llm.config` wherever the gateway is configured.

A number without an entry still has to be finite and, when an integer, fit 64 bits (DuckDB's
BIGINT). The message names the setting, the rule and the value; never a key (no key is a number).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


@dataclass(frozen=True)
class NumberRange:
    """`low ≤ value ≤ high` (`low < value` when `low_open`); None leaves that side open."""

    low: float | None = None
    high: float | None = None
    low_open: bool = False

    def problem(self, value: float) -> str | None:
        """Why `value` is out of range (`must be at least 1, got 0`), or None when it is in."""
        if isinstance(value, float) and not math.isfinite(value):
            return f"must be a finite number, got {value}"
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            word = "greater than" if self.low_open else "at least"
            return f"must be {word} {_shown(self.low)}, got {_shown(value)}"
        if self.high is not None and value > self.high:
            return f"must be at most {_shown(self.high)}, got {_shown(value)}"
        return None


def _shown(number: float) -> str:
    """An integer in full, a decimal short (`0.5`, `1e+09`)."""
    return str(number) if isinstance(number, int) else f"{number:g}"


ANY_INTEGER = NumberRange(INT64_MIN, INT64_MAX)  # what a BIGINT column or parameter holds
ANY_NUMBER = NumberRange()  # finite
COUNT = NumberRange(1, INT64_MAX)  # how many of something to take: none is no request
SMALL_COUNT = NumberRange(0, INT64_MAX)  # how many to print: none is fine
SEED = NumberRange(0, 2**32 - 1)  # what numpy and Python's random accept alike
MONEY_USD = NumberRange(0, 1e9)
TOKENS = NumberRange(0, INT64_MAX)
REQUEST_SECONDS = NumberRange(0, 3600, low_open=True)  # an hour: longer is a hung server
WAIT_SECONDS = NumberRange(0, 86400)  # 0: do not wait
CONCURRENCY = NumberRange(1, 1024)
RESAMPLES = NumberRange(1, 1_000_000)  # past a million a bootstrap only burns time

OPTION_RANGES: dict[str, NumberRange] = {
    "limit": COUNT,
    "books": COUNT,
    "n": COUNT,
    "top": COUNT,
    "top_m": COUNT,
    "batch_size": COUNT,
    "scenes_per_unit": COUNT,
    "per_topic": COUNT,
    "per_batch": COUNT,
    "max_batches": COUNT,
    "misses": SMALL_COUNT,
    "concurrency": CONCURRENCY,
    "resamples": RESAMPLES,
    "seed": SEED,
    "budget": MONEY_USD,
    "budget_usd": MONEY_USD,
    "budget_tokens": TOKENS,
    "leaf_seconds": NumberRange(0, 3600, low_open=True),
}

ENV_RANGES: dict[str, NumberRange] = {
    "STORYSCOPE_LLM_CONCURRENCY": CONCURRENCY,
    "STORYSCOPE_LLM_TIMEOUT": REQUEST_SECONDS,
    "STORYSCOPE_LLM_MAX_RETRIES": NumberRange(0, 100),
    "STORYSCOPE_LLM_BUDGET_USD": MONEY_USD,
    "STORYSCOPE_LLM_BUDGET_TOKENS": TOKENS,
    "STORYSCOPE_LLM_PRICE_IN": MONEY_USD,
    "STORYSCOPE_LLM_PRICE_OUT": MONEY_USD,
    "STORYSCOPE_LLM_MAX_TOKENS": COUNT,
    "STORYSCOPE_LOCK_TIMEOUT": WAIT_SECONDS,
    "STORYSCOPE_TORCH_THREADS": NumberRange(1, 256),
}
# which of ENV_RANGES hold whole numbers (the rest are decimals)
INTEGER_ENV = frozenset(
    {
        "STORYSCOPE_LLM_CONCURRENCY",
        "STORYSCOPE_LLM_MAX_RETRIES",
        "STORYSCOPE_LLM_BUDGET_TOKENS",
        "STORYSCOPE_LLM_MAX_TOKENS",
        "STORYSCOPE_TORCH_THREADS",
    }
)


class SettingOutOfRange(ValueError):
    """A numeric setting outside its range; the message names the setting."""


def option_range(name: str, integer: bool) -> NumberRange:
    """The range of the CLI option whose parameter is `name`."""
    return OPTION_RANGES.get(name, ANY_INTEGER if integer else ANY_NUMBER)


def checked_number(name: str, value: float, allowed: NumberRange) -> float:
    """`value`, or `SettingOutOfRange` naming `name` when it is out of `allowed`."""
    problem = allowed.problem(value)
    if problem is not None:
        raise SettingOutOfRange(f"{name} {problem}")
    return value


def parse_env_number(name: str, text: str) -> float:
    """The number an `ENV_RANGES` variable holds, range-checked; the error names the variable."""
    integer = name in INTEGER_ENV
    try:
        value = int(text) if integer else float(text)
    except ValueError:
        kind = "a whole number" if integer else "a number"
        raise SettingOutOfRange(f"{name} must be {kind}, got {text.strip()[:40]!r}") from None
    return checked_number(name, value, ENV_RANGES[name])


def check_environment(environ: dict[str, str]) -> None:
    """Every `ENV_RANGES` variable that is set (and not empty) holds a number in its range."""
    for name in ENV_RANGES:
        if environ.get(name):
            parse_env_number(name, environ[name])
