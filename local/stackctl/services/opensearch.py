"""OpenSearch 2.19.1 with the k-NN plugin, assembled from Maven Central (no tarball reachable).

``local/opensearch/pom.xml`` copies the server's jars, four modules and the k-NN plugin zip
into ``RUN_DIR/opensearch/home``; the descriptors and security policies Maven Central does not
ship, and the config, come from ``local/opensearch/``. The node runs as plain
``java -cp lib/* org.opensearch.bootstrap.OpenSearch``, as an unprivileged user because
OpenSearch refuses to run as root.

The zip on Central carries no JNI libraries, so only ``engine: lucene`` builds graphs here.
Flushing a faiss or nmslib field (faiss is the default when a mapping names no method) throws
UnsatisfiedLinkError, which OpenSearch treats as fatal: the node exits. start() therefore puts
a legacy index template on every index that sets ``index.knn.advanced.approximate_threshold:
-1``, so native-engine fields build no graph and are searched exactly, in Java. A composable
index template that matches an index hides legacy ones, and then the guard is gone.
"""

from __future__ import annotations

import hashlib
import json
import os
import pwd
import shutil
import time
import urllib.request
from pathlib import Path

from ..common import HOST, LOCAL, RUN_DIR, StackError, apt_install, log, port_open, run, wait_for
from .base import Service

SOURCE = LOCAL / "opensearch"
ROOT = RUN_DIR / "opensearch"
HOME = ROOT / "home"
STAMP = HOME / ".engram-stamp"
USER = os.environ.get("ENGRAM_OPENSEARCH_USER", "engram")
HEAP = os.environ.get("ENGRAM_OPENSEARCH_HEAP")  # e.g. 512m; replaces -Xms/-Xmx of jvm.options
KNN = "opensearch-knn"
GUARD_TEMPLATE = "engram-local-no-native-knn"
START_TIMEOUT = 180.0


