"""Redis 7 from Debian's package, as a loopback-only process with its data in the run dir."""

from __future__ import annotations

from ..common import HOST, RUN_DIR, apt_install, port_open, run, wait_for
from .base import Service


class Redis(Service):
    name = "redis"

    def install(self) -> None:
        apt_install("redis-server")

    def start(self) -> None:
        if self.process.alive() and port_open(self.port):
            return
        data = RUN_DIR / "redis"
        data.mkdir(parents=True, exist_ok=True)
        self.process.spawn([
            "redis-server", "--bind", HOST, "--port", str(self.port), "--dir", str(data),
            "--save", "", "--appendonly", "no", "--protected-mode", "yes", "--daemonize", "no",
        ])
        wait_for(self._ping, "redis", timeout=30, log_file=self.process.log_file)

    def _ping(self) -> bool:
        return run(["redis-cli", "-h", HOST, "-p", str(self.port), "ping"], check=False,
                   quiet=True).stdout.strip() == "PONG"

    def health(self) -> dict:
        return {"healthy": port_open(self.port) and self._ping(), "url": f"redis://{HOST}:{self.port}/0"}
