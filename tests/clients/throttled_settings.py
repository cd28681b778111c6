"""Settings of the daphne tests/clients/test_python_client.py starts: the suite's own, with a search rate low enough
that two searches in a row are throttled (the client must wait out the Retry-After), and nothing else limited."""

from tests.settings import *  # noqa: F403

MEMORIA_THROTTLE_RATES = {"retrieval": None, "search": "1/second", "ingest": None}
