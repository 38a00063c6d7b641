"""Shared plumbing for the local stack: run directory, ports, processes.

Every server runs as a plain host process bound to 127.0.0.1, with its data under
``RUN_DIR/<service>/`` and its log at ``RUN_DIR/logs/<service>.log``. A pid file per
service makes ``up`` idempotent: a live process is reused, a dead one restarted.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LOCAL = REPO / "local"


def _default_run_dir() -> Path:
    """``.run/`` in the checkout, unless the checkout sits where the servers' own users (postgres,
    the OpenSearch user) cannot reach it, e.g. below a 0700 home directory: then a directory of
    its own under /var/tmp, named after the checkout so two checkouts never share one."""
    reachable = all(parent.stat().st_mode & stat.S_IXOTH for parent in [REPO, *REPO.parents])
    if reachable:
        return REPO / ".run"
    return Path("/var/tmp") / f"engram-run-{hashlib.sha256(str(REPO).encode()).hexdigest()[:10]}"


RUN_DIR = Path(os.environ.get("ENGRAM_RUN_DIR") or _default_run_dir()).resolve()
LOG_DIR = RUN_DIR / "logs"
VENV_PYTHON = REPO / ".venv" / "bin" / "python"
HOST = "127.0.0.1"

# One place for every port, overridable so two stacks can live on one machine.
PORTS = {
    "redis": int(os.environ.get("ENGRAM_REDIS_PORT", 6379)),
    "postgres": int(os.environ.get("ENGRAM_POSTGRES_PORT", 5432)),
    "neo4j": int(os.environ.get("ENGRAM_NEO4J_PORT", 7687)),
    "opensearch": int(os.environ.get("ENGRAM_OPENSEARCH_PORT", 9200)),
    "localstack": int(os.environ.get("ENGRAM_LOCALSTACK_PORT", 4566)),
}


class StackError(RuntimeError):
    """A service could not be installed or started; the message says which and why."""


def log(msg: str) -> None:
    print(f"[stack] {msg}", file=sys.stderr, flush=True)


def run(cmd: list[str] | str, *, check: bool = True, env: dict | None = None,
        cwd: Path | None = None, quiet: bool = False) -> subprocess.CompletedProcess:
    """Run a command to completion; on failure raise with the tail of its output."""
    shell = isinstance(cmd, str)
    proc = subprocess.run(cmd, shell=shell, cwd=cwd, env={**os.environ, **(env or {})},
                          capture_output=True, text=True)
    if not quiet and proc.stdout.strip():
        log(proc.stdout.strip()[-2000:])
    if check and proc.returncode != 0:
        raise StackError(f"command failed ({proc.returncode}): {cmd}\n"
                         f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return proc


def apt_install(*packages: str) -> None:
    """Install Debian packages that are not already installed (one apt-get update per run)."""
    missing = [p for p in packages if run(["dpkg", "-s", p], check=False, quiet=True).returncode != 0]
    if not missing:
        return
    marker = RUN_DIR / ".apt-updated"
    if not marker.exists():
        log("apt-get update")
        run(["apt-get", "update", "-q"], quiet=True)
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    log(f"apt-get install {' '.join(missing)}")
    run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing],
        env={"DEBIAN_FRONTEND": "noninteractive"}, quiet=True)


def port_open(port: int, host: str = HOST, timeout: float = 0.3) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def wait_for(predicate, what: str, timeout: float = 120.0, interval: float = 0.5,
             log_file: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except Exception:  # noqa: BLE001 - a server that is still booting may answer anything
            pass
        time.sleep(interval)
    tail = ""
    if log_file and log_file.exists():
        tail = "\n".join(log_file.read_text(errors="replace").splitlines()[-40:])
    raise StackError(f"{what} not ready after {timeout:.0f}s\n{tail}")


@dataclass
class Process:
    """A long-running server process tracked by a pid file in the run directory."""

    name: str
    pid_file: Path = field(init=False)
    log_file: Path = field(init=False)

    def __post_init__(self) -> None:
        self.pid_file = RUN_DIR / self.name / "pid"
        self.log_file = LOG_DIR / f"{self.name}.log"

    def pid(self) -> int | None:
        try:
            pid = int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            return pid
        try:  # a zombie waiting for PID 1 to reap it has exited already
            if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                return None
        except (OSError, IndexError):
            return None
        return pid

    def alive(self) -> bool:
        return self.pid() is not None

    def spawn(self, cmd: list[str], *, env: dict | None = None, cwd: Path | None = None) -> int:
        """Start detached in its own session so that ``stop`` can end its whole group."""
        self.pid_file.parent.mkdir(parents=True, exist_ok=True)
        LOG_DIR.mkdir(parents=True, exist_ok=True)
        out = open(self.log_file, "ab")
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                cwd=cwd, env={**os.environ, **(env or {})}, start_new_session=True)
        self.pid_file.write_text(str(proc.pid))
        return proc.pid

    def stop(self, timeout: float = 30.0) -> None:
        pid = self.pid()
        if pid is None:
            self.pid_file.unlink(missing_ok=True)
            return
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline and self.alive():
                time.sleep(0.2)
            if not self.alive():
                break
        self.pid_file.unlink(missing_ok=True)


def memory_mb(pid: int) -> tuple[float, float]:
    """(resident now, peak resident) of a process and all its descendants, in MiB (Linux /proc).
    The peak is the sum of each process's own high-water mark (VmHWM)."""
    totals = {"VmRSS:": 0, "VmHWM:": 0}
    for p in [pid, *descendants(pid)]:
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                key = line.split(maxsplit=1)[0] if line else ""
                if key in totals:
                    totals[key] += int(line.split()[1])
        except OSError:
            continue
    return totals["VmRSS:"] / 1024, totals["VmHWM:"] / 1024


def descendants(pid: int) -> list[int]:
    out = run(["ps", "-o", "pid=", "--ppid", str(pid)], check=False, quiet=True).stdout.split()
    kids = [int(x) for x in out]
    return kids + [g for k in kids for g in descendants(k)]


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True))


def which(binary: str) -> str | None:
    return shutil.which(binary)


def use_deployed_stack() -> None:
    """Point an in-process app (tests, benchmarks, uvicorn beside the stack) at the local stack:
    AWS services on LocalStack, and the buckets and saga ``deploy`` recorded, unless the
    environment already says otherwise. Settings are read once, at bootstrap: call this first."""
    for name, value in (("AWS_ENDPOINT_URL", "http://127.0.0.1:4566"), ("AWS_ACCESS_KEY_ID", "test"),
                        ("AWS_SECRET_ACCESS_KEY", "test"), ("AWS_REGION", "us-east-1")):
        os.environ.setdefault(name, value)
    try:
        deployed = json.loads((RUN_DIR / "stack.json").read_text())
    except (OSError, ValueError):
        return
    erasure = deployed.get("state_machines", {}).get("ErasureStateMachine")
    for name, value in (("ENGRAM_ERASURE_STATE_MACHINE_ARN", erasure),
                        ("ENGRAM_ARCHIVE_BUCKET", deployed.get("archive_bucket")),
                        ("ENGRAM_EXPORT_BUCKET", deployed.get("export_bucket"))):
        if value:
            os.environ.setdefault(name, value)
