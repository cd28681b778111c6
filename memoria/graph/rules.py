"""The rules every layer shares for the words of the domain: id pattern, weight range, tag and text limits, the
one timestamp form and its parser, the derived edge id.

Low in the graph layer so that the graph layer itself (as-of moments, models, the vocabulary types) and every
engine package can apply them without importing the import-format parser that used to own them.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime

ID_PATTERN = re.compile(r"^[A-Za-z0-9._:/@#\-]{1,200}\Z")  # \Z: "$" would let a final newline in
MIN_WEIGHT = 0.25
MAX_WEIGHT = 1.0
MAX_TAGS = 32
MAX_TAG_LENGTH = 64
MAX_TAGS_PER_FACT = 8  # tags an extracted fact carries (offline rules and the LLM prompt alike)
MAX_NAME_LENGTH = 500
MAX_RELATION_LENGTH = 100
MAX_TEXT_LENGTH = 100_000
MAX_QUERY_LENGTH = 2000  # characters of a search or retrieval query, wherever one is asked
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def normalise_tag(tag: str) -> str:
    """Tags compare as sets, so case and spacing must not make two tags differ."""
    return re.sub(r"[\s\-]+", "_", tag.strip().lower())


def normalise_timestamp(value: str) -> str:
    """Parse an ISO 8601 date-time with a zone and render it in UTC, whole seconds.

    One fixed-width UTC form makes string comparison in Cypher agree with time order.
    """
    text = value.strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    parsed = datetime.fromisoformat(text)
    if parsed.tzinfo is None:
        raise ValueError("has no time zone (add Z or an offset such as +02:00)")
    try:
        # isoformat pads the year to four digits (strftime's %Y does not below 1000), keeping the width fixed.
        return parsed.astimezone(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    except OverflowError:  # e.g. 0001-01-01T00:00:00+01:00: before year 1 in UTC
        raise ValueError("is out of range (years 1–9999 in UTC)") from None


def derived_edge_id(group: str, source: str, relation: str, target: str) -> str:
    """A stable id for an edge given without one, so re-imports update it in place."""
    digest = hashlib.sha256(f"{group}\x1f{source}\x1f{relation}\x1f{target}".encode()).hexdigest()
    return f"rel-{digest[:24]}"
