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
from memoria.requests.vocabulary import RequestModel
from memoria.search.service import SearchResults

SCOPES = ("facts", "entities", "episodes", "communities")
CSV_COLUMNS = ("scope", "rank", "id", "name", "text", "score", "methods", "source", "target", "valid_at", "invalid_at")
# A spreadsheet reads a cell starting with one of these as a formula (or, for tab and carriage return, drops them
# and reads what follows): an entity named =HYPERLINK(...) must arrive as text. OWASP's rule, and the one the
# page's own CSV follows (static/explorer/js/export_view.js, FORMULA_STARTS).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class SearchExportInput(RequestModel):
    """`GET /search/export?q=…&format=csv|json`: the search page's query, and the file wanted."""

    q: str = Field(min_length=1, max_length=MAX_QUERY_LENGTH, description="the search page's query")
    format: Literal["csv", "json"] = Field(description="csv for a spreadsheet, json as /api/search answers")


def formula_safe(value: object) -> object:
    """A cell a spreadsheet shows as the text it is: text starting like a formula gets a leading apostrophe, which
    spreadsheets hide; numbers and empty cells pass unchanged.

    Hand-written rather than defusedcsv: that library leaves tab and carriage return through and rewrites every
    `|` in a guarded cell, and the explorer's JavaScript has to apply the same six-character rule anyway.
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def results_json(results: SearchResults, *, group: str, query: str) -> dict[str, Any]:
    return {"group": group, "query": query, **results.as_dict()}


def results_csv(results: SearchResults) -> str:
    """One row a hit, scopes in the page's tab order, ranks from 1; each method's score in `methods`."""
    out = io.StringIO()
    # RFC 4180 line ends: the writer then quotes a cell holding a carriage return too, which "\n" alone let through
    # bare, and a spreadsheet took for the end of the row.
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for scope in SCOPES:
        for rank, hit in enumerate(getattr(results, scope), start=1):
            methods = " ".join(f"{method}={value:.6g}" for method, value in hit.scores.items())
            # Every text from the memory is guarded; the score is ours and stays a number even when negative.
            texts = (hit.id, hit.name, hit.text)
            ends = (hit.source, hit.target, hit.valid_at, hit.invalid_at)
            row = (scope, rank, *map(formula_safe, texts), f"{hit.score:.6g}", methods, *map(formula_safe, ends))
            writer.writerow(row)
    return out.getvalue()
