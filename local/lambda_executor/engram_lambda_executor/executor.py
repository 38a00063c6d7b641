"""A LocalStack ``RuntimeExecutor`` that runs each Lambda execution environment as a host process.

LocalStack's stock executor starts a Docker container with AWS's runtime interface emulator in
it; there is no Docker engine here. Instead, each execution environment is one long-lived
``worker.py`` process under the project's interpreter (``ENGRAM_LAMBDA_PYTHON``), so handlers see
exactly the dependencies the project's .venv has. The worker speaks the same small protocol the
emulator does: LocalStack POSTs an invocation to the worker's ``/invoke``; the worker answers by
callbacks under ``LOCALSTACK_RUNTIME_ENDPOINT`` (ready, logs, then response or error).

Timeouts are enforced here rather than in the worker: a handler stuck in C code cannot be
interrupted from inside its own process, but its process group can always be killed.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import tempfile
import threading
import time
from concurrent.futures import CancelledError, Future, InvalidStateError
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import UTC, datetime
from http import HTTPStatus
from pathlib import Path

import requests
from localstack import config
from localstack.aws.api.lambda_ import PackageType
from localstack.http import Response
from localstack.services.lambda_.invocation.executor_endpoint import (
    NAMESPACE,
    Endpoint,
    InvokeSendError,
    executor_router,
)
from localstack.services.lambda_.invocation.lambda_models import FunctionVersion, InvocationResult
from localstack.services.lambda_.invocation.runtime_executor import (
    LambdaRuntimeException,
    RuntimeExecutor,
)

LOG = logging.getLogger(__name__)

HOST = "127.0.0.1"
WORKER = Path(__file__).with_name("worker.py")
# Internal requests to the worker must never go through a proxy from the environment.
NO_PROXY = {"http": "", "https": ""}
# Only what a process needs to run at all is inherited from LocalStack's own environment, so that
# LocalStack's settings (SERVICES, GATEWAY_LISTEN, ...) do not leak into function code.
INHERITED = ("PATH", "HOME", "LANG", "LC_ALL", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE")


def _python() -> str:
    return os.environ.get("ENGRAM_LAMBDA_PYTHON", "python3")


def _log_dir() -> Path:
    path = Path(os.environ.get("ENGRAM_LAMBDA_LOG_DIR") or Path(tempfile.gettempdir()) / "lambda-logs")
    path.mkdir(parents=True, exist_ok=True)
    return path


def _error(error_type: str, message: str) -> bytes:
    return json.dumps({"errorType": error_type, "errorMessage": message, "stackTrace": []}).encode()


class _Callbacks(Endpoint):
    """Receives the worker's callbacks; LocalStack's router dispatches them here by executor id."""

    def __init__(self) -> None:
        self.ready: Future[int] = Future()
        self.result: Future[InvocationResult] | None = None
        self.logs: str | None = None

    def _finish(self, request, req_id: str, is_error: bool) -> Response:
        try:
            self.result.set_result(InvocationResult(req_id, request.data, is_error=is_error, logs=self.logs))
        except (AttributeError, InvalidStateError):
            # The invocation already timed out and its worker was killed; nobody waits any more.
            return Response(status=HTTPStatus.GONE)
        return Response(status=HTTPStatus.ACCEPTED)

    def invocation_response(self, request, req_id: str) -> Response:
        return self._finish(request, req_id, is_error=False)

    def invocation_error(self, request, req_id: str) -> Response:
        return self._finish(request, req_id, is_error=True)

    def invocation_logs(self, request, invoke_id: str) -> Response:
        body = request.json
        self.logs = body.get("logs") if isinstance(body, dict) else None
        return Response(status=HTTPStatus.ACCEPTED)

    def status_ready(self, request, executor_id: str) -> Response:
        # The worker binds an ephemeral port itself and reports it here, so no port can be raced.
        try:
            self.ready.set_result(int(request.json["port"]))
        except InvalidStateError:
            return Response(status=HTTPStatus.GONE)
        return Response(status=HTTPStatus.ACCEPTED)

    def status_error(self, request, executor_id: str) -> Response:
        try:
            self.ready.set_exception(LambdaRuntimeException(request.data.decode(errors="replace")))
        except InvalidStateError:
            return Response(status=HTTPStatus.GONE)
        return Response(status=HTTPStatus.ACCEPTED)


class LocalProcessRuntimeExecutor(RuntimeExecutor):
    def __init__(self, id: str, function_version: FunctionVersion) -> None:
        super().__init__(id=id, function_version=function_version)
        self._callbacks = _Callbacks()
        self._proc: subprocess.Popen | None = None
        self._port: int | None = None
        self._env: dict[str, str] = {}
        self._lock = threading.Lock()
        self._stopped = False
        self._log_path = _log_dir() / f"{function_version.id.function_name}-{id}.log"

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self, env_vars: dict[str, str]) -> None:
        executor_router().register_endpoint(self.id, self._callbacks)
        self._env = self._worker_env(env_vars)
        with self._lock:
            self._spawn()

    def stop(self) -> None:
        self._stopped = True
        self._callbacks.ready.cancel()
        if self._callbacks.result:
            self._callbacks.result.cancel()
        self._kill()
        try:
            executor_router().unregister_endpoint(self.id)
        except KeyError:
            pass

    def _worker_env(self, env_vars: dict) -> dict[str, str]:
        code = self._code_dir()
        paths = [str(code)] if code else []
        runtime = self.function_version.config.runtime  # e.g. "python3.12"
        for layer in self.function_version.config.layers or []:
            root = Path(layer.code.get_unzipped_code_location())
            # Where AWS's Python runtimes look inside /opt, in their order.
            paths += [str(root / "python" / "lib" / runtime / "site-packages"), str(root / "python")]
        env = {k: os.environ[k] for k in INHERITED if k in os.environ}
        # LocalStack hands some values over as ints (memory size, timeout).
        env.update({k: str(v) for k, v in env_vars.items() if v is not None})
        env.pop("LAMBDA_RUNTIME_DIR", None)
        env.update({
            "LAMBDA_TASK_ROOT": str(code or ""),
            "PYTHONPATH": os.pathsep.join(paths),
            "PYTHONUNBUFFERED": "1",
            "_LOCAL_LAMBDA_LOG_FILE": str(self._log_path),
        })
        env.setdefault("AWS_ENDPOINT_URL", f"http://{HOST}:{config.GATEWAY_LISTEN[0].port}")
        for key, value in (("AWS_ACCESS_KEY_ID", "test"), ("AWS_SECRET_ACCESS_KEY", "test")):
            env.setdefault(key, value)
        env["PATH"] = os.pathsep.join([str(Path(_python()).parent), env.get("PATH", "/usr/bin:/bin")])
        return env

    def _code_dir(self) -> Path | None:
        code = self.function_version.config.code
        return Path(code.get_unzipped_code_location()) if code else None

    def _spawn(self) -> None:
        """Start a worker and wait for its ready callback. Caller holds ``_lock``."""
        self._callbacks.ready = Future()
        # -P: the worker's own directory must not shadow handler modules on sys.path.
        with open(self._log_path, "ab") as log:
            self._proc = subprocess.Popen(
                [_python(), "-P", str(WORKER)], env=self._env, cwd=self._env["LAMBDA_TASK_ROOT"] or None,
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, so a kill takes any children too
            )
        while True:
            try:
                self._port = self._callbacks.ready.result(timeout=0.2)
                return
            except FutureTimeout:
                if self._proc.poll() is not None:
                    raise LambdaRuntimeException(
                        f"worker exited with {self._proc.returncode} before it was ready:\n{self.get_logs()}"
                    ) from None
            except CancelledError:
                # LocalStack's startup timer (LAMBDA_RUNTIME_ENVIRONMENT_TIMEOUT) called stop().
                raise LambdaRuntimeException("execution environment stopped during startup") from None

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        for sig, grace in ((signal.SIGTERM, 1.0), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                return
            try:
                proc.wait(grace)
                return
            except subprocess.TimeoutExpired:
                continue

    # -- invocation ------------------------------------------------------------------------------

    def invoke(self, payload: dict[str, str]) -> InvocationResult:
        request_id = payload["invoke-id"]
        with self._lock:
            if self._stopped:
                raise LambdaRuntimeException(f"execution environment {self.id} is stopped")
            if self._proc is None or self._proc.poll() is not None:
                # The previous worker timed out or crashed: a fresh one takes its place (a cold start).
                self._kill()
                self._spawn()
            proc = self._proc
            result: Future[InvocationResult] = Future()
            self._callbacks.result, self._callbacks.logs = result, None
            offset = self._log_size()
            started = time.monotonic()
            try:
                answer = requests.post(f"http://{HOST}:{self._port}/invoke", json=payload, proxies=NO_PROXY,
                                       timeout=10)
            except requests.RequestException as exc:
                raise InvokeSendError(f"could not send invocation {request_id} to its worker: {exc}") from exc
            if not answer.ok:
                raise InvokeSendError(f"worker refused invocation {request_id}: HTTP {answer.status_code}")
            timeout = float(self.function_version.config.timeout)
            while True:
                try:
                    return result.result(timeout=0.1)
                except FutureTimeout:
                    pass
                if proc.poll() is not None:
                    code = proc.returncode
                    self._kill()
                    return InvocationResult(request_id, _error(
                        "Runtime.ExitError", f"RequestId: {request_id} Error: Runtime exited with error: "
                        f"exit status {code}"), is_error=True, logs=self._logs_since(offset))
                if time.monotonic() - started > timeout:
                    result.cancel()
                    self._kill()
                    stamp = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
                    message = f"{stamp} {request_id} Task timed out after {timeout:.2f} seconds"
                    return InvocationResult(request_id, _error("Sandbox.Timedout", message), is_error=True,
                                            logs=f"{self._logs_since(offset)}{message}\n")

    def _log_size(self) -> int:
        try:
            return self._log_path.stat().st_size
        except OSError:
            return 0

    def _logs_since(self, offset: int) -> str:
        try:
            with open(self._log_path, "rb") as fh:
                fh.seek(offset)
                return fh.read().decode(errors="replace")
        except OSError:
            return ""

    def get_logs(self) -> str:
        return self._logs_since(max(0, self._log_size() - 64 * 1024))

    # -- addresses -------------------------------------------------------------------------------

    def get_address(self) -> str:
        return HOST

    def get_endpoint_from_executor(self) -> str:
        # Workers run on the host, next to LocalStack, not in a container network.
        return HOST

    def get_runtime_endpoint(self) -> str:
        return f"http://{HOST}:{config.GATEWAY_LISTEN[0].port}{NAMESPACE}/{self.id}"

    # -- versions --------------------------------------------------------------------------------

    @classmethod
    def prepare_version(cls, function_version: FunctionVersion) -> None:
        cfg = function_version.config
        if cfg.package_type != PackageType.Zip or not (cfg.runtime or "").startswith("python"):
            raise LambdaRuntimeException(
                f"the local-process Lambda executor runs only Zip-packaged Python functions, not "
                f"{cfg.package_type} / {cfg.runtime} ({function_version.id.function_name})"
            )
        # Unzipping is all the preparation a host process needs (no image to build or pull).
        if cfg.code:
            cfg.code.prepare_for_execution()
        for layer in cfg.layers or []:
            if layer.code:
                layer.code.prepare_for_execution()

    @classmethod
    def cleanup_version(cls, function_version: FunctionVersion) -> None:
        pass  # LocalStack deletes the unzipped code itself

    @classmethod
    def validate_environment(cls) -> bool:
        python = _python()
        if not Path(python).exists() and "/" in python:
            LOG.warning("ENGRAM_LAMBDA_PYTHON=%s does not exist: Lambda functions cannot start", python)
            return False
        return True
