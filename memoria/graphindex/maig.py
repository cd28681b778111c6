"""MAIG, the graph index's binary save format (RFD 0003, docs/import-format.md#maig): encoder and strict decoder.

The format carries edges only: source, target, relation, weight (float32),
a string metadata map and created_at. Memoria's other edge fields and the
ends' names and labels ride in reserved metadata keys, so a saved group can be
loaded into an empty group. Loading never writes directly: the decoded edges
become a graph document and go through `parse_graph_document` and the
importer, so every rule of the JSON format applies and a bad file writes
nothing. The decoder checks each length against the bytes that remain before
reading, so a hostile length costs an error, never a large allocation.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from memoria.accounts.roles import check_group_name
from memoria.errors import InvalidGraphDocument
from memoria.graph import driver, kinds
from memoria.graph.rules import TIMESTAMP_FORMAT, shown
from memoria.interchange.document import GraphDocument, parse_graph_document
from memoria.interchange.exporter import graph_document_export
from memoria.interchange.jsontext import json_decode

MAGIC = b"MAIG"
VERSION = 1
SUPPORTED_VERSIONS = (VERSION,)
MAX_FIELD = 0xFFFF  # every string and the metadata count are 2-byte lengths
MAX_EDGES = 0xFFFFFFFF
HEADER = struct.Struct("<4sHI")  # magic, version, edge count
U16 = struct.Struct("<H")
F32 = struct.Struct("<f")
I64 = struct.Struct("<q")
# Smallest edge: three empty strings, a weight, no metadata, created_at.
MIN_EDGE_BYTES = 3 * U16.size + F32.size + U16.size + I64.size

# Reserved metadata keys: the document's edge fields besides source/target/relation/weight, and the ends' nodes.
EDGE_TEXT_KEYS = ("id", "fact", "category", "valid_at", "invalid_at")
EDGE_LIST_KEYS = ("tags", "episodes")
END_KEYS = ("source_name", "source_labels", "target_name", "target_labels")
METADATA_KEYS = frozenset(EDGE_TEXT_KEYS + EDGE_LIST_KEYS + END_KEYS)

STORED = """
UNWIND $ids AS id
MATCH (n:Memory {group_id: $group, id: id})
RETURN n.id AS id
"""
EDGE_CREATED = """
MATCH (:Memory {group_id: $group})-[r:RELATES]->(:Memory)
WHERE r.group_id = $group
RETURN r.id AS id, r.created_at AS created_at
"""


@dataclass(frozen=True)
class MaigEdge:
    source: str
    target: str
    relation: str
    weight: float
    metadata: dict[str, str] = field(default_factory=dict)
    created_at_ns: int = 0  # Unix time in nanoseconds; 0 when unknown


@dataclass(frozen=True)
class MaigGraph:
    version: int
    edges: tuple[MaigEdge, ...]


class MaigError(InvalidGraphDocument):
    """A file that is not a well-formed MAIG file; the message names the byte offset."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(f"MAIG byte {offset}: {message}")
        self.offset = offset


def is_maig(data: bytes) -> bool:
    return data[: len(MAGIC)] == MAGIC


def shortest_float32(value: float) -> float:
    """The shortest decimal that reads back as the same float32, so 0.8 saved as float32 loads as 0.8 again."""
    packed = F32.pack(value)
    for digits in range(1, 10):
        candidate = float(f"{value:.{digits}g}")
        if F32.pack(candidate) == packed:
            return candidate
    return value


# ---------------------------------------------------------------- encoding


