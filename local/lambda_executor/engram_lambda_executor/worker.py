"""One Lambda execution environment: imports a Python handler once, then runs it per invocation.

Started by ``executor.py`` under the project's interpreter, as a script, so it must use the
standard library only (LocalStack is not importable here). Its stdout and stderr are the
environment's log file; everything printed between an invocation's START and REPORT lines is
that invocation's log, which is how CloudWatch Logs receives it.

Errors keep AWS's Python runtime shape, ``{errorType, errorMessage, stackTrace}`` with the
exception's class name as ``errorType``: Step Functions matches Retry/Catch on exactly that.
"""

from __future__ import annotations

import decimal
import http.server
import importlib
import json
import math
import os
import sys
import threading
import time
import traceback
import urllib.request

ENDPOINT = os.environ["LOCALSTACK_RUNTIME_ENDPOINT"]
RUNTIME_ID = os.environ["LOCALSTACK_RUNTIME_ID"]
LOG_FILE = os.environ.pop("_LOCAL_LAMBDA_LOG_FILE", "")
HANDLER = os.environ.get("_HANDLER", "")
TIMEOUT_S = float(os.environ.get("AWS_LAMBDA_FUNCTION_TIMEOUT", "3"))
MEMORY_MB = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")
# Callbacks go to LocalStack on loopback; a proxy from the environment must not intercept them.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def post(path: str, body: bytes) -> None:
    request = urllib.request.Request(f"{ENDPOINT}/{path}", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with OPENER.open(request, timeout=30) as answer:
        answer.read()


class Context:
    """The ``context`` argument of a handler, with the attributes AWS's Python runtime provides."""

    def __init__(self, request_id: str, function_arn: str, deadline: float) -> None:
        self.aws_request_id = request_id
        self.invoked_function_arn = function_arn
        self.function_name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME", "")
        self.function_version = os.environ.get("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        self.memory_limit_in_mb = MEMORY_MB
        self.log_group_name = os.environ.get("AWS_LAMBDA_LOG_GROUP_NAME", "")
        self.log_stream_name = os.environ.get("AWS_LAMBDA_LOG_STREAM_NAME", "")
        self.identity = None
        self.client_context = None
        self._deadline = deadline

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.time()) * 1000))


def error_body(error_type: str, message: str, exc: BaseException | None = None) -> dict:
    # Like AWS's runtime, show only the function's own frames, not the runtime's or importlib's.
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != __file__
              and not f.filename.startswith("<frozen") and "/importlib/" not in f.filename] if exc else []
    stack = traceback.format_list(frames)
    return {"errorMessage": message, "errorType": error_type, "stackTrace": stack}


def log_error(body: dict) -> None:
    # AWS prints a handler's uncaught error into the function's log in this form.
    print(f"[ERROR] {body['errorType']}: {body['errorMessage']}", file=sys.stderr)
    if body["stackTrace"]:
        print("Traceback (most recent call last):\n" + "".join(body["stackTrace"]), file=sys.stderr, end="")


_handler = None
_init_ms: float | None = None  # reported once, on the first invocation, as AWS does


def load_handler():
    """Import the handler; on failure return the error AWS would report at invoke time."""
    global _handler
    if _handler is not None:
        return _handler, None
    module_name, _, function = HANDLER.rpartition(".")
    module_name = module_name.replace("/", ".")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - any import failure is the function's init error
        return None, error_body("Runtime.ImportModuleError",
                                f"Unable to import module '{module_name}': {exc}", exc)
    _handler = getattr(module, function, None)
    if not callable(_handler):
        _handler = None
        return None, error_body("Runtime.HandlerNotFound",
                                f"Handler '{function}' missing on module '{module_name}'")
    return _handler, None


def peak_rss_mb() -> int:
    # VmHWM, not getrusage: ru_maxrss survives exec, so it would report LocalStack's own peak.
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def _json_default(value):
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def invoke(request: dict) -> None:
    global _init_ms
    request_id = request["invoke-id"]
    os.environ["_X_AMZN_TRACE_ID"] = request.get("trace-id") or ""
    sys.stdout.flush()
    sys.stderr.flush()
    offset = os.path.getsize(LOG_FILE) if LOG_FILE else 0
    started = time.time()
    print(f"START RequestId: {request_id} Version: {os.environ.get('AWS_LAMBDA_FUNCTION_VERSION', '$LATEST')}")
    handler, error = load_handler()
    body = b""
    if handler is not None:
        try:
            event = json.loads(request.get("payload") or "{}")
        except ValueError as exc:
            error = error_body("Runtime.UnmarshalError", f"Unable to unmarshal input: {exc}", exc)
        else:
            try:
                result = handler(event, Context(request_id, request.get("invoked-function-arn", ""),
                                                started + TIMEOUT_S))
            except Exception as exc:  # noqa: BLE001 - a handler's error is the invocation's result
                error = error_body(type(exc).__name__, str(exc), exc)
            else:
                try:
                    body = json.dumps(result, default=_json_default).encode()
                except (TypeError, ValueError) as exc:
                    error = error_body("Runtime.MarshalError", f"Unable to marshal response: {exc}", exc)
    if error:
        log_error(error)
    elapsed_ms = (time.time() - started) * 1000
    max_rss_mb = peak_rss_mb()
    print(f"END RequestId: {request_id}")
    init = f"\tInit Duration: {_init_ms:.2f} ms" if _init_ms is not None else ""
    _init_ms = None
    print(f"REPORT RequestId: {request_id}\tDuration: {elapsed_ms:.2f} ms\tBilled Duration: "
          f"{math.ceil(elapsed_ms)} ms\tMemory Size: {MEMORY_MB} MB\tMax Memory Used: {max_rss_mb} MB{init}")
    sys.stdout.flush()
    sys.stderr.flush()
    logs = ""
    if LOG_FILE:
        with open(LOG_FILE, "rb") as fh:
            fh.seek(offset)
            logs = fh.read().decode(errors="replace")
    # LocalStack attaches the logs it last received to the result, so they must arrive first.
    post(f"invocations/{request_id}/logs", json.dumps({"logs": logs}).encode())
    if error:
        post(f"invocations/{request_id}/error", json.dumps(error).encode())
    else:
        post(f"invocations/{request_id}/response", body)


class InvokeHandler(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the name http.server dispatches to
        if self.path.rstrip("/") != "/invoke":
            self.send_error(404)
            return
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        # Acknowledge first: LocalStack waits for the result on the callback, not on this request.
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.flush()
        self.close_connection = True
        invoke(request)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - signature of the base class
        pass  # the access log would end up in the function's logs


def exit_with_parent() -> None:
    """End this process if LocalStack dies without stopping it (e.g. SIGKILL): an orphaned worker
    would otherwise serve forever. Polling getppid is used rather than PR_SET_PDEATHSIG, which
    fires when the *thread* that spawned us ends, and LocalStack spawns from pool threads."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def main() -> None:
    global _init_ms
    exit_with_parent()
    # Import before reporting ready, as AWS does its init phase, so warm invocations skip it;
    # an import error is not fatal here: it is reported to every invocation, as AWS does.
    started = time.monotonic()
    load_handler()
    _init_ms = (time.monotonic() - started) * 1000
    server = http.server.HTTPServer(("127.0.0.1", 0), InvokeHandler)
    post(f"status/{RUNTIME_ID}/ready", json.dumps({"port": server.server_address[1]}).encode())
    server.serve_forever()


if __name__ == "__main__":
    main()
