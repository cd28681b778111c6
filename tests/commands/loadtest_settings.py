"""Settings of the daphnes that tests/commands/test_loadtest.py has `loadtest` start: the suite's own, keeping the
Redis URL the command gives them. tests/settings.py drops MEMORIA_REDIS_URL so that a developer's exported one never
reaches the suite; the pytest process already dropped it from its environment, so only the run's own arrives here.
"""

import os

_RUN_REDIS_URL = os.environ.get("MEMORIA_REDIS_URL", "")

from tests.settings import *  # noqa: E402,F403

if _RUN_REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [_RUN_REDIS_URL]}}
    }
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": _RUN_REDIS_URL}}
