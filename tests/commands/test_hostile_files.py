"""Every file loader fed truncated, mistyped, binary, badly encoded, deeply nested, huge and Cypher-shaped files:
each stops with a CommandError naming the file and the place, and the graph (this group and every other) is
left exactly as it was, counted on the real graph server."""

from __future__ import annotations

import io
import json
import math
import struct
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memoria.graph import driver
from memoria.graphindex.maig import HEADER, MAGIC, MaigEdge, maig_encode
from memoria.interchange.document import parse_graph_document
from memoria.interchange.exporter import graph_document_export
from memoria.interchange.importer import graph_document_import
from memoria.interchange.records import MAX_EDGE_EPISODES, MAX_PROPERTIES
from tests.conftest import count_group
from tests.interchange.test_import_export import sample

DEEP = 100_000  # nesting far past what Python's parser follows
HUGE = 10_000_000  # characters in one string
MESSAGE_LIMIT = 4_000  # an error about a 10 MB value must still be short
CYPHER = "}) DETACH DELETE n //"
MAIG_DATE = 1_700_000_000 * 1_000_000_000
LONG_NUMBER = b'{"content": "x", "nodes": [], "edges": [], "n": ' + b"9" * 5000 + b"}"  # past Python's int limit


class Groups:
    """A target group and a neighbour, both holding the sample graph: what a refused load must leave alone."""

    def __init__(self, target: str, other: str) -> None:
        self.target = target
        self.other = other
        self.other_edge_id = graph_document_export(group=other)["edges"][0]["id"]

    def snapshot(self) -> dict[str, object]:
        everything = driver.read("MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS n, count(r) AS r")
        return {
            "target": count_group(self.target),
            "other": count_group(self.other),
            "all": (everything[0]["n"], everything[0]["r"]),
        }


@pytest.fixture(scope="module")
def groups(graph_server: object) -> Iterator[Groups]:
    target, other = (f"t-{uuid.uuid4().hex[:12]}" for _ in range(2))
    for name in (target, other):
        graph_document_import(document=parse_graph_document(sample(name), group=name), group=name)
    yield Groups(target, other)
    for name in (target, other):
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=name)


def refused(groups: Groups, *args: str) -> str:
    """Run a command that must fail; the graph must be unchanged and the message short."""
    before = groups.snapshot()
    assert before["target"]["nodes"] == 5 and before["other"]["nodes"] == 5
    with pytest.raises(CommandError) as caught:
        call_command(*args, "--quiet", stdout=io.StringIO(), stderr=io.StringIO())
    assert groups.snapshot() == before
    message = str(caught.value)
    assert len(message) < MESSAGE_LIMIT, message[:300]
    return message


def refused_file(groups: Groups, path: Path, data: bytes, command: str, *options: str) -> str:
    """Write the hostile file, then run the command on it into the target group; see refused."""
    path.write_bytes(data)
    return refused(groups, command, str(path), "--group", groups.target, *options)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def node(node_id: str, **fields: object) -> dict:
    return {"id": node_id, "name": node_id, **fields}


def edge(source: str, target: str, **fields: object) -> dict:
    return {"source": source, "target": target, "relation": "uses", "weight": 0.5, **fields}


def document(nodes: list[dict], edges: list[dict] = ()) -> bytes:
    return json.dumps({"nodes": nodes, "edges": list(edges)}).encode()


def two_nodes(g: Groups, **edge_fields: object) -> bytes:
    """Two new nodes and one edge between them (the edge carrying the hostile field)."""
    a, b = f"{g.target}-new-a", f"{g.target}-new-b"
    return document([node(a), node(b)], [edge(a, b, **edge_fields)])


def deep_property(g: Groups) -> bytes:
    head = json.dumps({"nodes": [node(f"{g.target}-n", properties={"x": 0})], "edges": []})
    return head.replace("0}}", nested(DEEP) + "}}").encode()


# ------------------------------------------------------------------ import_graph, JSON

