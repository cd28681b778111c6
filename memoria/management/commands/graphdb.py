"""`graphdb start|stop|status|reset`: control the embedded ArcadeDB server."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.errors import EmbeddedServerError, GraphUnavailable
from memoria.graph.embedded import embedded_server_from_settings


class Command(BaseCommand):
    help = "Start, stop, inspect or empty the embedded graph server (ArcadeDB with its Bolt plugin)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("action", choices=["start", "stop", "status", "reset"])
        parser.add_argument("--yes", action="store_true", help="confirm `reset`, which deletes every memory")

    def handle(self, *args: object, action: str, yes: bool, **options: object) -> None:
        try:
            server = embedded_server_from_settings()
            if action == "start":
                message = server.start()
            elif action == "stop":
                message = server.stop()
            elif action == "status":
                status = server.status()
                self.stdout.write(f"graph server: {status.detail}")
                if not status.answering:
                    raise CommandError(f"graph server is not answering (log: {server.log_file})")
                return
            else:
                if not yes:
                    raise CommandError("`graphdb reset` deletes every memory in the database; add --yes to confirm")
                message = server.reset()
        except (EmbeddedServerError, GraphUnavailable) as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"graph server: {message}")