def _too_long(edges: list[MaigEdge]) -> InvalidGraphDocument:
    """Name the first field that cannot be saved (only looked for once encoding has failed)."""
    for index, edge in enumerate(edges):
        where = f"edges[{index}]"
        if len(edge.metadata) > MAX_FIELD:
            return InvalidGraphDocument(f"{where}.metadata: {len(edge.metadata)} entries do not fit a 2-byte count")
        named = [("source", edge.source), ("target", edge.target), ("relation", edge.relation)]
        for key, value in edge.metadata.items():
            named += [(f"metadata key {key!r}", key), (f"metadata[{key!r}]", value)]
        for name, text in named:
            size = len(text.encode("utf-8"))
            if size > MAX_FIELD:
                return InvalidGraphDocument(f"{where}.{name}: {size} bytes of UTF-8 do not fit MAIG's 2-byte length")
    return InvalidGraphDocument("a weight does not fit a float32 or a created_at an int64")


def maig_encode(edges: Iterable[MaigEdge]) -> bytes:
    """The edges as a MAIG version 1 file; every integer and float is little-endian."""
    edges = list(edges)
    if len(edges) > MAX_EDGES:
        raise InvalidGraphDocument(f"{len(edges)} edges do not fit MAIG's 4-byte edge count")
    u16, f32, i64 = U16.pack, F32.pack, I64.pack
    parts = [HEADER.pack(MAGIC, VERSION, len(edges))]
    add = parts.append
    try:
        for edge in edges:
            for text in (edge.source, edge.target, edge.relation):
                raw = text.encode()
                add(u16(len(raw)))
                add(raw)
            add(f32(edge.weight))
            add(u16(len(edge.metadata)))
            for key, value in sorted(edge.metadata.items()):
                raw = key.encode()
                add(u16(len(raw)))
                add(raw)
                raw = value.encode()
                add(u16(len(raw)))
                add(raw)
            add(i64(edge.created_at_ns))
    except (struct.error, OverflowError):
        raise _too_long(edges) from None
    return b"".join(parts)


def _created_ns(text: str | None) -> int:
    if not text:
        return 0
    try:
        moment = datetime.strptime(text, TIMESTAMP_FORMAT).replace(tzinfo=UTC)
    except ValueError:
        return 0
    return int(moment.timestamp()) * 1_000_000_000


def maig_edges_from_document(document: dict[str, Any], created_at: dict[str, str] | None = None) -> list[MaigEdge]:
    """An exported graph document's edges, with their ends' names and labels in the reserved metadata keys."""
    nodes = {node["id"]: node for node in document["nodes"]}
    created_at = created_at or {}
    edges = []
    for edge in document["edges"]:
        metadata = {key: str(edge[key]) for key in EDGE_TEXT_KEYS if edge.get(key) is not None}
        metadata.update({key: json.dumps(edge[key]) for key in EDGE_LIST_KEYS if edge.get(key)})
        for end in ("source", "target"):
            node = nodes.get(edge[end])
            if node is not None:
                metadata[f"{end}_name"] = node["name"]
                metadata[f"{end}_labels"] = ",".join(node["labels"])
        edges.append(
            MaigEdge(
                source=edge["source"],
                target=edge["target"],
                relation=edge["relation"],
                weight=float(edge["weight"]),
                metadata=metadata,
                created_at_ns=_created_ns(created_at.get(edge.get("id", ""))),
            )
        )
    return edges


def maig_export(*, group: str) -> tuple[bytes, int]:
    """The group's RELATES edges as a MAIG file, and how many edges it holds."""
    check_group_name(group)
    document = graph_document_export(group=group)
    created = {row["id"]: row["created_at"] for row in driver.read(EDGE_CREATED, group=group)}
    edges = maig_edges_from_document(document, created)
    return maig_encode(edges), len(edges)


# ---------------------------------------------------------------- decoding


