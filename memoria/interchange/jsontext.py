"""Reading input files and decoding JSON from files and request bodies, with one set of messages saying where and
what is wrong.

JSON is UTF-8 (RFC 8259): other encodings are refused rather than guessed, a UTF-8 byte order mark is
tolerated. Nesting deeper than Python's parser can follow is an input error, never a RecursionError. A file
is read whole, so its size is bounded (MEMORIA_MAX_FILE_BYTES) and reading stops at the bound.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings

from memoria.errors import InvalidInput

DEFAULT_MAX_FILE_BYTES = 1024**3  # a graph document of some millions of items; more is split across files
UTF8_BOM = b"\xef\xbb\xbf"
TOO_MANY_DIGITS = "holds an integer of more than 4,300 digits"


def file_bytes(path: Path, *, where: str | None = None, error: type[InvalidInput] = InvalidInput) -> bytes:
    """A file's bytes; one larger than MEMORIA_MAX_FILE_BYTES is refused after reading just past the bound, so
    even an endless file (/dev/zero, a pipe) ends in an error instead of exhausting memory."""
    limit = int(getattr(settings, "MEMORIA_MAX_FILE_BYTES", DEFAULT_MAX_FILE_BYTES))
    name = where or str(path)
    try:
        with Path(path).open("rb") as stream:
            raw = stream.read(limit + 1)
    except OSError as failure:
        raise error(f"{name}: cannot read: {failure.strerror or failure}") from failure
    if len(raw) > limit:
        raise error(f"{name}: is larger than {limit} bytes (MEMORIA_MAX_FILE_BYTES); split it into several files")
    return raw


def utf8_text(raw: bytes, *, where: str, error: type[InvalidInput] = InvalidInput) -> str:
    """The bytes as text; a problem names the line and byte of the first one that is not UTF-8."""
    if raw.startswith(UTF8_BOM):
        raw = raw[len(UTF8_BOM) :]
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as failure:
        line = raw.count(b"\n", 0, failure.start) + 1
        raise error(
            f"{where}: not UTF-8 text (line {line}, byte {failure.start}: {raw[failure.start : failure.start + 1]!r})"
        ) from failure


def json_decode(raw: bytes | str, *, where: str, error: type[InvalidInput] = InvalidInput) -> Any:
    """Decode one JSON value; `where` names the file or line in every problem."""
    text = utf8_text(raw, where=where, error=error) if isinstance(raw, bytes) else raw.removeprefix("\ufeff")
    if not text.strip():
        raise error(f"{where}: is empty (expected JSON)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as failure:
        position = f"line {failure.lineno}, column {failure.colno}"
        raise error(f"{where}: malformed JSON at {position}: {failure.msg}") from None
    except ValueError:
        # Python refuses integers of more than 4,300 digits rather than spend quadratic time converting them.
        raise error(f"{where}: {TOO_MANY_DIGITS}") from None
    except RecursionError:
        raise error(f"{where}: JSON nested too deeply (Python's parser follows about 1,000 levels)") from None