JSON_CASES: dict[str, tuple[Callable[[Groups], bytes], str]] = {
    "empty": (lambda g: b"", "document: is empty"),
    "blank": (lambda g: b" \n\t\n", "document: is empty"),
    "truncated": (lambda g: json.dumps(sample(g.target), indent=1).encode()[:300], "malformed JSON at line "),
    "png bytes": (
        lambda g: b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
        "not UTF-8 text (line 1, byte 0",
    ),
    "utf-16": (lambda g: json.dumps(sample(g.target)).encode("utf-16"), "not UTF-8 text"),
    "latin-1 name": (
        lambda g: document([node(f"{g.target}-n")]).replace(b'"name": "', b'"name": "caf\xe9 '),
        "not UTF-8 text (line 1, byte ",
    ),
    "a list": (lambda g: b"[1, 2, 3]", "document: must be a JSON object, not list"),
    "a string": (lambda g: b'"nodes"', "document: must be a JSON object, not str"),
    "null": (lambda g: b"null", "document: must be a JSON object, not NoneType"),
    "nodes as object": (lambda g: b'{"nodes": {}, "edges": 3}', "nodes: is required and must be a list"),
    "name as number": (
        lambda g: document([{"id": f"{g.target}-n", "name": 7}]),
        "nodes[0].name: must be a string, not int",
    ),
    "weight as text": (lambda g: two_nodes(g, weight="0.5"), "edges[0].weight: must be a number in [0.25, 1.0]"),
    "tags as object": (lambda g: two_nodes(g, tags={"a": 1}), "edges[0].tags: must be a list of strings"),
    "nodes of numbers": (lambda g: b'{"nodes": [1, 2], "edges": []}', "nodes[0]: must be an object, not int"),
    "deep nesting": (lambda g: nested(DEEP).encode(), "document: JSON nested too deeply"),
    "5,000-digit number": (lambda g: LONG_NUMBER, "document: holds an integer of more than 4,300 digits"),
    "weight of 400 digits": (lambda g: two_nodes(g, weight=10**400), "edges[0].weight: must be a number"),
    "property past 64 bits": (
        lambda g: document([node(f"{g.target}-n", properties={"p": 2**63})]),
        "nodes[0].properties.p: must be a string",
    ),
    "deep property": (deep_property, "document: JSON nested too deeply"),
    "10 MB name": (lambda g: document([node(f"{g.target}-n", name="x" * HUGE)]), "nodes[0].name: is longer than 500"),
    "10 MB label": (
        lambda g: document([node(f"{g.target}-n", labels=["Entity", "E" * HUGE])]),
        "nodes[0].labels: label 'EEEE",
    ),
    "10 MB tag": (lambda g: two_nodes(g, tags=["t" * HUGE]), "edges[0].tags: tag 'tttt"),
    "10 MB unknown key": (lambda g: document([{**node(f"{g.target}-n"), "k" * HUGE: 1}]), "nodes[0]: unknown key(s)"),
    "10 MB valid_at": (lambda g: two_nodes(g, valid_at="2" * HUGE), "edges[0].valid_at: '2222"),
    "100k tags": (lambda g: two_nodes(g, tags=[f"t{i}" for i in range(100_000)]), "edges[0].tags: has 100000 tags"),
    "too many properties": (
        lambda g: document([node(f"{g.target}-n", properties={f"p{i}": i for i in range(MAX_PROPERTIES + 1)})]),
        f"nodes[0].properties: has {MAX_PROPERTIES + 1} keys",
    ),
    "huge property list": (
        lambda g: document([node(f"{g.target}-n", properties={"p": list(range(100_000))})]),
        "nodes[0].properties.p: has 100000 items",
    ),
    "too many edge episodes": (
        lambda g: two_nodes(g, episodes=[f"ep{i}" for i in range(MAX_EDGE_EPISODES + 1)]),
        f"edges[0].episodes: has {MAX_EDGE_EPISODES + 1} ids",
    ),
    "200k bad nodes": (
        lambda g: document([{"id": f"bad id {i}", "name": ""} for i in range(200_000)]),
        "nodes[0].id: 'bad id 0' may hold only",
    ),
    "label injection": (
        lambda g: document([node(f"{g.target}-n", labels=["Entity", f"Event`{CYPHER}"])]),
        "nodes[0].labels: label 'Event`}) DETACH DELETE n //' is not allowed",
    ),
    "label lookalike": (
        lambda g: document([node(f"{g.target}-n", labels=["\u0395vent"])]),
        "label 'Εvent' is not allowed",
    ),
    "label with newline": (lambda g: document([node(f"{g.target}-n", labels=["Event\n"])]), "label 'Event\\n' is not"),
    "relation injection": (lambda g: two_nodes(g, relation=CYPHER), "edges[0].relation: holds '}' (U+007D)"),
    "relation backtick": (lambda g: two_nodes(g, relation="uses`) MATCH (m"), "edges[0].relation: holds '`'"),
    "relation quote": (lambda g: two_nodes(g, relation='says "hi"'), "edges[0].relation: holds '\"'"),
    "relation newline": (lambda g: two_nodes(g, relation="uses\nDROP"), "edges[0].relation: holds U+000A"),
    "relation null byte": (lambda g: two_nodes(g, relation="uses\x00"), "edges[0].relation: holds U+0000"),
    "relation bidi override": (lambda g: two_nodes(g, relation="\u202esesu"), "edges[0].relation: holds U+202E"),
    "relation fullwidth": (lambda g: two_nodes(g, relation="ｕｓｅｓ"), "not in Unicode NFKC form"),
    "name null byte": (lambda g: document([node(f"{g.target}-n", name="a\x00b")]), "nodes[0].name: holds U+0000"),
    "name newline": (lambda g: document([node(f"{g.target}-n", name="a\r\nb")]), "nodes[0].name: holds U+000D"),
    "summary escape": (
        lambda g: document([node(f"{g.target}-n", summary="ok\x1b[2J")]),
        "nodes[0].summary: holds U+001B",
    ),
    "id with newline": (lambda g: document([node(f"{g.target}-n\n")]), "nodes[0].id: holds U+000A"),
    "edge to another group": (
        lambda g: document([node(f"{g.target}-n")], [edge(f"{g.target}-n", f"{g.other}-ds")]),
        "is neither in the document nor stored in this group",
    ),
    "good nodes, one bad edge": (
        lambda g: document(
            [node(f"{g.target}-good-{i}") for i in range(3)],
            [
                edge(f"{g.target}-good-0", f"{g.target}-good-1"),
                edge(f"{g.target}-good-1", f"{g.target}-good-2", weight=2),
            ],
        ),
        "edges[1].weight: 2 is outside [0.25, 1.0]",
    ),
}


