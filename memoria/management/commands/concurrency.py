"""`concurrency`: writers and curators racing on a fresh group, then every invariant of memoria.loadtest.invariants.

Thin: validates options, runs memoria.loadtest.writers once per run (optionally killing the embedded graph server
meanwhile), checks the graph against what each writer was told and prints a line per run. docs/ingestion.md.
"""

from __future__ import annotations

import json
import os
import uuid
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.graph.embedded import embedded_server_from_settings
from memoria.loadtest.invariants import writers_invariants
from memoria.loadtest.writers import WritersOutcome, WritersPlan, run_group_delete, server_killer, writers_run
from memoria.management.commands._harness import bounded, graph_server_for_run, sigterm_as_interrupt

KILL_EVERY_SECONDS = 20.0  # between kills of --kill-graph: each restart takes seconds, the writers go on meanwhile


def _run_summary(outcome: WritersOutcome) -> dict[str, Any]:
    writers, curators = outcome.writers, outcome.curators
    return {
        "seconds": round(outcome.seconds, 1),
        "episodes_acknowledged": len(writers.acknowledged),
        "episodes_failed": len(set(writers.failed)),
        "facts_created": sum(len(ack.facts_created) for ack in writers.acknowledged),
        "facts_merged": sum(len(ack.facts_merged) for ack in writers.acknowledged),
        "facts_invalidated": sum(len(ack.facts_invalidated) for ack in writers.acknowledged),
        "conflicts_409": writers.conflicts,
        "outages_503": writers.outages + curators.outages,
        "curations_acknowledged": len(curators.acknowledged),
        "curations_refused": curators.refused,
    }


class Command(BaseCommand):
    help = (
        "Concurrent writers (threads and processes) adding overlapping episodes to a fresh group while curators "
        "edit the same facts, optionally killing the embedded graph server meanwhile; then checks that every "
        "acknowledged contribution is stored exactly once. Exit status 1 when an invariant fails."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--writers", type=bounded(int, 0, 16), default=4, help="writer threads (4)")
        parser.add_argument("--processes", type=bounded(int, 0, 8), default=2, help="writer processes (2)")
        parser.add_argument("--curators", type=bounded(int, 0, 8), default=2, help="curator threads (2)")
        parser.add_argument("--duration", type=bounded(float, 1, 3600), default=60.0, help="seconds per run (60)")
        parser.add_argument("--runs", type=bounded(int, 1, 100), default=1, help="runs, each on a fresh group (1)")
        parser.add_argument("--seed", type=bounded(int, 0, 2**31), default=1, help="first run's seed (1)")
        parser.add_argument(
            "--kill-graph",
            type=bounded(int, 0, 10),
            default=0,
            help=f"kill the embedded graph server this many times a run, every {KILL_EVERY_SECONDS:g} s (0)",
        )
        parser.add_argument("--keep", action="store_true", help="keep each run's group and audit entries")
        parser.add_argument("--json", action="store_true", dest="as_json", help="print the runs as JSON")

    def handle(self, *args: object, **options: Any) -> None:
        if options["writers"] + options["processes"] == 0:
            raise CommandError("nothing to do: --writers and --processes are both 0")
        if options["kill_graph"] and not settings.MEMORIA_GRAPH["EMBEDDED"]:
            raise CommandError("--kill-graph: only the embedded graph server can be killed (MEMORIA_GRAPH_URL is set)")
        results: list[dict[str, Any]] = []
        with sigterm_as_interrupt(), graph_server_for_run(self) as stop_notes:
            try:
                for number in range(options["runs"]):
                    results.append(self.run_once(options, number))
            except KeyboardInterrupt:
                raise CommandError("interrupted: the run's group is left as it was") from None
            finally:
                for note in stop_notes:
                    self.stderr.write(note)
        if options["as_json"]:
            self.stdout.write(json.dumps(results, indent=2))
        failed = [result for result in results if not result["invariants"]["ok"]]
        if failed:
            raise CommandError(f"{len(failed)} of {len(results)} run(s) broke an invariant")

    def run_once(self, options: dict[str, Any], number: int) -> dict[str, Any]:
        label = "cc" + uuid.uuid4().hex[:8]
        seed = options["seed"] + number
        plan = WritersPlan(
            group=f"concurrency-{label}",
            label=label,
            writers=options["writers"],
            processes=options["processes"],
            curators=options["curators"],
            duration=options["duration"],
            seed=seed,
        )
        kills: list[float] = []
        outage = None
        if options["kill_graph"]:
            server = embedded_server_from_settings()
            moments = [KILL_EVERY_SECONDS * (1 + kill) for kill in range(options["kill_graph"])]
            outage = server_killer(server, moments, kills)
        load_before = os.getloadavg()[0]
        outcome = writers_run(plan, outage=outage)
        report = writers_invariants(group=plan.group, label=label, writers=outcome.writers, curators=outcome.curators)
        if not options["keep"]:
            run_group_delete(group=plan.group)
        result = {
            "run": number + 1,
            "seed": seed,
            "group": plan.group if options["keep"] else None,
            "kills_at_s": [round(at, 1) for at in kills],
            "load_avg_before": round(load_before, 2),
            **_run_summary(outcome),
            "invariants": report.as_dict(),
        }
        if not options["as_json"]:
            summary = result
            self.stdout.write(
                f"run {number + 1}/{options['runs']} seed {seed}: {summary['seconds']} s, "
                f"{summary['episodes_acknowledged']} episodes acknowledged ({summary['episodes_failed']} failed), "
                f"facts {summary['facts_created']} created / {summary['facts_merged']} merged / "
                f"{summary['facts_invalidated']} invalidated, {summary['conflicts_409']} conflicts, "
                f"{summary['outages_503']} outages, curations {summary['curations_acknowledged']} acknowledged / "
                f"{summary['curations_refused']} refused, {len(kills)} kill(s): {report.summary()}"
            )
        return result
