"""The import/export/load commands on the real server: progress, idempotence, and rejected files that write nothing."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memoria.graph import driver
from memoria.graph.selectors import group_summary
from tests.conftest import count_group
from tests.interchange.test_import_export import sample

MUSIQUE = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "musique"


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_import_then_export_file_round_trip(group: str, tmp_path: Path) -> None:
    source = tmp_path / "graph.json"
    source.write_text(json.dumps(sample(group)))
    assert "5 node(s) created" in run("import_graph", str(source), "--group", group)
    target = tmp_path / "out.json"
    run("export_graph", "--group", group, "--output", str(target))
    exported = json.loads(target.read_text())
    assert len(exported["nodes"]) == 5 and len(exported["edges"]) == 2
    assert "0 node(s) created, 5 updated" in run("import_graph", str(target), "--group", group)
    assert count_group(group) == {"nodes": 5, "edges": 4}  # 2 RELATES + 1 MENTIONS + 1 HAS_MEMBER


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"nodes": [', "malformed JSON"),
        (
            '{"nodes": [], "edges": [{"source": "a", "target": "b", "relation": "r", "weight": 0.5, "tags": []}]}',
            "edges[0].source: node 'a' is neither in the document nor stored",
        ),
        (
            '{"nodes": [{"id": "a", "name": "A", "labels": ["Entity`) DETACH DELETE (n"]}], "edges": []}',
            "is not allowed",
        ),
    ],
)
def test_bad_files_write_nothing(group: str, tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(CommandError) as caught:
        run("import_graph", str(path), "--group", group)
    assert message in str(caught.value)
    assert count_group(group) == {"nodes": 0, "edges": 0}


def test_missing_file_and_bad_group(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="cannot read"):
        run("import_graph", str(tmp_path / "absent.json"), "--group", "g")
    with pytest.raises(CommandError, match="must be 1–64 letters"):
        run("import_graph", str(tmp_path / "absent.json"), "--group", "no/slashes")


def test_load_demo_twice_does_not_duplicate(group: str) -> None:
    run("load_demo", "--group", group, "--quiet", "--no-reindex")  # embedding: tests/commands/test_load_demo.py
    first = group_summary(group=group)
    assert first.entities > 300 and first.episodes > 0 and first.facts > 900
    assert "0 node(s) created" in run("load_demo", "--group", group, "--quiet", "--no-reindex")
    assert group_summary(group=group) == first
    kinds = driver.read(
        "MATCH (n:Entity {group_id: $g}) UNWIND labels(n) AS label RETURN DISTINCT label ORDER BY label", g=group
    )
    assert {"UserRequest", "UserPreference", "AgentAnswer", "AgentAction", "Event", "DataSource"} <= {
        row["label"] for row in kinds
    }


@pytest.mark.skipif(not MUSIQUE.exists(), reason=f"MuSiQue dataset not found at {MUSIQUE}")
def test_load_musique_real_data(group: str) -> None:
    output = run("load_musique", str(MUSIQUE), "--group", group, "--quiet", "--no-reindex")  # 30k texts to embed
    assert "1890 passage(s)" in output
    summary = group_summary(group=group)
    assert summary.episodes == 1890
    assert summary.entities > 15000 and summary.facts > 15000
    mentions = driver.read("MATCH (e:Episode {group_id: $g})-[m:MENTIONS]->() RETURN count(m) AS c", g=group)
    assert mentions[0]["c"] > 20000


def test_load_musique_bad_folder(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"corpus\.json"):
        run("load_musique", str(tmp_path), "--group", "g")