@pytest.mark.parametrize("case", JSON_CASES)
def test_import_graph_refuses_a_hostile_json_file(groups: Groups, tmp_path: Path, case: str) -> None:
    build, expected = JSON_CASES[case]
    path = tmp_path / "graph.json"
    message = refused_file(groups, path, build(groups), "import_graph", "--format", "json")
    assert message.startswith(f"{path}: ")
    assert expected.replace("{edge_id}", groups.other_edge_id) in message


def test_cypher_shaped_names_are_stored_verbatim_and_harm_nothing(groups: Groups, tmp_path: Path) -> None:
    """Names are data: quotes, backticks and a Cypher tail are kept as written, parameterised, never run."""
    name = f"O'Brien \"`{CYPHER}"
    before = groups.snapshot()
    one = f"{groups.target}-odd"
    path = tmp_path / "graph.json"
    path.write_bytes(document([node(one, name=name, summary=f"MATCH (n) {CYPHER}")]))
    call_command("import_graph", str(path), "--group", groups.target, "--quiet", "--no-reindex", stdout=io.StringIO())
    try:
        stored = driver.read("MATCH (n:Memory {id: $id}) RETURN n.name AS name, n.group_id AS g", id=one)
        assert stored == [{"name": name, "g": groups.target}]
        after = groups.snapshot()
        assert after["other"] == before["other"]
        assert after["target"] == {"nodes": 6, "edges": before["target"]["edges"]}
    finally:
        driver.write("MATCH (n:Memory {id: $id}) DETACH DELETE n", id=one)


# ------------------------------------------------------------------ import_graph, MAIG


def maig(*edges: MaigEdge) -> bytes:
    return maig_encode(edges)


def maig_edge(source: str, target: str, relation: str = "uses", **metadata: str) -> MaigEdge:
    return MaigEdge(source, target, relation, 0.5, dict(metadata), MAIG_DATE)


def fresh_maig(g: Groups, relation: str = "uses", **metadata: str) -> bytes:
    return maig(maig_edge(f"{g.target}-m-a", f"{g.target}-m-b", relation, **metadata))


