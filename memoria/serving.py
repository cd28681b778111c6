"""The HTTP edge: daphne with the bounds a public server needs, which daphne itself does not offer.

Daphne (over Twisted's HTTP/1.1 channel) waits as long as a client keeps sending a byte now and then: a request
line, headers or a body trickled a byte every few seconds held a connection for minutes, and a request line past
16 KiB was dropped without an answer. Here each request gets:

- a deadline for its request line and headers, from its first byte (MEMORIA_HTTP_HEADER_TIMEOUT): 408;
- a deadline for its body, once the headers are in (MEMORIA_HTTP_BODY_TIMEOUT): 408;
- an idle limit between requests of a kept-alive connection (MEMORIA_HTTP_IDLE_TIMEOUT): closed;
- 414 for a request line past MEMORIA_MAX_REQUEST_LINE_BYTES, 431 for headers past MEMORIA_MAX_HEADER_BYTES;
- 413 for a body past MEMORIA_MAX_REQUEST_BYTES as soon as its Content-Length says so (or a chunked body passes
  it), before daphne spools it to disk.

No maintained library bounds Twisted's channel this way (daphne has an application timeout only, and a front proxy
is a second server to run): the hooks are Twisted's own (HTTPChannel's line and body callbacks). Run it as
`python -m memoria.serving [daphne's options] memoria.asgi:application`; `manage.py serve` does.
"""

from __future__ import annotations

import json
import logging
import math
from dataclasses import dataclass
from typing import Any

from daphne.cli import CommandLineInterface
from daphne.http_protocol import HTTPFactory
from daphne.server import Server
from twisted.web.http import HTTPChannel, _GenericHTTPChannelProtocol

from memoria.errors import request_too_large_problem

logger = logging.getLogger(__name__)

# What chunked framing (sizes in hex, line ends) may add to a body's bytes before it counts as past the limit.
CHUNK_FRAMING_BYTES = 64 * 1024
# How long a refused request's remaining bytes are read and dropped, so its client can read the answer, at most.
LINGER_SECONDS = 5.0
REASONS = {
    408: b"Request Timeout",
    413: b"Content Too Large",
    414: b"URI Too Long",
    431: b"Request Header Fields Too Large",
}


@dataclass(frozen=True)
class EdgeLimits:
    """The bounds of one request; the settings hold them (MEMORIA_HTTP_* and MEMORIA_MAX_*)."""

    header_seconds: float
    body_seconds: float
    idle_seconds: float
    request_line_bytes: int
    header_bytes: int
    body_bytes: int

    @classmethod
    def from_settings(cls) -> EdgeLimits:
        from django.conf import settings

        return cls(
            header_seconds=settings.MEMORIA_HTTP_HEADER_TIMEOUT,
            body_seconds=settings.MEMORIA_HTTP_BODY_TIMEOUT,
            idle_seconds=settings.MEMORIA_HTTP_IDLE_TIMEOUT,
            request_line_bytes=settings.MEMORIA_MAX_REQUEST_LINE_BYTES,
            header_bytes=settings.MEMORIA_MAX_HEADER_BYTES,
            body_bytes=settings.DATA_UPLOAD_MAX_MEMORY_SIZE,
        )


def problem_answer(status: int, problem: dict[str, Any]) -> bytes:
    """A whole HTTP/1.1 answer that closes the connection, its body the API's problem JSON."""
    body = json.dumps(problem).encode()
    head = (
        f"HTTP/1.1 {status} ".encode()
        + REASONS[status]
        + b"\r\nContent-Type: application/json\r\nConnection: close\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
    )
    return head + body


