"""The openai judge's scaled-out units (issue 30): the driver ships each unit's compact inputs
(answers, questions, claims), the worker renders the App. F.2 prompts and builds the rows as
Arrow tables, the driver inserts them. Checked without Ray (units and outcomes go through
cloudpickle, as Ray sends them): the cache keys the driver computes equal the gateway's in
every mode, a scaled run writes a local run's rows, shares its cache, ships no prompt and no
key, and the batched writers write what the row-by-row ones wrote.
"""

from __future__ import annotations

import cloudpickle
import pandas as pd
import pytest

from data_access.store import Store
from data_access.writes import judging, llm_log
from pipelines.judge import JudgeOptions, run_judge
from pipelines.judge.work import judge_items, judge_keys, llm_requests, load_slice
from pipelines.llm import Gateway
from pipelines.scale.executor import LocalExecutor
from tests.support.fake_llm import TEST_KEY
from tests.support.lfvqa_rows import build_slice, scripted_judge


class PicklingExecutor(LocalExecutor):
    """The local executor, with every unit and outcome pickled as Ray pickles them."""

    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def map_units(self, fn, units):
        for unit in units:
            blob = cloudpickle.dumps(unit)
            self.sent.append(blob)
            for outcome in super().map_units(fn, [cloudpickle.loads(blob)]):
                yield cloudpickle.loads(cloudpickle.dumps(outcome))


def _store(tmp_path, name: str) -> Store:
    store = Store(tmp_path / f"{name}.duckdb", lock_timeout=10)
    build_slice(store, n_copies=3)
    # distinct answers per copy, so the prompts (and cache keys) differ between copies
    with store.transaction() as cursor:
        cursor.execute("UPDATE answers SET text = text || ' (' || answer_id || ')'")
    return store


def _rows(store: Store, run_id: str) -> dict[str, pd.DataFrame]:
    calls = (
        "SELECT item_id, cache_key, cached, status, prompt_tokens, completion_tokens,"
        " cost_usd, attempts, error, raw_reply, reason FROM llm_calls WHERE run_id = ?"
        " ORDER BY item_id"
    )
    return {
        "verdicts": store.df(
            "SELECT answer_id, claim_id, verdict, rationale FROM claim_verdicts"
            " WHERE run_id = ? ORDER BY answer_id, claim_id",
            [run_id],
        ),
        "calls": store.df(calls, [run_id]),
        "cache": store.df(
            "SELECT cache_key, model, request, response, prompt_tokens, completion_tokens"
            " FROM llm_cache ORDER BY cache_key"
        ),
        "usage": store.df(
            "SELECT prompt_tokens, completion_tokens, cost_usd, n_items, n_failed, status"
            " FROM runs WHERE run_id = ?",
            [run_id],
        ),
    }


@pytest.mark.parametrize("structured", ["auto", "json_schema", "json_object", "prompt", "none"])
@pytest.mark.parametrize("version", ["judge-claims-v1", "judge-claims-v2"])
def test_the_drivers_cache_keys_are_the_gateways_in_every_mode(tmp_path, structured, version):
    store = _store(tmp_path, "keys")
    llm = {"base_url": "http://x", "model": "m", "structured": structured, "max_tokens": 300}
    options = JudgeOptions(backend="openai", prompt_version=version, llm=llm)
    part = load_slice(store, options)
    gateway = Gateway(store, options.config(), "r")
    expected = [gateway.key_of(r) for r in llm_requests(part, options)]
    assert judge_keys(judge_items(part), part.claims, version, gateway) == expected


def test_a_scaled_judge_ships_inputs_not_prompts_and_writes_the_local_rows(tmp_path, fake_llm):
    server = fake_llm(scripted_judge)
    llm = fake_llm.config(server, api_key=None, concurrency=2).public_dict()
    local = _store(tmp_path, "local")
    want = run_judge(local, JudgeOptions(backend="openai", llm=llm, batch_size=4))

    scaled = _store(tmp_path, "scaled")
    executor = PicklingExecutor()
    options = JudgeOptions(backend="openai", llm=llm, batch_size=4, executor="ray")
    monkey_key = {"STORYSCOPE_LLM_API_KEY": TEST_KEY}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in monkey_key.items():
            patch.setenv(name, value)
        got = run_judge(scaled, options, executor=executor)

    assert got["done"] == want["done"] == 12 and got["failed"] == want["failed"] == 0
    expected, actual = _rows(local, want["run_id"]), _rows(scaled, got["run_id"])
    for table in expected:
        pd.testing.assert_frame_equal(expected[table], actual[table], obj=table)
    # max(batch_size, 4 x concurrency) = 8 answers a unit; each carries its inputs, not prompts
    assert len(executor.sent) == 2
    for blob in executor.sent:
        payload = cloudpickle.loads(blob).payload
        assert "requests" not in payload and TEST_KEY.encode() not in blob
        assert all(len(item) == 4 for item in payload["items"])
        assert set(payload["claims"]) == {item[1] for item in payload["items"]}
        assert b"# Labels" not in blob  # no rendered App. F.2 prompt travels


