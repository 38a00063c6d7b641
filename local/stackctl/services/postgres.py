"""PostgreSQL 15 with TimescaleDB and pgvector, as a loopback-only process under the run dir.

Bookworm has neither extension, so ``install`` builds both from Debian's own source packages
of a newer release, for PG 15 only, and installs the resulting .debs: dpkg then owns the
files, and a second install is just a dpkg lookup.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import time
from pathlib import Path

from ..common import HOST, RUN_DIR, StackError, apt_install, log, run, wait_for
from .base import Service

PG_MAJOR = "15"
BIN = Path(f"/usr/lib/postgresql/{PG_MAJOR}/bin")
EXT_DIR = Path(f"/usr/share/postgresql/{PG_MAJOR}/extension")
# trixie is a stable release, so its versions move only for fixes: TimescaleDB 2.19.3 (one of
# the last to support PG 15) and pgvector 0.8.0 (HNSW needs >= 0.5). sid may drop PG 15.
SOURCE_SUITE = os.environ.get("ENGRAM_PG_SOURCE_SUITE", "trixie")
EXTENSIONS = {"timescaledb": "timescaledb", "vector": "pgvector"}  # extension -> Debian source
BUILD_DEPS = ("postgresql-server-dev-15", "postgresql-server-dev-all", "debhelper", "dpkg-dev",
              "cmake", "build-essential")
APT_SOURCES = Path("/etc/apt/sources.list.d")
SRC_ENTRY = APT_SOURCES / "engram-postgres-src.sources"
APT = ["apt-get", "-q", "-o", "DPkg::Lock::Timeout=600"]  # other services may hold the lock
BUILD = RUN_DIR / "build" / "postgres"
DATA = RUN_DIR / "postgres" / "data"
SOCK = RUN_DIR / "postgres" / "sock"
OS_USER = "postgres"  # postgres refuses to run as root
# setpriv execs (runuser forks, and SIGKILLs its child 2s after a SIGTERM), so the pid file
# holds the postmaster itself.
AS_OS_USER = ["setpriv", f"--reuid={OS_USER}", f"--regid={OS_USER}", "--init-groups", "--"]
USER = PASSWORD = DB = "engram"  # the schema owner (migrations, the data wipe)
# The functions' login: not the owner, a member of engram_runtime, created by ``engram.migrate``
# (not here), so that the privileges it holds are the ones schema.sql grants.
APP_USER = APP_PASSWORD = "engram_app"


class Postgres(Service):
    name = "postgres"

    @property
    def url(self) -> str:
        return f"postgresql://{USER}:{PASSWORD}@{HOST}:{self.port}/{DB}"

    # -- install -------------------------------------------------------------------------

    def install(self) -> None:
        apt_install(f"postgresql-{PG_MAJOR}")
        missing = [src for ext, src in EXTENSIONS.items() if not _installed(ext, src)]
        if not missing:
            return
        started = time.monotonic()
        # Pulls postgresql-15 up to bookworm-security's point release too: server-dev needs
        # the matching client, and the extensions then build against the running headers.
        apt_install(*BUILD_DEPS)
        _add_deb_src(missing[0])
        debs = [_build(src) for src in missing]
        run([*APT, "install", "-y", "--no-install-recommends", *map(str, debs)],
            env={"DEBIAN_FRONTEND": "noninteractive"}, quiet=True)
        log(f"postgres extensions {', '.join(missing)} built and installed in "
            f"{time.monotonic() - started:.0f}s")

    # -- lifecycle -----------------------------------------------------------------------

    def start(self) -> None:
        if self.process.alive():
            # Already up, or still booting from another ``up``: never spawn a second postmaster.
            wait_for(self._ready, "postgres", timeout=60, log_file=self.process.log_file)
            return
        self._initdb()
        # No TimescaleDB background workers: jobs and policies (add_job, retention, compression)
        # are TSL code, absent from the Apache build, and the one built-in job (job-history
        # retention) is TSL too, so a scheduler would only log its failures and hold ~30 MiB.
        self.process.spawn([
            *AS_OS_USER, str(BIN / "postgres"), "-D", str(DATA), "-p", str(self.port),
            "-k", str(SOCK), "-c", f"listen_addresses={HOST}",
            "-c", "shared_preload_libraries=timescaledb", "-c", "timescaledb.telemetry_level=off",
            "-c", "timescaledb.max_background_workers=0",
            # Every local Lambda is its own process with its own small pool (as on AWS, where RDS
            # Proxy would pool them): the default 100 runs out while the archive Map fans out.
            "-c", "max_connections=300",
        ])
        wait_for(self._ready, "postgres", timeout=60, log_file=self.process.log_file)
        self._bootstrap()

    def stop(self) -> None:
        pid = self.process.pid()
        if pid is not None and _running(pid):
            # SIGINT is a fast shutdown; the SIGTERM of Process.stop is a smart one, which
            # waits for every pooled client to disconnect and then gets SIGKILLed.
            try:
                os.kill(pid, signal.SIGINT)
            except ProcessLookupError:
                pass
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and _running(pid):
                time.sleep(0.1)
        if pid is not None and _running(pid):
            self.process.stop()
        # An exited postmaster can linger as a zombie until init reaps it; Process.alive
        # would count that as running.
        self.process.pid_file.unlink(missing_ok=True)

    def _initdb(self) -> None:
        if (DATA / "PG_VERSION").exists():
            return
        for d in (DATA, SOCK):
            d.mkdir(parents=True, exist_ok=True)
            shutil.chown(d, OS_USER, OS_USER)
            d.chmod(0o700)  # postgres demands it of DATA; SOCK guards the trusted local socket
        log(f"initdb {DATA}")
        run([*AS_OS_USER, str(BIN / "initdb"), "-D", str(DATA), "-U", "postgres",
             "--auth-local=trust", "--auth-host=scram-sha-256", "--encoding=UTF8",
             "--locale=C.UTF-8"], quiet=True)

    def _ready(self) -> bool:
        # -U: without it the probe logs a FATAL "role root does not exist" each time.
        return run([str(BIN / "pg_isready"), "-q", "-h", str(SOCK), "-p", str(self.port),
                    "-U", "postgres"], check=False, quiet=True).returncode == 0

    def _psql(self, sql: str, db: str = "postgres") -> str:
        """Run SQL as the superuser over the run dir's socket (trust auth, no password)."""
        return run([str(BIN / "psql"), "-X", "-qAt", "-v", "ON_ERROR_STOP=1", "-h", str(SOCK),
                    "-p", str(self.port), "-U", "postgres", "-d", db, "-c", sql],
                   quiet=True).stdout.strip()

    def _bootstrap(self) -> None:
        self._psql(f"DO $$BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{USER}') "
                   f"THEN CREATE ROLE {USER} LOGIN SUPERUSER PASSWORD '{PASSWORD}'; END IF; END$$")
        if not self._psql(f"SELECT 1 FROM pg_database WHERE datname = '{DB}'"):  # noqa: S608 - constants
            self._psql(f"CREATE DATABASE {DB} OWNER {USER}")
        for ext in EXTENSIONS:
            self._psql(f"CREATE EXTENSION IF NOT EXISTS {ext}", DB)
            # After a rebuild with newer .so files; TimescaleDB wants it first in a session.
            self._psql(f"ALTER EXTENSION {ext} UPDATE", DB)

    def health(self) -> dict:
        entry = {"healthy": False, "url": self.url, "user": USER, "password": PASSWORD,
                 "app_user": APP_USER, "app_password": APP_PASSWORD, "extensions": {}}
        try:
            out = run([str(BIN / "psql"), "-X", "-At", "-F", "=", "-d", self.url, "-c",
                       "SELECT extname, extversion FROM pg_extension"],
                      check=False, quiet=True, env={"PGCONNECT_TIMEOUT": "3"})
        except OSError:
            return entry
        if out.returncode == 0:
            versions = dict(line.split("=", 1) for line in out.stdout.split())
            entry["extensions"] = {ext: versions[ext] for ext in EXTENSIONS if ext in versions}
        entry["healthy"] = len(entry["extensions"]) == len(EXTENSIONS)
        return entry


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def _installed(ext: str, src: str) -> bool:
    if not (EXT_DIR / f"{ext}.control").exists():
        return False
    return run(["dpkg", "-s", f"postgresql-{PG_MAJOR}-{src}"], check=False, quiet=True).returncode == 0


