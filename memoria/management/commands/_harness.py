"""What the commands that run a load on their own servers share (`loadtest`, `concurrency`): bounded numeric
options, SIGTERM handled as Ctrl-C, and the embedded graph server started for the run and stopped after it."""

from __future__ import annotations

import argparse
import contextlib
import signal
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from memoria.errors import EmbeddedServerError, GraphUnavailable
from memoria.graph.embedded import embedded_server_from_settings
from memoria.graph.schema import schema_install


def bounded(kind: type, low: float, high: float) -> Any:
    """An argparse type: a number of `kind` within [low, high], with a message naming the bounds."""

    def parse(raw: str) -> int | float:
        try:
            value = kind(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{raw!r} is not {'a whole' if kind is int else 'a'} number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{raw} is outside [{low:g}, {high:g}]")
        return value

    return parse


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """A SIGTERM stops the run like Ctrl-C does, so the servers it started are stopped too."""

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def graph_server_for_run(command: BaseCommand) -> Iterator[list[str]]:
    """The embedded graph server, started if it was not running and then stopped again; the schema installed."""
    notes: list[str] = []
    server = None
    try:
        if settings.MEMORIA_GRAPH["EMBEDDED"]:
            server = embedded_server_from_settings()
            if server.status().answering:
                server = None  # someone else's: leave it running
            else:
                command.stderr.write(f"graph server: {server.start()}")
        schema_install()
        call_command("migrate", "--noinput", verbosity=0)
    except (EmbeddedServerError, GraphUnavailable) as error:
        raise CommandError(str(error)) from error
    try:
        yield notes
    finally:
        if server is not None:
            notes.append(f"graph server: {server.stop()}")
