"""`bench activation --nodes N --edges E`, `bench search --facts N`, `bench ppr --nodes N --edges E` and
`bench render`, `bench embeddings`, `bench maig --edges E`, `bench index --edges E`,
`bench tenants --facts N --crowd M`, `bench view --facts N`, `bench mcp`, `bench projection --nodes N --edges E`,
`bench import --facts N`, `bench vectors --items N`:
measured speed, printed as medians, p95 and ratios (docs/benchmarks.md).
"""

from __future__ import annotations

import asyncio
import os
import platform
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from memoria.accounts.roles import check_group_name
from memoria.errors import GraphUnavailable
from memoria.graph.asof import EVERY_FACT, AsOf
from memoria.graph.health import graph_health
from memoria.requests.moment import AsOfInput

CPUINFO = Path("/proc/cpuinfo")
MCP_BENCH_GROUP = "demo"  # the memory `make run` loads; the MCP figures of docs/benchmarks.md are on it
MCP_BENCH_USER = "bench-mcp"


def machine_line() -> str:
    """What the figures were measured on, so a pasted result carries its context."""
    cpuinfo = CPUINFO.read_text().splitlines() if CPUINFO.exists() else []
    models = [line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")]
    cpu = models[0] if models else platform.processor() or "unknown CPU"
    return f"machine: {platform.machine()}, {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def load_line() -> str:
    """The machine's load when a figure was taken: these machines are shared, and figures move with it."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f}"


TIME_CHOICES = ("every", "now", "both")
TIME_HELP = (
    "which facts count: every fact (as before time-aware retrieval), those of now (the requests' default), "
    "or both, interleaved, to measure the time filter's cost"
)


def bench_moments(choice: str) -> dict[str, AsOf]:
    """The moments a benchmark runs at, by name: the filter's cost is `now` against `every`."""
    moments = {"every": EVERY_FACT, "now": AsOfInput().resolved()}
    return moments if choice == "both" else {choice: moments[choice]}


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
        activation.add_argument(
            "--engine",
            choices=("auto", "cypher", "view"),
            default="auto",
            help="which Activation engine runs (auto and view load the group's view before the clock starts)",
        )
        activation.add_argument("--time", choices=TIME_CHOICES, default="now", help=TIME_HELP)
        search = sub.add_parser("search", help="hybrid search recipes on synthetic sentence-like facts")
        search.add_argument("--facts", type=int, default=10_000)
        search.add_argument("--runs", type=int, default=100, help="timed searches per recipe")
        search.add_argument("--warmup", type=int, default=10)
        search.add_argument(
            "--embedding-threads", type=int, help="embedding threads (torch or ONNX Runtime) for the query embedding"
        )
        context = sub.add_parser(
            "context", help="get_context at budgets 250, 1,000, 2,000 on a group of 10,000 episodes (100k facts)"
        )
        context.add_argument("--facts", type=int, default=100_000, help="the synthetic memory: 1 episode per 10 facts")
        context.add_argument("--runs", type=int, default=100, help="timed blocks per budget")
        context.add_argument("--warmup", type=int, default=10)
        context.add_argument("--embedding-threads", type=int, help="embedding threads for the query embedding")
        render = sub.add_parser("render", help="graph view: time to first render in headless Chromium")
        render.add_argument("--edges", type=int, nargs="+", default=[1_000, 10_000, 30_000], help="nodes: a third")
        render.add_argument("--runs", type=int, default=3, help="fresh pages per size")
        render.add_argument("--chromium", default="/usr/bin/chromium")
        ppr = sub.add_parser("ppr", help="Personalized PageRank beside igraph (PRPACK) and networkx on one graph")
        ppr.add_argument("--nodes", type=int, default=10_000)
        ppr.add_argument("--edges", type=int, default=50_000)
        ppr.add_argument("--runs", type=int, default=100, help="timed PPRs (5 random seeds each)")
        ppr.add_argument("--warmup", type=int, default=10)
        ppr.add_argument("--reference-runs", type=int, default=5, help="networkx runs (it is slow)")
        ppr.add_argument("--directed", action="store_true", help="walk edges one way (default: both, as HippoRAG)")
        ppr.add_argument("--time", choices=TIME_CHOICES, default="now", help=TIME_HELP)
        projection = sub.add_parser("projection", help="a projection after a small write: incremental vs full reload")
        projection.add_argument("--nodes", type=int, default=100_000)
        projection.add_argument("--edges", type=int, default=500_000)
        projection.add_argument("--runs", type=int, default=5, help="timed writes, each followed by both")
        projection.add_argument("--facts", type=int, default=10, help="facts written per run")
        maig = sub.add_parser("maig", help="MAIG save/load of a synthetic group (codec and import timed apart)")
        maig.add_argument("--edges", type=int, default=10_000)
        maig.add_argument("--runs", type=int, default=20, help="timed encodes and decodes")
        index = sub.add_parser("index", help="the graph index operations (RFD 0003) on a synthetic group")
        index.add_argument("--edges", type=int, default=10_000)
        index.add_argument("--runs", type=int, default=50, help="timed calls per operation")
        tenants = sub.add_parser("tenants", help="a group alone, then beside a crowd of other groups")
        tenants.add_argument("--facts", type=int, default=10_000, help="facts of the measured group")
        tenants.add_argument("--crowd", type=int, default=500_000, help="facts of the other groups, in all")
        tenants.add_argument("--crowd-groups", type=int, default=5)
        tenants.add_argument("--runs", type=int, default=50, help="timed searches and activations per series")
        tenants.add_argument("--warmup", type=int, default=5)
        tenants.add_argument("--episodes", type=int, default=200, help="episodes ingested per phase")
        tenants.add_argument(
            "--settle",
            type=float,
            default=1200.0,
            help="at most this many seconds to wait before each phase for the graph server's own work to end "
            "(0: no wait)",
        )
        mcp = sub.add_parser("mcp", help="an MCP tool call beside the REST call it wraps, on a daphne of its own")
        view = sub.add_parser("view", help="one big group's search view: build time, memory, search latency")
        view.add_argument("--facts", type=int, default=100_000)
        view.add_argument("--runs", type=int, default=100, help="timed searches per recipe")
        view.add_argument("--warmup", type=int, default=10)
        view.add_argument(
            "--random-vectors", action="store_true", help="random unit vectors instead of embedding every text"
        )
        vectors = sub.add_parser(
            "vectors", help="a view item's bytes by part, and the view's vector search against exact float32"
        )
        vectors.add_argument("--items", type=int, default=20_000, help="facts of bench search's synthetic memory")
        vectors.add_argument("--runs", type=int, default=200, help="timed searches (the memory's queries in turn)")
        vectors.add_argument("--warmup", type=int, default=10)
        vectors.add_argument("--limit", type=int, default=10, help="k of recall@k")
        vectors.add_argument(
            "--random-vectors", action="store_true", help="random unit vectors instead of embedding every text"
        )
        imports = sub.add_parser(
            "import", help="where a structured import's time goes: writing, embedding (against the model), indexing"
        )
        imports.add_argument("--facts", type=int, default=2_000, help="facts of the synthetic memory (bench search's)")
        imports.add_argument("--runs", type=int, default=1, help="imports into the emptied group, each timed")
        mcp.add_argument("--group", default=MCP_BENCH_GROUP, help="seeded with the demo memory when it is empty")
        mcp.add_argument("--runs", type=int, default=50, help="timed calls per face and tool")
        mcp.add_argument("--warmup", type=int, default=5)
        explorer = sub.add_parser("explorer", help="server time of the home page and of search-as-you-type")
        explorer.add_argument("--group", default="demo", help="whose entity names are typed")
        explorer.add_argument("--runs", type=int, default=30, help="timed home pages")
        explorer.add_argument("--names", type=int, default=25, help="entity names typed, prefix by prefix")
        embeddings = sub.add_parser("embeddings", help="texts/s of each embedding backend beside torch, and recall")
        embeddings.add_argument(
            "--backends", default="torch,onnx,onnx-int8,openvino", help="comma-separated; torch always"
        )
        embeddings.add_argument("--texts", type=int, default=1000, help="texts per timed round (LoCoMo turns)")
        embeddings.add_argument("--runs", type=int, default=5, help="timed rounds per backend, interleaved")
        embeddings.add_argument(
            "--data-dir",
            type=Path,
            help="the shared datasets folder (locomo/, musique/): texts to time, and recall on their questions",
        )
        embeddings.add_argument("--no-recall", action="store_true", help="time only")

    def handle(self, *args: object, suite: str, **options: int) -> None:
        if suite == "render":  # the browser alone: no graph server needed
            self.render(**options)
            return
        if suite == "embeddings":  # the model alone: no graph server needed
            self.embeddings(**options)
            return
        if suite == "vectors":  # a view's parts built in this process: no graph server needed
            if min(options["items"], options["runs"], options["limit"]) < 1 or options["warmup"] < 0:
                raise CommandError("--items, --runs and --limit must be positive and --warmup not negative")
            self.vectors(**options)
            return
        if suite == "ppr":
            if min(options["nodes"], options["edges"], options["runs"]) < 1 or options["reference_runs"] < 0:
                raise CommandError("--nodes, --edges and --runs must be positive, --reference-runs not negative")
            if options["warmup"] < 0:
                raise CommandError("--warmup must not be negative")
            if options["nodes"] < 2:
                raise CommandError("--nodes must be at least 2 (an edge joins two different nodes)")
        elif suite == "tenants":
            if min(options[name] for name in ("facts", "crowd", "crowd_groups", "runs", "episodes")) < 1:
                raise CommandError("--facts, --crowd, --crowd-groups, --runs and --episodes must be positive")
            if options["warmup"] < 0:
                raise CommandError("--warmup must not be negative")
        elif suite == "import":
            if min(options["facts"], options["runs"]) < 1:
                raise CommandError("--facts and --runs must be positive")
        elif suite in ("view", "context"):
            if min(options["facts"], options["runs"]) < 1 or options["warmup"] < 0:
                raise CommandError("--facts and --runs must be positive and --warmup not negative")
        elif suite == "explorer":
            if min(options["runs"], options["names"]) < 1:
                raise CommandError("--runs and --names must be positive")
        elif suite == "mcp":
            if options["runs"] < 1 or options["warmup"] < 0:
                raise CommandError("--runs must be positive and --warmup not negative")
            try:
                check_group_name(options["group"])
            except ValueError as error:
                raise CommandError(f"--group: {error}") from error
        elif suite == "projection":
            if min(options["nodes"], options["runs"], options["facts"]) < 1 or options["nodes"] < 2:
                raise CommandError("--nodes (at least 2), --runs and --facts must be positive")
            if options["edges"] < options["nodes"]:
                raise CommandError("--edges must be at least --nodes")
        elif suite in ("maig", "index"):
            if min(options["edges"], options["runs"]) < 1:
                raise CommandError("--edges and --runs must be positive")
        elif suite == "activation":
            for name in ("nodes", "edges", "runs", "clients"):
                if options[name] < (1 if name != "clients" else 0):
                    raise CommandError(f"--{name} must be positive")
            if options["edges"] < options["nodes"]:
                raise CommandError("--edges must be at least --nodes")
        elif min(options["facts"], options["runs"], options["embedding_threads"] or 1) < 1:
            raise CommandError("--facts, --runs and --embedding-threads must be positive")
        health = graph_health()
        if not health.up:
            raise CommandError(f"graph server down: {health.detail}")
        try:
            getattr(self, "import_" if suite == "import" else suite)(**options)
        except GraphUnavailable as error:
            raise CommandError(str(error)) from error

    def render(self, *, edges: list[int], runs: int, chromium: str, **_: object) -> None:
        if min(edges) < 3 or runs < 1:
            raise CommandError("--edges must be at least 3 each and --runs positive")
        if not Path(chromium).exists():
            raise CommandError(f"{chromium} is missing: install Debian's chromium package or pass --chromium")
        try:
            from memoria.bench.render import render_benchmark
        except ImportError as error:
            raise CommandError(f"bench render needs playwright (requirements/test.txt): {error}") from error

        say = self.stdout.write
        say(machine_line())
        say(f"graph view first render, headless Chromium (WebGL through SwiftShader), {runs} page(s) per size")
        render_benchmark(sizes=[(count // 3, count) for count in edges], runs=runs, chromium=chromium, say=say)

    def embeddings(
        self, *, backends: str, texts: int, runs: int, data_dir: Path | None, no_recall: bool, **_: object
    ) -> None:
        from memoria.bench.embeddings import embeddings_benchmark
        from memoria.embeddings import BACKENDS
        from memoria.errors import EmbeddingModelError

        chosen = [name.strip() for name in backends.split(",") if name.strip()]
        if unknown := [name for name in chosen if name not in BACKENDS]:
            raise CommandError(f"--backends: {', '.join(unknown)} not among {', '.join(BACKENDS)}")
        if min(texts, runs) < 1:
            raise CommandError("--texts and --runs must be positive")
        data = data_dir or Path(settings.BASE_DIR).parent / "shared" / "datasets"
        if data_dir is not None and not data.is_dir():
            raise CommandError(f"--data-dir {data}: no such folder")
        say = self.stdout.write
        say(machine_line())
        try:
            embeddings_benchmark(
                backends=chosen,
                texts=texts,
                runs=runs,
                data_dir=data if data.is_dir() else None,
                recall=not no_recall,
                say=say,
            )
        except EmbeddingModelError as error:
            raise CommandError(str(error)) from error

    def activation(
        self, *, nodes: int, edges: int, runs: int, warmup: int, clients: int, engine: str, time: str, **_: object
    ) -> None:
        from memoria.bench.activation import activation_benchmark, build_graph
        from memoria.retrieval.params import ActivationParams

        say = self.stdout.write
        say(machine_line())
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
                engine=engine,
                moments=bench_moments(time),
            )
        )
        say(f"activation, {nodes} nodes / {edges} edges, 5 seeds per exploration, {runs} timed runs each")
        series = [
            (f"{name} {moment}", r) for name in ("with_tags", "without_tags") for moment, r in results[name].items()
        ]
        ran = sorted({engine for _, r in series for engine in r["engines"]})
        say(f"  engine asked: {engine}; ran: {', '.join(ran)}")
        if "view" in results:
            v = results["view"]
            say(
                f"  view: loaded in {v['load_seconds']:.2f} s ({v['ready_seconds']:.2f} s until ready), holds about "
                f"{v['memory_bytes'] / 2**20:.0f} MiB; the process grew by {v['resident_growth_bytes'] / 2**20:.0f} MiB"
            )
        for name, r in series:
            say(
                f"  {name:24s} p50 {r['p50_ms']:7.2f} ms  p95 {r['p95_ms']:7.2f} ms | reference p50 "
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
        if any(r["mismatches"] for _, r in series):
            raise CommandError("the engine and the reference disagreed; see mismatches above")

    def search(self, *, facts: int, runs: int, warmup: int, embedding_threads: int | None, **_: object) -> None:
        from memoria.bench.search import build_memory, search_benchmark
        from memoria.search.config import Scope
        from memoria.search.recipes import SCOPE_DEFAULT_RECIPES

        say = self.stdout.write
        say(machine_line())
        group, memory = build_memory(facts=facts, say=say)
        walking = (SCOPE_DEFAULT_RECIPES[Scope.EPISODES],)
        results = search_benchmark(
            group=group,
            memory=memory,
            runs=runs,
            warmup=warmup,
            embedding_threads=embedding_threads,
            walking=walking,
        )
        threads = f", {embedding_threads} embedding thread(s)" if embedding_threads else ""
        say(f"search, {facts} facts, limit 10, query embedding included, {runs} timed searches per recipe{threads}")
        for name, r in results.items():
            say(f"  {name:27s} p50 {r['p50_ms']:7.2f} ms  p95 {r['p95_ms']:7.2f} ms | hits {r['hits']:5.1f}")

    def context(self, *, facts: int, runs: int, warmup: int, embedding_threads: int | None, **_: object) -> None:
        from memoria.bench.context import context_benchmark
        from memoria.bench.search import build_memory
        from memoria.embeddings import embedder

        say = self.stdout.write
        say(machine_line())
        group, memory = build_memory(facts=facts, say=say)
        if embedding_threads:
            embedder().threads_set(embedding_threads)
        say(f"{load_line()} at start")
        results = context_benchmark(group=group, memory=memory, runs=runs, warmup=warmup)
        say(f"get_context, {facts} facts ({facts // 10} episodes), query embedding included, {runs} timed per series")
        for name, r in results.items():
            extra = f" | {r['tokens']:.0f} tokens, p95 {r['ratio_p95']:.2f}x the search" if "tokens" in r else ""
            say(f"  {name:50s} p50 {r['p50_ms']:7.2f} ms  p95 {r['p95_ms']:7.2f} ms{extra}")
        say(f"{load_line()} at end")

    def ppr(
        self,
        *,
        nodes: int,
        edges: int,
        runs: int,
        warmup: int,
        reference_runs: int,
        directed: bool,
        time: str,
        **_: object,
    ) -> None:
        from memoria.bench.ppr import ensure_graph, optional_module, ppr_benchmark, ppr_report

        say = self.stdout.write
        say(machine_line())
        for name in ("igraph", "networkx"):
            if optional_module(name) is None:
                say(f"{name} is not installed (pip install -r requirements/test.txt): its line is left out")
        group = ensure_graph(nodes=nodes, edges=edges, say=say)
        results = ppr_benchmark(
            group=group,
            runs=runs,
            warmup=warmup,
            reference_runs=reference_runs,
            directed=directed,
            say=say,
            moments=bench_moments(time),
        )
        for line in ppr_report(results, runs=runs, directed=directed):
            say(line)
        worst = max((series["max_l1_to_igraph"] or 0.0) for series in results["ours"])
        if worst > 1e-6:
            raise CommandError(f"our scores differ from igraph's by {worst:.1e} in L1 (more than 1e-6); see above")

    def projection(self, *, nodes: int, edges: int, runs: int, facts: int, **_: object) -> None:
        from memoria.bench.activation import bench_group
        from memoria.bench.ppr import ensure_graph
        from memoria.bench.projection import facts_remove, projection_benchmark, projection_report

        say = self.stdout.write
        say(machine_line())
        say(f"load average at start: {os.getloadavg()[0]:.1f}")
        facts_remove(group=bench_group(nodes, edges))  # left by an interrupted run, they would force a rebuild
        group = ensure_graph(nodes=nodes, edges=edges, say=say)
        try:
            results = projection_benchmark(group=group, runs=runs, facts=facts, say=say)
        finally:
            facts_remove(group=group)
        for line in projection_report(results):
            say(line)
        say(f"load average at end: {os.getloadavg()[0]:.1f}")
        if results["mismatches"]:
            raise CommandError(f"updates differ from full loads: {', '.join(results['mismatches'])}")

    def maig(self, *, edges: int, runs: int, **_: object) -> None:
        from memoria.bench.maig import maig_benchmark, maig_report

        say = self.stdout.write
        say(machine_line())
        for line in maig_report(maig_benchmark(edges=edges, runs=runs, say=say)):
            say(line)

    def tenants(self, *, settle: float, **options: Any) -> None:
        from memoria.bench.tenants import tenants_benchmark, tenants_report

        if settle < 0:
            raise CommandError(f"--settle {settle}: must be 0 (no wait) or a number of seconds")
        say = self.stdout.write
        say(machine_line())
        sizes = {name: options[name] for name in ("facts", "crowd", "crowd_groups", "runs", "warmup", "episodes")}
        results = tenants_benchmark(**sizes, say=say, settle_seconds=settle)
        for line in tenants_report(results, facts=sizes["facts"], crowd=sizes["crowd"]):
            say(line)

    def view(self, *, facts: int, runs: int, warmup: int, random_vectors: bool, **_: object) -> None:
        from memoria.bench.view import view_benchmark, view_report

        say = self.stdout.write
        say(machine_line())
        results = view_benchmark(facts=facts, runs=runs, warmup=warmup, random_vectors=random_vectors, say=say)
        for line in view_report(results, facts=facts, load=load_line()):
            say(line)

    def vectors(self, *, items: int, runs: int, warmup: int, limit: int, random_vectors: bool, **_: object) -> None:
        from memoria.bench.vectors import vectors_benchmark, vectors_report

        say = self.stdout.write
        say(machine_line())
        results = vectors_benchmark(
            items=items, runs=runs, warmup=warmup, limit=limit, random_vectors=random_vectors, say=say
        )
        for line in vectors_report(results, items=items, limit=limit, load=load_line()):
            say(line)

    def import_(self, *, facts: int, runs: int, **_: object) -> None:
        from memoria.bench.graph_import import import_benchmark, import_report
        from memoria.errors import EmbeddingModelError

        say = self.stdout.write
        say(machine_line())
        try:
            results = import_benchmark(facts=facts, runs=runs, say=say)
        except EmbeddingModelError as error:
            raise CommandError(str(error)) from error
        for line in import_report(results, load=load_line()):
            say(line)

    def explorer(self, *, group: str, runs: int, names: int, **_: object) -> None:
        from memoria.bench.explorer import explorer_benchmark

        say = self.stdout.write
        say(machine_line())
        for timings in explorer_benchmark(group=group, runs=runs, names=names, say=say):
            say(timings.line())
        say(load_line())

    def index(self, *, edges: int, runs: int, **_: object) -> None:
        from memoria.bench.graph_index import graph_index_benchmark, graph_index_report

        say = self.stdout.write
        say(machine_line())
        for line in graph_index_report(graph_index_benchmark(edges=edges, runs=runs, say=say)):
            say(line)

    def mcp(self, *, group: str, runs: int, warmup: int, **_: object) -> None:
        from django.conf import settings
        from django.core.management import call_command

        from memoria.accounts.models import GroupMembership
        from memoria.accounts.roles import Role
        from memoria.accounts.services import token_for, user_grant
        from memoria.bench.mcp import BenchCallFailed, mcp_overhead_benchmark, mcp_overhead_report
        from memoria.graph.selectors import group_summary
        from memoria.loadtest.servers import DAPHNE_OVERRIDES, ServerStartError, daphne_environment, server_set
        from memoria.loadtest.workload import group_queries

        say = self.stdout.write
        say(machine_line())
        if not group_summary(group=group).entities:
            self.stderr.write(f"seeding group {group!r} with the demo memory (once; it is kept)")
            call_command("load_demo", "--group", group, "--quiet", stdout=self.stderr)
        queries = group_queries(group=group)
        token = token_for(user=user_grant(username=MCP_BENCH_USER, role=Role.VIEWER, groups=[group]))
        load_before = os.getloadavg()
        try:
            with server_set(settings.VAR_DIR / "bench-mcp") as started:
                [url] = started.start_daphnes(1, daphne_environment(redis_url=None, overrides=DAPHNE_OVERRIDES))
                results = asyncio.run(
                    mcp_overhead_benchmark(
                        base_url=url, token=token, group=group, queries=queries, runs=runs, warmup=warmup
                    )
                )
        except (ServerStartError, BenchCallFailed) as error:
            raise CommandError(str(error)) from error
        finally:
            GroupMembership.objects.filter(user__username=MCP_BENCH_USER, group=group).delete()
        load_after = os.getloadavg()
        say(
            f"MCP tool call beside the REST call it wraps, group {group!r}, one daphne, keep-alive HTTP clients,"
            f" {runs} timed calls of each (after {warmup}), alternating"
        )
        say(
            f"load average before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f},"
            f" after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}"
        )
        for line in mcp_overhead_report(results):
            say(line)