def _add_deb_src(probe: str) -> None:
    """A deb-src entry for SOURCE_SUITE on the machine's own Debian mirror and keyring."""
    uris, signed_by = _debian_mirror()
    entry = (f"Types: deb-src\nURIs: {uris}\nSuites: {SOURCE_SUITE}\nComponents: main\n"
             + (f"Signed-By: {signed_by}\n" if signed_by else ""))
    has_sources = run(["apt-cache", "showsrc", "--only-source", probe], check=False,
                      quiet=True).stdout.strip()
    if SRC_ENTRY.exists() and SRC_ENTRY.read_text() == entry and has_sources:
        return
    log(f"adding {SRC_ENTRY} (deb-src {SOURCE_SUITE} from {uris})")
    SRC_ENTRY.write_text(entry)
    run([*APT, "update"], quiet=True)  # Sources indices only: binary candidates stay bookworm


def _debian_mirror() -> tuple[str, str | None]:
    """URIs and Signed-By of the entry that serves the machine's own release."""
    codename = re.search(r"^VERSION_CODENAME=(\S+)", Path("/etc/os-release").read_text(), re.M)
    release = codename.group(1) if codename else "bookworm"
    for path in sorted(APT_SOURCES.glob("*.sources")):
        if path == SRC_ENTRY:
            continue
        for stanza in re.split(r"\n\s*\n", path.read_text()):
            fields = dict(re.findall(r"^([\w-]+):[ \t]*(.*)$", stanza, re.M))
            if "deb" in fields.get("Types", "").split() and release in fields.get("Suites", "").split():
                return fields["URIs"].split()[0], fields.get("Signed-By")
    # One-line format: deb [signed-by=...] URI release main
    for path in [Path("/etc/apt/sources.list"), *sorted(APT_SOURCES.glob("*.list"))]:
        text = path.read_text() if path.exists() else ""
        m = re.search(rf"^deb\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+{release}\s", text, re.M)
        if m:
            key = re.search(r"signed-by=(\S+)", m.group(1) or "")
            return m.group(2), key.group(1) if key else None
    raise StackError(f"no apt entry for Debian {release} to derive a deb-src mirror from")


