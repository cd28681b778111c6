"""Reading configuration from the environment, used by settings.py and nowhere else.

Local runs need secrets (Django's key, the embedded graph server's password)
that must never be committed; they are generated once into a git-ignored file.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

GRAPH_URL_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default).strip() or default


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use true or false)")


def env_int(name: str, default: int, *, minimum: int = 0, maximum: int = 65535) -> int:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw)
    except ValueError as error:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number") from error
    if not minimum <= value <= maximum:
        raise ImproperlyConfigured(f"{name}={value} is outside [{minimum}, {maximum}]")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_origins(name: str) -> list[str]:
    """Web origins (`scheme://host[:port]`, http or https, nothing after): what a browser sends as Origin, so a
    typo or a trailing slash fails at start-up instead of refusing every websocket."""
    origins = env_list(name, [])
    for origin in origins:
        parts = urlsplit(origin)
        try:
            parts.port  # noqa: B018 - raises ValueError for a malformed port
            well_formed = parts.scheme in ("http", "https") and bool(parts.hostname)
        except ValueError:
            well_formed = False
        if not well_formed or parts.path or parts.query or parts.fragment or parts.username is not None:
            raise ImproperlyConfigured(f"{name}: {origin!r} must be an origin such as https://memoria.example:8443")
    return [origin.lower() for origin in origins]


def graph_url(raw: str) -> str:
    """Validate MEMORIA_GRAPH_URL early, so a typo fails at start-up and not on the first query."""
    parts = urlsplit(raw)
    if parts.scheme not in GRAPH_URL_SCHEMES:
        raise ImproperlyConfigured(
            f"MEMORIA_GRAPH_URL={raw!r} must start with one of {', '.join(s + '://' for s in GRAPH_URL_SCHEMES)}"
        )
    if not parts.hostname:
        raise ImproperlyConfigured(f"MEMORIA_GRAPH_URL={raw!r} has no host")
    if parts.username or parts.password:
        raise ImproperlyConfigured(
            "MEMORIA_GRAPH_URL must not carry credentials; use MEMORIA_GRAPH_USER and MEMORIA_GRAPH_PASSWORD"
        )
    try:
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError as error:
        raise ImproperlyConfigured(f"MEMORIA_GRAPH_URL={raw!r} has an invalid port") from error
    return raw


def local_secret(path: Path, name: str, *, length: int = 32) -> str:
    """A random secret kept in a git-ignored JSON file, created on first use and stable afterwards."""
    path.parent.mkdir(parents=True, exist_ok=True)
    stored: dict[str, str] = {}
    if path.exists():
        try:
            stored = json.loads(path.read_text())
        except json.JSONDecodeError as error:
            raise ImproperlyConfigured(f"{path} is not valid JSON; delete it to generate new secrets") from error
    if name not in stored:
        stored[name] = secrets.token_urlsafe(length)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(stored, indent=2))
        tmp.chmod(0o600)
        tmp.replace(path)
    return stored[name]
