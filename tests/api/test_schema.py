"""The published OpenAPI schema builds without warnings, and its Swagger UI page works offline for signed-in users."""

from __future__ import annotations

import json
import re

from django.core.management import call_command
from django.http import HttpRequest
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
    assert browser.login(request=HttpRequest(), username="docs-reader", password=PASSWORD)

    page = browser.get("/api/docs/")

    assert page.status_code == 200
    html = page.content.decode()
    # Nothing inline for the Content-Security-Policy to refuse: the start-up script is a file of its own (?script).
    assert "<style" not in html and not re.search(r"<script(?![^>]*\bsrc=)", html), html
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert any(asset.endswith("swagger-ui-bundle.js") for asset in assets), assets
    assert all(asset.startswith("/") and not asset.startswith("//") for asset in assets), assets  # no CDN
    bodies = {}
    for asset in assets:
        response = browser.get(asset)
        assert response.status_code == 200, asset
        bodies[asset] = _body(response)
        assert len(bodies[asset]) > 100, asset
    assert b"/api/schema/" in bodies["/api/docs/?script="]  # the start-up script loads this server's schema
    schema = browser.get("/api/schema/", {"format": "json"})
    assert schema.status_code == 200 and schema.json()["openapi"].startswith("3.")


# Bodies still documented as a free-form object: issue 17 types them on another branch (search, activation and
# PPR requests). Empty this set when they are merged; the test below then holds every write to a typed body.
WRITE_METHODS = ("post", "patch", "put")


def _served_document() -> dict:
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    document = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(OpenApiJsonRenderer().render(document, renderer_context={}))


def _request_bodies() -> dict[tuple[str, str], dict | None]:
    """Every POST/PATCH/PUT of the schema with its JSON body schema (None: the operation takes no body)."""
    return {
        (method.upper(), path): operation.get("requestBody", {})
        .get("content", {})
        .get("application/json", {})
        .get("schema")
        for path, operations in _served_document()["paths"].items()
        for method, operation in operations.items()
        if method in WRITE_METHODS
    }


def test_every_write_body_is_typed_from_a_model() -> None:
    bodies = _request_bodies()
    typed = {key for key, body in bodies.items() if body and ("$ref" in body or body.get("properties"))}
    free_form = {key for key, body in bodies.items() if body and key not in typed}

    assert free_form == set(), sorted(free_form)
    assert len(typed) >= 18  # every JSON body the API takes (issue 17 item 2 counted 12; jobs and views came since)
    refs = {key: body.get("$ref", "") for key, body in bodies.items() if body}
    assert refs[("POST", "/api/groups/{group}/episodes")].endswith("/EpisodesPost")
    assert refs[("POST", "/api/groups/{group}/import")].endswith("/GraphDocumentBody")
    assert refs[("POST", "/api/groups/{group}/jobs/import")].endswith("/GraphDocumentBody")
    assert refs[("POST", "/api/search")].endswith("/SearchBody")
    assert refs[("POST", "/api/retrieval/activation")].endswith("/ActivationBody")
    assert refs[("POST", "/api/retrieval/ppr")].endswith("/PprBody")
