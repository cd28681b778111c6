"""The published OpenAPI schema builds without warnings, so clients generated from it see every body."""

from __future__ import annotations

from django.core.management import call_command


def test_the_openapi_schema_has_no_warnings(tmp_path) -> None:
    out = tmp_path / "schema.yml"

    call_command("spectacular", "--file", str(out), "--validate", "--fail-on-warn")

    text = out.read_text()
    assert "GroupEpisodesOutput" in text and "HealthOutput" in text