class _Reader:
    """Reads forward through the buffer, refusing any length larger than what remains."""

    def __init__(self, data: bytes) -> None:
        self.data = memoryview(data)
        self.offset = 0

    def remaining(self) -> int:
        return len(self.data) - self.offset

    def take(self, size: int, what: str) -> memoryview:
        if size > self.remaining():
            raise MaigError(self.offset, f"truncated: {what} needs {size} byte(s), only {self.remaining()} remain")
        chunk = self.data[self.offset : self.offset + size]
        self.offset += size
        return chunk

    def u16(self, what: str) -> int:
        return U16.unpack(self.take(U16.size, what))[0]

    def text(self, what: str) -> str:
        start = self.offset
        length = self.u16(f"{what} length")
        raw = self.take(length, f"{what} ({length} bytes)")
        try:
            return str(raw, "utf-8")
        except UnicodeDecodeError as error:
            raise MaigError(start + U16.size + error.start, f"{what} is not valid UTF-8") from error


def _header(data: bytes) -> tuple[int, int]:
    """The version and edge count, after checking the magic, the version and that the count can fit."""
    if len(data) < HEADER.size:
        if not MAGIC.startswith(bytes(data[: len(MAGIC)])):
            raise MaigError(0, f"wrong magic {bytes(data[:4])!r}, expected {MAGIC!r}")
        raise MaigError(len(data), f"truncated header: {len(data)} byte(s), a MAIG header has {HEADER.size}")
    magic, version, count = HEADER.unpack_from(data, 0)
    if magic != MAGIC:
        raise MaigError(0, f"wrong magic {magic!r}, expected {MAGIC!r}")
    if version not in SUPPORTED_VERSIONS:
        raise MaigError(4, f"unknown version {version} (this reader knows {', '.join(map(str, SUPPORTED_VERSIONS))})")
    remaining = len(data) - HEADER.size
    if count * MIN_EDGE_BYTES > remaining:
        raise MaigError(6, f"edge count {count} needs at least {count * MIN_EDGE_BYTES} bytes, only {remaining} remain")
    return version, count


class _Malformed(Exception):
    """The fast reader met something wrong; the checked reader then finds and names it."""


def maig_decode(data: bytes) -> MaigGraph:
    """Parse a whole MAIG file; raise MaigError at the first problem (wrong magic, version, truncation, trailing).

    A fast pass reads a well-formed file with no per-field bookkeeping; when anything in it fails, the checked
    reader reads the file again to report the exact byte offset and field. The loops are bounded by the header's
    count (checked against the file size) and the 2-byte counts, so a hostile file cannot make either run long.
    """
    data = bytes(data)
    version, count = _header(data)
    try:
        return MaigGraph(version, _decode_fast(data, count))
    except (_Malformed, struct.error, UnicodeDecodeError, IndexError):
        return _decode_checked(data, version, count)


def _decode_fast(data: bytes, count: int) -> tuple[MaigEdge, ...]:
    u16, f32, i64 = U16.unpack_from, F32.unpack_from, I64.unpack_from
    weights: dict[bytes, float] = {}
    edges = []
    offset = HEADER.size
    for _ in range(count):
        ends = []
        for _ in range(3):
            end = offset + 2 + u16(data, offset)[0]
            ends.append(data[offset + 2 : end].decode())
            offset = end
        raw = data[offset : offset + 4]
        weight = weights.get(raw)
        if weight is None:
            weight = f32(data, offset)[0]
            if not math.isfinite(weight):
                raise _Malformed
            weight = weights[raw] = shortest_float32(weight)
        entries = u16(data, offset + 4)[0]
        offset += 6
        metadata: dict[str, str] = {}
        for _ in range(entries):
            end = offset + 2 + u16(data, offset)[0]
            key = data[offset + 2 : end].decode()
            offset = end + 2 + u16(data, end)[0]
            if key in metadata:
                raise _Malformed
            metadata[key] = data[end + 2 : offset].decode()
        created = i64(data, offset)[0]
        offset += 8
        edges.append(MaigEdge(ends[0], ends[1], ends[2], weight, metadata, created))
    if offset != len(data):
        raise _Malformed
    return tuple(edges)


