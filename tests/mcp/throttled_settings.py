"""The test settings with a low search rate, for the stdio server of the throttling test (its own process)."""

from tests.settings import *  # noqa: F403

MEMORIA_THROTTLE_RATES = {"retrieval": None, "search": "2/minute", "ingest": None}
