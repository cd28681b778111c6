"""The processes a load test starts for itself: daphne serving the app and, for the Redis layer, a Redis server.

Every process is ours (started here, stopped here by its own pid, also on Ctrl-C or an error), listens on a free
loopback port and writes its log into the run's var folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

LOOPBACK = "127.0.0.1"
REDIS_BINARY = "redis-server"
REDIS_INSTALL_HINT = "apt-get install -y redis-server   (or: make loadtest-redis-deps)"
START_TIMEOUT_SECONDS = 60.0
STOP_GRACE_SECONDS = 10.0
LOG_TAIL_LINES = 12
# Measuring daphnes (loadtest, bench mcp): per-user rates (memoria/admission/throttles.py) far above what one
# run's single user sends, so the throttle still counts every request (its cost is part of the load) but never
# refuses one (docs/loadtest.md).
UNTHROTTLED = "1000000/second"
DAPHNE_OVERRIDES: dict[str, str] = {
    "MEMORIA_THROTTLE_RETRIEVAL": UNTHROTTLED,
    "MEMORIA_THROTTLE_SEARCH": UNTHROTTLED,
    "MEMORIA_THROTTLE_INGEST": UNTHROTTLED,
}


class ServerStartError(RuntimeError):
    """A process we started exited or did not listen in time; the message ends with its log's last lines."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


def log_tail(path: Path) -> str:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return ""
    return "\n".join(lines[-LOG_TAIL_LINES:])


@dataclass
class ManagedProcess:
    name: str
    port: int
    log_path: Path
    process: subprocess.Popen[bytes]

    def wait_listening(self, timeout: float = START_TIMEOUT_SECONDS) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ServerStartError(
                    f"{self.name} exited with {self.process.returncode}; {self.log_path}:\n{log_tail(self.log_path)}"
                )
            with socket.socket() as probe:
                if probe.connect_ex((LOOPBACK, self.port)) == 0:
                    return
            time.sleep(0.1)
        raise ServerStartError(f"{self.name} did not listen on {LOOPBACK}:{self.port} within {timeout:.0f} s")

    def stop(self) -> None:
        """SIGTERM, then SIGKILL past the grace period: only this process, which we started."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=STOP_GRACE_SECONDS)


@dataclass
class ServerSet:
    """The run's processes, stopped in reverse order of starting by `stop_all` (idempotent)."""

    run_dir: Path
    processes: list[ManagedProcess] = field(default_factory=list)

    def _spawn(self, name: str, port: int, command: list[str], env: dict[str, str] | None = None) -> ManagedProcess:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        log_path = self.run_dir / f"{name}.log"
        with open(log_path, "wb") as log:
            # A session of its own: Ctrl-C in the terminal reaches only us, and we stop the servers in order.
            process = subprocess.Popen(  # noqa: S603 - our own fixed commands, no shell
                command,
                cwd=settings.BASE_DIR,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        managed = ManagedProcess(name=name, port=port, log_path=log_path, process=process)
        self.processes.append(managed)
        return managed

    def start_redis(self) -> str:
        """A throwaway Redis on a loopback port, no persistence; returns its URL."""
        binary = shutil.which(REDIS_BINARY)
        if binary is None:
            raise ServerStartError(f"{REDIS_BINARY} is not installed; install Debian's package: {REDIS_INSTALL_HINT}")
        port = free_port()
        data_dir = self.run_dir / "redis"
        data_dir.mkdir(parents=True, exist_ok=True)
        command = [
            binary,
            "--bind", LOOPBACK,
            "--port", str(port),
            "--dir", str(data_dir),
            "--save", "",
            "--appendonly", "no",
            "--protected-mode", "yes",
            "--daemonize", "no",
        ]  # fmt: skip
        self._spawn("redis", port, command).wait_listening()
        return f"redis://{LOOPBACK}:{port}/0"

    def start_daphnes(self, count: int, env: dict[str, str]) -> list[str]:
        """`count` daphne processes serving memoria.asgi with `env`; returns their base URLs once all listen."""
        started = []
        for index in range(1, count + 1):
            port = free_port()
            command = [
                sys.executable,
                "-m",
                "memoria.serving",
                "-b",
                LOOPBACK,
                "-p",
                str(port),
                "memoria.asgi:application",
            ]
            started.append(self._spawn(f"daphne-{index}", port, command, env))
        for managed in started:
            managed.wait_listening()
        return [f"http://{LOOPBACK}:{managed.port}" for managed in started]

    def stop_all(self) -> None:
        while self.processes:
            self.processes.pop().stop()


@contextlib.contextmanager
def server_set(run_dir: Path) -> Iterator[ServerSet]:
    servers = ServerSet(run_dir=run_dir)
    try:
        yield servers
    finally:
        servers.stop_all()


def daphne_environment(*, redis_url: str | None, overrides: dict[str, str]) -> dict[str, str]:
    """This process's environment (same settings module, graph server and database) with the run's overrides."""
    env = dict(os.environ)
    env.pop("MEMORIA_REDIS_URL", None)
    if redis_url:
        env["MEMORIA_REDIS_URL"] = redis_url
    env.setdefault("DJANGO_SETTINGS_MODULE", "memoria.settings")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(settings.BASE_DIR), env.get("PYTHONPATH", "")]))
    env.update(overrides)
    return env
