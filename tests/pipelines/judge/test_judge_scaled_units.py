"""The openai judge's scaled-out units: the driver ships each unit's compact inputs
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
from data_access.tables import judging, llm_log
from pipelines.judge import JudgeOptions, run_judge
from pipelines.judge.work import judge_items, judge_keys, llm_requests, load_slice
from pipelines.llm import Gateway
from tests.support.fake_llm import TEST_KEY
from tests.support.lfvqa_rows import build_slice, scripted_judge
from tests.support.pickling_executor import PicklingExecutor


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


def _spy_cache_inserts(monkeypatch) -> list[tuple]:
    """(known_new, outcome, rows) of each cache insert the driver makes."""
    inserts = []
    insert = llm_log.insert_cache_table

    def spy(cursor, table, known_new=False):
        try:
            insert(cursor, table, known_new)
        except llm_log.CacheKeyTaken:
            inserts.append((known_new, "taken", table.num_rows))
            raise
        inserts.append((known_new, "ok", table.num_rows))

    monkeypatch.setattr(llm_log, "insert_cache_table", spy)
    return inserts


def _every_claim_judged(store: Store, run_id: str) -> None:
    judged = store.df(
        "SELECT answer_id, count(*) AS n FROM claim_verdicts WHERE run_id = ? GROUP BY 1"
        " ORDER BY 1",
        [run_id],
    )
    claims = store.df(
        "SELECT a.answer_id, count(*) AS n FROM answers a JOIN rubric_claims c"
        " USING (question_id) GROUP BY 1 ORDER BY 1"
    )
    pd.testing.assert_frame_equal(judged, claims)


def test_a_prompt_two_units_share_is_cached_once_and_both_answers_judged(
    tmp_path, fake_llm, monkeypatch
):
    # the driver inserts a unit's cache rows with a plain INSERT; build_slice's copies share
    # prompts, so the second unit's keys are the first's: the driver leaves them out
    server = fake_llm(scripted_judge)
    llm = fake_llm.config(server, api_key=None, concurrency=2).public_dict()
    store = Store(tmp_path / "shared-prompts.duckdb", lock_timeout=10)
    build_slice(store, n_copies=3)
    inserts = _spy_cache_inserts(monkeypatch)
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", TEST_KEY)
    options = JudgeOptions(backend="openai", llm=llm, batch_size=4, executor="ray")
    got = run_judge(store, options, executor=PicklingExecutor())

    assert got["done"] == 12 and got["failed"] == 0
    assert inserts == [(True, "ok", 4), (True, "ok", 0)]  # 2 questions x 2 settings' answers
    _every_claim_judged(store, got["run_id"])
    keys = store.df("SELECT cache_key, count(*) AS n FROM llm_cache GROUP BY 1")
    assert len(keys) == 4 and (keys.n == 1).all()


def test_a_key_another_run_cached_meanwhile_redoes_the_unit_keeping_the_first_reply(
    tmp_path, fake_llm, monkeypatch
):
    server = fake_llm(scripted_judge)
    llm = fake_llm.config(server, api_key=None, concurrency=2).public_dict()
    store = _store(tmp_path, "meanwhile")
    run_judge(store, JudgeOptions(backend="openai", llm=llm, batch_size=4))
    cache = store.df("SELECT * FROM llm_cache ORDER BY cache_key")
    # as if the other run wrote its replies after this one split its answers
    monkeypatch.setattr(llm_log, "cached_keys", lambda store, keys: set())
    inserts = _spy_cache_inserts(monkeypatch)
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", TEST_KEY)
    options = JudgeOptions(backend="openai", llm=llm, batch_size=4, executor="ray")
    got = run_judge(store, options, executor=PicklingExecutor())

    assert got["done"] == 12 and got["failed"] == 0
    assert inserts == [(True, "taken", 8), (False, "ok", 8), (True, "taken", 4), (False, "ok", 4)]
    _every_claim_judged(store, got["run_id"])
    pd.testing.assert_frame_equal(store.df("SELECT * FROM llm_cache ORDER BY cache_key"), cache)
    calls = store.df("SELECT count(*) AS n FROM llm_calls WHERE run_id = ?", [got["run_id"]])
    assert calls.n[0] == 12  # each call row once: the aborted attempt left none


def test_a_known_new_cache_insert_that_meets_a_cached_key_changes_nothing(tmp_path):
    store = Store(tmp_path / "cache.duckdb")
    entry = llm_log.CacheEntry("k1", "m", {"q": 1}, {"a": 1}, 3, 4)
    with store.transaction() as cursor:
        llm_log.insert_cache_table(cursor, llm_log.cache_table([entry]), known_new=True)
    before = store.df("SELECT * FROM llm_cache")
    second = llm_log.CacheEntry("k2", "m", {"q": 2}, {"a": 2}, 3, 4)
    table = llm_log.cache_table([second, entry])
    with pytest.raises(llm_log.CacheKeyTaken), store.transaction() as cursor:
        llm_log.insert_cache_table(cursor, table, known_new=True)
    pd.testing.assert_frame_equal(store.df("SELECT * FROM llm_cache"), before)
    with store.transaction() as cursor:  # the old form keeps the first reply
        llm_log.insert_cache_table(cursor, llm_log.cache_table([second, entry]))
    assert store.df("SELECT cache_key FROM llm_cache ORDER BY 1").cache_key.tolist() == [
        "k1",
        "k2",
    ]


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
    from data_access.store import HeldFile, connection

    store = _store(tmp_path, "held")
    path = store.path
    with HeldFile(store, hold_s=3600) as held:
        with store.transaction():
            pass
        opened = connection._open_files[path].connection
        held.release_if_due()  # not due: the same connection stays
        with store.transaction():
            assert connection._open_files[path].connection is opened
        held.hold_s = 0
        held.release_if_due()  # due: closed, and free for another process until the next write
        assert path not in connection._open_files
        held.hold()
        assert connection._open_files[path].connection is not opened
    assert path not in connection._open_files  # released on leaving


def _named(where: str) -> str:
    """The options' executor: "ray" stands for the PicklingExecutor the scaled runs get."""
    return "ray" if where == "scaled" else "local"