def with_nan_weight(g: Groups) -> bytes:
    data = bytearray(fresh_maig(g))
    offset = HEADER.size + sum(2 + len(text) for text in (f"{g.target}-m-a", f"{g.target}-m-b", "uses"))
    data[offset : offset + 4] = struct.pack("<f", math.nan)
    return bytes(data)


def with_bad_utf8_relation(g: Groups) -> bytes:
    return fresh_maig(g, relation="usesX").replace(b"usesX", b"use\xff\xfe")


MAIG_CASES: dict[str, tuple[Callable[[Groups], bytes], str]] = {
    "truncated": (lambda g: fresh_maig(g)[:-5], "truncated: edges[0].created_at needs 8 byte(s)"),
    "magic only": (lambda g: MAGIC, "truncated header: 4 byte(s)"),
    "huge edge count": (lambda g: HEADER.pack(MAGIC, 1, 0xFFFFFFFF), "edge count 4294967295 needs at least"),
    "unknown version": (lambda g: HEADER.pack(MAGIC, 9, 0), "unknown version 9"),
    "trailing bytes": (lambda g: fresh_maig(g) + b"\x00" * 3, "3 byte(s) of trailing data"),
    "invalid UTF-8": (with_bad_utf8_relation, "edges[0].relation is not valid UTF-8"),
    "NaN weight": (with_nan_weight, "edges[0].weight is not a finite number"),
    "deep tags": (lambda g: fresh_maig(g, tags=nested(30_000)), "metadata['tags']: JSON nested too deeply"),
    "tags as object": (lambda g: fresh_maig(g, tags='{"a": 1}'), "edges[0].tags: must be a list of strings"),
    "tags not JSON": (lambda g: fresh_maig(g, tags="[oops"), "metadata['tags']: malformed JSON at line 1"),
    "relation injection": (lambda g: fresh_maig(g, relation=CYPHER), "edges[0].relation: holds '}'"),
    "relation null byte": (lambda g: fresh_maig(g, relation="a\x00b"), "edges[0].relation: holds U+0000"),
    "60 kB relation": (lambda g: fresh_maig(g, relation="r" * 60_000), "edges[0].relation: is longer than 100"),
    "label injection": (
        lambda g: fresh_maig(g, source_labels=f"Entity,Event`{CYPHER}"),
        "label 'Event`}) DETACH DELETE n //' is not allowed",
    ),
    "unknown metadata": (lambda g: fresh_maig(g, **{"k" * 60_000: "v"}), "edges[0].metadata: unknown key(s) 'kkkk"),
}


@pytest.mark.parametrize("case", MAIG_CASES)
def test_import_graph_refuses_a_hostile_maig_file(groups: Groups, tmp_path: Path, case: str) -> None:
    build, expected = MAIG_CASES[case]
    path = tmp_path / "graph.maig"
    message = refused_file(groups, path, build(groups), "import_graph")
    assert message.startswith(f"{path}: ") and expected in message


def test_a_json_file_forced_as_maig_is_named_by_its_magic(groups: Groups, tmp_path: Path) -> None:
    path = tmp_path / "graph.json"
    path.write_text(json.dumps(sample(groups.target)))
    message = refused(groups, "import_graph", str(path), "--group", groups.target, "--format", "maig")
    assert message == f"{path}: MAIG byte 0: wrong magic b'{{\"no', expected b'MAIG'"


def test_an_empty_file_forced_as_maig_is_a_truncated_header(groups: Groups, tmp_path: Path) -> None:
    path = tmp_path / "graph.maig"
    path.write_bytes(b"")
    message = refused(groups, "import_graph", str(path), "--group", groups.target, "--format", "maig")
    assert "MAIG byte 0: truncated header: 0 byte(s)" in message


# ------------------------------------------------------------------ ingest (JSON Lines, Markdown, text)


def jsonl(*items: object) -> bytes:
    return "\n".join(json.dumps(item) for item in items).encode() + b"\n"


