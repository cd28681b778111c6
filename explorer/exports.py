"""Search results as files an analyst can keep: CSV for a spreadsheet, JSON as the API answers it.

The search page runs the same search again for the download rather than caching what it drew: a download is
rare, and the answer must be the page's own recipe at the moment of the click.
"""

from __future__ import annotations

import csv
import io
from typing import Any, Literal

from pydantic import Field

from memoria.graph.rules import MAX_QUERY_LENGTH
from memoria.graph.vocabulary import RequestModel
from memoria.search.service import SearchResults

SCOPES = ("facts", "entities", "episodes", "communities")
CSV_COLUMNS = ("scope", "rank", "id", "name", "text", "score", "methods", "source", "target", "valid_at", "invalid_at")


class SearchExportInput(RequestModel):
    """`GET /search/export?q=…&format=csv|json`: the search page's query, and the file wanted."""

    q: str = Field(min_length=1, max_length=MAX_QUERY_LENGTH, description="the search page's query")
    format: Literal["csv", "json"] = Field(description="csv for a spreadsheet, json as /api/search answers")


def results_json(results: SearchResults, *, group: str, query: str) -> dict[str, Any]:
    return {"group": group, "query": query, **results.as_dict()}


def results_csv(results: SearchResults) -> str:
    """One row a hit, scopes in the page's tab order, ranks from 1; each method's score in `methods`."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for scope in SCOPES:
        for rank, hit in enumerate(getattr(results, scope), start=1):
            methods = " ".join(f"{method}={value:.6g}" for method, value in hit.scores.items())
            row = (scope, rank, hit.id, hit.name, hit.text, f"{hit.score:.6g}", methods, hit.source, hit.target)
            writer.writerow((*row, hit.valid_at, hit.invalid_at))
    return out.getvalue()
