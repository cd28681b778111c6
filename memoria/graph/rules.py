"""The rules every layer shares for the words of the domain: id pattern, weight range, tag and text limits, the
one timestamp form and its parser, the derived edge id, the characters a text and a relation name may hold, and
how a refused value is quoted in a problem.

Low in the graph layer so that the graph layer itself (as-of moments, models, the vocabulary types) and every
engine package can apply them without importing the import-format parser that used to own them.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
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


SHOWN_CHARACTERS = 60  # of a rejected value quoted in a problem, so a 10 MB value cannot flood the answer


def shown(value: object, limit: int = SHOWN_CHARACTERS) -> str:
    """A rejected value as problems quote it: its repr, cut short with its full length when long."""
    if isinstance(value, str):
        return f"{value[:limit]!r}… ({len(value)} characters)" if len(value) > limit else repr(value)
    if value is None or isinstance(value, bool | int | float):
        text = repr(value)
        return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} digits)"
    # A list or object is named, not printed: printing one nested a thousand levels deep would itself fail.
    return f"a {type(value).__name__}"


# Never in any text: control characters (NUL...) other than tab and line breaks.
FORBIDDEN_IN_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
# Never in a one-line text (a name, a relation, a tag): any control character, nor the bidirectional overrides
# and isolates that make text display in another order than it is stored.
FORBIDDEN_IN_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# A relation is a predicate name: letters, digits and combining marks of any script, spaces and this punctuation.
RELATION_PUNCTUATION = "_-.',()&:+/"
NOT_RELATION_WORD = re.compile(r"[^\w " + re.escape(RELATION_PUNCTUATION) + "]")


def text_problem(value: str, *, single_line: bool) -> str | None:
    """Why a text may not be stored (the first forbidden character, by code point), or None."""
    found = (FORBIDDEN_IN_LINE if single_line else FORBIDDEN_IN_TEXT).search(value)
    if found is None:
        return None
    kind = "one-line text" if single_line else "text"
    return f"holds U+{ord(found.group()):04X} at character {found.start()}, which a {kind} may not hold"


def relation_problem(value: str) -> str | None:
    """Why a relation name is refused: it is shown and filtered on as a name, so it holds no markup or code."""
    if problem := text_problem(value, single_line=True):
        return problem
    normal = unicodedata.normalize("NFKC", value)
    if normal != value:
        # Fullwidth letters, ligatures, mathematical letters: a lookalike of another relation, never a new one.
        return f"is not in Unicode NFKC form (it holds compatibility characters); write {shown(normal)}"
    for found in NOT_RELATION_WORD.finditer(value):
        if not unicodedata.category(found.group()).startswith("M"):
            return (
                f"holds {found.group()!r} (U+{ord(found.group()):04X}) at character {found.start()}; a relation "
                f"may hold letters, digits, spaces and {RELATION_PUNCTUATION}"
            )
    return None
