"""`graphdb start|stop|status` against real processes: idempotent start, clear errors, and we stop only our own."""

from __future__ import annotations

import dataclasses
import socket
import subprocess
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memoria.errors import EmbeddedServerError
from memoria.graph.embedded import EmbeddedServer
from tests.conftest import free_port


def spare_server(graph_server: EmbeddedServer, tmp_path: Path, **changes: object) -> EmbeddedServer:
    """A second server description on its own folder and free ports, so tests never disturb the session's."""
    fields = {
        "data_dir": tmp_path / "graphdb",
        "bolt_port": free_port(),
        "http_port": free_port(),
        "start_timeout": 60.0,
    }
    return dataclasses.replace(graph_server, **(fields | changes))


def test_start_is_idempotent(graph_server: EmbeddedServer, capsys: pytest.CaptureFixture[str]) -> None:
    pid = graph_server.recorded_pid()
    call_command("graphdb", "start")
    assert f"already running (pid {pid})" in capsys.readouterr().out
    assert graph_server.recorded_pid() == pid
    call_command("graphdb", "status")
    assert f"running (pid {pid})" in capsys.readouterr().out


def test_busy_port_is_a_clear_error_naming_the_log(graph_server: EmbeddedServer, tmp_path: Path) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        busy = squatter.getsockname()[1]
        server = spare_server(graph_server, tmp_path, bolt_port=busy)
        with pytest.raises(EmbeddedServerError) as caught:
            server.start()
    message = str(caught.value)
    assert f"Bolt port 127.0.0.1:{busy} is already in use" in message
    assert str(server.log_file) in message
    assert server.recorded_pid() is None


def test_a_process_that_dies_at_start_is_reported_with_its_log(graph_server: EmbeddedServer, tmp_path: Path) -> None:
    server = spare_server(graph_server, tmp_path, java_opts=("-XX:ThisOptionDoesNotExist",))
    with pytest.raises(EmbeddedServerError) as caught:
        server.start()
    message = str(caught.value)
    assert "exited during start-up" in message and str(server.log_file) in message
    assert "ThisOptionDoesNotExist" in message  # the log's tail is shown
    assert not server.pid_file.exists()


def test_stop_leaves_foreign_processes_alone(graph_server: EmbeddedServer, tmp_path: Path) -> None:
    server = spare_server(graph_server, tmp_path)
    server.data_dir.mkdir(parents=True)
    bystander = subprocess.Popen(["sleep", "30"])
    try:
        server.pid_file.write_text(str(bystander.pid))  # a pid file pointing at somebody else's process
        assert "stale pid file" in server.status().detail
        assert server.stop().startswith("not running")
        assert bystander.poll() is None
        assert not server.pid_file.exists()
    finally:
        bystander.kill()
        bystander.wait()


def test_second_server_starts_stops_and_resets(graph_server: EmbeddedServer, tmp_path: Path) -> None:
    server = spare_server(graph_server, tmp_path)
    try:
        assert server.start().startswith("started")
        assert server.start().startswith("already running")
        assert server.http.ping()
        assert server.reset() == f"database {server.database!r} emptied"
    finally:
        message = server.stop()
    assert message.startswith("stopped")
    assert not server.status().running
    assert server.stop() == "not running"


def test_reset_needs_confirmation() -> None:
    with pytest.raises(CommandError, match="add --yes"):
        call_command("graphdb", "reset")
