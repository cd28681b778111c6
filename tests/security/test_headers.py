"""Response headers a public deployment needs (issue 33, items 4 and 8), read from a real daphne: the strict
Content-Security-Policy on every answer, beside the framing, sniffing, referrer and opener headers the probe found
present; and MEMORIA_CSP_REPORT_ONLY sending the same policy as report-only, for trying it on a deployment.
"""

from __future__ import annotations

import urllib.request
from pathlib import Path

import pytest

from tests.conftest import running_daphne

pytestmark = pytest.mark.django_db(transaction=True)

STRICT = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; "
    "connect-src 'self'; worker-src 'self' blob:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
    "form-action 'self'"
)
ALWAYS = {
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
}


def policy(header: str | None) -> dict[str, list[str]]:
    """A policy as its directives and their sources: browsers do not care about their order, nor does this."""
    directives = [part.split() for part in (header or "").split(";") if part.strip()]
    return {name: sources for name, *sources in directives}


def _headers(url: str) -> dict[str, str]:
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return {name.lower(): value for name, value in response.headers.items()}
    except urllib.error.HTTPError as error:  # a 401, 404 or 503 carries the headers too
        return {name.lower(): value for name, value in error.headers.items()}


@pytest.mark.parametrize("path", ["/accounts/login/", "/api/me", "/no-such-page/", "/healthz", "/api/schema/"])
def test_every_answer_carries_the_strict_policy(daphne_url: str, path: str) -> None:
    headers = _headers(daphne_url + path)
    assert policy(headers.get("content-security-policy")) == policy(STRICT), headers
    assert "content-security-policy-report-only" not in headers
    assert {name: headers.get(name) for name in ALWAYS} == ALWAYS


def test_report_only_sends_the_same_policy_without_enforcing_it(tmp_path: Path) -> None:
    environment = {"MEMORIA_CSP_REPORT_ONLY": "true", "MEMORIA_CSP_REPORT_URI": "/csp-reports"}
    with running_daphne(tmp_path / "daphne.log", wait_seconds=60, **environment) as port:
        headers = _headers(f"http://127.0.0.1:{port}/accounts/login/")
    assert policy(headers.get("content-security-policy-report-only")) == policy(f"{STRICT}; report-uri /csp-reports")
    assert "content-security-policy" not in headers