def test_a_scaled_rerun_replays_a_local_runs_cache_sending_nothing(tmp_path, fake_llm):
    server = fake_llm(scripted_judge)
    llm = fake_llm.config(server, api_key=None, concurrency=2).public_dict()
    store = _store(tmp_path, "shared")
    run_judge(store, JudgeOptions(backend="openai", llm=llm, batch_size=4))
    sent = len(server.log.bodies)
    executor = PicklingExecutor()
    options = JudgeOptions(backend="openai", llm=llm, batch_size=4, executor="ray")
    again = run_judge(store, options, executor=executor)
    assert again["done"] == 12 and len(server.log.bodies) == sent and not executor.sent
    calls = store.df("SELECT cached FROM llm_calls WHERE run_id = ?", [again["run_id"]])
    assert len(calls) == 12 and calls.cached.all()


def test_the_batched_writers_write_what_the_row_writers_wrote(tmp_path):
    entries = [
        llm_log.CacheEntry(f"k{i % 3}", "m", {"messages": [i]}, {"content": f"r{i}"}, i, 2 * i)
        for i in range(5)
    ]
    calls = [
        {
            "run_id": "r",
            "item_id": f"a{i}",
            "cache_key": f"k{i}",
            "cached": i == 1,
            "status": "ok" if i != 2 else "failed",
            "prompt_tokens": 10 * i,
            "completion_tokens": i,
            "cost_usd": 0.5 * i,
            "latency_ms": 1.0,
            "attempts": 1,
            "error": None,
            "raw_reply": None,
            "reason": None,
        }
        for i in range(4)
    ]
    verdicts = [("a1", "c1", "asserted", "why"), ("a1", "c2", "omitted", None)]
    frames = {}
    for how in ("rows", "tables"):
        store = Store(tmp_path / f"{how}.duckdb")
        with store.transaction() as cursor:
            cursor.execute(
                "INSERT INTO runs (run_id, step, status) VALUES ('r', 'judge', 'running')"
            )
            if how == "rows":
                llm_log.record_batch(cursor, "r", entries, calls)
                judging.write_verdicts(cursor, "r", "j", verdicts)
            else:
                tables = llm_log.cache_table(entries), llm_log.calls_table(calls)
                llm_log.record_tables(cursor, "r", *tables)
                judging.write_verdicts(cursor, "r", "j", judging.verdict_table(verdicts))
        frames[how] = [
            store.df(f"SELECT * EXCLUDE ({skip}) FROM {table} ORDER BY ALL")
            for table, skip in [
                ("llm_cache", "created_at"),
                ("llm_calls", "created_at"),
                ("claim_verdicts", "run_id"),
            ]
        ] + [store.df("SELECT prompt_tokens, completion_tokens, cost_usd FROM runs")]
    for rows, tables in zip(frames["rows"], frames["tables"]):
        pd.testing.assert_frame_equal(rows, tables)
    assert frames["tables"][3].iloc[0].tolist() == [50, 5, 2.5]  # the uncached calls only


def test_the_driver_holds_the_store_file_across_units_and_lets_it_go(tmp_path, monkeypatch):
    from data_access.store import connection
    from pipelines.judge import scaled

    store = _store(tmp_path, "held")
    path = store.path
    with scaled._HeldFile(store, hold_s=3600) as held:
        with store.transaction():
            pass
        opened = connection._open_files[path].connection
        held.release_if_due()  # not due: the same connection stays
        with store.transaction():
            assert connection._open_files[path].connection is opened
        held.hold_s = 0
        held.release_if_due()  # due: closed and opened again
        assert connection._open_files[path].connection is not opened
    assert path not in connection._open_files  # released on leaving
