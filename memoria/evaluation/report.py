"""Recall tables as text or Markdown: rows are sets of question labels, columns are method × k."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memoria.evaluation.recall import RecallTable

CELL = 7
COUNT = 6
MISSING = "—"


@dataclass(frozen=True)
class ReportRow:
    """A line of the table: the mean over every question whose label is in `labels`; `rule` draws a line above."""

    title: str
    labels: frozenset[str]
    rule: bool = False


def _cell(value: float | None) -> str:
    return MISSING if value is None else f"{value:.3f}"


def _row_cells(table: RecallTable, row: ReportRow) -> list[list[str]]:
    return [[_cell(table.mean_recall(method, row.labels, k)) for k in table.ks] for method in table.methods]


def recall_text(table: RecallTable, rows: Sequence[ReportRow], titles: Mapping[str, str]) -> list[str]:
    """A fixed-width table, one block of k columns per method."""
    first = max([len("category"), *(len(row.title) for row in rows)])
    widths = [max(len(titles.get(method, method)), CELL * len(table.ks)) for method in table.methods]
    lead = " " * (first + COUNT + 1)
    lines = [
        lead
        + " | ".join(
            titles.get(method, method).rjust(width) for method, width in zip(table.methods, widths, strict=True)
        )
    ]
    ks = [("".join(f"@{k}".rjust(CELL) for k in table.ks)).rjust(width) for width in widths]
    lines.append("category".ljust(first) + "n".rjust(COUNT + 1) + " | ".join(ks))
    rule = "-" * len(lines[-1])
    for row in rows:
        if row.rule:
            lines.append(rule)
        blocks = [
            "".join(cell.rjust(CELL) for cell in cells).rjust(width)
            for cells, width in zip(_row_cells(table, row), widths, strict=True)
        ]
        lines.append(row.title.ljust(first) + str(table.count(row.labels)).rjust(COUNT + 1) + " | ".join(blocks))
    return lines


def recall_markdown(table: RecallTable, rows: Sequence[ReportRow], titles: Mapping[str, str]) -> list[str]:
    """The same table in Markdown, for docs/benchmarks.md."""
    heads = [f"{titles.get(method, method)} @{k}" for method in table.methods for k in table.ks]
    lines = [
        "| category | n | " + " | ".join(heads) + " |",
        "|---|---:|" + "---:|" * len(heads),
    ]
    for row in rows:
        cells = [cell for block in _row_cells(table, row) for cell in block]
        title = f"**{row.title}**" if row.rule else row.title
        lines.append(f"| {title} | {table.count(row.labels)} | " + " | ".join(cells) + " |")
    return lines


def timing_lines(table: RecallTable, titles: Mapping[str, str], *, unit: str = "items") -> list[str]:
    """Per method: latency of one answer and the distinct items it returned on average (fewer than k caps recall)."""
    lines = []
    for method in table.methods:
        latency = table.latency(method)
        returned = table.mean_retrieved(method) or 0.0
        lines.append(
            f"  {titles.get(method, method):24s} p50 {latency['p50_ms']:7.1f} ms  p95 {latency['p95_ms']:7.1f} ms  "
            f"total {latency['total_s']:7.1f} s | {returned:5.1f} {unit} returned on average"
        )
    return lines


def recall_json(table: RecallTable, rows: Sequence[ReportRow]) -> dict:
    """The rows' means, each method's latency, and every question's recalls, for later analysis."""
    return {
        "ks": list(table.ks),
        "methods": list(table.methods),
        "rows": [
            {
                "title": row.title,
                "questions": table.count(row.labels),
                "recall": {
                    method: {str(k): table.mean_recall(method, row.labels, k) for k in table.ks}
                    for method in table.methods
                },
            }
            for row in rows
        ],
        "latency": {method: table.latency(method) for method in table.methods},
        "questions": [
            {
                "key": score.key,
                "label": score.label,
                "method": score.method,
                "recall": dict(zip(map(str, table.ks), score.recalls, strict=True)),
                "retrieved": score.retrieved,
                "ms": round(score.seconds * 1000, 2),
            }
            for score in table.scores
        ],
    }
