"""Neo4j 5.26 LTS (community, embedded) serving Bolt on loopback, built from ``local/neo4j``.

Maven resolves the jars into ~/.m2 and writes their classpath; javac compiles the one-class
launcher into a jar under ``RUN_DIR/build/neo4j``. A stamp of the pom, the sources and the JDK
skips both next time. The first run after a build records a class-data-sharing archive as the
JVM exits; later starts map it and boot some 3-4 s faster on two busy cores.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from ..common import HOST, LOCAL, RUN_DIR, StackError, apt_install, log, port_open, run, wait_for
from .base import Service

SRC = LOCAL / "neo4j"
BUILD = RUN_DIR / "build" / "neo4j"
CLASSPATH = BUILD / "classpath.txt"
JAR = BUILD / "engram-neo4j.jar"
CDS = BUILD / "classes.jsa"
STAMP = BUILD / "stamp"
USER = "neo4j"
PASSWORD = "engram-local-pw"
MAIN_CLASS = "engram.local.EngramNeo4j"
HEAP = os.environ.get("ENGRAM_NEO4J_HEAP", "768m")
# What Neo4j's own launcher passes: without these opens its page cache and native log
# file access fall back to slower paths ("Incorrect file descriptor" warnings).
JVM_OPTS = [
    "-XX:+UseG1GC", "-XX:-OmitStackTraceInFastThrow", "-XX:+ExitOnOutOfMemoryError",
    "-Djdk.nio.maxCachedBufferSize=1024", "-Dio.netty.tryReflectionSetAccessible=true",
    "-Dlog4j2.disable.jmx=true",
    "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    # Recording the archive warns once per class it cannot keep: a thousand lines of noise.
    "-Xlog:cds*=off",
]


def _sources() -> list[Path]:
    return sorted((SRC / "src" / "main" / "java").rglob("*.java"))


def _stamp() -> str:
    digest = hashlib.sha256()
    java = Path(os.path.realpath(shutil.which("java") or "java"))
    # A CDS archive only fits the JVM build that wrote it.
    digest.update(f"{java}:{java.stat().st_mtime_ns if java.exists() else 0}\0".encode())
    for path in [SRC / "pom.xml", *_sources()]:
        digest.update(str(path.relative_to(SRC)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _classpath() -> str:
    # CDS refuses class directories on the classpath, hence the launcher's jar.
    return f"{JAR}:{CLASSPATH.read_text().strip()}"


def _built(stamp: str) -> bool:
    """Up to date, and ~/.m2 still holds every jar (someone may have pruned it)."""
    try:
        if STAMP.read_text() != stamp or not JAR.exists():
            return False
        return all(Path(p).exists() for p in CLASSPATH.read_text().strip().split(":"))
    except OSError:
        return False


class Neo4j(Service):
    name = "neo4j"

    @property
    def url(self) -> str:
        return f"bolt://{HOST}:{self.port}"

    def install(self) -> None:
        apt_install("openjdk-17-jdk-headless", "maven")
        stamp = _stamp()
        if _built(stamp):
            return
        log("neo4j: resolving jars with maven and compiling the launcher")
        BUILD.mkdir(parents=True, exist_ok=True)
        STAMP.unlink(missing_ok=True)
        CDS.unlink(missing_ok=True)
        run(["mvn", "-q", "-B", "-Dstyle.color=never", "-f", str(SRC / "pom.xml"),
             "dependency:build-classpath", f"-Dmdep.outputFile={CLASSPATH}"], quiet=True)
        classes = BUILD / "classes"
        shutil.rmtree(classes, ignore_errors=True)
        run(["javac", "--release", "17", "-d", str(classes), "-cp", CLASSPATH.read_text().strip(),
             *map(str, _sources())], quiet=True)
        run(["jar", "cf", str(JAR), "-C", str(classes), "."], quiet=True)
        STAMP.write_text(stamp)

    def start(self) -> None:
        if not self.process.alive():
            if not STAMP.exists():
                raise StackError("neo4j is not built; run install first")
            home = RUN_DIR / self.name
            home.mkdir(parents=True, exist_ok=True)
            cds = f"-XX:SharedArchiveFile={CDS}" if CDS.exists() else f"-XX:ArchiveClassesAtExit={CDS}"
            self.process.spawn(
                ["java", "-Xms256m", f"-Xmx{HEAP}", *JVM_OPTS, cds, "-cp", _classpath(), MAIN_CLASS,
                 str(home), str(self.port)],
                env={"ENGRAM_NEO4J_PASSWORD": PASSWORD}, cwd=home)
        # A cold JVM plus the first store creation takes a while on two cores.
        wait_for(lambda: self._exited() or self._version() is not None, "neo4j", timeout=180,
                 log_file=self.process.log_file)
        if self._exited():
            tail = self.process.log_file.read_text(errors="replace").splitlines()[-40:]
            raise StackError("neo4j exited during startup\n" + "\n".join(tail))

    def _exited(self) -> bool:
        """Dead, or a zombie: the JVM stays our unreaped child while this CLI runs."""
        pid = self.process.pid()
        if pid is None:
            return True
        try:
            return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            return True

    def _version(self) -> str | None:
        """The Neo4j kernel version, via a real Bolt login and query; None when unanswered."""
        import neo4j  # the driver is heavy to import; only this service needs it

        if not port_open(self.port):
            return None
        # A plain auto-commit query: execute_query would retry (and log) for up to 30 s.
        with neo4j.GraphDatabase.driver(self.url, auth=(USER, PASSWORD), connection_timeout=3,
                                        max_connection_pool_size=1) as driver, driver.session() as session:
            records = list(session.run("CALL dbms.components() YIELD name, versions"))
        for rec in records:
            if rec["name"].startswith("Neo4j"):
                return rec["versions"][0]
        return None

    def health(self) -> dict:
        try:
            version = self._version()
        except Exception:  # noqa: BLE001 - health never raises; down is down whatever the cause
            version = None
        return {"healthy": version is not None, "url": self.url, "user": USER, "password": PASSWORD,
                "version": version}
