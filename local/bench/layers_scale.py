"""Every layer at the seed's scale: the profile graph of 100,000 users (about ten edges each) and
10,000,000 ``task_events``, the recall chain's profile and tasks steps beside the raw query of each
store measured alone, in the same run.

    nice -n 10 python -m local.bench.layers_scale [--graph-users 100000] [--task-rows 10000000]
        [--layer-samples 1000] [--sealed-share 0.1] [--reuse-layers | --keep-layers] [--drop-layers]
        [--json OUT]

(also reached from ``python -m local.bench.scale --graph-users N --task-rows M``). The data is what
the product writes, built by its own functions: node keys from ``domain.keys``, sensitive facts
blinded and sealed by ``service.privacy.protect_fact`` under each user's real data key (made through
KMS, so a share of the users, ``--sealed-share``, pays for it), task ids from ``routing.task_id_for``,
lifecycles walked along ``domain.working.tasks.TRANSITIONS``, over the hot window (``hot_days``) ending two
days ago (the nightly-archive test archives yesterday whole; it must not archive ours). Edges go in
by UNWIND under the adapter's labels and constraints, rows by COPY into the real hypertable, one
transaction per batch of users, so ``--reuse-layers`` (a fixed tenant kept across runs) resumes a
partial load and a second run loads nothing. Without it the run's own tenant is dropped afterwards.

A step is ``recall.runners.execute`` of the plan's step under its configured deadline (a late or
failing one is counted degraded) in a fresh process state (no key cached: a user's first recall);
its floor is the exact query the adapter sent for that step (captured, not copied), run directly:
Cypher on a session of the driver, SQL on a connection of its own. Same users, same concurrency: each
user's step and raw query run back to back on one client, which first alternating by user.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import neo4j
import psycopg

from engram.adapters.neo4j.profile_graph import ProfileGraph
from engram.adapters.postgres.task_store import TaskStore
from engram.bootstrap import build
from engram.config import get_settings
from engram.dependencies import Dependencies
from engram.domain.keys import user_node_key
from engram.domain.model import Scope
from engram.service.privacy import protect_fact
from engram.service.recall import RECALL_PLAN, RecallRequest
from engram.service.recall.steps import execute, warm_up

from . import scale
from .layer_rows import event_counts, graph_rows, profile_facts, task_rows, user_id

REUSED_TENANT = "bench-layers"
COLD_EXECUTIONS = 12  # enough for a connection to reach the generic plan of a statement
_COPY = "COPY task_events (tenant, user_id, task_id, status, metadata, duration_ms, ts) FROM STDIN"
# The seed's figures on production hardware: (percentile, ms, what it said).
SEED = {"profile": ("p99", 120.0, "graph p99 120 ms at 100,000 users"),
        "tasks": ("p95", 65.0, "task p95 65 ms over 10,000,000 events")}
QUESTIONS = {"profile": "what food do I like and where do I live?", "tasks": "which of my tasks are still open?"}


# -- loading ------------------------------------------------------------------------------------

def _batches(total: int, size: int) -> list[range]:
    return [range(lo, min(total, lo + size)) for lo in range(0, total, size)]


def _resume(batches: list[range], complete) -> int:
    """How many leading batches a previous run committed (each batch is one transaction, in order)."""
    return next((i for i, b in enumerate(batches) if not complete(b)), len(batches))


def _is_sealed(u: int, share: float) -> bool:
    return random.Random(f"sealed:{u}").random() < share


def load_graph(deps: Dependencies, tenant: str, users: int, share: float, batch: int = 1000) -> dict:
    driver, now = deps.clients.neo4j, datetime.now(UTC)
    deps.graph.ensure_constraints()
    batches = _batches(users, batch)

    def complete(b: range) -> bool:
        records, _, _ = driver.execute_query("MATCH (u:User {uid: $uid}) RETURN count(u) AS n",
                                             {"uid": user_node_key(Scope(tenant, user_id(b[-1])))})
        return records[0]["n"] > 0

    def rows_of(u: int) -> list[dict]:
        scope, rng = Scope(tenant, user_id(u)), random.Random(f"graph:{u}")
        facts = profile_facts(rng, now, _is_sealed(u, share))
        return graph_rows(scope, [protect_fact(deps.keys, scope, f) for f in facts], rng)

    def write(tx, users_: list[dict], edges: list[dict]) -> None:
        tx.run("UNWIND $rows AS row MERGE (u:User {uid: row.uid}) ON CREATE SET u.tenant = row.tenant, "
               "u.user_id = row.user, u.created_at = row.now", rows=users_).consume()
        for label in sorted({e["label"] for e in edges}):
            objects = list({e["key"]: {"key": e["key"], "name": e["name"]}
                            for e in edges if e["label"] == label}.values())
            tx.run(f"UNWIND $rows AS row MERGE (o:{label} {{key: row.key}}) ON CREATE SET o.name = row.name, "
                   f"o.tenant = $tenant, o.created_at = $now", rows=objects, tenant=tenant, now=now).consume()
        for rel, label in sorted({(e["rel"], e["label"]) for e in edges}):
            part = [{"uid": e["uid"], "key": e["key"], "props": e["props"]} for e in edges if e["rel"] == rel]
            tx.run(f"UNWIND $rows AS row MATCH (u:User {{uid: row.uid}}) MATCH (o:{label} {{key: row.key}}) "
                   f"CREATE (u)-[r:{rel}]->(o) SET r = row.props", rows=part).consume()

    done, started, edges_loaded = _resume(batches, complete), time.perf_counter(), 0
    with ThreadPoolExecutor(4) as pool:  # sealed users wait on KMS for their data key
        for i, b in enumerate(batches[done:], done):
            edges = [e for rows in pool.map(rows_of, b) for e in rows]
            users_ = [{"uid": user_node_key(Scope(tenant, user_id(u))), "tenant": tenant, "user": user_id(u),
                       "now": now} for u in b]
            with driver.session() as session:
                session.execute_write(write, users_, edges)
            edges_loaded += len(edges)
            if i % 10 == 0 or i == len(batches) - 1:
                print(f"  graph: {b[-1] + 1}/{users} users, {edges_loaded} edges this run, "
                      f"{time.perf_counter() - started:.0f} s", flush=True)
    return {"users": users, "resumed_batches": done, "edges_loaded": edges_loaded,
            "seconds": round(time.perf_counter() - started, 1)}


def task_window(deps: Dependencies) -> tuple[datetime, datetime]:
    end = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=2)
    return end - timedelta(days=deps.settings.hot_days), end


def load_tasks(deps: Dependencies, tenant: str, users: int, rows: int, batch: int = 2000) -> dict:
    counts, (start, end) = event_counts(users, rows), task_window(deps)
    batches = _batches(users, batch)

    def complete(b: range) -> bool:
        last = next((u for u in reversed(b) if counts[u]), None)
        with deps.clients.pg() as conn:
            return last is None or conn.execute("SELECT 1 FROM task_events WHERE tenant = %s AND user_id = %s LIMIT 1",
                                                (tenant, user_id(last))).fetchone() is not None

    done, started, loaded = _resume(batches, complete), time.perf_counter(), 0
    with psycopg.connect(deps.clients.postgres_conninfo()) as conn:
        for i, b in enumerate(batches[done:], done):
            with conn.transaction(), conn.cursor() as cur, cur.copy(_COPY) as copy:
                for u in b:
                    for row in task_rows(Scope(tenant, user_id(u)), counts[u], start, end, random.Random(f"task:{u}")):
                        copy.write_row(row)
                    loaded += counts[u]
            if i % 5 == 0 or i == len(batches) - 1:
                print(f"  tasks: {b[-1] + 1}/{users} users, {loaded} rows this run, "
                      f"{time.perf_counter() - started:.0f} s", flush=True)
    return {"rows": rows, "resumed_batches": done, "rows_loaded": loaded,
            "seconds": round(time.perf_counter() - started, 1), "window": [start.isoformat(), end.isoformat()]}


def drop(deps: Dependencies, tenant: str) -> None:
    with deps.clients.neo4j.session() as session:
        for match in ("MATCH (n:User) WHERE n.tenant = $t", "MATCH (n) WHERE n.tenant = $t"):
            session.run(f"{match} CALL {{ WITH n DETACH DELETE n }} IN TRANSACTIONS OF 2000 ROWS", t=tenant).consume()
    with deps.clients.pg() as conn:
        first, last = conn.execute("SELECT min(ts), max(ts) FROM task_events WHERE tenant = %s", (tenant,)).fetchone()
        conn.execute("DELETE FROM task_events WHERE tenant = %s", (tenant,))
        conn.execute("DELETE FROM user_keys WHERE tenant = %s", (tenant,))
        if first is None:
            return
        # The day chunks this load made, now empty, go too: every task query plans over each chunk.
        chunks = conn.execute("SELECT range_start, range_end FROM timescaledb_information.chunks WHERE "
                              "hypertable_name = 'task_events' AND range_end > %s AND range_start <= %s",
                              (first, last)).fetchall()
        for start, end in chunks:
            if conn.execute("SELECT 1 FROM task_events WHERE ts >= %s AND ts < %s LIMIT 1", (start, end)).fetchone():
                continue
            conn.execute("SELECT engram_drop_chunks('task_events', %s, %s)", (end + timedelta(microseconds=1), start))


# -- measuring ----------------------------------------------------------------------------------

class _Capture:
    """Stands in for ``Clients`` under an adapter: records each query it is sent, answers nothing."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict]] = []

    @property
    def neo4j(self) -> _Capture:
        return self

    def session(self, **_) -> _Capture:  # a session, a pooled connection, a cursor: all this
        return self

    pg = cursor = session

    def run(self, query, params=None, **_):
        self.sent.append((query, dict(params or {})))
        return []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, query, params=None):
        self.sent.append((query, params))
        return self

    def fetchall(self):
        return []


