"""MAIG save/load on the real graph server: byte layout, a round trip into another group, and every rejection
writing nothing."""

from __future__ import annotations

import io
import struct
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memoria.errors import InvalidGraphDocument
from memoria.graph import driver
from memoria.graphindex.maig import (
    MaigEdge,
    MaigError,
    load_maig_document,
    maig_decode,
    maig_encode,
    maig_export,
    shortest_float32,
)
from memoria.interchange.document import parse_graph_document
from memoria.interchange.exporter import graph_document_export
from memoria.interchange.importer import graph_document_import
from tests.conftest import count_group


@pytest.fixture
def other_group() -> Iterator[str]:
    name = f"t-{uuid.uuid4().hex[:12]}"
    yield name
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=name)


def graph(prefix: str) -> dict:
    """Entities with extra labels and edges using every edge field MAIG carries in metadata (no episodes)."""
    return {
        "nodes": [
            {"id": f"{prefix}-a", "name": "Décision Q3", "labels": ["Entity", "AgentAction"]},
            {"id": f"{prefix}-b", "name": "Analysis", "labels": ["Entity"]},
            {"id": f"{prefix}-c", "name": "ERP data", "labels": ["Entity", "DataSource"]},
        ],
        "edges": [
            {
                "source": f"{prefix}-a",
                "target": f"{prefix}-b",
                "relation": "caused_by",
                "weight": 0.8,
                "tags": ["planning", "q3"],
                "fact": "The decision followed the analysis",
                "category": "CAUSALITY",
                "valid_at": "2025-03-01T00:00:00Z",
                "invalid_at": "2025-06-01T00:00:00Z",
            },
            {"source": f"{prefix}-b", "target": f"{prefix}-c", "relation": "references", "weight": 0.3, "tags": []},
        ],
    }


def load(data: dict, group: str) -> None:
    graph_document_import(document=parse_graph_document(data, group=group), group=group)


def edge(**changes: object) -> MaigEdge:
    fields = {"source": "s", "target": "t", "relation": "related_to", "weight": 0.5}
    return MaigEdge(**{**fields, **changes})


def test_layout_is_the_rfd_little_endian_layout() -> None:
    data = maig_encode([edge(metadata={"id": "e1"}, created_at_ns=1_700_000_000_000_000_000)])
    expected = (
        b"MAIG"
        + struct.pack("<HI", 1, 1)
        + b"\x01\x00s\x01\x00t\x0a\x00related_to"
        + struct.pack("<f", 0.5)
        + b"\x01\x00\x02\x00id\x02\x00e1"
        + struct.pack("<q", 1_700_000_000_000_000_000)
    )
    assert data == expected
    decoded = maig_decode(data)
    assert decoded.version == 1 and decoded.edges == (
        edge(metadata={"id": "e1"}, created_at_ns=1_700_000_000_000_000_000),
    )


def test_float32_weights_read_back_as_their_short_decimal() -> None:
    for weight in (0.25, 0.3, 0.8, 0.123456, 1.0):
        assert maig_decode(maig_encode([edge(weight=weight)])).edges[0].weight == weight
    assert shortest_float32(0.1) == 0.1


def test_round_trip_into_another_group(group: str, other_group: str, tmp_path: Path) -> None:
    load(graph(group), group)
    before = graph_document_export(group=group)
    data, count = maig_export(group=group)
    assert count == 2
    saved = maig_decode(data)
    assert all(e.created_at_ns > 0 for e in saved.edges)
    # Node ids are unique across groups: the source group must be gone before its ids can live in another.
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=group)
    path = tmp_path / "g.maig"
    path.write_bytes(data)
    call_command("import_graph", str(path), "--group", other_group, "--no-reindex", stdout=io.StringIO())
    after = graph_document_export(group=other_group)
    # MAIG carries every edge field and the ends' id, name and labels; summaries and properties are not carried.
    assert after["edges"] == before["edges"]
    assert after["nodes"] == [{k: n[k] for k in ("id", "name", "labels")} for n in before["nodes"]]
    again, _ = maig_export(group=other_group)
    strip = [(e.source, e.target, e.relation, e.weight, e.metadata) for e in saved.edges]
    assert [(e.source, e.target, e.relation, e.weight, e.metadata) for e in maig_decode(again).edges] == strip


def test_loading_into_the_same_group_keeps_stored_nodes(group: str) -> None:
    data = graph(group)
    data["nodes"][1]["summary"] = "kept"
    load(data, group)
    saved, _ = maig_export(group=group)
    document = load_maig_document(saved, group=group)
    assert document.nodes == ()  # every end is stored: referenced, not rewritten
    graph_document_import(document=document, group=group)
    nodes = {n["id"]: n for n in graph_document_export(group=group)["nodes"]}
    assert nodes[f"{group}-b"]["summary"] == "kept"


def test_export_command_writes_maig(group: str, tmp_path: Path) -> None:
    load(graph(group), group)
    path = tmp_path / "out.maig"
    call_command("export_graph", "--group", group, "--format", "maig", "--output", str(path), stderr=io.StringIO())
    assert path.read_bytes()[:4] == b"MAIG" and len(maig_decode(path.read_bytes()).edges) == 2
    with pytest.raises(CommandError, match="give --output"):
        call_command("export_graph", "--group", group, "--format", "maig")


def valid_file(prefix: str) -> bytes:
    return maig_encode(
        [
            edge(source=f"{prefix}-x", target=f"{prefix}-y", metadata={"source_name": "X"}),
            edge(source=f"{prefix}-y", target=f"{prefix}-z", relation="follows"),
        ]
    )


