"""LocalStack (community, ``localstack-core``) as a host process in a venv of its own.

LocalStack normally runs as a Docker image; there is no Docker engine here, so its Python
runtime is installed from the package registry and started with ``python -m
localstack.runtime.main`` in host mode. Lambda functions cannot use LocalStack's Docker executor
either: ``local/lambda_executor`` (installed into the same venv) runs them as host processes under
the project's .venv interpreter instead, selected by ``LAMBDA_RUNTIME_EXECUTOR``.

Why a venv of its own: localstack-core pins boto3/botocore exactly and drags in ~140 packages
that must not mix with the project's dependencies. Its resolved set is frozen in
``localstack.lock`` next to this file (everything except localstack-core, whose version lives in
``LOCALSTACK_VERSION`` only). To move to another LocalStack release: change
``LOCALSTACK_VERSION``, delete ``localstack.lock``, run ``local/stack up localstack --no-deploy``
(it re-resolves and writes a new lock), run the stack tests, commit both.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import urllib.request
from pathlib import Path

from ..common import HOST, LOCAL, LOG_DIR, RUN_DIR, VENV_PYTHON, StackError, log, port_open, run, wait_for
from .base import Service

LOCALSTACK_VERSION = "2026.3.0"
LOCK_FILE = Path(__file__).with_name("localstack.lock")
EXECUTOR_DIR = LOCAL / "lambda_executor"
VENV = RUN_DIR / "venvs" / "localstack"
VENV_PY = VENV / "bin" / "python"

# Upper bounds the 2026.3.0 runtime needs that its own metadata does not state:
# - cbor2 6 dropped the private ``cbor2._decoder`` module LocalStack's protocol parser imports;
# - pyopenssl 26 / cryptography 47 break the TLS setup of the twisted gateway server;
# - service-identity is imported by twisted's TLS support but is not a declared dependency.
COMPAT = ["cbor2<6", "pyopenssl<26", "cryptography<47", "service-identity"]
# The AWS services the app uses. Others can be added here; LocalStack loads each lazily on its
# first request, so an unused entry costs nothing at start-up.
SERVICES = ["s3", "stepfunctions", "events", "scheduler", "kms", "secretsmanager", "cloudformation",
            "apigateway", "lambda", "iam", "sts", "logs", "sns", "sqs", "cloudwatch"]
# Monitoring only (template.yaml's alarms): a LocalStack started before it was listed still serves
# the app, so health does not require it, and deploy leaves the alarms out there (stackctl/monitoring.py).
OPTIONAL_SERVICES = ("cloudwatch",)
EXECUTOR_PLUGIN = "local-process"  # the entry-point name in local/lambda_executor/pyproject.toml


def _base_python() -> str:
    """Python 3.13, which localstack-core 2026.x needs (on 3.12 it fails at import: it annotates
    with ``threading.Lock | None`` and imports ``warnings.deprecated``). The functions themselves
    still run on the project's 3.12 .venv."""
    candidates = [os.environ.get("ENGRAM_LOCALSTACK_PYTHON"),
                  *sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.13*/bin/python3.13")), reverse=True),
                  "/usr/local/bin/python3.13", "/usr/bin/python3.13", shutil.which("python3.13")]
    for candidate in candidates:
        # A pyenv shim exists even when 3.13 is not selected, so each candidate must really run.
        if candidate and run([candidate, "-c", "import sys; assert sys.version_info[:2] == (3, 13)"],
                             check=False, quiet=True).returncode == 0:
            return candidate
    raise StackError("python3.13 not found (LocalStack needs it): `pyenv install 3.13`, or set "
                     "ENGRAM_LOCALSTACK_PYTHON to a 3.13 interpreter")