def _decode_checked(data: bytes, version: int, count: int) -> MaigGraph:
    reader = _Reader(data)
    reader.take(HEADER.size, "header")
    edges = []
    for index in range(count):
        where = f"edges[{index}]"
        source = reader.text(f"{where}.source")
        target = reader.text(f"{where}.target")
        relation = reader.text(f"{where}.relation")
        weight_at = reader.offset
        weight = F32.unpack(reader.take(F32.size, f"{where}.weight"))[0]
        if not math.isfinite(weight):
            raise MaigError(weight_at, f"{where}.weight is not a finite number")
        entries_at = reader.offset
        entries = reader.u16(f"{where}.metadata count")
        if entries * 2 * U16.size > reader.remaining():
            raise MaigError(entries_at, f"{where}: {entries} metadata entries cannot fit in the bytes that remain")
        metadata: dict[str, str] = {}
        for entry in range(entries):
            key_at = reader.offset
            key = reader.text(f"{where}.metadata[{entry}] key")
            if key in metadata:
                raise MaigError(key_at, f"{where}.metadata key {shown(key)} appears twice")
            metadata[key] = reader.text(f"{where}.metadata[{key!r}]")
        created = I64.unpack(reader.take(I64.size, f"{where}.created_at"))[0]
        edges.append(MaigEdge(source, target, relation, shortest_float32(weight), metadata, created))
    if reader.remaining():
        raise MaigError(reader.offset, f"{reader.remaining()} byte(s) of trailing data after the last edge")
    return MaigGraph(version, tuple(edges))


def _edge_item(index: int, edge: MaigEdge) -> dict[str, Any]:
    unknown = sorted(set(edge.metadata) - METADATA_KEYS)
    if unknown:
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise InvalidGraphDocument(
            f"edges[{index}].metadata: unknown key(s) {', '.join(map(shown, unknown[:5]))}{more} "
            f"(allowed: {', '.join(sorted(METADATA_KEYS))})"
        )
    item: dict[str, Any] = {
        "source": edge.source,
        "target": edge.target,
        "relation": edge.relation,
        "weight": edge.weight,
    }
    item.update({key: edge.metadata[key] for key in EDGE_TEXT_KEYS if key in edge.metadata})
    for key in EDGE_LIST_KEYS:
        if key in edge.metadata:
            # A JSON list inside a string: the same decoder, so deep nesting or bad JSON is an input error too.
            item[key] = json_decode(
                edge.metadata[key], where=f"edges[{index}].metadata[{key!r}]", error=InvalidGraphDocument
            )
    return item


def _end_node(edge: MaigEdge, end: str) -> dict[str, Any]:
    node_id = getattr(edge, end)
    labels = edge.metadata.get(f"{end}_labels")
    return {
        "id": node_id,
        "name": edge.metadata.get(f"{end}_name") or node_id,
        "labels": labels.split(",") if labels else [kinds.ENTITY],
    }


def maig_document(graph: MaigGraph, *, group: str) -> GraphDocument:
    """The decoded edges as a validated graph document for `group`.

    Ends already stored in the group are referenced, not rewritten (so their summaries and properties stay); the
    others become nodes named from the metadata (or by their id).
    """
    check_group_name(group)
    items = [_edge_item(index, edge) for index, edge in enumerate(graph.edges)]
    ends = {edge.source for edge in graph.edges} | {edge.target for edge in graph.edges}
    rows = driver.read(STORED, ids=sorted(ends), group=group) if ends else []
    stored = {row["id"] for row in rows}
    nodes: dict[str, dict[str, Any]] = {}
    for edge in graph.edges:
        for end in ("source", "target"):
            node_id = getattr(edge, end)
            if node_id not in stored and node_id not in nodes:
                nodes[node_id] = _end_node(edge, end)
    return parse_graph_document({"nodes": list(nodes.values()), "edges": items}, group=group)


def load_maig_document(data: bytes, *, group: str) -> GraphDocument:
    """Decode a MAIG file and validate it as a graph document; nothing is written."""
    return maig_document(maig_decode(data), group=group)