def corrupt(data: bytes, at: int, raw: bytes) -> bytes:
    return data[:at] + raw + data[at + len(raw) :]


# Each case: a change to a valid two-edge file, and what the error must say (with its byte offset).
REJECTIONS = {
    "wrong magic": (lambda d: corrupt(d, 0, b"MAIX"), "MAIG byte 0: wrong magic"),
    "json given as maig": (lambda d: b'{"nodes": [], "edges": []}', "MAIG byte 0: wrong magic"),
    "unknown version": (lambda d: corrupt(d, 4, struct.pack("<H", 2)), "MAIG byte 4: unknown version 2"),
    "truncated header": (lambda d: d[:7], "truncated header"),
    "truncated edge": (lambda d: d[:-3], "truncated: edges[1].created_at needs 8 byte(s), only 5 remain"),
    "trailing garbage": (lambda d: d + b"\x00junk", "5 byte(s) of trailing data after the last edge"),
    "hostile edge count": (lambda d: corrupt(d, 6, struct.pack("<I", 0xFFFFFFFF)), "MAIG byte 6: edge count"),
    "hostile string length": (lambda d: corrupt(d, 10, b"\xff\xff"), "MAIG byte 12: truncated: edges[0].source"),
    "bad utf-8": (lambda d: corrupt(d, 12, b"\xff"), "edges[0].source is not valid UTF-8"),
    "weight not finite": (lambda d: d + nan_edge(), "edges[2].weight is not a finite number"),
    "metadata key twice": (lambda d: d + twice_edge(), "edges[2].metadata key 'id' appears twice"),
}


def with_count(data: bytes, count: int) -> bytes:
    return corrupt(data, 6, struct.pack("<I", count))


def nan_edge() -> bytes:
    return maig_encode([edge(weight=float("nan"))])[10:]


def twice_edge() -> bytes:
    body = maig_encode([edge(metadata={"id": "e1"})])[10:]
    entry = b"\x02\x00id\x02\x00e1"
    return body.replace(b"\x01\x00" + entry, b"\x02\x00" + entry + entry)


@pytest.mark.parametrize("case", sorted(REJECTIONS))
def test_malformed_files_are_rejected_with_the_offset_and_write_nothing(group: str, tmp_path: Path, case: str) -> None:
    change, message = REJECTIONS[case]
    path = tmp_path / "bad.maig"
    data = change(valid_file(group))
    if case in ("weight not finite", "metadata key twice"):
        data = with_count(data, 3)
    path.write_bytes(data)
    with pytest.raises(CommandError) as caught:
        call_command("import_graph", str(path), "--group", group, "--format", "maig", stdout=io.StringIO())
    assert message in str(caught.value)
    assert count_group(group) == {"nodes": 0, "edges": 0}


def test_the_valid_file_itself_loads(group: str, tmp_path: Path) -> None:
    path = tmp_path / "good.maig"
    path.write_bytes(valid_file(group))
    call_command("import_graph", str(path), "--group", group, "--no-reindex", "--quiet", stdout=io.StringIO())
    assert count_group(group) == {"nodes": 3, "edges": 2}
    names = driver.read("MATCH (n:Memory {id: $id}) RETURN n.name AS name", id=f"{group}-x")
    assert names == [{"name": "X"}]


def test_a_hostile_count_does_not_allocate() -> None:
    hostile = b"MAIG" + struct.pack("<HI", 1, 0xFFFFFFFF)
    with pytest.raises(MaigError) as caught:
        maig_decode(hostile)
    assert caught.value.offset == 6


@pytest.mark.parametrize(
    ("metadata", "weight", "message"),
    [
        ({"colour": "red"}, 0.5, "unknown key(s) 'colour'"),
        ({"tags": "not json"}, 0.5, "edges[0].metadata['tags']: malformed JSON at line 1, column 1"),
        ({}, 0.1, "edges[0].weight: 0.1 is outside [0.25, 1.0]"),
        ({"category": "NOPE"}, 0.5, "edges[0].category: must be one of"),
    ],
)
def test_the_document_rules_apply_to_maig_edges(group: str, metadata: dict, weight: float, message: str) -> None:
    data = maig_encode([edge(source=f"{group}-s", target=f"{group}-t", weight=weight, metadata=metadata)])
    with pytest.raises(InvalidGraphDocument, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        load_maig_document(data, group=group)


def test_a_save_loads_into_another_group_as_its_own_copy(group: str, other_group: str) -> None:
    """Ids are keyed by group: the same ends and edges land in the other group, and the first is untouched."""
    load(graph(group), group)
    data, _ = maig_export(group=group)
    graph_document_import(document=load_maig_document(data, group=other_group), group=other_group)
    assert count_group(other_group)["edges"] == count_group(group)["edges"]
    again, _ = maig_export(group=other_group)

    def content(save: bytes) -> list[MaigEdge]:  # the copy's facts are created now, so their times differ
        return [replace(edge, created_at_ns=0) for edge in maig_decode(save).edges]

    assert content(again) == content(data)


def test_fields_too_long_for_two_bytes_are_refused_on_save() -> None:
    with pytest.raises(InvalidGraphDocument, match=r"edges\[0\].metadata\['fact'\]: 70000 bytes"):
        maig_encode([edge(metadata={"fact": "x" * 70_000})])


def test_fields_too_long_are_named_on_save() -> None:
    with pytest.raises(InvalidGraphDocument, match=r"edges\[1\].metadata key 'k+': 70000 bytes"):
        maig_encode([edge(), edge(metadata={"k" * 70_000: "v"})])
    with pytest.raises(InvalidGraphDocument, match="float32"):
        maig_encode([edge(weight=1e300)])
