"""`concurrency`: options checked before anything runs, and a short real run that reports every invariant holding."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memoria.graph import driver


def test_nothing_to_run_is_refused() -> None:
    with pytest.raises(CommandError, match="nothing to do"):
        call_command("concurrency", "--writers", "0", "--processes", "0")
    with pytest.raises(CommandError, match="--runs"):
        call_command("concurrency", "--runs", "0")


@pytest.mark.django_db(transaction=True)
def test_a_short_run_holds_every_invariant_and_leaves_no_group() -> None:
    out = StringIO()
    call_command(
        "concurrency", "--writers", "2", "--processes", "0", "--curators", "1", "--duration", "4", "--json", stdout=out
    )
    [run] = json.loads(out.getvalue())
    assert run["invariants"]["ok"], run
    assert run["episodes_acknowledged"] > 0 and run["invariants"]["claims_checked"] > 0
    groups = driver.read("MATCH (n:Memory) WHERE n.group_id STARTS WITH 'concurrency-' RETURN count(n) AS n")
    assert groups == [{"n": 0}]