class OpenSearch(Service):
    name = "opensearch"

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def install(self) -> None:
        apt_install("maven", "openjdk-17-jre-headless")
        _ensure_user()
        digest = _source_digest()
        if STAMP.exists() and STAMP.read_text() == digest:
            return
        started = time.monotonic()
        staging, work = ROOT / "home.new", ROOT / "maven"
        # unpack's markers in the work dir would skip k-NN in a fresh staging dir
        for path in (staging, work):
            shutil.rmtree(path, ignore_errors=True)
        log("opensearch: resolving server, modules and k-NN through maven")
        run(["mvn", "-B", "-q", "-f", str(SOURCE / "pom.xml"), "package",
             f"-Dos.home={staging}", f"-Dos.work={work}"], quiet=True)
        shutil.copytree(SOURCE / "config", staging / "config")
        shutil.copytree(SOURCE / "modules", staging / "modules", dirs_exist_ok=True)
        for needed in ("lib/opensearch-2*.jar", f"plugins/{KNN}/plugin-descriptor.properties"):
            if not any(staging.glob(needed)):
                raise StackError(f"maven left no {needed} in {staging}")
        if self.process.alive():  # the running node holds the old jars open
            log("opensearch: home changed, stopping the running node")
            self.stop()
        shutil.rmtree(HOME, ignore_errors=True)
        staging.rename(HOME)
        _chown(HOME)
        STAMP.write_text(digest)
        log(f"opensearch: home built in {time.monotonic() - started:.0f}s")

    def start(self) -> None:
        if self.process.alive():
            self._wait_ready(self.process.pid())
            self._guard_native_engines()
            return
        if port_open(self.port):
            raise StackError(f"port {self.port} is taken by a process this stack did not start")
        dirs = {d: ROOT / d for d in ("data", "logs", "tmp")}
        for path in dirs.values():
            path.mkdir(parents=True, exist_ok=True)
        _chown(*dirs.values(), HOME / "config")
        if _as_user():
            # ENGRAM_RUN_DIR may sit below a directory the service user cannot enter.
            probe = run([*_as_user(), "test", "-r", str(HOME / "config" / "opensearch.yml")],
                        check=False, quiet=True)
            if probe.returncode != 0:
                raise StackError(f"user {USER} cannot read {HOME}; give it access to the run dir")
        cmd = [
            *_as_user(), "java", *_jvm_options(),
            f"-Dopensearch.path.home={HOME}",
            f"-Dopensearch.path.conf={HOME / 'config'}",
            "-Dopensearch.distribution.type=tar",
            "-Dopensearch.bundled_jdk=false",
            f"-Djava.io.tmpdir={dirs['tmp']}",
            "-cp", f"{HOME / 'lib'}/*",
            "org.opensearch.bootstrap.OpenSearch",
            f"-Epath.data={dirs['data']}",
            f"-Epath.logs={dirs['logs']}",
            f"-Ehttp.port={self.port}",
        ]
        # setpriv execs java, so the pid file names the JVM itself and stop() can signal its group.
        pid = self.process.spawn(cmd, cwd=ROOT)
        self._wait_ready(pid)
        self._guard_native_engines()

    def _guard_native_engines(self) -> None:
        # A busy cluster manager (say, still deleting a large index) answers 503 for a while.
        wait_for(self._put_guard_template, f"the {GUARD_TEMPLATE} template", timeout=START_TIMEOUT,
                 interval=2.0, log_file=self.process.log_file)

    def _put_guard_template(self) -> bool:
        body = {"index_patterns": ["*"], "order": -1000,
                "settings": {"index.knn.advanced.approximate_threshold": -1}}
        req = urllib.request.Request(f"{self.url}/_template/{GUARD_TEMPLATE}", method="PUT",
                                     data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as resp:
            return bool(json.loads(resp.read()).get("acknowledged"))

    def _wait_ready(self, pid: int | None) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self._cluster_status() in ("yellow", "green"):
                return
            if pid is None or _exited(pid):
                break
            time.sleep(0.5)
        tail = ""
        if self.process.log_file.exists():
            tail = "\n".join(self.process.log_file.read_text(errors="replace").splitlines()[-40:])
        state = "exited" if pid is None or _exited(pid) else f"not ready after {START_TIMEOUT:.0f}s"
        raise StackError(f"opensearch {state}; log {self.process.log_file}\n{tail}")

    def _get(self, path: str, timeout: float = 3.0):
        with urllib.request.urlopen(f"{self.url}{path}", timeout=timeout) as resp:
            return json.loads(resp.read())

    def _cluster_status(self) -> str | None:
        try:
            return self._get("/_cluster/health")["status"]
        except Exception:  # noqa: BLE001 - a booting node refuses or answers 503
            return None

    def health(self) -> dict:
        entry = {"healthy": False, "url": self.url, "version": None, "plugins": []}
        try:
            info = self._get("/")
            plugins = self._get("/_cat/plugins?format=json")
        except Exception as exc:  # noqa: BLE001 - health never raises
            return {**entry, "error": str(exc)[:200]}
        names = sorted({p["component"] for p in plugins})
        status = self._cluster_status()
        knn = next((p["version"] for p in plugins if p["component"] == KNN), None)
        return {**entry, "healthy": status in ("yellow", "green") and knn is not None,
                "version": info["version"]["number"], "plugins": names, "knn_version": knn,
                "cluster_status": status}


def _source_digest() -> str:
    h = hashlib.sha256()
    files = [SOURCE / "pom.xml", *(SOURCE / "config").rglob("*"), *(SOURCE / "modules").rglob("*")]
    for path in sorted(p for p in files if p.is_file()):
        h.update(str(path.relative_to(SOURCE)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def _jvm_options() -> list[str]:
    lines = (HOME / "config" / "jvm.options").read_text().splitlines()
    opts = [x.strip() for x in lines if x.strip() and not x.lstrip().startswith("#")]
    if HEAP:
        opts = [o for o in opts if not o.startswith(("-Xms", "-Xmx"))] + [f"-Xms{HEAP}", f"-Xmx{HEAP}"]
    return opts


def _as_user() -> list[str]:
    if os.geteuid() != 0:
        return []
    return ["setpriv", f"--reuid={USER}", f"--regid={USER}", "--init-groups"]


def _ensure_user() -> None:
    if os.geteuid() != 0 or _user_exists():
        return
    run(["useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent",
         "--shell", "/usr/sbin/nologin", USER], check=False, quiet=True)
    if not _user_exists():  # a concurrent useradd of the same name is fine, a failure is not
        raise StackError(f"could not create the system user {USER} to run OpenSearch as")


def _user_exists() -> bool:
    try:
        pwd.getpwnam(USER)
        return True
    except KeyError:
        return False


def _chown(*paths: Path) -> None:
    if os.geteuid() == 0:
        run(["chown", "-R", f"{USER}:{USER}", *map(str, paths)], quiet=True)


def _exited(pid: int) -> bool:
    """True once the JVM is gone; reaps it when this process spawned it (else it stays a zombie)."""
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == pid
    except ChildProcessError:
        try:
            os.kill(pid, 0)
            return False
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