class LocalStack(Service):
    name = "localstack"

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    # -- install ---------------------------------------------------------------------------------

    def _stamp(self) -> str:
        digest = hashlib.sha256()
        for part in (LOCALSTACK_VERSION, *COMPAT):
            digest.update(part.encode())
        for path in (LOCK_FILE, EXECUTOR_DIR / "pyproject.toml"):
            digest.update(path.read_bytes() if path.exists() else b"-")
        return digest.hexdigest()

    def install(self) -> None:
        stamp_file = VENV / ".engram-stamp"
        want = self._stamp()
        if VENV_PY.exists() and stamp_file.exists() and stamp_file.read_text() == want:
            return
        if not VENV_PY.exists():
            log(f"creating LocalStack venv at {VENV}")
            run([_base_python(), "-m", "venv", str(VENV)], quiet=True)
        relock = not LOCK_FILE.exists()
        constraints = [] if relock else ["-c", str(LOCK_FILE)]
        log(f"installing localstack-core {LOCALSTACK_VERSION} into {VENV} (a few minutes the first time)")
        pip = [str(VENV_PY), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        run([*pip, *constraints, f"localstack-core[runtime]=={LOCALSTACK_VERSION}", *COMPAT], quiet=True)
        # Editable, so that changing the executor needs only a LocalStack restart.
        run([*pip, *constraints, "-e", str(EXECUTOR_DIR)], quiet=True)
        if relock:
            frozen = run([str(VENV_PY), "-m", "pip", "freeze", "--exclude-editable"], quiet=True).stdout
            pins = [line for line in frozen.splitlines() if line and not line.startswith("localstack-core")]
            LOCK_FILE.write_text(f"# pip freeze of LocalStack's venv for localstack-core=={LOCALSTACK_VERSION}; "
                                 "see services/localstack.py\n" + "\n".join(pins) + "\n")
            log(f"wrote {LOCK_FILE}: commit it")
            want = self._stamp()
        stamp_file.write_text(want)

    # -- run -------------------------------------------------------------------------------------

    def environment(self) -> dict[str, str]:
        home = RUN_DIR / self.name
        return {
            "OVERRIDE_IN_DOCKER": "0",  # host mode: no container assumptions
            "GATEWAY_LISTEN": f"{HOST}:{self.port}",
            # URLs LocalStack hands out (queue URLs, presigned URLs) must resolve without DNS.
            "LOCALSTACK_HOST": f"{HOST}:{self.port}",
            "SERVICES": ",".join(SERVICES),
            "PERSISTENCE": "0",  # every `up` deploys afresh; state would only go stale
            "FILESYSTEM_ROOT": str(home / "fs"),
            # Not TMPDIR (deprecated in LocalStack); tempfile also honours TMP. Unzipped function
            # code lands here.
            "TMP": str(home / "tmp"),
            "DNS_ADDRESS": "0",  # its DNS server needs an upstream resolver this machine lacks
            "SKIP_SSL_CERT_DOWNLOAD": "1",  # no internet: use the self-signed certificate at once
            "DISABLE_EVENTS": "1",  # no analytics calls home
            # Load every service while the other servers boot (up starts them in parallel), rather
            # than on the first deploy after a start.
            "EAGER_SERVICE_LOADING": "1",
            "LAMBDA_RUNTIME_EXECUTOR": EXECUTOR_PLUGIN,
            # Each warm function is a host process of 200 MB to 1 GB (torch); with ~30 functions
            # LocalStack's 10-minute keep-alive held over 13 GB. Two minutes keeps a test run warm.
            "LAMBDA_KEEPALIVE_MS": "120000",
            "ENGRAM_LAMBDA_PYTHON": str(VENV_PYTHON),
            "ENGRAM_LAMBDA_LOG_DIR": str(LOG_DIR / "lambda"),
        }

    def start(self) -> None:
        if self.process.alive():  # ours, running or still booting
            wait_for(lambda: self.health()["healthy"], "localstack", timeout=120, log_file=self.process.log_file)
            return
        if port_open(self.port):
            raise StackError(f"port {self.port} is taken by another process: stop it or set "
                             "ENGRAM_LOCALSTACK_PORT")
        home = RUN_DIR / self.name
        # Nothing persists between runs, so leftovers of a previous one would only accumulate.
        shutil.rmtree(home / "tmp", ignore_errors=True)
        shutil.rmtree(home / "fs", ignore_errors=True)
        (home / "tmp").mkdir(parents=True, exist_ok=True)
        self.process.spawn([str(VENV_PY), "-m", "localstack.runtime.main"], env=self.environment(), cwd=home)
        wait_for(lambda: self.health()["healthy"], "localstack", timeout=120, log_file=self.process.log_file)

    def _probe(self) -> dict | None:
        try:
            with urllib.request.urlopen(f"{self.url}/_localstack/health", timeout=2) as answer:
                return json.loads(answer.read())
        except (OSError, ValueError):
            return None

    def health(self) -> dict:
        body = self._probe() or {}
        services = {name: state for name, state in body.get("services", {}).items() if name in SERVICES}
        healthy = bool(body) and all(services.get(s) in ("available", "running") for s in SERVICES
                                     if s not in OPTIONAL_SERVICES)
        return {"healthy": healthy, "url": self.url, "version": body.get("version"), "services": services}
