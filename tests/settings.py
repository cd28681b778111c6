"""Test settings: the production settings with a graph server of the test session's own (port and data folder).

The values are forced, not defaulted, so a developer's exported MEMORIA_* variables
can never point the suite at a real instance. Ports are free ones picked for the
session (or MEMORIA_TEST_GRAPH_BOLT_PORT / _HTTP_PORT), and written back to the
environment so the daphne subprocess of the end-to-end tests uses the same.
"""

import os
import socket
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return str(probe.getsockname()[1])


os.environ.setdefault("MEMORIA_TEST_GRAPH_BOLT_PORT", _free_port())
os.environ.setdefault("MEMORIA_TEST_GRAPH_HTTP_PORT", _free_port())
os.environ.setdefault("MEMORIA_TEST_VAR_DIR", str(_ROOT / "var" / "test"))
os.environ["MEMORIA_GRAPH_BOLT_PORT"] = os.environ["MEMORIA_TEST_GRAPH_BOLT_PORT"]
os.environ["MEMORIA_GRAPH_HTTP_PORT"] = os.environ["MEMORIA_TEST_GRAPH_HTTP_PORT"]
os.environ["MEMORIA_VAR_DIR"] = os.environ["MEMORIA_TEST_VAR_DIR"]
# One data folder per server port: two suites never share a graph, and each run starts from an empty one.
os.environ["MEMORIA_GRAPH_DATA_DIR"] = str(
    Path(os.environ["MEMORIA_VAR_DIR"]) / f"graphdb-{os.environ['MEMORIA_GRAPH_BOLT_PORT']}"
)
for _name in (
    "MEMORIA_GRAPH_URL",
    "MEMORIA_GRAPH_PASSWORD",
    "MEMORIA_REDIS_URL",
    "MEMORIA_SQLITE_PATH",
    "MEMORIA_GRAPH_JAVA_OPTS",
    "MEMORIA_LLM_URL",
    "MEMORIA_LLM_MODEL",
    "MEMORIA_LLM_API_KEY",
    "MEMORIA_LLM_TIMEOUT",
    "MEMORIA_CROSS_ENCODER_MODEL",
):
    os.environ.pop(_name, None)

from memoria.settings import *  # noqa: E402,F403
from memoria.settings import DATABASES, VAR_DIR  # noqa: E402

# A file, not memory, so the daphne subprocess of the end-to-end tests sees the same users.
TEST_DATABASE = str(VAR_DIR / "test-db.sqlite3")
DATABASES["default"]["TEST"] = {"NAME": TEST_DATABASE}
if os.environ.get("MEMORIA_E2E_SERVER") == "1":  # the daphne started by tests/e2e uses the test database itself
    DATABASES["default"]["NAME"] = TEST_DATABASE
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast user creation in tests
# No request rates: the suite's many calls would trip them; tests/api/test_throttling.py sets its own.
MEMORIA_THROTTLE_RATES = {"retrieval": None, "search": None, "ingest": None}
# The suite's retrievals run on Cypher unless a test asks for an engine: its fault, budget and socket tests are
# about the graph server (tests/retrieval/test_engines.py and the view tests choose `auto` and `view` themselves).
MEMORIA_ACTIVATION_ENGINE = "cypher"
