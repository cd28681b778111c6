"""The backup file: gzip'd JSON lines, a header first and a trailer last that counts and checksums what is between.

    {"format": "memoria-backup", "version": 1, "group": ..., "created_at": ..., "graph_version": ...}
    {"record": "node", "id": ..., "labels": [...], "props": {...}}
    {"record": "edge", "type": "RELATES", "source": ..., "target": ..., "props": {...}}
    {"record": "audit", "entry": {...}, "items": [[kind, item_id], ...]}
    {"end": true, "counts": {"node": n, "edge": m, "audit": k}, "sha256": <hex of every byte before this line>}

Lines are written as they are read, so a file is written in one pass and a reader checks the digest in one pass;
a missing trailer means a truncated file, and a digest or count that does not match means an altered one.
Everything is checked before `archive_read` returns, so a restore never starts from a bad file.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import tempfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memoria.errors import BackupInvalid, InvalidInput

FORMAT = "memoria-backup"
VERSION = 1
RECORD_KINDS = ("node", "edge", "audit")
# Vectors are most of a backup and compress little: level 1 wrote 1,000 384-float vectors 10× faster than level 9
# (0.35 s against 3.5 s) into a file 7 % larger.
COMPRESS_LEVEL = 1


@dataclass(frozen=True)
class Archive:
    """A backup file's content, checked: its header and its records by kind, in file order."""

    header: dict[str, Any]
    nodes: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)
    audit: list[dict[str, Any]] = field(default_factory=list)

    @property
    def group(self) -> str:
        return self.header["group"]


def _line(value: dict[str, Any]) -> bytes:
    # allow_nan=False: a NaN or infinity would need a non-JSON token; property_value refuses them first.
    return (json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n").encode()


def archive_write(path: Path, header: dict[str, Any], records: Iterable[dict[str, Any]]) -> tuple[int, str]:
    """Write the file beside `path` and move it into place once complete: a failed backup leaves no partial file.

    Returns the byte size and the body's sha256.
    """
    digest = hashlib.sha256()
    counts = dict.fromkeys(RECORD_KINDS, 0)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    try:
        with (
            os.fdopen(handle, "wb") as raw,
            gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=COMPRESS_LEVEL, mtime=0) as out,
        ):
            for record in ({"format": FORMAT, "version": VERSION, **header}, *records):
                line = _line(record)
                digest.update(line)
                out.write(line)
                if "record" in record:
                    counts[record["record"]] += 1
            out.write(_line({"end": True, "counts": counts, "sha256": digest.hexdigest()}))
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path.stat().st_size, digest.hexdigest()


def _lines(path: Path) -> Iterator[bytes]:
    try:
        with gzip.open(path, "rb") as stream:
            yield from stream
    except FileNotFoundError as error:
        raise BackupInvalid(f"{path}: no such file") from error
    except (gzip.BadGzipFile, zlib.error) as error:
        raise BackupInvalid(f"{path}: not a gzip'd Memoria backup ({error})") from error
    except EOFError as error:
        raise BackupInvalid(f"{path}: the file is truncated (the compressed stream ends early)") from error


def _json(line: bytes, where: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except (UnicodeDecodeError, ValueError) as error:
        raise BackupInvalid(f"{where}: not a JSON line ({error})") from error
    if not isinstance(value, dict):
        raise BackupInvalid(f"{where}: a line must be a JSON object")
    return value


def _check_header(header: dict[str, Any], path: Path) -> None:
    if header.get("format") != FORMAT:
        raise BackupInvalid(f"{path}: not a Memoria backup (format {header.get('format')!r})")
    if header.get("version") != VERSION:
        raise BackupInvalid(
            f"{path}: backup format version {header.get('version')!r}; this Memoria restores version {VERSION}"
        )
    if not isinstance(header.get("group"), str):
        raise BackupInvalid(f"{path}: the header names no group")


def archive_read(path: Path) -> Archive:
    """The whole file, checked: format and version, every line, the trailer's counts and digest."""
    digest = hashlib.sha256()
    lines = _lines(path)
    first = next(lines, None)
    if first is None:
        raise BackupInvalid(f"{path}: the file is empty")
    header = _json(first, f"{path} line 1")
    _check_header(header, path)
    digest.update(first)
    archive = Archive(header={key: value for key, value in header.items() if key not in ("format", "version")})
    by_kind = {"node": archive.nodes, "edge": archive.edges, "audit": archive.audit}
    trailer: dict[str, Any] | None = None
    for number, line in enumerate(lines, start=2):
        where = f"{path} line {number}"
        if trailer is not None:
            raise BackupInvalid(f"{where}: data after the end of the backup")
        record = _json(line, where)
        if record.get("end") is True:
            trailer = record
            continue
        digest.update(line)
        kind = record.get("record")
        if kind not in by_kind:
            raise BackupInvalid(f"{where}: unknown record {kind!r} (known: {', '.join(RECORD_KINDS)})")
        by_kind[kind].append(record)
    if trailer is None:
        raise BackupInvalid(f"{path}: the file is truncated (no end record)")
    if trailer.get("sha256") != digest.hexdigest():
        raise BackupInvalid(f"{path}: checksum mismatch: the file was altered after it was written")
    counts = {kind: len(records) for kind, records in by_kind.items()}
    if trailer.get("counts") != counts:
        raise BackupInvalid(f"{path}: the end record counts {trailer.get('counts')} but the file holds {counts}")
    return archive


def property_value(value: Any, where: str) -> Any:
    """A stored property as it goes into the file: JSON's types only, so what is restored is what was read."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput(f"{where}: {value} cannot be written to a backup")
        return value
    if isinstance(value, list):
        if all(type(item) is float for item in value):  # a vector: checked in one pass, not item by item
            if not all(map(math.isfinite, value)):
                raise InvalidInput(f"{where}: a vector with a NaN or infinity cannot be written to a backup")
            return value
        return [property_value(item, where) for item in value]
    raise InvalidInput(f"{where}: a {type(value).__name__} property is not something a backup carries")