def _context(tenant: str, name: str, u: int):
    return RECALL_PLAN.context(RecallRequest.parse(Scope(tenant, user_id(u)), QUESTIONS[name], 10), {})


def captured_query(deps: Dependencies, tenant: str, name: str, u: int) -> tuple[str, dict]:
    capture = _Capture()
    step = RECALL_PLAN.step(name)
    step.read(deps.with_(graph=ProfileGraph(capture), tasks=TaskStore(capture)), _context(tenant, name, u), {})
    return capture.sent[0]


def measure(deps: Dependencies, tenant: str, name: str, users: list[int], clients: int) -> list[tuple]:
    """Each user's step and raw query back to back on one client thread, which first alternating
    by user: both meet the same load on the machine, and neither always finds the other's pages."""
    step, deadline = RECALL_PLAN.step(name), deps.settings.recall_deadlines_ms[name]
    local = threading.local()
    conninfo = deps.clients.postgres_conninfo()
    opened: list = []

    def run_step(u: int) -> tuple[float, bool]:
        ctx = _context(tenant, name, u)
        start = time.perf_counter()
        result = execute(deps, step, ctx, {}, deadline)
        return (time.perf_counter() - start) * 1000, result.degraded

    def query_once(handle, query: str, params: dict) -> None:
        if name == "profile":
            list(handle.run(query, params))
        else:
            handle.execute(query, params).fetchall()

    def run_raw(u: int) -> float:
        query, params = captured_query(deps, tenant, name, u)
        if not hasattr(local, "handle"):
            local.handle = (deps.clients.neo4j.session(default_access_mode=neo4j.READ_ACCESS) if name == "profile"
                            else psycopg.connect(conninfo, autocommit=True))
            opened.append(local.handle)
            for _ in range(COLD_EXECUTIONS):  # as warm as the pool's: prepared, on its generic plan
                query_once(local.handle, *captured_query(deps, tenant, name, 0))
        start = time.perf_counter()
        query_once(local.handle, query, params)
        return (time.perf_counter() - start) * 1000

    def both(item: tuple[int, int]) -> tuple[tuple[float, bool], float]:
        i, u = item
        if i % 2:
            raw = run_raw(u)
            return run_step(u), raw
        return run_step(u), run_raw(u)

    with ThreadPoolExecutor(max_workers=clients) as pool:
        pairs = list(pool.map(both, enumerate(users)))
    for handle in opened:
        handle.close()
    return [(u, step_ms, degraded, raw_ms) for u, ((step_ms, degraded), raw_ms) in zip(users, pairs, strict=True)]


