"""`ingest` and `load_locomo` choose their steps by --extractor and the settings, survive an LLM outage by resuming,
and refresh the group's communities after each batch unless --no-communities."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memoria.graph import driver
from memoria.graph.selectors import group_summary
from tests.conftest import count_group
from tests.datasets.test_locomo import conversation
from tests.llm.fake_openai import FakeOpenAI, Reply
from tests.llm.scripted import configured_reading_model, current_episode, reading_model

COMMUNITIES = """
MATCH (c:Community {group_id: $g}) OPTIONAL MATCH (c)-[:HAS_MEMBER]->(m)
RETURN c.id AS id, c.revision AS revision, collect(m.name) AS members ORDER BY id
"""


def communities_of(group: str) -> list[dict]:
    return [row | {"members": sorted(row["members"])} for row in driver.read(COMMUNITIES, g=group)]


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def lines(tmp_path: Path, name: str, *episodes: str) -> Path:
    path = tmp_path / name
    path.write_text(
        "".join(json.dumps({"content": text, "valid_at": "2024-03-01T10:00:00Z"}) + "\n" for text in episodes)
    )
    return path


@pytest.fixture
def model(settings: object) -> Iterator[FakeOpenAI]:
    with configured_reading_model(settings) as server:
        yield server


def test_llm_asked_for_but_not_configured_is_a_command_error(settings: object, group: str, tmp_path: Path) -> None:
    settings.MEMORIA_LLM_URL = ""
    path = lines(tmp_path, "chat.jsonl", "Liv: My sister Maren lives in Tallinn.")
    with pytest.raises(CommandError, match=r"--extractor llm: no LLM is configured \(set MEMORIA_LLM_URL"):
        run("ingest", str(path), "--group", group, "--extractor", "llm")
    with pytest.raises(CommandError, match="invalid choice: 'gpt'"):
        run("ingest", str(path), "--group", group, "--extractor", "gpt")
    assert count_group(group) == {"nodes": 0, "edges": 0}
    out, _ = run("ingest", str(path), "--group", group, "--quiet")  # auto: offline, as nothing is configured
    assert "1 episode(s) added" in out and "episodes/s with the offline extractor" in out


def test_a_configured_llm_is_used_unless_offline_is_asked(model: FakeOpenAI, group: str, tmp_path: Path) -> None:
    first = lines(tmp_path, "first.jsonl", "Liv: My sister Maren lives in Tallinn.")
    out, _ = run("ingest", str(first), "--group", group, "--quiet")
    assert f"episodes/s with the LLM extractor (test-model at {model.url}/chat/completions)" in out
    assert "extracted_entities" in model.schema_names() and "extracted_facts" in model.schema_names()
    relations = "MATCH (:Entity {group_id: $g})-[r:RELATES]->() RETURN collect(DISTINCT r.relation) AS relations"
    assert driver.read(relations, g=group)[0]["relations"] == ["speaks_of"]  # the scripted model's relation
    asked = len(model.requests)
    second = lines(tmp_path, "second.jsonl", "Oren: I sailed with Maren at the Harbour Regatta.")
    out, _ = run("ingest", str(second), "--group", group, "--extractor", "offline", "--quiet")
    assert "episodes/s with the offline extractor" in out
    assert len(model.requests) == asked
    assert "sail_with" in driver.read(relations, g=group)[0]["relations"]  # the offline rules' relation


def test_an_llm_outage_stops_load_locomo_and_a_rerun_resumes(model: FakeOpenAI, group: str, tmp_path: Path) -> None:
    path = tmp_path / "conversation-90.json"
    path.write_text(json.dumps(conversation(sessions=3, turns=5)))

    def down_during_session_two(request: dict) -> Reply:
        if "session 2" in current_episode(request["messages"][-1]["content"]):
            return Reply(status=401, body={"error": {"message": "key revoked"}})
        return reading_model(request)

    model.respond = down_during_session_two
    with pytest.raises(CommandError) as caught:
        run("load_locomo", str(path), "--group", group, "--batch-size", "4", "--quiet")
    message = str(caught.value)
    assert "the LLM failed, so the batch it was working on wrote nothing" in message
    assert "(4 episode(s) of this run are stored; run the command again to resume" in message
    assert "answered 401" in message
    assert group_summary(group=group).episodes == 4  # the first batch; the second (1:5 to 2:3) left nothing
    model.respond = reading_model
    out, _ = run("load_locomo", str(path), "--group", group, "--batch-size", "4", "--quiet")
    assert "11 episode(s) added, 4 already stored" in out and "episodes/s with the LLM extractor" in out
    assert group_summary(group=group).episodes == 15


def test_communities_are_refreshed_after_each_batch_unless_told_not_to(group: str, tmp_path: Path) -> None:
    base = lines(
        tmp_path,
        "base.jsonl",
        "Liv: My sister Maren lives in Tallinn.",
        "Oren: I sailed with Maren at the Harbour Regatta.",
        "Liv: Kestrel Foods ships SKU-4471 from Riga.",
    )
    out, _ = run("ingest", str(base), "--group", group, "--quiet")
    assert "communities: 0 refreshed (a group never built has none to refresh)" in out
    assert communities_of(group) == []
    run("build_communities", "--group", group)
    before = communities_of(group)
    tove = lines(tmp_path, "tove.jsonl", "Tove: I met Maren in Tallinn.")
    out, _ = run("ingest", str(tove), "--group", group, "--no-communities", "--quiet")
    assert "1 episode(s) added" in out and "communities:" not in out
    assert communities_of(group) == before
    ansel = lines(tmp_path, "ansel.jsonl", "Ansel: I visited Maren in Tallinn.")
    out, _ = run("ingest", str(ansel), "--group", group, "--quiet")
    assert "communities: 1 refreshed" in out
    maren = next(row for row in communities_of(group) if "Maren" in row["members"])
    assert "Ansel" in maren["members"] and "Tove" not in maren["members"]