class GuardedHTTPChannel(HTTPChannel):
    """Twisted's HTTP/1.1 channel with a deadline for each part of a request and answers for what is too long.

    A request goes idle → head (its first byte arrived) → body (headers in, a body announced) → app (handed to
    daphne, no deadline of ours: the application takes what it takes) → idle again once answered.
    """

    def __init__(self, limits: EdgeLimits) -> None:
        super().__init__()
        self.limits = limits
        self.MAX_LENGTH = max(limits.request_line_bytes, limits.header_bytes)  # LineReceiver's per-line bound
        self.totalHeadersSize = limits.request_line_bytes + limits.header_bytes
        self._phase = "idle"
        self._deadline: Any = None
        self._body_received = 0

    # ---------------------------------------------------------------- the phases

    def _arm(self, seconds: float, what: str) -> None:
        self._disarm()
        self._deadline = self.callLater(seconds, self._too_slow, what, seconds)

    def _disarm(self) -> None:
        if self._deadline is not None and self._deadline.active():
            self._deadline.cancel()
        self._deadline = None

    def dataReceived(self, data: bytes) -> None:
        if self._phase == "closed":
            return
        if self._phase == "idle" and data:
            self._phase = "head"
            self._arm(self.limits.header_seconds, "the request line and headers")
        super().dataReceived(data)

    def lineReceived(self, line: bytes) -> None:
        if self._phase == "closed":
            return
        if self.requests and self._receivedHeaderSize + len(line) > self.totalHeadersSize:
            self._refuse(431, f"headers past {self.limits.header_bytes} bytes", "headers_too_large", linger=True)
            return
        if not self.requests and len(line) > self.limits.request_line_bytes:
            self._refuse_request_line()
            return
        super().lineReceived(line)

    def lineLengthExceeded(self, line: bytes) -> None:
        # No line end within MAX_LENGTH: the request line when no request has begun, else a header.
        if not self.requests:
            self._refuse_request_line()
        else:
            self._refuse(431, f"a header line past {self.MAX_LENGTH} bytes", "headers_too_large", linger=True)

    def allHeadersReceived(self) -> None:
        if self._phase == "closed":
            return
        if self.length is not None and self.length > self.limits.body_bytes:
            self._refuse_body()  # before Twisted's "100 Continue" invites the client to send it
            return
        super().allHeadersReceived()
        if self.length != 0:
            self._phase = "body"
            self._body_received = 0
            self._arm(self.limits.body_seconds, "the body")

    def rawDataReceived(self, data: bytes) -> None:
        if self._phase == "closed":
            return
        if self._phase == "body" and self.length is None:  # chunked: no length announced, so count what comes
            self._body_received += len(data)
            if self._body_received > self.limits.body_bytes + CHUNK_FRAMING_BYTES:
                self._refuse_body()
                return
        super().rawDataReceived(data)

    def allContentReceived(self) -> None:
        self._disarm()
        self._phase = "app"
        super().allContentReceived()

    def requestDone(self, request: Any) -> None:
        # Idle before Twisted replays what the client sent meanwhile: a pipelined request starts its own clock.
        if self._phase != "closed":
            self._phase = "idle"
        super().requestDone(request)

    def connectionLost(self, reason: Any) -> None:
        self._disarm()
        self._phase = "closed"
        super().connectionLost(reason)

    # ---------------------------------------------------------------- refusals

    def _too_slow(self, what: str, seconds: float) -> None:
        self._deadline = None
        detail = f"{what} did not arrive within {math.ceil(seconds)} s; send the whole request at once"
        self._refuse(408, detail, "request_timeout")

    def _refuse_request_line(self) -> None:
        limit = self.limits.request_line_bytes
        detail = f"the request line is longer than {limit} bytes; send long lists in a POST body"
        self._refuse(414, detail, "uri_too_long", linger=True)

    def _refuse_body(self) -> None:
        self._answer(413, request_too_large_problem(self.limits.body_bytes), "a body past the limit", linger=True)

    def _refuse(self, status: int, detail: str, code: str, *, linger: bool = False) -> None:
        self._answer(status, {"detail": detail, "code": code}, detail, linger=linger)

    def _answer(self, status: int, problem: dict[str, Any], why: str, *, linger: bool) -> None:
        """Send the answer and close. With `linger`, the answer is followed by the end of our side of the stream at
        once, and what the client is still sending (the rest of a big body or of its headers) is read and dropped
        for up to LINGER_SECONDS: a client that writes its whole request before reading would otherwise meet a
        reset connection instead of its 413, 414 or 431."""
        if self._phase == "closed":
            return
        self._disarm()
        self._phase = "closed"
        self.setRawMode()  # stop parsing what is still buffered
        peer = self.transport.getPeer() if self.transport else None
        logger.info("refused a request from %s: %d, %s", getattr(peer, "host", "?"), status, why)
        self.transport.write(problem_answer(status, problem))
        if linger:
            self.transport.loseWriteConnection()
            self._deadline = self.callLater(LINGER_SECONDS, self._close)
        else:
            self._close()

    def _close(self) -> None:
        self._deadline = None
        self.loseConnection()
        # A client that does not read its answer cannot hold the socket: dropped after Twisted's abort timeout.
        self._abortingCall = self.callLater(self.abortTimeout, self.forceAbortClient)


class GuardedHTTPFactory(HTTPFactory):
    """Daphne's HTTP factory building guarded channels, with the idle limit between requests."""

    def __init__(self, server: Server, limits: EdgeLimits) -> None:
        super().__init__(server)
        self.limits = limits
        self.timeOut = limits.idle_seconds

    def protocol(self) -> _GenericHTTPChannelProtocol:  # what ServerFactory.buildProtocol calls
        return _GenericHTTPChannelProtocol(GuardedHTTPChannel(self.limits))


class GuardedServer(Server):
    """Daphne's server with GuardedHTTPFactory: Server.run() builds its factory inline (`self.http_factory =
    HTTPFactory(self)`), so the attribute takes ours in its place."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.limits = EdgeLimits.from_settings()  # the application, loaded first by the CLI, set Django up
        super().__init__(*args, **kwargs)

    @property
    def http_factory(self) -> GuardedHTTPFactory:
        return self._guarded_factory

    @http_factory.setter
    def http_factory(self, daphne_factory: HTTPFactory) -> None:
        self._guarded_factory = GuardedHTTPFactory(self, self.limits)


class GuardedCommandLine(CommandLineInterface):
    """Daphne's command line (the same options) running GuardedServer."""

    server_class = GuardedServer


if __name__ == "__main__":
    GuardedCommandLine.entrypoint()
