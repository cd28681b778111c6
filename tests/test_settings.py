"""Settings read from the environment, checked in a fresh interpreter per case (settings are import-time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import json, django
from django.conf import settings
django.setup()
print(json.dumps({
    "graph": {k: str(v) for k, v in settings.MEMORIA_GRAPH.items()},
    "channels": settings.CHANNEL_LAYERS["default"],
    "host": settings.MEMORIA_HOST, "debug": settings.DEBUG, "allowed": settings.ALLOWED_HOSTS,
}))
"""


def load_settings(tmp_path: Path, **env: str) -> tuple[int, dict | str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("MEMORIA_")}
    clean.update({"DJANGO_SETTINGS_MODULE": "memoria.settings", "MEMORIA_VAR_DIR": str(tmp_path), **env})
    done = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=60
    )
    if done.returncode:
        return done.returncode, done.stderr
    return 0, json.loads(done.stdout)


def test_defaults_are_local_and_embedded(tmp_path: Path) -> None:
    code, loaded = load_settings(tmp_path)
    assert code == 0, loaded
    assert loaded["graph"]["EMBEDDED"] == "True"
    assert loaded["graph"]["URL"] == "bolt://127.0.0.1:7687"
    assert loaded["graph"]["BOLT_HOST"] == "127.0.0.1"
    assert loaded["host"] == "127.0.0.1" and loaded["debug"] is False
    assert loaded["channels"]["BACKEND"] == "channels.layers.InMemoryChannelLayer"
    # The generated secrets live in the var folder, readable only by their owner, and are stable.
    secrets = tmp_path / "secrets.json"
    assert oct(secrets.stat().st_mode & 0o777) == "0o600"
    assert json.loads(secrets.read_text())["graph_password"] == loaded["graph"]["PASSWORD"]
    assert load_settings(tmp_path)[1]["graph"]["PASSWORD"] == loaded["graph"]["PASSWORD"]


def test_production_neo4j_and_redis(tmp_path: Path) -> None:
    code, loaded = load_settings(
        tmp_path,
        MEMORIA_GRAPH_URL="neo4j://neo4j:7687",
        MEMORIA_GRAPH_USER="memoria",
        MEMORIA_GRAPH_PASSWORD="s3cret-pass",
        MEMORIA_GRAPH_DATABASE="memories",
        MEMORIA_REDIS_URL="redis://redis:6379/0",
        MEMORIA_HOST="0.0.0.0",  # noqa: S104 - the value under test
        MEMORIA_ALLOWED_HOSTS="memoria.example,app",
    )
    assert code == 0, loaded
    graph = loaded["graph"]
    assert (graph["EMBEDDED"], graph["URL"], graph["USER"], graph["PASSWORD"], graph["DATABASE"]) == (
        "False",
        "neo4j://neo4j:7687",
        "memoria",
        "s3cret-pass",
        "memories",
    )
    assert loaded["channels"] == {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        # A read timeout past channels-redis's 5 s blocking read, and room for a busy watcher's events.
        "CONFIG": {"hosts": [{"address": "redis://redis:6379/0", "socket_timeout": 30}], "capacity": 2000},
    }
    assert loaded["host"] == "0.0.0.0"  # noqa: S104 - the value under test and loaded["allowed"] == ["memoria.example", "app"]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"MEMORIA_GRAPH_URL": "neo4j://db:7687"}, "MEMORIA_GRAPH_PASSWORD is not"),
        ({"MEMORIA_GRAPH_URL": "http://db:7474", "MEMORIA_GRAPH_PASSWORD": "x"}, "must start with one of"),
        ({"MEMORIA_GRAPH_URL": "bolt://u:p@db:7687", "MEMORIA_GRAPH_PASSWORD": "x"}, "must not carry credentials"),
        ({"MEMORIA_GRAPH_URL": "bolt://db:notaport", "MEMORIA_GRAPH_PASSWORD": "x"}, "invalid port"),
        ({"MEMORIA_GRAPH_BOLT_PORT": "seventy"}, "is not a whole number"),
        ({"MEMORIA_DEBUG": "maybe"}, "is not a boolean"),
        ({"MEMORIA_EXTRA_ENTITY_LABELS": "Supplier,bad label"}, "must be a CamelCase identifier"),
        ({"MEMORIA_GRAPH_DATABASE": "x; drop"}, "MEMORIA_GRAPH_DATABASE"),
        ({"MEMORIA_GRAPH_VECTOR_INDEXES": "sometimes"}, "must be auto, on or off"),
    ],
)
def test_bad_configuration_fails_with_a_message(tmp_path: Path, env: dict[str, str], message: str) -> None:
    code, stderr = load_settings(tmp_path, **env)
    assert code != 0
    assert "ImproperlyConfigured" in stderr and message in stderr


def test_compose_app_environment_configures_neo4j_and_redis(tmp_path: Path) -> None:
    """The app service's variables in docker-compose.yml are the ones settings read, with usable values."""
    import re

    import yaml

    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert {"neo4j", "redis", "app"} <= set(compose["services"])
    assert compose["services"]["neo4j"]["image"].startswith("neo4j:5")
    assert "healthcheck" in compose["services"]["neo4j"] and "volumes" in compose["services"]["neo4j"]
    app = compose["services"]["app"]
    assert all(port.startswith("127.0.0.1:") for port in app["ports"])

    def given(found: re.Match) -> str:
        """What compose puts there with only NEO4J_PASSWORD set: a `:-` default, else an operator's value."""
        if found[1] == "NEO4J_PASSWORD":
            return "pw-from-env"
        return found[2][2:] if found[2] and found[2].startswith(":-") else "x"

    interpolated = {key: re.sub(r"\$\{(\w+)(:[?-][^}]*)?\}", given, value) for key, value in app["environment"].items()}
    source = (ROOT / "memoria" / "settings.py").read_text()
    assert all(f'"{key}"' in source for key in interpolated), "a variable settings.py does not read"
    interpolated["MEMORIA_VAR_DIR"] = str(tmp_path)
    code, loaded = load_settings(tmp_path, **interpolated)
    assert code == 0, loaded
    assert loaded["graph"]["EMBEDDED"] == "False"
    assert loaded["graph"]["URL"] == "neo4j://neo4j:7687" and loaded["graph"]["PASSWORD"] == "pw-from-env"
    assert loaded["channels"]["BACKEND"] == "channels_redis.core.RedisChannelLayer"


def test_start_up_does_not_need_the_graph_server(tmp_path: Path) -> None:
    """Django (and neomodel) start with no graph server listening; pages then answer 503 until it is back."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        unused = str(probe.getsockname()[1])
    code, loaded = load_settings(tmp_path, MEMORIA_GRAPH_BOLT_PORT=unused)
    assert code == 0, loaded
    assert loaded["graph"]["URL"] == f"bolt://127.0.0.1:{unused}"
