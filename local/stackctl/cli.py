"""``local/stack up|down|status [--json]``: the whole Engram stack as local processes."""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from .common import REPO, RUN_DIR, VENV_PYTHON, StackError, apt_install, log, memory_mb, write_json

# Start order matters only for ``deploy``, which needs every store and LocalStack.
SERVICES = {
    "redis": "Redis",
    "postgres": "Postgres",
    "neo4j": "Neo4j",
    "opensearch": "OpenSearch",
    "localstack": "LocalStack",
}
STATE_FILE = RUN_DIR / "stack.json"
STORES = ("redis", "postgres", "neo4j", "opensearch")


def load(name: str):
    module = importlib.import_module(f".services.{name}", __package__)
    return getattr(module, SERVICES[name])()


def services(names: list[str] | None = None) -> list:
    return [load(n) for n in (names or SERVICES)]


def up(names: list[str] | None, deploy_app: bool) -> dict:
    started = time.monotonic()
    chosen = services(names)
    for svc in chosen:  # one at a time: apt and maven share locks and bandwidth
        log(f"install {svc.name}")
        svc.install()
    installed = time.monotonic()
    with ThreadPoolExecutor(max_workers=len(chosen)) as pool:
        for svc, fut in [(s, pool.submit(s.start)) for s in chosen]:
            fut.result()
            log(f"{svc.name} up")
    timings = {"install_s": round(installed - started, 1), "start_s": round(time.monotonic() - installed, 1)}
    state = {}
    if not deploy_app and set(STORES) <= {svc.name for svc in chosen}:  # deploy checks it otherwise
        from .deploy import check_data_format, store_parameters
        check_data_format(store_parameters())
    if deploy_app:
        from .deploy import deploy
        t0 = time.monotonic()
        state = deploy()
        timings["deploy_s"] = round(time.monotonic() - t0, 1)
    timings["total_s"] = round(time.monotonic() - started, 1)
    previous = json.loads(STATE_FILE.read_text()) if STATE_FILE.exists() else {}
    write_json(STATE_FILE, {**previous, **state, "startup": timings})
    return timings


def status() -> dict:
    state = json.loads(STATE_FILE.read_text()) if STATE_FILE.exists() else {}
    report: dict = {"services": {}, "memory_mb": {}, "peak_memory_mb": {}}
    for name in SERVICES:
        try:
            svc = load(name)
        except ImportError as exc:  # a half-checked-out tree still reports the rest
            report["services"][name] = {"healthy": False, "url": None, "error": str(exc)}
            continue
        report["services"][name] = svc.health()
        pid = svc.process.pid()
        now, peak = memory_mb(pid) if pid else (0.0, 0.0)
        report["memory_mb"][name], report["peak_memory_mb"][name] = round(now, 1), round(peak, 1)
    for key in ("memory_mb", "peak_memory_mb"):
        report[key]["total"] = round(sum(report[key].values()), 1)
    report["api"] = state.get("api", {"url": None, "key": None})
    report["state_machines"] = state.get("state_machines", {})
    report["archive_bucket"] = state.get("archive_bucket")
    report["export_bucket"] = state.get("export_bucket")
    report["startup"] = state.get("startup")
    report["run_dir"] = str(RUN_DIR)
    return report


def print_status(report: dict) -> None:
    for name, entry in report["services"].items():
        mark = "ok  " if entry.get("healthy") else "DOWN"
        print(f"  {mark} {name:<11} {entry.get('url') or '':<40} {report['memory_mb'].get(name, 0):>7.0f} MiB")
    print(f"  api          {report['api'].get('url')}")
    print(f"  api key      {report['api'].get('key')}")
    print(f"  archive      s3://{report['archive_bucket']}")
    print(f"  exports      s3://{report['export_bucket'] or '(not deployed yet: local/stack deploy)'}")
    print(f"  memory       {report['memory_mb']['total']:.0f} MiB resident in all, "
          f"peak {report['peak_memory_mb']['total']:.0f} MiB (servers and Lambda workers)")
    if report.get("startup"):
        print(f"  startup      {report['startup']}")


def api_health(url: str) -> dict:
    """The deployed API's own view of every store: proof that the whole path works."""
    try:
        with urllib.request.urlopen(f"{url}/v1/health", timeout=60) as response:  # noqa: S310 - local URL
            return json.load(response)
    except (OSError, ValueError) as exc:
        return {"status": "unreachable", "error": str(exc)}


def needs_stack(pytest_args: list[str]) -> bool:
    """Unit tests run on in-memory fakes: asked for alone, they need no server."""
    paths = [a.split("::")[0] for a in pytest_args if not a.startswith("-") and (REPO / a.split("::")[0]).exists()]
    unit = REPO / "tests" / "unit"
    return not paths or any(not (REPO / p).resolve().is_relative_to(unit) for p in paths)


def run_tests(pytest_args: list[str]) -> int:
    """What CI runs: the whole stack up, lint, template check, then the suite against it
    (only lint and the suite for unit tests alone, which start no server)."""
    if needs_stack(pytest_args):
        # The memory page is tested in a real browser (tests/e2e/test_memory_page_browser.py),
        # with a CJK font so its Chinese screenshot shows the characters.
        apt_install("chromium", "chromium-driver", "fonts-wqy-microhei")
        up(None, deploy_app=True)
        report = status()
        down = [name for name, entry in report["services"].items() if not entry["healthy"]]
        if down:
            log(f"not healthy: {', '.join(down)}")
            return 1
    python = str(VENV_PYTHON)
    steps = [
        [python, "-m", "ruff", "check", "layers", "functions", "local", "tests"],
        [str(VENV_PYTHON.parent / "cfn-lint"), "template.yaml"],
        [python, "-m", "pytest", *(pytest_args or ["tests"])],
    ]
    for step in steps:
        log(" ".join(step))
        code = subprocess.run(step, cwd=REPO).returncode
        if code != 0:
            return code
    return 0


