"""`ingest` and `load_locomo` on the real server: progress and throughput, resumable runs, bad files write nothing."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memoria.graph import driver
from memoria.graph.selectors import group_summary
from memoria.ingest import pipeline
from tests.conftest import count_group
from tests.datasets.test_locomo import conversation

LOCOMO = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "locomo"
EPISODE_NAMES = "MATCH (e:Episode {group_id: $g}) RETURN e.name AS name, e.valid_at AS valid_at ORDER BY e.name"


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_ingest_jsonl_markdown_and_text(group: str, tmp_path: Path) -> None:
    chat = tmp_path / "chat.jsonl"
    chat.write_text(
        json.dumps({"id": f"{group}-m1", "content": "Liv: My sister Maren lives in Tallinn."}) + "\n"
        + json.dumps({"content": "Oren: I sailed with Maren.", "valid_at": "2024-03-02T10:00:00Z"}) + "\n"
    )  # fmt: skip
    notes = tmp_path / "notes.md"
    notes.write_text("# Suppliers\nKestrel Foods ships from Riga.\n\n# Delays\nA strike delayed SKU-4471.\n")
    log = tmp_path / "log.txt"
    log.write_text("The Harbour Regatta starts at noon.\n\nMaren won the Harbour Regatta.\n")
    out, err = run("ingest", str(chat), str(notes), str(log), "--group", group, "--valid-at", "2024-03-05T09:00:00Z")
    assert "6 episode(s) read from 3 file(s)" in out
    assert "6 episode(s) added, 0 already stored" in out and "episodes/s" in out
    assert "6/6" in err  # the progress bar
    assert group_summary(group=group).episodes == 6
    names = {row["name"] for row in driver.read(EPISODE_NAMES, g=group)}
    assert {"notes.md › Suppliers", "notes.md › Delays", "log.txt paragraph 2"} <= names
    out, _ = run("ingest", str(chat), str(notes), str(log), "--group", group, "--valid-at", "2024-03-05T09:00:00Z")
    assert "0 episode(s) added, 6 already stored" in out


def test_episode_vectors_can_wait_for_reindex(group: str, tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text("Maren won the Harbour Regatta in Tallinn.\n")
    run("ingest", str(log), "--group", group, "--no-episode-vectors", "--quiet")
    vectors = (
        "MATCH (e:Episode {group_id: $g}) OPTIONAL MATCH (e)-[:MENTIONS]->(n) OPTIONAL MATCH (n)-[r:RELATES]->() "
        "RETURN e.embedding IS NULL AS episode, all(x IN collect(n) WHERE x.name_embedding IS NOT NULL) AS names, "
        "all(x IN collect(r) WHERE x.fact_embedding IS NOT NULL) AS facts"
    )
    assert driver.read(vectors, g=group) == [{"episode": True, "names": True, "facts": True}]
    assert "1 episode(s)" in run("reindex", "--group", group, "--quiet")[0]
    assert driver.read(vectors, g=group)[0]["episode"] is False


def test_bad_files_name_the_position_and_write_nothing(group: str, tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("The Harbour Regatta starts at noon.\n")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "fine"}\n{"content": "x", "valid_at": "soon"}\n')
    with pytest.raises(CommandError) as caught:
        run("ingest", str(good), str(bad), "--group", group)
    assert f"{bad}:2.valid_at" in str(caught.value)
    assert count_group(group) == {"nodes": 0, "edges": 0}
    with pytest.raises(CommandError, match="--valid-at 'noon'"):
        run("ingest", str(good), "--group", group, "--valid-at", "noon")
    with pytest.raises(CommandError, match="must be 1–64 letters"):
        run("ingest", str(good), "--group", "no/slashes")
    with pytest.raises(CommandError, match="--embedding-threads must be at least 1"):
        run("ingest", str(good), "--group", group, "--embedding-threads", "0")


def test_load_locomo_and_resume_after_a_crash(group: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "conversation-90.json"
    path.write_text(json.dumps(conversation(sessions=3, turns=5)))
    real_persist = pipeline.plan_persist
    calls = {"n": 0}

    def crash_on_third_batch(**kwargs: object) -> object:
        calls["n"] += 1
        if calls["n"] == 3:
            raise RuntimeError("simulated crash")
        return real_persist(**kwargs)

    monkeypatch.setattr(pipeline, "plan_persist", crash_on_third_batch)
    with pytest.raises(RuntimeError, match="simulated crash"):
        run("load_locomo", str(path), "--group", group, "--batch-size", "4", "--quiet")
    assert group_summary(group=group).episodes == 8  # two whole batches; the third left nothing behind
    monkeypatch.setattr(pipeline, "plan_persist", real_persist)
    out, _ = run("load_locomo", str(tmp_path), "--group", group, "--batch-size", "4", "--quiet")
    assert "LoCoMo: 15 turn(s) in 1 conversation(s)" in out
    assert "7 episode(s) added, 8 already stored" in out
    rows = driver.read(EPISODE_NAMES, g=group)
    assert sorted(row["name"] for row in rows) == sorted(f"D{s}:{t}" for s in range(1, 4) for t in range(1, 6))
    assert {row["valid_at"] for row in rows} == {"2024-03-03T13:05:00Z", "2024-03-04T14:05:00Z", "2024-03-05T15:05:00Z"}
    speakers = driver.read(
        "MATCH (e:Episode {group_id: $g})-[:MENTIONS]->(n:Entity) WHERE n.name IN ['Oren', 'Liv'] "
        "RETURN count(DISTINCT e) AS episodes, count(DISTINCT n) AS speakers",
        g=group,
    )[0]
    assert speakers == {"episodes": 15, "speakers": 2}


def test_load_locomo_bad_input(group: str, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no conversation-"):
        run("load_locomo", str(tmp_path), "--group", group)
    bad = tmp_path / "conversation-92.json"
    bad.write_text(json.dumps({"session_1_date_time": "soon", "session_1": []}))
    with pytest.raises(CommandError, match=r"conversation-92\.json: session_1_date_time"):
        run("load_locomo", str(bad), "--group", group)
    assert count_group(group) == {"nodes": 0, "edges": 0}


@pytest.mark.skipif(not LOCOMO.exists(), reason=f"LoCoMo dataset not found at {LOCOMO}")
def test_load_locomo_real_conversation(group: str) -> None:
    path = LOCOMO / "conversation-30.json"
    data = json.loads(path.read_text())
    turns = [turn for key, value in data.items() if key.startswith("session_") and isinstance(value, list)
             for turn in value]  # fmt: skip
    out, _ = run("load_locomo", str(path), "--group", group, "--quiet")
    assert f"{len(turns)} episode(s) added" in out
    summary = group_summary(group=group)
    assert summary.episodes == len(turns) and summary.entities > 50 and summary.facts > 100
    speakers = {data["speaker_a"], data["speaker_b"]}
    by_speaker = driver.read(
        "MATCH (e:Episode {group_id: $g})-[:MENTIONS]->(n:Entity) WHERE n.name IN $names "
        "AND e.content STARTS WITH n.name + ':' RETURN count(DISTINCT e) AS c",
        g=group,
        names=sorted(speakers),
    )[0]["c"]
    assert by_speaker == len(turns)  # every turn mentions its speaker
    assert "0 episode(s) added" in run("load_locomo", str(path), "--group", group, "--quiet")[0]