def figures_of(runs: list[tuple], clients: int, deadline: float) -> dict:
    """Percentiles of (user, step ms, degraded, raw ms) runs: the step's, its floor's, their ratio."""
    ms, floor = [r[1] for r in runs], [r[3] for r in runs]
    out = {"clients": clients, "samples": len(runs), "degraded": sum(r[2] for r in runs), "deadline_ms": deadline,
           **{f"{prefix}p{p}_ms": scale.percentile(values, p / 100) for prefix, values in (("", ms), ("floor_", floor))
              for p in (50, 95, 99)}}
    out["ratio"] = round(out["p95_ms"] / max(out["floor_p95_ms"], 1e-6), 2)
    out["ratio_p99"] = round(out["p99_ms"] / max(out["floor_p99_ms"], 1e-6), 2)
    return out


def cold_connection(deps: Dependencies, tenant: str, users: list[int]) -> dict:
    """The first executions of the tasks step on a new pooled connection and of its SQL on a new
    connection: each plans the query over every chunk of the hypertable (no time bound prunes
    them) until psycopg prepares it (6th) and PostgreSQL settles on its generic plan (after 5
    custom ones); a Lambda pays this for every connection it opens."""
    fresh = build(deps.settings.model_copy(update={"postgres_pool_max": 1}))
    step, deadline = RECALL_PLAN.step("tasks"), deps.settings.recall_deadlines_ms["tasks"]
    warm_up(fresh, (step,))  # the connection is open (a Lambda's init), its statements not yet planned
    steps, raws = [], []
    with psycopg.connect(fresh.clients.postgres_conninfo(), autocommit=True) as conn:
        for u in users[:COLD_EXECUTIONS]:
            ctx, (query, params) = _context(tenant, "tasks", u), captured_query(deps, tenant, "tasks", u)
            start = time.perf_counter()
            execute(fresh, step, ctx, {}, deadline)
            steps.append(round((time.perf_counter() - start) * 1000, 1))
            start = time.perf_counter()
            conn.execute(query, params).fetchall()
            raws.append(round((time.perf_counter() - start) * 1000, 1))
    print(f"tasks on a new connection, executions 1-{len(steps)} (ms): step {steps}; raw {raws}")
    return {"step_ms": steps, "raw_ms": raws}


