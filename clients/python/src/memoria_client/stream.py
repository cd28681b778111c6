"""The retrieval websockets as async iterators of typed events (docs/websocket.md).

`AsyncRetrievalStream` runs retrievals on `/ws/retrievals/`; `AsyncWatchStream` follows a group's retrievals on
`/ws/retrievals/watch/`. Both authenticate with the token in the Authorization header, as every program does.
"""

from __future__ import annotations

import asyncio
import json
import urllib.parse
import uuid
from collections.abc import AsyncIterator
from types import TracebackType
from typing import Any, Self

import websockets
from websockets.asyncio.client import ClientConnection

from memoria_client.errors import StreamError
from memoria_client.models import ErrorEvent, Event, RetrievalFinished, event_from_json
from memoria_client.rest import auth_headers

MAX_FRAME_BYTES = 2**24  # a level_expanded of a wide explain retrieval runs to megabytes


def socket_url(base_url: str, path: str) -> str:
    """http(s)://host → ws(s)://host + path."""
    base = base_url.rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise ValueError(f"base_url must start with http:// or https://, not {base_url!r}")
    return "ws" + base.removeprefix("http") + path


class _Socket:
    """One websocket: opened by `async with` (or `open()`), frames decoded into typed events."""

    path = ""

    def __init__(self, base_url: str, token: str, *, open_timeout: float = 10.0, max_size: int = MAX_FRAME_BYTES):
        self.url = socket_url(base_url, self.path)
        self.token = token
        self.open_timeout = open_timeout
        self.max_size = max_size
        self._socket: ClientConnection | None = None

    async def open(self) -> Self:
        """Connect; a refused handshake raises `StreamError` with its HTTP status (OSError when nothing listens)."""
        try:
            self._socket = await websockets.connect(
                self.url,
                additional_headers=auth_headers(self.token),
                max_size=self.max_size,
                open_timeout=self.open_timeout,
            )
        except websockets.InvalidStatus as error:
            status = error.response.status_code
            raise StreamError(f"the server refused the websocket: HTTP {status}", status=status) from error
        except websockets.WebSocketException as error:
            raise StreamError(f"websocket handshake failed: {error}") from error
        return self

    async def close(self) -> None:
        if self._socket is not None:
            await self._socket.close()

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self.close()

    @property
    def socket(self) -> ClientConnection:
        if self._socket is None:
            raise RuntimeError("the stream is not open: use `async with` or `await stream.open()`")
        return self._socket

    async def send(self, frame: dict[str, Any]) -> None:
        await self._guarded(self.socket.send(json.dumps(frame)))

    async def next_event(self, timeout: float | None = None) -> Event:
        """The next frame as an event; TimeoutError after `timeout` seconds; `StreamError` once the socket closed."""
        frame = await self._guarded(asyncio.wait_for(self.socket.recv(), timeout))
        try:
            decoded = json.loads(frame)
        except (TypeError, ValueError):
            decoded = frame if isinstance(frame, str) else repr(frame)
        return event_from_json(decoded)

    async def events(self) -> AsyncIterator[Event]:
        """Every frame as it arrives, until the server closes the socket."""
        while True:
            try:
                yield await self.next_event()
            except StreamError as error:
                if error.code == "closed_ok":
                    return
                raise

    async def _guarded(self, operation: Any) -> Any:
        try:
            return await operation
        except websockets.ConnectionClosedOK as error:
            raise StreamError(f"socket closed: {error}", code="closed_ok") from error
        except websockets.WebSocketException as error:
            raise StreamError(f"socket closed: {error}", code="closed") from error


class AsyncRetrievalStream(_Socket):
    """Runs retrievals over one socket (at most 4 at once, the server's limit) and streams their events.

    async with AsyncRetrievalStream(url, token) as stream:
        async for event in stream.retrieve(group="demo", query="why did stockouts hit Lyon?"):
            ...
    """

    path = "/ws/retrievals/"

    async def start(self, group: str, *, retrieval_id: str | None = None, **body: Any) -> str:
        """Send a `retrieve` frame (the REST body of POST /api/retrieval/activation: query, seeds, params, engine,
        algorithm...) and return its retrieval id, without waiting for events."""
        retrieval_id = retrieval_id or f"client-{uuid.uuid4().hex[:12]}"
        frame = {"type": "retrieve", "algorithm": "activation", **body, "group": group, "retrieval_id": retrieval_id}
        await self.send({key: value for key, value in frame.items() if value is not None})
        return retrieval_id

    async def events_of(self, retrieval_id: str) -> AsyncIterator[Event]:
        """The events of one retrieval, ending with its `retrieval_finished` or an error frame about it (or about
        no retrieval in particular); events of other retrievals on this socket are skipped."""
        while True:
            event = await self.next_event()
            if event.retrieval_id not in (None, retrieval_id):
                continue
            yield event
            if isinstance(event, RetrievalFinished | ErrorEvent):
                return

    async def retrieve(self, group: str, *, retrieval_id: str | None = None, **body: Any) -> AsyncIterator[Event]:
        """Start a retrieval and yield its events up to its `retrieval_finished` (or the error frame refusing it)."""
        started = await self.start(group, retrieval_id=retrieval_id, **body)
        async for event in self.events_of(started):
            yield event

    async def cancel(self, retrieval_id: str) -> None:
        """Ask the server to stop a retrieval of this socket: it ends with `retrieval_finished` status `cancelled`
        (or was already done, and the answer is an `unknown_retrieval` error frame)."""
        await self.send({"type": "cancel", "retrieval_id": retrieval_id})


class AsyncWatchStream(_Socket):
    """Follows one group's retrievals, whoever runs them; the first event is `watching` (or a `not_found` error)."""

    def __init__(self, base_url: str, token: str, group: str, **options: Any) -> None:
        self.path = "/ws/retrievals/watch/?" + urllib.parse.urlencode({"group": group})
        super().__init__(base_url, token, **options)
        self.group = group
