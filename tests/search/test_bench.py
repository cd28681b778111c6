"""The search benchmark's synthetic memory and command, at a size a test can afford."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from django.core.management import CommandError, call_command

from memoria.bench.search import BENCH_RECIPES, WALK_QUERIES, bench_group, synthetic_memory
from memoria.graph import driver
from memoria.interchange.document import parse_graph_document
from memoria.search.recipes import GRAPH_GATE_SHARE


def test_the_synthetic_memory_is_deterministic_and_valid() -> None:
    memory = synthetic_memory(group="b", facts=200)
    assert memory == synthetic_memory(group="b", facts=200)
    document = parse_graph_document(memory.document, group="b")
    kinds = [node.kind for node in document.nodes]
    assert len(document.edges) == 200
    assert (kinds.count("Entity"), kinds.count("Episode"), kinds.count("Community")) == (40, 20, 1)
    assert document.mentions and document.memberships
    assert all(edge.fact and edge.valid_at for edge in document.edges)
    assert len(set(memory.queries)) > 50


def test_the_walk_queries_each_name_an_entity_the_gate_lets_seed() -> None:
    # The plain queries name first names that half the entities share: the episodes default never walks on them.
    # The walk queries name one person or organisation mentioned by at most the gate's share of the episodes.
    memory = synthetic_memory(group="b", facts=3000)
    assert memory == synthetic_memory(group="b", facts=3000)
    assert len(memory.walk_queries) == WALK_QUERIES == len(set(memory.walk_queries))
    names = {node["name"]: node["id"] for node in memory.document["nodes"]}
    mentions = memory.document["mentions"]
    episodes = len({mention["episode"] for mention in mentions})
    for query in memory.walk_queries:
        name = query.removeprefix("What do we know about ").removesuffix(" and its suppliers?")
        told = {mention["episode"] for mention in mentions if mention["entity"] == names[name]}
        assert 0 < len(told) <= GRAPH_GATE_SHARE * episodes
    assert synthetic_memory(group="b", facts=40).walk_queries == ()  # too small for any entity to be rare


@pytest.fixture
def tiny_bench() -> Iterator[int]:
    import torch  # the command sets the process's thread count: the rest of the session keeps its own

    threads = torch.get_num_threads()
    yield 60
    torch.set_num_threads(threads)
    driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=bench_group(60))


def test_the_command_times_every_recipe(tiny_bench: int) -> None:
    out = io.StringIO()
    call_command("bench", "search", "--facts", str(tiny_bench), "--runs", "3", "--warmup", "1", stdout=out)
    printed = out.getvalue()
    assert printed.startswith("machine: ") and "cores" in printed
    assert "search, 60 facts, limit 10, query embedding included, 3 timed searches per recipe" in printed
    for name in BENCH_RECIPES:
        assert f"  {name} " in printed
    again = io.StringIO()
    call_command(
        "bench",
        "search",
        "--facts",
        str(tiny_bench),
        "--runs",
        "1",
        "--warmup",
        "0",
        "--embedding-threads",
        "1",
        stdout=again,
    )
    assert "reusing group bench-search-60" in again.getvalue()
    assert "1 timed searches per recipe, 1 embedding thread(s)" in again.getvalue()
    with pytest.raises(CommandError, match="--facts, --runs and --embedding-threads must be positive"):
        call_command("bench", "search", "--facts", "0")
