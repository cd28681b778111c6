"""`evaluate context` on an invented conversation: every block within its budget, the evidence its words point to in
the block, the baselines filling the same budget, and refusals that write nothing."""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memoria.evaluation.context import BLOCK, BM25_DENSE, DENSE, RANKINGS
from memoria.graph import driver
from tests.conftest import count_group
from tests.evaluation import locomo_fixture as fx


def run(*args: str) -> str:
    out = io.StringIO()
    call_command("evaluate", "context", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def prefix() -> Iterator[str]:
    chosen = f"t-{uuid.uuid4().hex[:10]}-"
    yield chosen
    driver.write("MATCH (n:Memory) WHERE n.group_id STARTS WITH $prefix DETACH DELETE n", prefix=chosen)


def test_the_blocks_carry_the_evidence_their_words_point_to(prefix: str, tmp_path: Path) -> None:
    fx.write_conversation(tmp_path)
    figures_path = tmp_path / "figures.json"
    out = run(
        "--datasets", "locomo", "--locomo-dir", str(tmp_path), "--group-prefix", prefix,
        "--budgets", "100,250", "--quiet", "--json", str(figures_path),
    )  # fmt: skip
    assert "4 question(s) (LoCoMo categories 1–4), budgets 100, 250 o200k_base tokens" in out
    figures = json.loads(figures_path.read_text())
    # The adversarial question and the one without evidence are not scored: lighthouse, harmonium, Bergen, when.
    assert figures["labels"] == ["4 single-hop", "4 single-hop", "1 multi-hop", "2 temporal"]
    for method in (BLOCK, DENSE, BM25_DENSE):
        for budget in (100, 250):
            assert all(used <= budget for used in figures["tokens"][f"{method}@{budget}"]), (method, budget)
    lighthouse, harmonium, bergen, when = figures["evidence"][f"{BLOCK}@250"]
    assert lighthouse == harmonium == when == 1.0  # one turn shares the question's rare word
    assert bergen == 1.0  # both turns naming Bergen
    assert figures["evidence"][f"{BLOCK}@100"][:2] == [1.0, 1.0]  # even in the smallest budget, first
    # Twelve turns of about twenty tokens: 250 tokens hold every one, so the baselines find everything too.
    assert figures["evidence"][f"{DENSE}@250"] == figures["evidence"][f"{BM25_DENSE}@250"] == [1.0] * 4
    assert set(figures["rankings"]) == {DENSE, *RANKINGS}
    assert figures["rankings"]["episodes_hybrid_rrf"][0] == 1.0
    assert "| 250 | context block (get_context) |" in out and "episodes rankings, recall@10" in out
    again = run("--report", str(figures_path), str(figures_path), "--budgets", "100,250")
    assert "locomo: 8 questions" in again  # two runs' figures reported together


def test_bad_options_are_refused_before_anything_is_written(prefix: str, tmp_path: Path) -> None:
    fx.write_conversation(tmp_path)
    for args, message in (
        (("--datasets", "locomo,squad"), "name locomo, musique or both"),
        (("--datasets", "locomo", "--budgets", "50"), r"each in \[100, 32000\]"),
        (("--datasets", "locomo", "--budgets", "a,b"), "whole numbers"),
        (("--report", str(tmp_path / "conversation-91.json")), "not the figures evaluate context writes"),
    ):
        with pytest.raises(CommandError, match=message):
            run(*args, "--locomo-dir", str(tmp_path), "--group-prefix", prefix, "--quiet")
    assert count_group(f"{prefix}91") == {"nodes": 0, "edges": 0}
