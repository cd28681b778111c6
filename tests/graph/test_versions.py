"""Group version stamps on the real server: bumps land with their transaction, concurrent ones never collide."""

from __future__ import annotations

import threading

import neo4j
import pytest

from memoria.graph import driver
from memoria.graph.versions import (
    group_stamps,
    group_stamps_compact,
    group_stamps_delete,
    group_version,
    group_version_bump,
    stamp_details,
    stamped_groups,
    unstamped_groups_stamp,
)
from memoria.ingest.persist import EpisodeRow, WritePlan, plan_persist


def _bump(group: str) -> None:
    driver.write_transaction(lambda tx: group_version_bump(tx, group))


def test_a_new_group_is_at_version_zero(group: str) -> None:
    assert group_version(group=group).version == 0


def test_each_bump_raises_the_version_by_one(group: str) -> None:
    for expected in (1, 2, 3):
        _bump(group)
        assert group_version(group=group).version == expected


def test_a_rolled_back_write_leaves_the_version(group: str) -> None:
    class Boom(Exception):
        pass

    def work(tx: neo4j.ManagedTransaction) -> None:
        group_version_bump(tx, group)
        raise Boom

    with pytest.raises(Boom):
        driver.write_transaction(work)
    assert group_version(group=group).version == 0


def test_concurrent_bumps_all_land(group: str) -> None:
    errors: list[BaseException] = []

    def writer() -> None:
        for _ in range(5):
            try:
                _bump(group)
            except BaseException as error:  # collected and asserted below
                errors.append(error)

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert group_version(group=group).version == 20


def test_compaction_keeps_the_version_and_folds_the_stamps(group: str) -> None:
    for _ in range(7):
        _bump(group)
    assert group_stamps_compact(group=group, after=10) == 0
    assert group_stamps_compact(group=group, after=3) == 7
    folded = group_version(group=group)
    assert (folded.version, folded.stamps) == (7, 1)
    _bump(group)
    assert group_version(group=group).version == 8


def test_a_fold_names_what_its_stamps_touched_only_if_each_did(group: str) -> None:
    for touched in (["a", "b"], ["b", "c"]):
        driver.write_transaction(lambda tx, touched=touched: group_version_bump(tx, group, touched=touched))
    group_stamps_compact(group=group, after=1)
    [fold] = stamp_details(group=group, stamps=group_stamps(group=group))
    assert fold.touched == ("a", "b", "c") and len(fold.folded) == 2
    driver.write_transaction(lambda tx: group_version_bump(tx, group))  # cannot say
    group_stamps_compact(group=group, after=1)
    [fold] = stamp_details(group=group, stamps=group_stamps(group=group))
    assert fold.touched is None and len(fold.folded) == 2


def test_persisting_episodes_bumps_their_group(group: str) -> None:
    plan = WritePlan(
        group=group,
        now="2024-01-01T00:00:00.000000Z",
        episodes=(EpisodeRow(f"{group}-ep", {"id": f"{group}-ep", "group_id": group, "name": "ep", "content": "hi"}),),
    )
    plan_persist(plan=plan)
    assert group_version(group=group).version == 1


def test_groups_are_listed_from_their_stamps(group: str) -> None:
    other = f"{group}-raw"
    try:
        driver.write_transaction(lambda tx: group_version_bump(tx, group))
        driver.write("CREATE (:Memory {group_id: $group, id: 'n1', name: 'by hand'})", group=other)
        assert group in stamped_groups() and other not in stamped_groups()  # written by hand: no stamp yet
        assert unstamped_groups_stamp() >= 1  # what schema installation does
        assert other in stamped_groups() and group_version(group=other).version == 0
        assert stamp_details(group=other, stamps=group_stamps(group=other))[0].touched == ()
        assert unstamped_groups_stamp() == 0
    finally:
        driver.write("MATCH (n:Memory {group_id: $group}) DETACH DELETE n", group=other)
        group_stamps_delete(group=other)
    assert other not in stamped_groups()