def _formats(server) -> list[str | None]:
    return [(b.get("response_format") or {}).get("type") for b in server.log.bodies]


@pytest.mark.parametrize("where", ["local", "scaled"])
def test_a_units_mode_step_down_is_remembered_and_shipped_to_the_next_units(
    tmp_path, fake_llm, monkeypatch, where
):
    from data_access.tables.llm_modes import endpoint_modes, remembered_mode
    from tests.support.fake_server import Dialect

    server = fake_llm(Dialect("llama_cpp_python", scripted_judge))
    llm = fake_llm.config(server, api_key=None, concurrency=2).public_dict()
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", TEST_KEY)
    store = _store(tmp_path, where)
    executor = PicklingExecutor() if where == "scaled" else None
    options = JudgeOptions(backend="openai", llm=llm, batch_size=4, executor=_named(where))
    got = run_judge(store, options, executor=executor)

    assert got["done"] == 12 and got["failed"] == 0
    # one rejected json_schema request (the first unit's first call goes alone), then the
    # first unit's other calls and every later unit's in json_object
    assert _formats(server) == ["json_schema"] + ["json_object"] * 12
    assert remembered_mode(store, server.base_url, "fake-model") == "json_object"
    assert "format rejected (json_schema)" in endpoint_modes(store).iloc[0]["reason"]
    if executor is not None:
        second = cloudpickle.loads(executor.sent[1]).payload
        assert second["mode"] == second["remembered"] == "json_object" and second["answered"]
    # the next run starts in the remembered mode: no rejected request at all
    with store.transaction() as cursor:
        cursor.execute("UPDATE answers SET text = text || ' again'")
    server.log.bodies.clear()
    again = run_judge(store, options, executor=PicklingExecutor() if executor else None)
    assert again["done"] == 12 and _formats(server) == ["json_object"] * 12


