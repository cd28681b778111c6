"""The pinned per-level selection rule: order, claims, branch limit, threshold."""

from __future__ import annotations

from memoria.retrieval.selection import Candidate, select_level


def candidate(parent: str, neighbour: str, energy: float, edge: str = "") -> Candidate:
    return Candidate(parent, neighbour, edge or f"{parent}-{neighbour}", True, "r", 0.5, 2, 1.0, (), energy)


def outcome(decisions) -> list[tuple[str, str, bool, str | None]]:
    return [(d.candidate.parent_id, d.candidate.neighbor_id, d.selected, d.reason) for d in decisions]


def test_highest_energy_claims_a_shared_neighbour() -> None:
    decisions = select_level(
        [candidate("a", "x", 0.2), candidate("b", "x", 0.3), candidate("a", "y", 0.1)],
        max_branches=3,
        min_activation=0.005,
    )
    assert outcome(decisions) == [("b", "x", True, None), ("a", "x", False, "claimed"), ("a", "y", True, None)]
    assert decisions[1].claimed_by == "b"


def test_ties_break_by_parent_then_neighbour_then_edge() -> None:
    decisions = select_level(
        [
            candidate("b", "x", 0.2),
            candidate("a", "y", 0.2),
            candidate("a", "x", 0.2),
            candidate("a", "x", 0.2, edge="a-x-2"),
        ],
        max_branches=3,
        min_activation=0.005,
    )
    assert [(d.candidate.parent_id, d.candidate.neighbor_id, d.candidate.edge_id, d.reason) for d in decisions] == [
        ("a", "x", "a-x", None),
        ("a", "x", "a-x-2", "claimed"),
        ("a", "y", "a-y", None),
        ("b", "x", "b-x", "claimed"),
    ]


def test_branch_limit_and_threshold() -> None:
    decisions = select_level(
        [candidate("a", n, e) for n, e in (("p", 0.5), ("q", 0.4), ("r", 0.3), ("s", 0.005), ("t", 0.004))],
        max_branches=2,
        min_activation=0.005,
    )
    assert outcome(decisions) == [
        ("a", "p", True, None),
        ("a", "q", True, None),
        ("a", "r", False, "branch_limit"),
        ("a", "s", False, "below_threshold"),  # T must exceed MIN_ACTIVATION, not equal it
        ("a", "t", False, "below_threshold"),
    ]
