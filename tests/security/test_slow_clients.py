"""Slow and oversized requests (issue 33, item 6), over real sockets against a real daphne run as production runs it
(memoria.serving), with small limits so each case takes a few seconds.

The probe kept three sockets open for over 120 s by trickling a header line or body bytes every 4 s, and a request
line over ~16 KiB was dropped with no answer. Here trickled requests get 408 at their deadline, an idle connection
is closed, and what is too long is answered 414, 431 or 413 at once.
"""

from __future__ import annotations

import json
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoria.errors import request_too_large_problem
from tests.conftest import running_daphne

HEADER_SECONDS = BODY_SECONDS = IDLE_SECONDS = 2
MAX_BODY = 4096
LIMITS = {
    "MEMORIA_HTTP_HEADER_TIMEOUT": str(HEADER_SECONDS),
    "MEMORIA_HTTP_BODY_TIMEOUT": str(BODY_SECONDS),
    "MEMORIA_HTTP_IDLE_TIMEOUT": str(IDLE_SECONDS),
    "MEMORIA_MAX_REQUEST_BYTES": str(MAX_BODY),
    "MEMORIA_MAX_REQUEST_LINE_BYTES": "2048",
    "MEMORIA_MAX_HEADER_BYTES": "4096",
}
# How late an answer may come past its deadline on a loaded 2-core machine.
SLACK_SECONDS = 2.0


@pytest.fixture(scope="module")
def port(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    log = Path(tmp_path_factory.mktemp("edge")) / "daphne.log"
    with running_daphne(log, wait_seconds=60, **LIMITS) as listening:
        yield listening


def _open(port: int) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", port), timeout=10)
    connection.setblocking(True)
    return connection


def _answer(connection: socket.socket, timeout: float = 30.0) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body of the one answer on the connection, read until the server closes it."""
    connection.settimeout(timeout)
    data = b""
    while chunk := connection.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return int(status_line.split()[1]), headers, body


def _trickle_until_answered(connections: list[socket.socket], piece: bytes, limit_seconds: float) -> float:
    """Send `piece` on every connection each half second until all have something to read; the seconds taken."""
    started = time.monotonic()
    waiting = list(connections)
    while waiting and time.monotonic() - started < limit_seconds:
        for connection in waiting:
            connection.sendall(piece)
        readable, _, _ = select.select(waiting, [], [], 0.5)
        waiting = [connection for connection in waiting if connection not in readable]
    assert not waiting, f"{len(waiting)} connection(s) still open after {limit_seconds} s"
    return time.monotonic() - started


def test_trickled_headers_get_408_at_the_header_deadline(port: int) -> None:
    """Three sockets, as the probe opened, each sending a header line every half second: all answered 408 and
    closed once the request line and headers have taken HEADER_SECONDS."""
    slow = [_open(port) for _ in range(3)]
    for connection in slow:
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    took = _trickle_until_answered(slow, b"X-Slow: 1\r\n", HEADER_SECONDS + SLACK_SECONDS + 2)
    assert HEADER_SECONDS - 0.5 <= took <= HEADER_SECONDS + SLACK_SECONDS, took
    for connection in slow:
        status, headers, body = _answer(connection)
        assert (status, headers["connection"], json.loads(body)["code"]) == (408, "close", "request_timeout")
        assert json.loads(body)["detail"].startswith("the request line and headers did not arrive within 2 s")


def test_a_trickled_body_gets_408_at_the_body_deadline(port: int) -> None:
    connection = _open(port)
    connection.sendall(
        b"POST /api/context HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n"
    )
    took = _trickle_until_answered([connection], b" ", BODY_SECONDS + SLACK_SECONDS + 2)
    assert BODY_SECONDS - 0.5 <= took <= BODY_SECONDS + SLACK_SECONDS, took
    status, _, body = _answer(connection)
    assert (status, json.loads(body)["code"]) == (408, "request_timeout")
    assert json.loads(body)["detail"].startswith("the body did not arrive within 2 s")


def _closed_within(connection: socket.socket, seconds: float) -> tuple[float, bytes]:
    """Seconds until the server closes the connection (read to the end), and what it sent before."""
    started = time.monotonic()
    connection.settimeout(seconds)
    received = b""
    while chunk := connection.recv(65536):
        received += chunk
    return time.monotonic() - started, received


def test_a_silent_connection_is_closed_when_idle(port: int) -> None:
    took, received = _closed_within(_open(port), IDLE_SECONDS + SLACK_SECONDS + 2)  # never a byte
    assert received == b"" and took <= IDLE_SECONDS + SLACK_SECONDS, took


def test_a_kept_alive_connection_is_closed_when_idle(port: int) -> None:
    connection = _open(port)
    connection.sendall(b"GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # answered at once, kept alive
    connection.settimeout(10)
    first = connection.recv(65536)
    assert first.startswith(b"HTTP/1.1 301 ") and b"\r\n\r\n" in first
    took, more = _closed_within(connection, IDLE_SECONDS + SLACK_SECONDS + 2)
    assert more == b"" and took <= IDLE_SECONDS + SLACK_SECONDS, took


@pytest.mark.parametrize("length", [2049, 17 * 1024, 64 * 1024])
def test_a_request_line_past_the_limit_is_414(port: int, length: int) -> None:
    """Past MEMORIA_MAX_REQUEST_LINE_BYTES (2048 here), and the probe's ~17 KiB that used to be dropped unanswered."""
    target = b"/api/search?q=" + b"a" * (length - len(b"GET /api/search?q= HTTP/1.1"))
    request_line = b"GET " + target + b" HTTP/1.1"
    assert len(request_line) == length
    connection = _open(port)
    started = time.monotonic()
    connection.sendall(request_line + b"\r\nHost: 127.0.0.1\r\n\r\n")
    status, headers, body = _answer(connection)
    assert (status, headers["content-type"], json.loads(body)["code"]) == (414, "application/json", "uri_too_long")
    assert time.monotonic() - started < SLACK_SECONDS


def test_headers_past_the_limit_are_431(port: int) -> None:
    connection = _open(port)
    headers = b"".join(b"X-Padding-%d: %s\r\n" % (index, b"p" * 200) for index in range(30))  # about 6.5 KB
    connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + b"\r\n")
    status, _, body = _answer(connection)
    assert (status, json.loads(body)["code"]) == (431, "headers_too_large")