def report(name: str, figures: dict) -> None:
    which, ms, said = SEED[name]
    print(f"{name} step vs raw {'Cypher' if name == 'profile' else 'SQL'} ({figures['samples']} users, "
          f"{figures['clients']} client(s), deadline {figures['deadline_ms']} ms):")
    print(f"  step  p50 {figures['p50_ms']:>7}  p95 {figures['p95_ms']:>7}  p99 {figures['p99_ms']:>7}  "
          f"degraded {figures['degraded']}")
    print(f"  raw   p50 {figures['floor_p50_ms']:>7}  p95 {figures['floor_p95_ms']:>7}  "
          f"p99 {figures['floor_p99_ms']:>7}")
    print(f"  ratio p95 {figures['ratio']}x  p99 {figures['ratio_p99']}x (target <= 1.5x); "
          f"ours {which} {figures[which + '_ms']} ms beside the seed's {said} (production hardware)")


def run(deps: Dependencies, tenant: str, graph_users: int, task_rows_: int, samples: int, share: float,
        clients: tuple[int, ...] = (1, 4)) -> dict:
    print(f"tenant {tenant}: profile graph of {graph_users} users ({share:.0%} with sealed relations), "
          f"{task_rows_} task events", flush=True)
    with deps.clients.pg() as conn:
        before = conn.execute("SELECT hypertable_size('task_events')").fetchone()[0] or 0
    graph = load_graph(deps, tenant, graph_users, share)
    print(f"graph load: {graph['edges_loaded']} edges in {graph['seconds']} s "
          f"({graph['edges_loaded'] / max(graph['seconds'], 1e-6):.0f} edges/s; resumed after "
          f"{graph['resumed_batches']} committed batches)", flush=True)
    tasks = load_tasks(deps, tenant, graph_users, task_rows_)
    print(f"task load: {tasks['rows_loaded']} rows in {tasks['seconds']} s "
          f"({tasks['rows_loaded'] / max(tasks['seconds'], 1e-6):.0f} rows/s; resumed after "
          f"{tasks['resumed_batches']} committed batches), ts over {tasks['window']}", flush=True)
    with deps.clients.pg() as conn:
        after, chunks = conn.execute("SELECT hypertable_size('task_events'), (SELECT count(*) FROM "
                                     "timescaledb_information.chunks WHERE hypertable_name = 'task_events')").fetchone()
        mine = conn.execute("SELECT count(*) FROM task_events WHERE tenant = %s", (tenant,)).fetchone()[0]
    print(f"task_events: {mine} rows of this tenant, {chunks} chunks, {after / 2**30:.2f} GiB "
          f"({(after - before) / 2**20:.0f} MiB added by this run)", flush=True)
    fresh = build(deps.settings)  # no key cached, no latency history: a process meeting these users
    warm_up(fresh, (RECALL_PLAN.step("profile"), RECALL_PLAN.step("tasks")))
    rng = random.Random(13)

    def sample(n: int) -> list[int]:
        return rng.sample(range(graph_users), min(n, graph_users))
    out: dict = {"graph_users": graph_users, "task_rows": mine, "sealed_share": share,
                 "load": {"graph": graph, "tasks": tasks}, "task_events_bytes": after}
    for name in ("profile", "tasks"):
        measure(fresh, tenant, name, sample(50), 2)  # warm: pools, prepared statements, caches
        per_clients = {}
        deadline = deps.settings.recall_deadlines_ms[name]
        for n in clients:
            runs = measure(fresh, tenant, name, sample(samples), n)
            figures = per_clients[str(n)] = figures_of(runs, n, deadline)
            report(name, figures)
            if name == "profile":  # a sealed edge's name is opened with the user's key: cold, a KMS call
                for part, sealed in (("plain_users", False), ("sealed_users", True)):
                    subset = figures[part] = figures_of([r for r in runs if _is_sealed(r[0], share) is sealed],
                                                        n, deadline)
                    print(f"    {part}: {subset['samples']}, step p50/p95/p99 {subset['p50_ms']}/{subset['p95_ms']}/"
                          f"{subset['p99_ms']}, raw {subset['floor_p50_ms']}/{subset['floor_p95_ms']}/"
                          f"{subset['floor_p99_ms']}, ratio p95 {subset['ratio']}x p99 {subset['ratio_p99']}x")
        out[name] = {**per_clients[str(max(clients))], "by_clients": per_clients,
                     "seed": {"percentile": SEED[name][0], "ms": SEED[name][1], "said": SEED[name][2]}}
    out["tasks"]["new_connection"] = cold_connection(deps, tenant, sample(COLD_EXECUTIONS))
    return out


