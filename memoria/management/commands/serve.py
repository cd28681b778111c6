"""`serve`: what `make run` does after installing: graph server, schema, migrations, demo data, login, then daphne."""

from __future__ import annotations

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandParser

from memoria.browse.selectors import node_cards
from memoria.datasets.demo import MARKER_ID
from memoria.graph.selectors import group_summary


class Command(BaseCommand):
    help = (
        "Start the embedded graph server if used, prepare schema, database and demo data, and serve HTTP + websockets."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--no-demo", action="store_true", help="do not load the demo group")
        parser.add_argument("--prepare-only", action="store_true", help="prepare everything but do not serve")

    def handle(self, *args: object, no_demo: bool, prepare_only: bool, **options: object) -> None:
        if settings.MEMORIA_GRAPH["EMBEDDED"]:
            call_command("graphdb", "start", stdout=self.stdout)
        call_command("graph_schema", stdout=self.stdout)
        call_command("migrate", "--noinput", verbosity=0)
        if not no_demo:
            if group_summary(group="demo").entities:
                self.stdout.write("demo group already loaded")
                if not node_cards(group="demo", ids=[MARKER_ID]):
                    self.stdout.write(
                        "  (an earlier demo, without the incidents its sample queries walk: load the current one "
                        "into a new group, e.g. `load_demo --group demo-2`; `graphdb reset --yes` deletes every memory)"
                    )
                # Only vectors an earlier load left out (--no-reindex, a model failure): usually nothing to do.
                call_command("reindex", "--group", "demo", "--quiet", stdout=self.stdout)
            else:
                call_command("load_demo", stdout=self.stdout)  # embeds what it writes
        call_command("ensure_login", stdout=self.stdout)
        if prepare_only:
            return
        from memoria.serving import GuardedCommandLine  # installs Twisted's asyncio reactor

        _close_drivers_on_shutdown()
        host, port = settings.MEMORIA_HOST, settings.MEMORIA_PORT
        self.stdout.write(
            f"serving HTTP and websockets on http://{host}:{port}/ (Ctrl-C stops; the graph server keeps running)"
        )
        self.stdout.flush()
        proxy_headers = ["--proxy-headers"] if settings.MEMORIA_PROXY_HEADERS else []
        GuardedCommandLine().run(["-b", host, "-p", str(port), *proxy_headers, "memoria.asgi:application"])


def _close_drivers_on_shutdown() -> None:
    """Daphne has no ASGI lifespan events, so the drivers are closed from the reactor's shutdown hook."""
    import asyncio

    from twisted.internet import defer, reactor

    from memoria.graph.driver import close_async_driver, close_sync_driver

    def close() -> defer.Deferred:
        close_sync_driver()
        return defer.Deferred.fromFuture(asyncio.ensure_future(close_async_driver()))

    reactor.addSystemEventTrigger("before", "shutdown", close)
