"""The journal of recent retrievals: what a late watcher can list and replay, and the bounds that keep it small."""

from __future__ import annotations

from memoria.retrieval.journal import JournalLimits, RetrievalJournal


class Clock:
    def __init__(self) -> None:
        self.now = 1_700_000_000.0

    def __call__(self) -> float:
        return self.now


def started(retrieval_id: str, **extra: object) -> dict:
    return {
        "type": "retrieval_started",
        "retrieval_id": retrieval_id,
        "algorithm": "activation",
        "requested_by": "agent",
        "query": "why?",
        "seeds": [{"id": "a", "score": 1.0}],
        **extra,
    }


def level(retrieval_id: str, candidates: int) -> dict:
    parent = {"parent_id": "a", "candidates": [{"neighbor_id": f"n{i}"} for i in range(candidates)]}
    return {"type": "level_expanded", "retrieval_id": retrieval_id, "seed_id": "a", "depth": 0, "parents": [parent]}


def finished(retrieval_id: str, status: str = "completed") -> dict:
    return {"type": "retrieval_finished", "retrieval_id": retrieval_id, "status": status, "elapsed_ms": 3.5, "paths": 2}


def test_lists_newest_first_and_replays_events_so_far() -> None:
    clock = Clock()
    journal = RetrievalJournal(clock=clock)
    journal.record("g", started("r1"))
    journal.record("g", level("r1", 3))
    journal.record("g", finished("r1"))
    clock.now += 61
    journal.record("g", started("r2", query=None))
    journal.record("g", level("r2", 1))
    journal.record("other", started("r3"))

    runs = journal.runs("g")
    assert [run["retrieval_id"] for run in runs] == ["r2", "r1"]
    assert runs[0]["status"] == "running" and runs[0]["paths"] is None and runs[0]["query"] is None
    assert runs[1] | {"started_at": None} == {
        "retrieval_id": "r1",
        "algorithm": "activation",
        "requested_by": "agent",
        "query": "why?",
        "seeds": [{"id": "a", "score": 1.0}],
        "query_tags": None,
        "params": None,
        "seed_source": None,
        "explain": None,
        "time": None,
        "started_at": None,
        "status": "completed",
        "elapsed_ms": 3.5,
        "paths": 2,
        "events": 3,
        "truncated": False,
    }
    assert runs[1]["started_at"] == "2023-11-14T22:13:20Z"
    assert runs[0]["started_at"] == "2023-11-14T22:14:21Z"

    running = journal.replay("g", "r2")
    assert running == {
        "retrieval_id": "r2",
        "events": [started("r2", query=None), level("r2", 1)],
        "finished": False,
        "truncated": False,
    }
    assert journal.replay("g", "r1")["finished"] is True
    assert journal.replay("g", "r3") is None  # another group's
    assert journal.replay("g", "nope") is None


def test_events_of_unseen_or_finished_runs_are_ignored() -> None:
    journal = RetrievalJournal()
    journal.record("g", level("ghost", 2))
    journal.record("g", {"type": "curation", "edge": "x"})  # no retrieval id
    assert journal.runs("g") == []
    journal.record("g", started("r"))
    journal.record("g", finished("r", "cancelled"))
    journal.record("g", level("r", 2))  # a straggler after the end
    assert [event["type"] for event in journal.replay("g", "r")["events"]] == [
        "retrieval_started",
        "retrieval_finished",
    ]
    assert journal.runs("g")[0]["status"] == "cancelled"


def test_old_and_surplus_runs_are_dropped_finished_ones_first() -> None:
    clock = Clock()
    journal = RetrievalJournal(limits=JournalLimits(recent_runs=3, keep_finished_seconds=600), clock=clock)
    journal.record("g", started("old"))
    journal.record("g", finished("old"))
    clock.now += 601
    journal.record("g", started("long"))  # still running
    journal.record("g", started("done"))
    journal.record("g", finished("done"))
    assert [run["retrieval_id"] for run in journal.runs("g")] == ["done", "long"]  # "old" expired
    journal.record("g", started("b"))
    journal.record("g", started("c"))  # four now: the finished one goes before any running one
    assert [run["retrieval_id"] for run in journal.runs("g")] == ["c", "b", "long"]
    journal.record("g", started("d"))  # all running: the oldest goes
    assert [run["retrieval_id"] for run in journal.runs("g")] == ["d", "c", "b"]


def test_a_run_over_budget_keeps_its_end_and_says_it_was_cut() -> None:
    journal = RetrievalJournal(limits=JournalLimits(max_run_events=10, max_run_candidates=5))
    journal.record("g", started("r"))
    journal.record("g", level("r", 4))
    journal.record("g", level("r", 4))  # would pass 5 candidates
    journal.record("g", level("r", 1))
    journal.record("g", finished("r"))
    replay = journal.replay("g", "r")
    assert [len(event.get("parents", [{}])[0].get("candidates", [])) for event in replay["events"]] == [0, 4, 1, 0]
    assert replay["truncated"] is True and replay["finished"] is True
    assert journal.runs("g")[0]["truncated"] is True