def _build(src: str) -> Path:
    """Build Debian's ``src`` for PG 15 only; return the path of its postgresql-15 .deb."""
    root = BUILD / src
    shutil.rmtree(root, ignore_errors=True)  # dpkg-source refuses to extract over a tree
    root.mkdir(parents=True)
    log(f"building {src} from Debian {SOURCE_SUITE} sources for PostgreSQL {PG_MAJOR}")
    run([*APT, "source", f"{src}/{SOURCE_SUITE}"], cwd=root, quiet=True)
    tree = next(p for p in root.iterdir() if p.is_dir())
    (tree / "debian" / "pgversions").write_text(f"{PG_MAJOR}\n")
    run(["pg_buildext", "updatecontrol"], cwd=tree, quiet=True)  # control for PG 15's package
    # -d: trixie's Build-Depends name architecture-is-64-bit, which bookworm's dpkg does not
    # provide; the real build deps are installed by name above.
    run(["dpkg-buildpackage", "-b", "-uc", "-us", "-d", "-Pnocheck"], cwd=tree, quiet=True,
        env={"DEB_BUILD_OPTIONS": f"nocheck noddebs parallel={os.cpu_count() or 1}",
             "DEB_BUILD_PROFILES": "nocheck"})
    debs = sorted(root.glob(f"postgresql-{PG_MAJOR}-{src}_*.deb"))
    if not debs:
        raise StackError(f"building {src} produced no postgresql-{PG_MAJOR}-{src} package in {root}")
    shutil.rmtree(tree)
    return debs[-1]