INGEST_CASES: dict[str, tuple[str, Callable[[Groups], bytes], str]] = {
    "empty": ("episodes.jsonl", lambda g: b"", "episodes.jsonl: holds no episodes"),
    "blank lines": ("episodes.jsonl", lambda g: b"\n \n", "episodes.jsonl: holds no episodes"),
    "truncated": (
        "episodes.jsonl",
        lambda g: jsonl({"content": "first"})[:-1] + b'\n{"content": "sec',
        "episodes.jsonl:2: malformed JSON at column",
    ),
    "binary": ("episodes.jsonl", lambda g: bytes(range(256)), "episodes.jsonl: not UTF-8 text (line 2, byte 128"),
    "utf-16": ("episodes.jsonl", lambda g: jsonl({"content": "hi"}).decode().encode("utf-16"), "not UTF-8 text"),
    "a list line": (
        "episodes.jsonl",
        lambda g: jsonl({"content": "ok"}, [1, 2]),
        "episodes.jsonl:2: must be an object",
    ),
    "content as number": (
        "episodes.jsonl",
        lambda g: jsonl({"content": 5}),
        "episodes.jsonl:1.content: must be a string",
    ),
    "valid_at as list": (
        "episodes.jsonl",
        lambda g: jsonl({"content": "x", "valid_at": [2024]}),
        "episodes.jsonl:1.valid_at: must be an ISO 8601",
    ),
    "deep nesting": ("episodes.jsonl", lambda g: nested(DEEP).encode(), "episodes.jsonl:1: JSON nested too deeply"),
    "5,000-digit number": ("episodes.jsonl", lambda g: LONG_NUMBER, "episodes.jsonl:1: holds an integer of more than"),
    "10 MB content": (
        "episodes.jsonl",
        lambda g: jsonl({"content": "x" * HUGE}),
        "episodes.jsonl:1.content: is longer than 100000 characters",
    ),
    "name null byte": (
        "episodes.jsonl",
        lambda g: jsonl({"content": "x", "name": "a\x00"}),
        "episodes.jsonl:1.name: holds U+0000",
    ),
    "content null byte": (
        "episodes.jsonl",
        lambda g: jsonl({"content": "a\x00"}),
        "episodes.jsonl:1.content: holds U+0000",
    ),
    "id injection": (
        "episodes.jsonl",
        lambda g: jsonl({"content": "x", "id": f"ep`{CYPHER}"}),
        "episodes.jsonl:1.id: 'ep`}) DETACH DELETE n //' may hold only",
    ),
    "id of an entity of the group": (
        "episodes.jsonl",
        lambda g: jsonl({"content": "ok"}, {"content": "x", "id": f"{g.target}-req"}),
        "episodes.jsonl episode 2: episode id 't-",
    ),
    "100k bad lines": ("episodes.jsonl", lambda g: b"{]\n" * 100_000, "episodes.jsonl:1: malformed JSON"),
    "markdown heading null": ("notes.md", lambda g: b"# a\x00b\nbody\n", "notes.md:1 (section 1).name: holds U+0000"),
    "text binary": ("notes.txt", lambda g: b"\xff\xfe\x00t", "notes.txt: not UTF-8 text (line 1, byte 0"),
    "text empty": ("notes.txt", lambda g: b"", "notes.txt: holds no episodes"),
}


@pytest.mark.parametrize("case", INGEST_CASES)
def test_ingest_refuses_a_hostile_file(groups: Groups, tmp_path: Path, case: str) -> None:
    name, build, expected = INGEST_CASES[case]
    path = tmp_path / name
    message = refused_file(groups, path, build(groups), "ingest", "--extractor", "offline")
    assert expected in message and str(path) in message


