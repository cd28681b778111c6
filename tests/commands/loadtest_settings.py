"""Settings of the daphnes that tests/commands/test_loadtest.py has `loadtest` start: the suite's own, keeping the
Redis URL the command gives them. tests/settings.py drops MEMORIA_REDIS_URL so that a developer's exported one never
reaches the suite; the pytest process already dropped it from its environment, so only the run's own arrives here,
and the channel layer and cache are then those memoria/settings.py builds from it.
"""

import importlib
import os

_RUN_REDIS_URL = os.environ.get("MEMORIA_REDIS_URL", "")

from tests.settings import *  # noqa: E402,F403

if _RUN_REDIS_URL:
    os.environ["MEMORIA_REDIS_URL"] = _RUN_REDIS_URL
    import memoria.settings as _production

    _production = importlib.reload(_production)  # read again, now with the run's Redis URL
    CHANNEL_LAYERS = _production.CHANNEL_LAYERS
    CACHES = _production.CACHES