def add_arguments(parser: argparse.ArgumentParser, default_users: int = 100_000,
                  default_rows: int = 10_000_000) -> None:
    parser.add_argument("--graph-users", type=int, default=default_users)
    parser.add_argument("--task-rows", type=int, default=default_rows)
    parser.add_argument("--layer-samples", type=int, default=1000, help="users measured per step and concurrency")
    parser.add_argument("--sealed-share", type=float, default=0.1, help="users with sealed relations/health edges")
    parser.add_argument("--reuse-layers", action="store_true",
                        help=f"load into the kept tenant {REUSED_TENANT!r} (resumes; a second run loads nothing)")
    parser.add_argument("--keep-layers", action="store_true", help="keep this run's tenant")
    parser.add_argument("--drop-layers", action="store_true", help=f"only delete {REUSED_TENANT!r}'s data")


def run_from_args(deps: Dependencies, args: argparse.Namespace) -> dict | None:
    if args.drop_layers:
        drop(deps, REUSED_TENANT)
        print(f"dropped {REUSED_TENANT}")
        return None
    tenant = REUSED_TENANT if args.reuse_layers else f"bench-layers-{uuid.uuid4().hex[:6]}"
    try:
        return run(deps, tenant, args.graph_users, args.task_rows, args.layer_samples, args.sealed_share)
    finally:
        if not (args.reuse_layers or args.keep_layers):
            drop(deps, tenant)


def main(argv: list[str] | None = None) -> int:
    from . import use_local_stack

    parser = argparse.ArgumentParser(prog="python -m local.bench.layers_scale", description=__doc__.split("\n")[0])
    add_arguments(parser)
    parser.add_argument("--json", metavar="OUT", help='write {"layers": ...} here')
    args = parser.parse_args(argv)
    use_local_stack()
    out = run_from_args(build(get_settings()), args)
    if args.json and out is not None:
        with open(args.json, "w") as f:
            json.dump({"layers": out}, f, indent=2, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