# -- archival (issue 6) ---------------------------------------------------------------------------

def _archive_arn() -> str:
    state = json.loads(STATE_FILE.read_text()) if STATE_FILE.exists() else {}
    arn = state.get("state_machines", {}).get("ArchiveStateMachine")
    if not arn:
        raise StackError("no ArchiveStateMachine deployed: run `local/stack deploy` first")
    return arn


def run_archive(day: str, timeout: float = 1800) -> dict:
    """Start the archive state machine for ``day`` on LocalStack and wait for it to finish."""
    from .deploy import client

    sfn = client("stepfunctions")
    name = f"archive-{day}-{int(time.time() * 1000)}"
    arn = sfn.start_execution(stateMachineArn=_archive_arn(), name=name, input=json.dumps({"day": day}))["executionArn"]
    deadline = time.monotonic() + timeout
    while (execution := sfn.describe_execution(executionArn=arn))["status"] == "RUNNING":
        if time.monotonic() > deadline:
            raise StackError(f"archive of {day} still running after {timeout:.0f} s: {arn}")
        time.sleep(0.5)
    out = {"day": day, "status": execution["status"], "execution": arn}
    if execution["status"] == "SUCCEEDED":
        result = json.loads(execution["output"])
        out.update(manifest=result.get("manifest"), verify=result.get("verify"), retention=result.get("retention"))
    else:
        out.update(error=execution.get("error"), cause=execution.get("cause"))
    return out


def _progress(done: int, total: int, label: str) -> None:
    width = 30
    filled = width * done // max(total, 1)
    sys.stderr.write(f"\r  [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {label:<24}")
    sys.stderr.flush()


def backfill(first: str, last: str) -> list[dict]:
    from datetime import date, timedelta

    start, end = date.fromisoformat(first), date.fromisoformat(last)
    if end < start:
        raise StackError("--to is before --from")
    days = [(start + timedelta(days=i)).isoformat() for i in range((end - start).days + 1)]
    results = []
    for i, day in enumerate(days):
        _progress(i, len(days), day)
        results.append(run_archive(day))
    _progress(len(days), len(days), "done")
    sys.stderr.write("\n")
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="local/stack", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p_up = sub.add_parser("up", help="install what is missing, start every server, deploy the app")
    p_up.add_argument("services", nargs="*", metavar="SERVICE",
                      help=f"only these ({', '.join(SERVICES)}); default: all, then deploy")
    p_up.add_argument("--no-deploy", action="store_true", help="start the servers only")
    p_down = sub.add_parser("down", help="stop every server (data stays in the run dir)")
    p_down.add_argument("--purge", action="store_true", help="also delete the data")
    p_status = sub.add_parser("status", help="health, URLs, credentials, memory")
    p_status.add_argument("--json", action="store_true")
    sub.add_parser("deploy", help="(re)deploy template.yaml onto the running LocalStack")
    p_archive = sub.add_parser("archive", help="run the nightly archival state machine for one day and wait")
    p_archive.add_argument("--day", required=True, help="YYYY-MM-DD (UTC; today is allowed)")
    p_backfill = sub.add_parser("backfill", help="archive a range of days, one execution per day")
    p_backfill.add_argument("--from", dest="first", required=True, help="YYYY-MM-DD")
    p_backfill.add_argument("--to", dest="last", required=True, help="YYYY-MM-DD (inclusive)")
    sub.add_parser("test", help="bring the stack up, then lint and run the test suite; "
                                "further arguments go to pytest")
    args, extra = parser.parse_known_args(argv)
    if extra and args.command != "test":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")

    try:
        if args.command == "up":
            unknown = sorted(set(args.services) - set(SERVICES))
            if unknown:
                parser.error(f"unknown service(s): {', '.join(unknown)}")
            names = args.services or None
            timings = up(names, deploy_app=not args.no_deploy and names is None)
            report = status()
            print_status(report)
            print(f"  up in {timings['total_s']} s")
            if names is None and not args.no_deploy:
                print(f"  GET {report['api']['url']}/v1/health through API Gateway:")
                print("  " + json.dumps(api_health(report["api"]["url"])))
            return 0 if all(report["services"][n]["healthy"] for n in names or SERVICES) else 1
        if args.command == "down":
            for svc in reversed(services()):
                svc.stop()
                log(f"{svc.name} stopped")
            if args.purge:
                import shutil
                shutil.rmtree(RUN_DIR, ignore_errors=True)
            return 0
        if args.command == "test":
            return run_tests(extra)
        if args.command == "archive":
            result = run_archive(args.day)
            print(json.dumps(result, indent=2))
            return 0 if result["status"] == "SUCCEEDED" else 1
        if args.command == "backfill":
            results = backfill(args.first, args.last)
            for r in results:
                rows = (r.get("manifest") or {}).get("rows")
                print(f"  {r['day']}  {r['status']:<9} {json.dumps(rows) if rows else r.get('error', '')}")
            return 0 if all(r["status"] == "SUCCEEDED" for r in results) else 1
        if args.command == "deploy":
            from .deploy import deploy
            state = deploy()
            previous = json.loads(STATE_FILE.read_text()) if STATE_FILE.exists() else {}
            write_json(STATE_FILE, {**previous, **state})
            print(json.dumps(state, indent=2))
            return 0
        report = status()
        if args.json:
            print(json.dumps(report, indent=2))
        else:
            print_status(report)
        return 0 if all(s["healthy"] for s in report["services"].values()) else 1
    except StackError as exc:
        log(f"FAILED: {exc}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
