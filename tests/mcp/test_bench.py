"""`bench mcp`, run for a few calls against the daphne it starts: a line per tool with both faces, the machine's
load, and no access left behind for the bench user."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from memoria.accounts.models import GroupMembership
from memoria.bench.mcp import PAIRS
from memoria.management.commands.bench import MCP_BENCH_USER


@pytest.mark.django_db(transaction=True)
def test_bench_mcp_prints_both_faces_per_tool(memory: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORIA_E2E_SERVER", "1")  # its daphne reads the test database, where the token is
    out = io.StringIO()
    call_command("bench", "mcp", "--group", memory, "--runs", "2", "--warmup", "1", stdout=out, stderr=io.StringIO())
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("machine:") and any(line.startswith("load average before") for line in lines)
    for pair in PAIRS:
        row = next(line for line in lines if line.split()[0] == pair.name)
        assert "REST p50" in row and "MCP p50" in row and "ratio p50" in row
    assert not GroupMembership.objects.filter(user__username=MCP_BENCH_USER).exists()
