"""`evaluate locomo` end to end on an invented conversation: ingestion into its own group, recall that follows
from the conversation's words, and clear errors that write nothing.
"""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memoria.evaluation.memory import episode_search
from memoria.graph import driver
from memoria.graph.selectors import group_summary
from tests.conftest import count_group
from tests.evaluation import locomo_fixture as fx


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("evaluate", "locomo", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def prefix() -> Iterator[str]:
    """A group prefix of the test's own; every group it names is deleted afterwards."""
    chosen = f"t-{uuid.uuid4().hex[:10]}-"
    yield chosen
    driver.write("MATCH (n:Memory) WHERE n.group_id STARTS WITH $prefix DETACH DELETE n", prefix=chosen)


def recalls(figures: dict, method: str) -> dict[str, dict[str, float]]:
    return {item["key"]: item["recall"] for item in figures["questions"] if item["method"] == method}


def test_ingests_then_scores_each_method(prefix: str, tmp_path: Path) -> None:
    fx.write_conversation(tmp_path)
    figures_path = tmp_path / "figures.json"
    out, err = run(str(tmp_path), "--group-prefix", prefix, "--ks", "1,3", "--json", str(figures_path))
    group = f"{prefix}91"
    assert f"group {group}: {fx.TURNS} episode(s) added, 0 already stored" in out
    assert group_summary(group=group).episodes == fx.TURNS
    assert "5/5" in err  # the questions' progress bar
    assert f"1 conversation(s) (91), {fx.TURNS} turns, 5 question(s) scored" in out
    assert f"not scored, no evidence naming a turn: 1 question(s): {fx.key(fx.NO_EVIDENCE)}" in out
    assert f"evidence ids that name no turn, left out: 1: {fx.key(fx.WHEN)}: 'D9:99'" in out
    figures = json.loads(figures_path.read_text())
    rows = {row["title"]: row for row in figures["rows"]}
    assert [rows[title]["questions"] for title in ("1 multi-hop", "2 temporal", "3 open-domain", "4 single-hop")] == [
        1, 1, 0, 2
    ]  # fmt: skip
    assert rows["all but 5"]["questions"] == 4 and rows["5 adversarial"]["questions"] == 1
    assert rows["3 open-domain"]["recall"]["episodes"] == {"1": None, "3": None}

    episodes = recalls(figures, "episodes")
    # A rare word shared with one turn only: BM25 ranks that turn first, and the embeddings agree.
    assert episodes[fx.key(fx.LIGHTHOUSE)] == {"1": 1.0, "3": 1.0}
    assert episodes[fx.key(fx.HARMONIUM)]["3"] == 1.0
    # Two evidence turns share "Bergen" with the question; the two turns after each read it as context (their
    # preceding messages), so the first place is an evidence turn or one of those, and three places hold it all.
    assert episodes[fx.key(fx.BERGEN)]["3"] == 1.0
    first = episode_search(group=group, limit=3)(fx.QUESTIONS[fx.BERGEN]["question"])[0]
    near_evidence = {f"{group}:locomo-91:D{session}:{turn}" for session in (1, 2) for turn in (3, 4, 5)}
    assert first in near_evidence, first
    dense = recalls(figures, "dense")
    assert dense[fx.key(fx.LIGHTHOUSE)]["3"] == 1.0 and dense[fx.key(fx.HARMONIUM)]["3"] == 1.0
    for method in ("facts", "hybrid", "episodes_text"):
        assert set(recalls(figures, method)) == set(episodes)
    hybrid = recalls(figures, "hybrid")
    assert hybrid[fx.key(fx.LIGHTHOUSE)]["3"] == 1.0 and hybrid[fx.key(fx.BERGEN)]["3"] == 1.0
    # The adversarial question names Oren, but its evidence is Liv's lighthouse turn, which still shares its words.
    assert episodes[fx.key(fx.ADVERSARIAL)]["3"] == 1.0
    all_but_5 = rows["all but 5"]["recall"]["episodes"]["3"]
    assert all_but_5 == pytest.approx(
        sum(episodes[fx.key(i)]["3"] for i in (fx.LIGHTHOUSE, fx.HARMONIUM, fx.BERGEN, fx.WHEN)) / 4
    )

    lines = out.splitlines()
    header = next(index for index, line in enumerate(lines) if line.startswith("category"))
    assert "episode search" in lines[header - 1] and "dense baseline" in lines[header - 1]
    assert lines[header + 1].split()[:3] == ["1", "multi-hop", "1"]
    at_one, at_three = lines[header + 1].split()[3:5]
    assert at_one in ("0.000", "0.500") and at_three == "1.000"  # @1: an evidence turn or a turn after it
    assert "timings per question" in out and "ingestion" in out and "dense baseline indexing" in out

    # What was measured, with its settings, in the output and the JSON.
    assert (
        '  episode search: {"recipe":"episodes_hybrid_graph_gated",'
        '"config":{"episodes":{"methods":["bm25","cosine","ppr"]' in out
    )
    measured = figures["measured"]
    assert measured["episodes"]["config"]["episodes"]["limit"] == 3
    assert measured["facts"]["recipe"] == "facts_hybrid_rrf" and measured["facts"]["config"]["facts"]["limit"] == 9
    assert set(measured["hybrid"]["config"]) == {"facts", "entities", "episodes", "communities"}
    assert measured["dense"]["model"]
    assert measured["episodes"]["config"]["episodes"]["ppr_seed_share"] == 0.02
    assert measured["episodes_text"]["recipe"] == "episodes_hybrid_rrf"
    # Cross-validated: "all but 5" has 4 questions, so 4 folds; the single adversarial question cannot be folded.
    assert "cross-validated, row 'all but 5': 4 questions in 4 folds (seed 13)" in out
    assert "cross-validated, row '5 adversarial': fewer than 2 questions, nothing to fold" in out
    (folded,) = figures["cross_validation"]
    assert folded["row"] == "all but 5" and folded["baseline"] == "dense"
    by_method = {(m["method"], m["k"]): m for m in folded["methods"]}
    episodes_at_3 = by_method[("episodes", 3)]
    assert episodes_at_3["mean"] == pytest.approx(all_but_5) and len(episodes_at_3["folds"]) == 4
    assert episodes_at_3["minus_baseline"]["mean"] == pytest.approx(
        all_but_5 - rows["all but 5"]["recall"]["dense"]["3"]
    )
    assert by_method[("dense", 1)]["minus_baseline"] is None
    assert [choice["k"] for choice in folded["chosen"]] == [1, 3]
    assert folded["chosen"][0]["candidates"] == ["episodes", "facts", "hybrid"]
    # The cosine floor, cross-validated over the 5 scored questions at recall@3.
    assert "cosine relevance floor at recall@3 (baseline's cosine, 5 questions, 5 folds, seed 13" in out
    floor = figures["relevance_floor"]
    assert floor["k"] == 3 and len(floor["folds"]) == 5
    assert set(floor["nonsense_best"]) >= {"zzqqxxyy"}
    assert all(-1.0 <= value <= 1.0 for value in floor["nonsense_best"].values())

    # A second run finds the turns stored and gives the same figures.
    again_path = tmp_path / "again.json"
    out, _ = run(str(tmp_path), "--group-prefix", prefix, "--ks", "1,3", "--skip-ingest", "--json", str(again_path))
    assert "episode(s) added" not in out
    again = json.loads(again_path.read_text())
    assert again["rows"] == figures["rows"]
    assert group_summary(group=group).episodes == fx.TURNS


def test_markdown_and_limit(prefix: str, tmp_path: Path) -> None:
    path = fx.write_conversation(tmp_path)
    out, _ = run(str(path), "--group-prefix", prefix, "--limit-questions", "1", "--markdown", "--quiet")
    assert "1 question(s) scored" in out
    assert "| category | n | episode search @5 | episode search @10 | episode search @20 |" in out
    assert "| 4 single-hop | 1 | 1.000 | 1.000 | 1.000 |" in out
    assert "| **5 adversarial** | 0 | — |" in out
    assert "cross-validated, row 'all but 5': fewer than 2 questions, nothing to fold" in out
    assert "cosine relevance floor: fewer than 2 questions, nothing to fold" in out


def test_skip_ingest_needs_every_turn_stored(prefix: str, tmp_path: Path) -> None:
    path = fx.write_conversation(tmp_path)
    with pytest.raises(CommandError, match=rf"group {prefix}91 holds 0 of the 12 turns of conversation-91\.json"):
        run(str(path), "--group-prefix", prefix, "--skip-ingest")
    assert count_group(f"{prefix}91") == {"nodes": 0, "edges": 0}


def test_bad_input_is_named_and_writes_nothing(prefix: str, tmp_path: Path) -> None:
    good = fx.write_conversation(tmp_path)
    data = fx.conversation()
    data["qa"][1].pop("evidence")
    bad = fx.write_conversation(tmp_path, data, name="conversation-92.json")
    with pytest.raises(CommandError, match=r"conversation-92\.json: qa\[1\]: missing key\(s\) evidence"):
        run(str(good), str(bad), "--group-prefix", prefix)
    broken = tmp_path / "conversation-93.json"
    broken.write_text("{")
    with pytest.raises(CommandError, match=r"conversation-93\.json: malformed JSON"):
        run(str(good), str(broken), "--group-prefix", prefix)
    for group in (f"{prefix}91", f"{prefix}92", f"{prefix}93"):
        assert count_group(group) == {"nodes": 0, "edges": 0}
    cases = [
        ((str(tmp_path / "conversation-404.json"),), "conversation-404.json: no such file or folder"),
        (("--data-dir", str(tmp_path / "empty")), "no such file or folder"),
        ((str(good), "--data-dir", str(tmp_path)), "not both"),
        ((str(good), "--ks", "5,x"), "--ks: '5,x' must be comma-separated whole numbers"),
        ((str(good), "--ks", "0"), r"every k must be in \[1, 100\]"),
        ((str(good), "--limit-questions", "0"), "--limit-questions must be at least 1"),
        ((str(good), "--embedding-threads", "0"), "--embedding-threads must be at least 1"),
        ((str(good), "--json", str(tmp_path / "nowhere" / "f.json")), "nowhere does not exist"),
        ((str(good), "--group-prefix", "no/"), r"--group-prefix 'no/': group 'no/91' must be 1–64 letters"),
        ((str(good), str(good)), "would both go into group"),
    ]
    for args, message in cases:
        with pytest.raises(CommandError, match=message):
            run(*args, "--group-prefix", prefix) if "--group-prefix" not in args else run(*args)
    (tmp_path / "empty").mkdir()
    with pytest.raises(CommandError, match=r"no conversation-\*\.json files in"):
        run("--data-dir", str(tmp_path / "empty"), "--group-prefix", prefix)


def test_tune_preceding_runs_in_memory_and_writes_nothing(prefix: str, tmp_path: Path) -> None:
    path = fx.write_conversation(tmp_path)
    figures = tmp_path / "tune.json"
    out, _ = run(str(path), "--group-prefix", prefix, "--tune-preceding", "--ks", "1,5", "--json", str(figures))
    assert "episodes_hybrid_rrf's BM25 with each message's N preceding messages" in out
    assert "2 preceding message(s)" in out and "held out" in out
    assert "leave one conversation out, recall@5" in out
    assert json.loads(figures.read_text())["folds"]["questions"] == 4  # categories 1–4 with evidence
    assert count_group(f"{prefix}91") == {"nodes": 0, "edges": 0}
