"""`loadtest`: websocket retrievals, REST searches and ingests for a fixed time against daphne processes of our own.

Thin: validates options, prepares the group and a token, starts the servers (memoria.loadtest.servers), runs the
load (memoria.loadtest.run), checks the graph (memoria.loadtest.verify) and prints the report. docs/loadtest.md.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.accounts.roles import check_group_name
from memoria.errors import GraphUnavailable
from memoria.graph.selectors import group_summary
from memoria.loadtest.report import LoadReport, WatchCheck, operation_stats, percentile
from memoria.loadtest.run import LoadPlan, LoadRunError, load_run, new_run_label
from memoria.loadtest.servers import DAPHNE_OVERRIDES, ServerStartError, daphne_environment, server_set
from memoria.loadtest.verify import episode_check
from memoria.loadtest.workload import group_queries, loadtest_access_revoke, loadtest_token
from memoria.management.commands._harness import bounded, graph_server_for_run, sigterm_as_interrupt

LAYERS = ("memory", "redis")
DEFAULT_GROUP = "loadtest"  # kept between runs: seeding and embedding the demo memory takes minutes on 2 busy cores


class Command(BaseCommand):
    help = (
        "Load test on loopback: N websocket clients running activation retrievals, M REST searches per second and a "
        "trickle of ingests for a fixed time, against daphne processes started for it; prints latencies and checks "
        "every ingested episode is stored exactly once."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--duration", type=bounded(float, 1, 3600), default=60.0, help="seconds of load (60)")
        parser.add_argument("--ws-clients", type=bounded(int, 0, 500), default=50, help="websocket clients (50)")
        parser.add_argument("--searches-per-second", type=bounded(float, 0, 500), default=20.0, help="(20)")
        parser.add_argument("--ingest-per-second", type=bounded(float, 0, 50), default=1.0, help="episodes/s (1)")
        parser.add_argument("--layer", choices=LAYERS, default="memory", help="channel layer: memory or redis")
        parser.add_argument(
            "--servers", type=bounded(int, 1, 8), default=None, help="daphne processes (1 with memory, 2 with redis)"
        )
        parser.add_argument(
            "--group",
            default=None,
            help=f"an existing group to load; default {DEFAULT_GROUP!r}, seeded with the demo memory on first use",
        )
        parser.add_argument("--timeout", type=bounded(float, 1, 600), default=30.0, help="per operation, s (30)")
        parser.add_argument("--json", action="store_true", dest="as_json", help="print the report as JSON")

    def handle(self, *args: object, **options: Any) -> None:
        layer: str = options["layer"]
        servers: int = options["servers"] or (2 if layer == "redis" else 1)
        if layer == "memory" and servers != 1:
            raise CommandError("--servers: the memory channel layer lives in one process; use --layer redis for more")
        if options["ws_clients"] == 0 and options["searches_per_second"] == 0 and options["ingest_per_second"] == 0:
            raise CommandError("nothing to do: --ws-clients, --searches-per-second and --ingest-per-second are all 0")
        group = options["group"] or DEFAULT_GROUP
        try:
            check_group_name(group)
        except ValueError as error:
            raise CommandError(f"--group: {error}") from error
        label = new_run_label()
        with sigterm_as_interrupt(), graph_server_for_run(self) as stop_notes:
            try:
                report = self.run_load(options, layer=layer, servers=servers, label=label, group=group)
            except KeyboardInterrupt:
                raise CommandError("interrupted: the load test's servers are stopped; nothing was measured") from None
            finally:
                for note in stop_notes:
                    self.stderr.write(note)
        if options["as_json"]:
            self.stdout.write(json.dumps(report.as_dict(), indent=2))
        else:
            self.stdout.write("\n".join(report.lines()))
        if not report.passed:
            raise CommandError("load test failed: " + "; ".join(report.failures()))

    def run_load(self, options: dict[str, Any], *, layer: str, servers: int, label: str, group: str) -> LoadReport:
        try:
            if not group_summary(group=group).entities:
                if options["group"] is not None:
                    raise CommandError(f"--group: {group!r} has no entities to query")
                self.stderr.write(f"seeding group {group!r} with the demo memory (once; it is kept)")
                call_command("load_demo", "--group", group, "--quiet", stdout=self.stderr)
            queries = group_queries(group=group)
            token = loadtest_token(group=group)
            load_before = os.getloadavg()[0]
            run_dir = settings.VAR_DIR / "loadtest" / label
            with server_set(run_dir) as started:
                redis_url = started.start_redis() if layer == "redis" else None
                urls = started.start_daphnes(
                    servers, daphne_environment(redis_url=redis_url, overrides=DAPHNE_OVERRIDES)
                )
                self.stderr.write(
                    f"serving on {', '.join(urls)} (logs in {run_dir}); "
                    f"warming up, then {options['duration']:g} s of load"
                )
                plan = LoadPlan(
                    urls=tuple(urls),
                    token=token,
                    group=group,
                    queries=tuple(queries),
                    label=label,
                    duration=options["duration"],
                    ws_clients=options["ws_clients"],
                    searches_per_second=options["searches_per_second"],
                    ingest_per_second=options["ingest_per_second"],
                    timeout=options["timeout"],
                )
                outcome = asyncio.run(load_run(plan))
            episodes = episode_check(
                group=group, prefix=f"{label}-", sent=outcome.ledger.sent, acknowledged=outcome.ledger.acknowledged
            )
        except (ServerStartError, LoadRunError, GraphUnavailable) as error:
            raise CommandError(str(error)) from error
        finally:
            loadtest_access_revoke(group=group)
        source = outcome.retrievals.completed.get(0, {})
        # How much later than the client the watcher saw each end (negative: it came first).
        lags = [outcome.watch.finished[rid] - at for rid, at in source.items() if rid in outcome.watch.finished]
        watch = WatchCheck(
            watcher_server=len(urls),
            source_server=1,
            completed=len(source),
            seen=len(lags),
            lag_p50_ms=percentile(lags, 0.5) * 1000,
            lag_max_ms=max(lags, default=0.0) * 1000,
            events=outcome.watch.events,
            error=outcome.watch.error,
            checked=options["ws_clients"] > 0,
        )
        run_settings = {
            "run": label,
            "urls": urls,
            "layer": layer,
            "servers": servers,
            "duration_s": options["duration"],
            "ws_clients": options["ws_clients"],
            "searches_per_s": options["searches_per_second"],
            "ingest_per_s": options["ingest_per_second"],
            "group": group,
            "cores": os.cpu_count(),
            "load_avg_before": round(load_before, 2),
            "load_avg_after": round(os.getloadavg()[0], 2),
        }
        return LoadReport(
            settings=run_settings,
            seconds=outcome.seconds,
            operations=operation_stats(outcome.recorder, seconds=outcome.seconds),
            retrieval_events=outcome.retrievals.events,
            ingest_retries=dict(outcome.ledger.retries),
            episodes=episodes,
            watch=watch,
        )
