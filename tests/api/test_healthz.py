"""GET /healthz for real: a graph server of its own stopped and started, an unreachable Redis, a missing model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.test import Client

from memoria import embeddings
from memoria.graph.embedded import EmbeddedServer
from tests.conftest import dedicated_graph_server, free_port

COMPONENTS = {"graph", "channel_layer", "embedding_model"}


def healthz() -> tuple[int, dict]:
    response = Client().get("/healthz")
    assert response["Content-Type"] == "application/json"
    assert "no-cache" in response["Cache-Control"]
    return response.status_code, response.json()


def statuses(answer: dict) -> dict[str, str]:
    return {name: component["status"] for name, component in answer["components"].items()}


@pytest.fixture(autouse=True)
def _warm_model() -> None:
    """A cold model load can outlast the check's timeout on a busy machine; that is not what these tests measure."""
    embeddings.embedder()


@pytest.fixture
def own_graph_server(graph_server: EmbeddedServer, settings, tmp_path: Path) -> Iterator[EmbeddedServer]:
    """A second graph server, not the session's shared one, which this test may stop; the app pointed at it."""
    with dedicated_graph_server(graph_server, settings, tmp_path / "graphdb") as server:
        yield server


def test_all_up_needs_no_sign_in_and_tells_only_statuses(db: None) -> None:
    code, answer = healthz()
    assert code == 200 and answer["status"] == "ok"
    assert set(answer) == {"status", "components"} and set(answer["components"]) == COMPONENTS
    for component in answer["components"].values():
        assert set(component) == {"status", "latency_ms"}  # no hosts, versions or error text for anonymous callers
        assert component["status"] == "up" and component["latency_ms"] >= 0


def test_only_reads_are_allowed(db: None) -> None:
    assert Client().post("/healthz").status_code == 405
    assert Client().head("/healthz").status_code == 200


def test_graph_server_down_gives_503_then_recovers(db: None, own_graph_server: EmbeddedServer) -> None:
    code, answer = healthz()
    assert code == 200 and statuses(answer) == dict.fromkeys(COMPONENTS, "up")

    own_graph_server.stop()
    code, answer = healthz()
    assert code == 503 and answer["status"] == "degraded"
    assert statuses(answer) == {"graph": "down", "channel_layer": "up", "embedding_model": "up"}
    assert set(answer["components"]["graph"]) == {"status", "latency_ms"}

    own_graph_server.start()
    code, answer = healthz()
    assert code == 200 and statuses(answer)["graph"] == "up"


def test_unreachable_channel_layer_gives_503(db: None, settings) -> None:
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [f"redis://127.0.0.1:{free_port()}/0"]},  # nothing listens there
        }
    }
    code, answer = healthz()
    assert code == 503
    assert statuses(answer) == {"graph": "up", "channel_layer": "down", "embedding_model": "up"}


def test_missing_embedding_model_gives_503_and_logs_why(
    db: None, settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(embeddings, "_embedder", None)  # the shared model is restored afterwards
    settings.MEMORIA_EMBEDDING_MODEL = str(tmp_path / "no-such-model")
    code, answer = healthz()
    assert code == 503
    assert statuses(answer) == {"graph": "up", "channel_layer": "up", "embedding_model": "down"}
    assert "no-such-model" not in str(answer)
    logged = [record for record in caplog.records if record.name == "memoria.health"]
    assert len(logged) == 1 and logged[0].component == "embedding_model" and "no-such-model" in logged[0].getMessage()
