"""The entity page's time line: bars placed on one axis from the facts' valid periods."""

from __future__ import annotations

import pytest

from explorer.timeline import OPEN_END_ROOM, fact_timeline
from memoria.browse.records import EdgeCard


def card(edge_id: str, source: str = "me", target: str = "other", **times: str) -> EdgeCard:
    return EdgeCard(id=edge_id, kind="RELATES", source=source, target=target, target_name="Other", **times)


def test_bars_follow_the_valid_periods_and_open_ends_run_past_the_last_date() -> None:
    old = card("old", valid_at="2025-01-01T00:00:00Z", invalid_at="2025-03-01T00:00:00Z")
    new = card("new", valid_at="2025-03-01T00:00:00Z")
    unknown = card("unknown", source="other", target="me")
    timeline = fact_timeline([old, new, unknown], entity_id="me")
    rows = {row.fact.id: row for row in timeline.rows}
    axis = 1 + OPEN_END_ROOM  # the named span, plus room for facts that still hold
    assert rows["old"].left == 0.0 and rows["old"].width == pytest.approx(100 / axis, abs=0.01)
    assert rows["new"].left == pytest.approx(100 / axis, abs=0.01) and not rows["new"].open_start
    assert rows["new"].left + rows["new"].width == pytest.approx(100, abs=0.01) and rows["new"].open_end
    assert (rows["unknown"].left, rows["unknown"].width, rows["unknown"].open_start) == (0.0, 100.0, True)
    assert rows["old"].outgoing and not rows["unknown"].outgoing and rows["unknown"].other_id == "other"
    assert (timeline.start, timeline.end) == ("2025-01-01T00:00:00Z", "2025-03-01T00:00:00Z")


def test_an_instant_and_no_dates_still_draw() -> None:
    instant = card("instant", valid_at="2025-05-05T10:00:00Z", invalid_at="2025-05-05T10:00:00Z")
    row = fact_timeline([instant], entity_id="me").rows[0]
    assert row.width > 0
    empty = fact_timeline([card("plain")], entity_id="me")
    assert (empty.start, empty.end) == (None, None) and empty.rows[0].width == 100.0
