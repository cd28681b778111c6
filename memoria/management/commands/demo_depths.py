"""`demo_depths [--group demo] [--query Q ...] [--json]`: how deep the demo's sample queries reach with default
parameters: each query's deepest path, every seed's deepest path, branching nodes and how paths ended."""

from __future__ import annotations

import json

from asgiref.sync import async_to_sync
from django.core.management.base import BaseCommand, CommandParser

from memoria.datasets.demo import SAMPLE_QUERIES
from memoria.retrieval.depths import median_deepest, query_depths


class Command(BaseCommand):
    help = "Run the demo's sample queries (or --query ones) as retrievals and print how deep their paths reach."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--group", default="demo")
        parser.add_argument("--query", action="append", help="a query to run instead of the sample ones (repeatable)")
        parser.add_argument("--json", dest="as_json", action="store_true", help="one JSON object instead of a table")

    def handle(self, *args: object, group: str, query: list[str] | None, as_json: bool, **options: object) -> None:
        measured = async_to_sync(query_depths)(group=group, queries=query or list(SAMPLE_QUERIES))
        median = median_deepest(measured)
        if as_json:
            report = {"group": group, "median_deepest": median, "queries": [item.as_dict() for item in measured]}
            self.stdout.write(json.dumps(report, indent=2))
            return
        for item in measured:
            ends = ", ".join(f"{reason} {count}" for reason, count in sorted(item.end_reasons.items()))
            self.stdout.write(
                f"{item.deepest}  seeds {list(item.seed_depths)}  paths {item.paths}  branching {item.branching}  "
                f"ends: {ends}  — {item.query}"
            )
        self.stdout.write(f"median deepest path: {median}")