def test_a_body_announced_past_the_limit_is_413_before_it_is_sent(port: int) -> None:
    connection = _open(port)
    started = time.monotonic()
    connection.sendall(
        b"POST /api/context HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {MAX_BODY + 1}\r\n\r\n".encode()
    )
    status, _, body = _answer(connection)
    assert (status, json.loads(body)) == (413, request_too_large_problem(MAX_BODY))
    assert time.monotonic() - started < SLACK_SECONDS


def test_a_client_that_sends_the_whole_oversized_body_first_still_reads_its_413(port: int) -> None:
    """As urllib and most clients do: write everything, then read. The edge answers at the headers, ends its side
    and drops the rest it is sent, so the answer is there to read rather than a reset connection."""
    body = b"x" * (1024 * 1024)  # far past what the socket buffers hold
    connection = _open(port)
    connection.sendall(
        b"POST /api/context HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    status, _, answer = _answer(connection)
    assert (status, json.loads(answer)) == (413, request_too_large_problem(MAX_BODY))


def test_a_chunked_body_past_the_limit_is_413(port: int) -> None:
    connection = _open(port)
    connection.sendall(
        b"POST /api/context HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"x" * 8192
    try:
        for _ in range(20):  # 160 KiB, past the limit and the framing allowance
            connection.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server answered and closed while we were still sending
    status, _, body = _answer(connection)
    assert (status, json.loads(body)["code"]) == (413, "request_too_large")


def test_requests_within_the_limits_are_served(port: int) -> None:
    """A whole request at once, and one whose body arrives in pieces well within the deadline."""
    connection = _open(port)
    connection.sendall(b"GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    assert _answer(connection)[0] == 301  # Django's answer: the request went through
    connection = _open(port)
    body = json.dumps({"query": "stock", "group": "nobody"}).encode()
    connection.sendall(
        b"POST /api/context HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
    )
    for index in range(0, len(body), 8):
        connection.sendall(body[index : index + 8])
        time.sleep(0.05)
    assert _answer(connection)[0] == 401  # reached the application, which wants a token