def test_one_bad_file_among_good_ones_writes_nothing(groups: Groups, tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_bytes(jsonl({"content": "Ada met Grace in Paris."}))
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(jsonl({"content": "fine"}) + nested(DEEP).encode())
    message = refused(groups, "ingest", str(good), str(bad), "--group", groups.target, "--extractor", "offline")
    assert f"{bad}:2: JSON nested too deeply" in message


# ------------------------------------------------------------------ load_locomo


def conversation(**sessions: object) -> bytes:
    base: dict[str, object] = {"session_1_date_time": "1:47 pm on 18 May, 2023"}
    base.update(sessions)
    return json.dumps(base).encode()


def turn(**fields: object) -> dict:
    return {"speaker": "Ada", "dia_id": "D1:1", "text": "hello", **fields}


LOCOMO_CASES: dict[str, tuple[Callable[[Groups], bytes], str]] = {
    "empty": (lambda g: b"", "is empty"),
    "truncated": (lambda g: conversation(session_1=[turn()])[:40], "malformed JSON at line 1"),
    "binary": (lambda g: b"\x00\x01\x02\xff", "not UTF-8 text (line 1, byte 3"),
    "a list": (lambda g: b"[]", "must be a LoCoMo conversation object, not list"),
    "no sessions": (lambda g: b'{"speaker_a": "Ada"}', "holds no session_N turn lists"),
    "turn of wrong types": (lambda g: conversation(session_1=[turn(text=5)]), "session_1[0]: needs string speaker"),
    "turn a string": (lambda g: conversation(session_1=["hi"]), "session_1[0]: needs string speaker"),
    "deep nesting": (lambda g: nested(DEEP).encode(), "JSON nested too deeply"),
    "5,000-digit number": (lambda g: LONG_NUMBER, "holds an integer of more than 4,300 digits"),
    "deep date": (
        lambda g: conversation(session_1=[turn()]).replace(b'"1:47 pm on 18 May, 2023"', nested(500).encode()),
        "session_1_date_time: a list is not a date",
    ),
    "10 MB date": (
        lambda g: conversation(session_1=[turn()], session_1_date_time="9" * HUGE),
        "session_1_date_time: '9999",
    ),
    "10 MB text": (lambda g: conversation(session_1=[turn(text="x" * HUGE)]), "session_1[0].content: is longer than"),
    "dia_id injection": (lambda g: conversation(session_1=[turn(dia_id=f"D1`{CYPHER}")]), "session_1[0].id: "),
    "dia_id newline": (lambda g: conversation(session_1=[turn(dia_id="D1:1\n")]), "session_1[0].id: "),
    "speaker null byte": (lambda g: conversation(session_1=[turn(speaker="A\x00")]), "content: holds U+0000"),
}


@pytest.mark.parametrize("case", LOCOMO_CASES)
def test_load_locomo_refuses_a_hostile_file(groups: Groups, tmp_path: Path, case: str) -> None:
    build, expected = LOCOMO_CASES[case]
    path = tmp_path / "conversation-x.json"
    message = refused_file(groups, path, build(groups), "load_locomo", "--extractor", "offline")
    assert str(path) in message and expected in message


# ------------------------------------------------------------------ load_musique

PASSAGE = {"title": "Harbour", "text": "The harbour lies in Quennia."}


def openie(*triples: object, entities: list[object] = ("Harbour",)) -> dict:
    return {
        "idx": 0,
        "title": "Harbour",
        "extracted_entities": list(entities),
        "extracted_triples": [list(t) if isinstance(t, tuple) else t for t in triples],
    }


def musique(corpus: object = (PASSAGE,), facts: object = None) -> dict[str, bytes]:
    facts = [openie(("Harbour", "lies in", "Quennia"))] if facts is None else facts
    return {
        "corpus.json": corpus if isinstance(corpus, bytes) else json.dumps(list(corpus)).encode(),
        "openie.json": facts if isinstance(facts, bytes) else json.dumps(facts).encode(),
    }


MUSIQUE_CASES: dict[str, tuple[dict[str, bytes], str]] = {
    "empty corpus": (musique(corpus=b""), "corpus.json: is empty"),
    "truncated corpus": (musique(corpus=json.dumps([PASSAGE]).encode()[:-3]), "corpus.json: malformed JSON at line 1"),
    "binary openie": (musique(facts=b"\x1f\x8b\x08\x00\xff"), "openie.json: not UTF-8 text (line 1, byte 1"),
    "utf-16 corpus": (musique(corpus=json.dumps([PASSAGE]).encode("utf-16")), "corpus.json: not UTF-8 text"),
    "corpus an object": (musique(corpus=b'{"title": "x"}'), "corpus.json: must be a JSON list, not dict"),
    "deep openie": (musique(facts=nested(DEEP).encode()), "openie.json: JSON nested too deeply"),
    "5,000-digit idx": (
        musique(facts=json.dumps([openie()]).replace('"idx": 0', '"idx": ' + "9" * 5000).encode()),
        "openie.json: holds an integer of more than 4,300 digits",
    ),
    "title a number": (musique(corpus=[{"title": 3, "text": ""}]), "corpus.json[0].title: must be a string, not int"),
    "10 MB title": (musique(corpus=[{"title": "t" * HUGE, "text": ""}]), "corpus.json[0].title: is longer than 500"),
    "10 MB text": (musique(corpus=[{"title": "Harbour", "text": "x" * HUGE}]), "corpus.json[0].text: is longer than"),
    "title null byte": (musique(corpus=[{"title": "Har\x00bour", "text": ""}]), "corpus.json[0].title: holds U+0000"),
    "triples not a list": (
        musique(facts=[{**openie(), "extracted_triples": "x"}]),
        "extracted_triples: must be a list",
    ),
    "idx as text": (musique(facts=[{**openie(), "idx": "0"}]), "openie.json[0].idx: is '0'"),
    "more documents than passages": (musique(facts=[openie(), {**openie(), "idx": 1}]), "has 2 documents"),
    "predicate injection": (
        musique(facts=[openie(("Harbour", CYPHER, "Quennia"))]),
        "openie.json[0].extracted_triples[0][1]: holds '}'",
    ),
    "predicate backtick": (
        musique(facts=[openie(("Harbour", "lies`in", "Quennia"))]),
        "openie.json[0].extracted_triples[0][1]: holds '`'",
    ),
    "subject null byte": (
        musique(facts=[openie(("Har\x00bour", "lies in", "Quennia"))]),
        "openie.json[0].extracted_triples[0][0]: holds U+0000",
    ),
    "entity bidi override": (
        musique(facts=[openie(entities=["\u202eruobraH"])]),
        "openie.json[0].extracted_entities[0]: holds U+202E",
    ),
}


@pytest.mark.parametrize("case", MUSIQUE_CASES)
def test_load_musique_refuses_a_hostile_folder(groups: Groups, tmp_path: Path, case: str) -> None:
    files, expected = MUSIQUE_CASES[case]
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    message = refused(groups, "load_musique", str(tmp_path), "--group", groups.target)
    assert expected in message


def test_load_musique_names_a_missing_folder(groups: Groups, tmp_path: Path) -> None:
    message = refused(groups, "load_musique", str(tmp_path / "nowhere"), "--group", groups.target)
    assert message.startswith("corpus.json: not found in ")


# ------------------------------------------------------------------ files past the size bound

SIZE_BOUND = 1_000
TOO_LARGE = "is larger than {} bytes (MEMORIA_MAX_FILE_BYTES); split it into several files"
BOUNDED = {
    "import_graph": ("graph.json", ()),
    "ingest": ("episodes.jsonl", ("--extractor", "offline")),
    "load_locomo": ("conversation-x.json", ("--extractor", "offline")),
}


@pytest.mark.parametrize("command", BOUNDED)
def test_a_file_past_the_size_bound_is_refused(groups: Groups, tmp_path: Path, settings, command: str) -> None:
    settings.MEMORIA_MAX_FILE_BYTES = SIZE_BOUND
    name, options = BOUNDED[command]
    path = tmp_path / name
    message = refused_file(groups, path, b" " * (SIZE_BOUND + 1), command, *options)
    assert message == f"{path}: " + TOO_LARGE.format(SIZE_BOUND)


@pytest.mark.parametrize("command", BOUNDED)
def test_an_endless_file_ends_in_an_error(groups: Groups, settings, command: str) -> None:
    """/dev/zero never ends: reading stops just past the bound instead of filling memory."""
    settings.MEMORIA_MAX_FILE_BYTES = 1024 * 1024
    message = refused(groups, command, "/dev/zero", "--group", groups.target, *BOUNDED[command][1])
    assert message == "/dev/zero: " + TOO_LARGE.format(1024 * 1024)


def test_load_musique_refuses_a_file_past_the_size_bound(groups: Groups, tmp_path: Path, settings) -> None:
    settings.MEMORIA_MAX_FILE_BYTES = SIZE_BOUND
    for name, data in musique(corpus=[{**PASSAGE, "text": "x" * SIZE_BOUND}]).items():
        (tmp_path / name).write_bytes(data)
    message = refused(groups, "load_musique", str(tmp_path), "--group", groups.target)
    assert message == "corpus.json: " + TOO_LARGE.format(SIZE_BOUND)
