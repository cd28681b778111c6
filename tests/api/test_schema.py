"""The published OpenAPI schema builds without warnings, and its Swagger UI page works offline for signed-in users."""

from __future__ import annotations

import re

from django.core.management import call_command
from django.test import Client

from memoria.accounts.roles import Role
from memoria.accounts.services import user_grant

PASSWORD = "docs-reader-password"


def test_the_openapi_schema_has_no_warnings(tmp_path) -> None:
    out = tmp_path / "schema.yml"

    call_command("spectacular", "--file", str(out), "--validate", "--fail-on-warn")

    text = out.read_text()
    assert "GroupEpisodesOutput" in text and "HealthOutput" in text


def test_the_docs_page_sends_visitors_to_sign_in(db: None) -> None:
    response = Client().get("/api/docs/")

    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/?next=/api/docs/")


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_the_docs_page_loads_swagger_ui_from_this_server_only(db: None) -> None:
    user_grant(username="docs-reader", role=Role.VIEWER, password=PASSWORD)
    browser = Client()
    assert browser.login(username="docs-reader", password=PASSWORD)

    page = browser.get("/api/docs/")

    assert page.status_code == 200
    html = page.content.decode()
    assert "/api/schema/" in html
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert any(asset.endswith("swagger-ui-bundle.js") for asset in assets), assets
    assert all(asset.startswith("/") and not asset.startswith("//") for asset in assets), assets  # no CDN
    for asset in assets:
        response = browser.get(asset)
        assert response.status_code == 200, asset
        assert len(_body(response)) > 100, asset
    schema = browser.get("/api/schema/", {"format": "json"})
    assert schema.status_code == 200 and schema.json()["openapi"].startswith("3.")
