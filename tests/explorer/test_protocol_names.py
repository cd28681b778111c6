"""The pages' scripts name events and frames only through the names the server exports (names.js)."""

from __future__ import annotations

import re
from pathlib import Path

from django.test import Client

from explorer.frames import ErrorCode, FrameType
from memoria.jobs.models import JobKind, JobState
from memoria.retrieval.event_types import Algorithm, EventType
from tests.explorer.test_live_views import browser, page_config  # noqa: F401 - the fixture

SCRIPTS = Path(__file__).resolve().parents[2] / "explorer" / "static" / "explorer" / "js"
DECLARED = {member.value for enum in (EventType, FrameType, ErrorCode, Algorithm, JobState) for member in enum}
# A name in quotes where a script compares, switches on, or sends a frame's type, algorithm or code.
RETYPED = re.compile(r'(?:type|algorithm|code|value) [!=]== "(\w+)"|case "(\w+)"|\b(?:type|algorithm): "(\w+)"')


def test_no_script_retypes_a_declared_name() -> None:
    retyped = []
    for script in sorted(SCRIPTS.glob("*.js")):
        for number, line in enumerate(script.read_text().splitlines(), 1):
            for match in RETYPED.finditer(line):
                name = next(group for group in match.groups() if group)
                if name in DECLARED:
                    retyped.append(f"{script.name}:{number}: {name}")
    assert retyped == []


def test_every_page_exports_the_declared_names(browser: Client, group: str) -> None:  # noqa: F811
    for page in (f"/g/{group}/live/", f"/g/{group}/watch/", "/"):
        response = browser.get(page, follow=True)
        assert response.status_code == 200, page
        names = page_config(response.content.decode(), "memoria-names")
        assert names["EVENT"] == {member.name: member.value for member in EventType}
        assert names["FRAME"] == {member.name: member.value for member in FrameType}
        assert names["ERROR"]["UNKNOWN_RETRIEVAL"] == ErrorCode.UNKNOWN_RETRIEVAL
        assert names["ALGORITHM"] == {"ACTIVATION": "activation", "PPR": "ppr"}
        assert names["JOB_STATE"] == {member.name: member.value for member in JobState}
        assert names["JOB_KIND"] == {member.name: member.value for member in JobKind}