@pytest.mark.parametrize("where", ["local", "scaled"])
def test_a_refused_key_ends_the_dispatch_and_the_run_after_one_request(
    tmp_path, fake_llm, monkeypatch, where
):
    from pipelines.llm.calls import EndpointRefused
    from tests.support.fake_server import FakeReply

    server = fake_llm(lambda body, n: FakeReply(status=401, content="invalid key"))
    llm = fake_llm.config(server, api_key=None, concurrency=2).public_dict()
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", TEST_KEY)
    store = _store(tmp_path, where)
    executor = PicklingExecutor() if where == "scaled" else None
    options = JudgeOptions(backend="openai", llm=llm, batch_size=4, executor=_named(where))
    with pytest.raises(EndpointRefused, match=r"refused the API key \(HTTP 401\)"):
        run_judge(store, options, executor=executor)

    assert len(server.log.bodies) == 1  # nothing was sent after the refusal
    if executor is not None:
        assert len(executor.sent) == 1  # the second unit was never dispatched
    calls = store.df("SELECT status, reason FROM llm_calls")
    assert calls.status.tolist() == ["failed"] and calls.reason.tolist() == ["key refused"]
    progress = store.df("SELECT n_items, n_failed, status FROM runs WHERE step = 'judge'")
    assert progress.status.tolist() == ["running"]  # not ended: the command fails with it


def test_a_local_judge_stops_at_its_budget_and_resumes_the_rest(tmp_path, fake_llm, monkeypatch):
    server = fake_llm(scripted_judge)
    llm = fake_llm.config(server, api_key=None, concurrency=2).public_dict()
    monkeypatch.setenv("STORYSCOPE_LLM_API_KEY", TEST_KEY)
    whole = _store(tmp_path, "whole")
    full = run_judge(whole, JudgeOptions(backend="openai", llm=llm, batch_size=4))
    total = int(
        whole.scalar(
            "SELECT prompt_tokens + completion_tokens FROM runs WHERE run_id = ?", [full["run_id"]]
        )
    )

    store = _store(tmp_path, "budget")
    tight = {**llm, "budget_tokens": total // 3}
    summary = run_judge(store, JudgeOptions(backend="openai", llm=tight, batch_size=4))
    assert summary["stopped"] and 0 < summary["done"] < 12 and summary["failed"] == 0
    assert store.scalar("SELECT status FROM runs WHERE run_id = ?", [summary["run_id"]]) == (
        "stopped"
    )
    calls = store.df(
        "SELECT prompt_tokens + completion_tokens AS tokens FROM llm_calls WHERE run_id = ?",
        [summary["run_id"]],
    )
    # no call once the budget was spent; the calls in flight (concurrency 2) finish
    assert total // 3 <= int(calls.tokens.sum()) <= total // 3 + 2 * int(calls.tokens.max())
    assert len(calls) == summary["done"]  # a call not sent is no row and no failure


def test_local_units_grow_to_the_flush_interval_in_whole_rounds(tmp_path):
    from pipelines.judge.runners import _LLMUnits
    from pipelines.judge.verdicts import VerdictWriter

    store = _store(tmp_path, "sizes")
    llm = {"base_url": "http://x", "model": "m", "concurrency": 2}
    options = JudgeOptions(backend="openai", llm=llm)
    part = load_slice(store, options)
    gateway = Gateway(store, options.config(), "r")
    units = _LLMUnits(store, part, options, VerdictWriter(store, "r", "j"), gateway, None)
    items = judge_items(part) * 40  # 480 answers
    paced = units.fresh(items, 8, pace_s=0.5, concurrency=2)
    sizes = [len(next(paced).payload["items"])]  # no rate yet: the base size
    for rate in (100.0, 1.0, 1000.0, 13.0):  # answers a second of the last unit
        units.rate = rate
        sizes.append(len(next(paced).payload["items"]))
    # 0.5 s of the last rate, in rounds of 2, at least 8 and at most 8 x 8
    assert sizes == [8, 50, 8, 64, 8]
    assert [len(u.payload["items"]) for u in units.fresh(items[:20], 8)] == [8, 8, 4]
