"""`bench activation --nodes N --edges E`: measured speed, printed as medians, p95 and ratios (docs/benchmarks.md)."""

from __future__ import annotations

import asyncio
import platform

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.errors import GraphUnavailable
from memoria.graph.health import graph_health


class Command(BaseCommand):
    help = "Run a benchmark against the configured graph server and print its figures."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="suite", required=True)
        activation = sub.add_parser("activation", help="5-seed Activation Energy explorations on a synthetic graph")
        activation.add_argument("--nodes", type=int, default=10_000)
        activation.add_argument("--edges", type=int, default=50_000)
        activation.add_argument("--runs", type=int, default=100, help="timed explorations per series")
        activation.add_argument("--warmup", type=int, default=10)
        activation.add_argument("--clients", type=int, default=20, help="concurrent clients (0 to skip)")

    def handle(self, *args: object, suite: str, **options: int) -> None:
        for name in ("nodes", "edges", "runs", "clients"):
            if options[name] < (1 if name != "clients" else 0):
                raise CommandError(f"--{name} must be positive")
        if options["edges"] < options["nodes"]:
            raise CommandError("--edges must be at least --nodes")
        health = graph_health()
        if not health.up:
            raise CommandError(f"graph server down: {health.detail}")
        try:
            self.activation(**options)
        except GraphUnavailable as error:
            raise CommandError(str(error)) from error

    def activation(self, *, nodes: int, edges: int, runs: int, warmup: int, clients: int, **_: object) -> None:
        from memoria.bench.activation import activation_benchmark, build_graph
        from memoria.retrieval.params import ActivationParams

        say = self.stdout.write
        say(f"machine: {platform.machine()}, {__import__('os').cpu_count()} cores, Python {platform.python_version()}")
        group, reference = build_graph(nodes=nodes, edges=edges, say=say)
        results = asyncio.run(
            activation_benchmark(
                group=group,
                reference=reference,
                nodes=nodes,
                runs=runs,
                warmup=warmup,
                clients=clients,
                params=ActivationParams(),
            )
        )
        say(f"activation, {nodes} nodes / {edges} edges, 5 seeds per exploration, {runs} timed runs each")
        for name in ("with_tags", "without_tags"):
            r = results[name]
            say(
                f"  {name:13s} p50 {r['p50_ms']:7.2f} ms  p95 {r['p95_ms']:7.2f} ms | reference p50 "
                f"{r['reference_p50_ms']:6.2f} ms p95 {r['reference_p95_ms']:6.2f} ms | ratio p95 "
                f"{r['p95_ms'] / max(r['reference_p95_ms'], 1e-9):5.1f}× | round trips {r['round_trips']:.1f} | "
                f"paths {r['paths']:.1f} | mismatches {r['mismatches']}"
            )
        if "concurrent" in results:
            c = results["concurrent"]
            say(
                f"  concurrent    {c['clients']} clients, {c['explorations']} explorations, {c['errors']} errors, "
                f"{c['throughput_per_s']:.1f}/s, p50 {c['p50_ms']:.1f} ms, p95 {c['p95_ms']:.1f} ms"
            )
        if any(results[name]["mismatches"] for name in ("with_tags", "without_tags")):
            raise CommandError("the engine and the reference disagreed; see mismatches above")
