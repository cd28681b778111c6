"""Step 1 on the real server: the last episodes before each reference time, stored and from the batch."""

from __future__ import annotations

from memoria.ingest.context import ContextRequest, PriorEpisode, context_fetch
from memoria.interchange.document import parse_graph_document
from memoria.interchange.importer import graph_document_import


def store_episodes(group: str, days: list[int]) -> None:
    nodes = [
        {
            "id": f"{group}-ep{day}",
            "name": f"day {day}",
            "labels": ["Episode"],
            "content": f"note of day {day}",
            "source": "message",
            "valid_at": f"2024-03-{day:02d}T09:00:00Z",
        }
        for day in days
    ]
    document = {"nodes": nodes, "edges": []}
    graph_document_import(document=parse_graph_document(document, group=group), group=group)


def test_previous_episodes_newest_first_per_time(group: str) -> None:
    store_episodes(group, [1, 2, 3, 4, 5])
    context = context_fetch(
        request=ContextRequest(group, ("2024-03-03T09:00:00Z", "2024-03-10T00:00:00Z", "2024-02-01T00:00:00Z"), 2)
    )
    assert [p.name for p in context.by_time["2024-03-03T09:00:00Z"]] == ["day 3", "day 2"]
    assert [p.name for p in context.by_time["2024-03-10T00:00:00Z"]] == ["day 5", "day 4"]
    assert context.by_time["2024-02-01T00:00:00Z"] == ()


def test_batch_episodes_come_after_stored_ones_and_the_episode_itself_is_left_out(group: str) -> None:
    store_episodes(group, [1, 2])
    context = context_fetch(request=ContextRequest(group, ("2024-03-02T09:00:00Z",), 3))
    earlier = [PriorEpisode("b1", "batch 1", "x", "message", "2024-03-02T09:00:00Z")]
    chosen = context.for_episode(
        reference_time="2024-03-02T09:00:00Z", episode_id=f"{group}-ep2", earlier_in_batch=earlier
    )
    assert [p.name for p in chosen] == ["batch 1", "day 1"]


def test_other_groups_are_not_context(group: str) -> None:
    store_episodes(group, [1])
    assert context_fetch(request=ContextRequest("someone-else", ("2024-03-05T00:00:00Z",))).by_time == {
        "2024-03-05T00:00:00Z": ()
    }
