"""Django settings: every value read from the environment here, with defaults that run locally.

Production overrides come only from MEMORIA_* variables (see README and docker-compose.yml).
"""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from memoria.config import env_bool, env_int, env_list, env_origins, env_str, graph_url, local_secret
from memoria.graph.driver import DEFAULT_CONNECTION_TIMEOUT_SECONDS
from memoria.graph.retry import (
    DEFAULT_ATTEMPTS,
    DEFAULT_BACKOFF_MS,
    DEFAULT_CONFLICT_ATTEMPTS,
    DEFAULT_READ_DEADLINE_SECONDS,
)
from memoria.interchange.jsontext import DEFAULT_MAX_FILE_BYTES
from memoria.observability import DEFAULT_SLOW_CYPHER_MS
from memoria.private_files import private_umask
from memoria.readmodel import DEFAULT_VIEW_MAX_BYTES
from memoria.retrieval.budget import DEFAULT_MAX_ROWS, DEFAULT_MAX_SECONDS, DEFAULT_PPR_MAX_ROWS

# Before anything is written: secrets, SQLite, the graph store and backups are created 0600/0700 by every process
# that loads these settings, and existing ones are made private when the app starts (memoria/apps.py).
private_umask()

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("MEMORIA_VAR_DIR", str(BASE_DIR / "var"))).resolve()
SECRETS_FILE = VAR_DIR / "secrets.json"

SECRET_KEY = env_str("MEMORIA_SECRET_KEY", "") or local_secret(SECRETS_FILE, "django_secret_key", length=48)
DEBUG = env_bool("MEMORIA_DEBUG", False)
ALLOWED_HOSTS = env_list("MEMORIA_ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env_list("MEMORIA_CSRF_TRUSTED_ORIGINS", [])
# Origins besides the server's own (the scheme, host and port a request was sent to) whose pages may open the
# websockets; a TLS proxy in front needs its https://host here, since the server sees plain ws (docs/operations.md).
MEMORIA_ALLOWED_ORIGINS = env_origins("MEMORIA_ALLOWED_ORIGINS")

# Where `python manage.py serve` listens: loopback unless configured otherwise.
MEMORIA_HOST = env_str("MEMORIA_HOST", "127.0.0.1")
MEMORIA_PORT = env_int("MEMORIA_PORT", 8000, minimum=1)

INSTALLED_APPS = [
    "daphne",  # first, so runserver serves websockets too
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files for /api/docs/, served locally (no CDN)
    "channels",
    "csp",  # the Content-Security-Policy header of every answer (CONTENT_SECURITY_POLICY below)
    "axes",  # failed sign-ins counted per username and per address, then locked out (below)
    "memoria.graph",
    "memoria.accounts",
    "memoria.api",
    "memoria.curation",
    "memoria.jobs",
    "memoria",
    "explorer",
]

MIDDLEWARE = [
    "memoria.middleware.RequestIdMiddleware",  # first: everything after it logs the request's id
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "memoria.middleware.GraphUnavailableMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a locked-out sign-in into memoria.accounts.lockout's answer
]

ROOT_URLCONF = "memoria.urls"
ASGI_APPLICATION = "memoria.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": env_str("MEMORIA_SQLITE_PATH", str(VAR_DIR / "memoria.sqlite3")),
        # A curation holds SQLite's write lock while its graph write commits (the audit entry and the change land
        # together), and that write may retry conflicts for seconds on a busy server: other writers wait this long
        # for the lock instead of failing with "database is locked" after SQLite's default 5 s (seen at load 37).
        # Every transaction takes the write lock when it begins (BEGIN IMMEDIATE): a transaction that read first
        # and then wrote, such as a job's start (is one running? then insert), could not wait for the lock at its
        # first write: SQLite answers such an upgrade "database is locked" at once, busy timeout or not (a 500 on
        # POST …/jobs/export while other jobs reported progress, issue 31's schema fuzz).
        "OPTIONS": {"timeout": 30, "transaction_mode": "IMMEDIATE"},
    }
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# Sign-in throttling (django-axes; docs/operations.md, "Sign-in lockout"): after MEMORIA_LOGIN_FAILURE_LIMIT failed
# sign-ins for one username, or from one client address, that username or address is locked out for
# MEMORIA_LOGIN_LOCKOUT_MINUTES (each failure during the lockout starts it again). The sign-in page then answers 429
# with Retry-After; `manage.py axes_reset_username NAME` / `axes_reset_ip ADDRESS` or the admin's "Access attempts"
# unlock sooner. Every authenticate() passes through the axes backend first, Django's admin sign-in included.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("MEMORIA_LOGIN_FAILURE_LIMIT", 5, minimum=1, maximum=1000)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("MEMORIA_LOGIN_LOCKOUT_MINUTES", 15, minimum=1, maximum=7 * 24 * 60))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # either one alone locks: a user per se, an address per se
AXES_LOCKOUT_CALLABLE = "memoria.accounts.lockout.lockout_response"
AXES_SENSITIVE_PARAMETERS = ["password"]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "explorer:home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = VAR_DIR / "static"
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise serves from finders too, but expects the folder
WHITENOISE_USE_FINDERS = True

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = env_bool("MEMORIA_SECURE_COOKIES", False)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
X_FRAME_OPTIONS = "DENY"

# Content-Security-Policy (django-csp; docs/operations.md, "Content-Security-Policy"): scripts, styles, images, fonts
# and connections (the websockets included: 'self' covers ws:// and wss:// of the same host) from this server only;
# nothing inline, no eval, no plugins, no framing, forms post here only. MEMORIA_CSP_REPORT_ONLY=true sends it as
# Content-Security-Policy-Report-Only (browsers report, block nothing) to try it on a deployment first;
# MEMORIA_CSP_REPORT_URI names where browsers send their reports.
_CSP_DIRECTIVES: dict[str, list[str]] = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:", "blob:"],  # exports and the graph's PNG are drawn to data: and blob: URLs
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    # The graph's ForceAtlas2 layout runs in a worker that graphology builds from its own code as a blob: URL.
    "worker-src": ["'self'", "blob:"],
    "object-src": ["'none'"],
    "base-uri": ["'none'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
}
MEMORIA_CSP_REPORT_URI = env_str("MEMORIA_CSP_REPORT_URI", "")
if MEMORIA_CSP_REPORT_URI:
    _CSP_DIRECTIVES["report-uri"] = [MEMORIA_CSP_REPORT_URI]
MEMORIA_CSP_REPORT_ONLY = env_bool("MEMORIA_CSP_REPORT_ONLY", False)
if MEMORIA_CSP_REPORT_ONLY:
    CONTENT_SECURITY_POLICY_REPORT_ONLY = {"DIRECTIVES": _CSP_DIRECTIVES}
else:
    CONTENT_SECURITY_POLICY = {"DIRECTIVES": _CSP_DIRECTIVES}

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["memoria.api.permissions.ReadOrCurate"],
    "DEFAULT_SCHEMA_CLASS": "memoria.api.schema.MemoriaAutoSchema",
    "EXCEPTION_HANDLER": "memoria.api.errors.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Memoria API",
    "DESCRIPTION": "Memory graph for AI agents: import, export, search and retrieval.",
    "VERSION": "0.1.0",
    # OpenAPI 3.1: request bodies are documented from pydantic models, whose optional fields are JSON Schema's
    # {"type": "null"} alternatives — valid in 3.1, an error in 3.0.
    "OAS_VERSION": "3.1.0",
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# Channel layer: in-process by default; Redis when MEMORIA_REDIS_URL is set (several app processes).
REDIS_URL = env_str("MEMORIA_REDIS_URL", "")
# Messages a channel holds before the layer drops new ones: a watcher of a busy group gets every event of every
# retrieval, and the default of 100 lost events (retrieval_finished included) under loadtest's load.
CHANNEL_CAPACITY = env_int("MEMORIA_CHANNEL_CAPACITY", 2000, minimum=100, maximum=1_000_000)
if REDIS_URL:
    # channels_redis waits on BZPOPMIN for up to 5 s; redis-py 8 also gives up reading after 5 s by default, and the
    # loser of that race crashes the consumer (socket closed 1011, watchers miss events). Reads may take longer.
    _redis_host = {"address": REDIS_URL, "socket_timeout": 30}
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [_redis_host], "capacity": CHANNEL_CAPACITY},
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer", "CONFIG": {"capacity": CHANNEL_CAPACITY}}
    }
# The cache holds request-rate counts (memoria/admission/throttles.py): shared through Redis when it is configured; in
# process memory otherwise, where each server process counts alone.
if REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# The graph server. Without MEMORIA_GRAPH_URL the embedded ArcadeDB server is used,
# started by `python manage.py graphdb start` and bound to loopback.
_external_graph_url = env_str("MEMORIA_GRAPH_URL", "")
_embedded_bolt_port = env_int("MEMORIA_GRAPH_BOLT_PORT", 7687, minimum=1)
MEMORIA_GRAPH = {
    "EMBEDDED": not _external_graph_url,
    "URL": graph_url(_external_graph_url) if _external_graph_url else f"bolt://127.0.0.1:{_embedded_bolt_port}",
    "USER": env_str("MEMORIA_GRAPH_USER", "neo4j" if _external_graph_url else "root"),
    "PASSWORD": env_str("MEMORIA_GRAPH_PASSWORD", ""),
    "DATABASE": env_str("MEMORIA_GRAPH_DATABASE", "neo4j"),
    # Seconds to open a connection (TCP, Bolt handshake, log-in), and to acquire one from the pool.
    "CONNECTION_TIMEOUT": float(
        env_int("MEMORIA_GRAPH_CONNECTION_TIMEOUT", DEFAULT_CONNECTION_TIMEOUT_SECONDS, minimum=1, maximum=120)
    ),
    # Transient failures are tried again, waiting BACKOFF_MS × 2^n between tries (memoria/graph/retry.py).
    "RETRY_ATTEMPTS": env_int("MEMORIA_GRAPH_RETRY_ATTEMPTS", DEFAULT_ATTEMPTS, minimum=1, maximum=20),
    "RETRY_BACKOFF_MS": env_int("MEMORIA_GRAPH_RETRY_BACKOFF_MS", DEFAULT_BACKOFF_MS, minimum=0, maximum=60_000),
    "CONFLICT_ATTEMPTS": env_int("MEMORIA_GRAPH_CONFLICT_ATTEMPTS", DEFAULT_CONFLICT_ATTEMPTS, minimum=1, maximum=50),
    # Seconds a retrieval's read may take, every try and wait included (docs/operations.md, "How fast an outage shows").
    "READ_DEADLINE": float(
        env_int("MEMORIA_GRAPH_READ_DEADLINE", DEFAULT_READ_DEADLINE_SECONDS, minimum=1, maximum=3600)
    ),
    # Embedded server only:
    "DATA_DIR": Path(env_str("MEMORIA_GRAPH_DATA_DIR", str(VAR_DIR / "graphdb"))).resolve(),
    "BOLT_HOST": env_str("MEMORIA_GRAPH_HOST", "127.0.0.1"),
    "BOLT_PORT": _embedded_bolt_port,
    "HTTP_PORT": env_int("MEMORIA_GRAPH_HTTP_PORT", 2480, minimum=1),
    "JAVA_OPTS": env_list("MEMORIA_GRAPH_JAVA_OPTS", []),
    "START_TIMEOUT": env_int("MEMORIA_GRAPH_START_TIMEOUT", 90, minimum=1, maximum=3600),
    # Server-side vector indexes (docs/operations.md, "Vector indexes on the server"): auto keeps them on Neo4j and
    # leaves them out on ArcadeDB, which rebuilds a whole index, every group's vectors, after writes.
    "VECTOR_INDEXES": env_str("MEMORIA_GRAPH_VECTOR_INDEXES", "auto").lower(),
}
if MEMORIA_GRAPH["VECTOR_INDEXES"] not in ("auto", "on", "off"):
    raise ImproperlyConfigured(
        f"MEMORIA_GRAPH_VECTOR_INDEXES={MEMORIA_GRAPH['VECTOR_INDEXES']!r} must be auto, on or off"
    )
if not MEMORIA_GRAPH["PASSWORD"]:
    if _external_graph_url:
        raise ImproperlyConfigured("MEMORIA_GRAPH_URL is set but MEMORIA_GRAPH_PASSWORD is not")
    MEMORIA_GRAPH["PASSWORD"] = local_secret(SECRETS_FILE, "graph_password", length=24)

if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]{0,62}", MEMORIA_GRAPH["DATABASE"]):
    raise ImproperlyConfigured(f"MEMORIA_GRAPH_DATABASE={MEMORIA_GRAPH['DATABASE']!r} must be a plain database name")

MEMORIA_EXTRA_ENTITY_LABELS = env_list("MEMORIA_EXTRA_ENTITY_LABELS", [])
for _label in MEMORIA_EXTRA_ENTITY_LABELS:
    if not re.fullmatch(r"[A-Z][A-Za-z0-9]{0,63}", _label):
        raise ImproperlyConfigured(
            f"MEMORIA_EXTRA_ENTITY_LABELS: {_label!r} must be a CamelCase identifier (letters and digits)"
        )

# The embedding model: unset → the packaged all-MiniLM-L6-v2 (its weights pinned in memoria/embeddings.py);
# otherwise a local sentence-transformers folder, pinned when MEMORIA_EMBEDDING_SHA256 gives its weights' digest.
MEMORIA_EMBEDDING_MODEL = env_str("MEMORIA_EMBEDDING_MODEL", "")
MEMORIA_EMBEDDING_SHA256 = env_str("MEMORIA_EMBEDDING_SHA256", "").lower()
# How the model runs: torch, onnx (ONNX Runtime: the same vectors), openvino (bfloat16 where the CPU has it: within
# cosine 0.9999, the same recall, the same model id) or onnx-int8 (int8 weights: other vectors, so another model
# id); empty: memoria.embeddings.DEFAULT_BACKEND. Changing it to or from onnx-int8, or the model, calls for `reindex`.
MEMORIA_EMBEDDING_BACKEND = env_str("MEMORIA_EMBEDDING_BACKEND", "")
# Texts in one run of the model at most; a run also stops at memoria.embeddings.TOKENS_PER_RUN padded tokens.
MEMORIA_EMBEDDING_BATCH = env_int("MEMORIA_EMBEDDING_BATCH", 64, minimum=1, maximum=4096)
# Optional: a local sentence-transformers cross-encoder folder for the search reranker `cross_encoder`.
MEMORIA_CROSS_ENCODER_MODEL = env_str("MEMORIA_CROSS_ENCODER_MODEL", "")

# Optional LLM: any OpenAI-compatible chat-completions server; URL or model unset → every step runs offline.
MEMORIA_LLM_URL = env_str("MEMORIA_LLM_URL", "")
MEMORIA_LLM_MODEL = env_str("MEMORIA_LLM_MODEL", "")
MEMORIA_LLM_API_KEY = env_str("MEMORIA_LLM_API_KEY", "")
# Seconds an LLM answer may take, the one default (memoria/llm/client.py reads it, never a copy).
MEMORIA_LLM_TIMEOUT = env_int("MEMORIA_LLM_TIMEOUT", 60, minimum=1, maximum=3600)

# PPR's in-memory projections (docs/ppr.md): how long a request waits for a first load, the most edges one process
# holds across groups before the least recently used projection is dropped, and threads per whole-graph multiply.
MEMORIA_PROJECTION_WAIT_SECONDS = env_int("MEMORIA_PROJECTION_WAIT_SECONDS", 10, maximum=3600)
MEMORIA_PROJECTION_MAX_EDGES = env_int("MEMORIA_PROJECTION_MAX_EDGES", 5_000_000, minimum=1, maximum=2**31)
# Bytes of search views (texts, BM25 indexes, vectors) kept per process: memoria/readmodel/cache.py.
MEMORIA_VIEW_MAX_BYTES = env_int("MEMORIA_VIEW_MAX_BYTES", DEFAULT_VIEW_MAX_BYTES, minimum=1, maximum=2**40)
# 2 splits whole-graph multiplies over two cores (docs/ppr.md).
MEMORIA_PPR_THREADS = env_int("MEMORIA_PPR_THREADS", 1, minimum=1, maximum=64)
# Background jobs (docs/api.md, "Jobs"): threads of the server process that run them; a pause at each progress
# step slows every job down on purpose, for demos and tests that need time to watch or cancel one (0: none).
MEMORIA_JOB_WORKERS = env_int("MEMORIA_JOB_WORKERS", 2, minimum=1, maximum=32)
MEMORIA_JOB_STEP_PAUSE_MS = env_int("MEMORIA_JOB_STEP_PAUSE_MS", 0, maximum=60_000)
# Above this many items the synchronous import, export and community build answer 413 use_a_job
# (memoria/jobs/request_limits.py): the work runs as a background job instead.
MEMORIA_SYNC_MAX_ITEMS = env_int("MEMORIA_SYNC_MAX_ITEMS", 10_000, minimum=1, maximum=10_000_000)
# The Activation engine of requests that name none (docs/retrieval.md, Engines): auto, cypher or view; empty: auto.
MEMORIA_ACTIVATION_ENGINE = env_str("MEMORIA_ACTIVATION_ENGINE", "")

# Requests per user on the expensive endpoints (docs/retrieval.md, Throttling): "N/second|minute|hour|day", or
# "off". Retrieval covers REST and websocket runs of activation and PPR; ingest covers episodes and imports.
MEMORIA_THROTTLE_RATES: dict[str, str | None] = {
    "retrieval": env_str("MEMORIA_THROTTLE_RETRIEVAL", "120/minute"),
    "search": env_str("MEMORIA_THROTTLE_SEARCH", "600/minute"),
    "ingest": env_str("MEMORIA_THROTTLE_INGEST", "60/minute"),
}
for _scope, _rate in MEMORIA_THROTTLE_RATES.items():
    if _rate.lower() == "off":
        MEMORIA_THROTTLE_RATES[_scope] = None
    elif not re.fullmatch(r"[1-9][0-9]{0,8}/(s|sec|second|m|min|minute|h|hour|d|day)", _rate):
        raise ImproperlyConfigured(
            f"MEMORIA_THROTTLE_{_scope.upper()}={_rate!r} must be N/second, N/minute, N/hour, N/day or off"
        )
# The budget of one retrieval (docs/retrieval.md, Budget): wall time, and graph rows read (activation: candidate
# edges matched; PPR: transitions its multiplies read). A request may ask for less, never more.
MEMORIA_RETRIEVAL_MAX_SECONDS = env_int("MEMORIA_RETRIEVAL_MAX_SECONDS", DEFAULT_MAX_SECONDS, minimum=1, maximum=3600)
MEMORIA_RETRIEVAL_MAX_ROWS = env_int("MEMORIA_RETRIEVAL_MAX_ROWS", DEFAULT_MAX_ROWS, minimum=1, maximum=2**40)
MEMORIA_PPR_MAX_ROWS = env_int("MEMORIA_PPR_MAX_ROWS", DEFAULT_PPR_MAX_ROWS, minimum=1, maximum=2**40)

# Largest request body accepted (imports are the big ones).
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MEMORIA_MAX_REQUEST_BYTES", 50 * 1024 * 1024, maximum=2**31)
# The HTTP edge (memoria/serving.py, docs/operations.md "Slow and oversized requests"): seconds a request's line and
# headers may take from its first byte, and its body once the headers are in (408 past either); seconds a kept-alive
# connection may sit idle; the longest request line (414) and the most header bytes (431). A body past
# MEMORIA_MAX_REQUEST_BYTES is refused (413) as soon as its headers say so, before it is read.
MEMORIA_HTTP_HEADER_TIMEOUT = env_int("MEMORIA_HTTP_HEADER_TIMEOUT", 10, minimum=1, maximum=3600)
MEMORIA_HTTP_BODY_TIMEOUT = env_int("MEMORIA_HTTP_BODY_TIMEOUT", 60, minimum=1, maximum=24 * 3600)
MEMORIA_HTTP_IDLE_TIMEOUT = env_int("MEMORIA_HTTP_IDLE_TIMEOUT", 60, minimum=1, maximum=3600)
MEMORIA_MAX_REQUEST_LINE_BYTES = env_int("MEMORIA_MAX_REQUEST_LINE_BYTES", 16 * 1024, minimum=1024, maximum=1024**2)
MEMORIA_MAX_HEADER_BYTES = env_int("MEMORIA_MAX_HEADER_BYTES", 16 * 1024, minimum=1024, maximum=1024**2)
# Whether daphne trusts X-Forwarded-For / -Proto / -Port (the client's address for sign-in lockouts and logs): only
# behind a proxy that sets them, or any client could pick its own address.
MEMORIA_PROXY_HEADERS = env_bool("MEMORIA_PROXY_HEADERS", False)
# Largest file a loader command reads (memoria/interchange/jsontext.py, docs/import-format.md).
MEMORIA_MAX_FILE_BYTES = env_int("MEMORIA_MAX_FILE_BYTES", DEFAULT_MAX_FILE_BYTES, minimum=1024, maximum=2**40)
# Largest websocket message a consumer reads (docs/websocket.md); daphne itself drops the connection past 1 MiB.
MEMORIA_WS_MAX_MESSAGE_BYTES = env_int("MEMORIA_WS_MAX_MESSAGE_BYTES", 64 * 1024, minimum=1024, maximum=1024 * 1024)

# /healthz (docs/operations.md): how long each component's check may take before it counts as down.
MEMORIA_HEALTH_TIMEOUT_SECONDS = env_int("MEMORIA_HEALTH_TIMEOUT_SECONDS", 10, minimum=1, maximum=300)

# Logs (docs/operations.md): JSON lines by default, plain text with MEMORIA_LOG_FORMAT=plain; every line carries the
# request / retrieval id it belongs to. Each Cypher round trip logs at DEBUG on memoria.cypher (MEMORIA_LOG_CYPHER=1
# shows them), and at WARNING when it takes MEMORIA_SLOW_CYPHER_MS or longer.
MEMORIA_LOG_FORMAT = env_str("MEMORIA_LOG_FORMAT", "json")
if MEMORIA_LOG_FORMAT not in ("json", "plain"):
    raise ImproperlyConfigured(f"MEMORIA_LOG_FORMAT={MEMORIA_LOG_FORMAT!r} must be json or plain")
MEMORIA_SLOW_CYPHER_MS = env_int("MEMORIA_SLOW_CYPHER_MS", DEFAULT_SLOW_CYPHER_MS, minimum=1, maximum=3_600_000)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"context_ids": {"()": "memoria.observability.ContextIdsFilter"}},
    "formatters": {
        "json": {"()": "memoria.observability.JsonLinesFormatter"},
        "plain": {"()": "memoria.observability.PlainFormatter"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": MEMORIA_LOG_FORMAT, "filters": ["context_ids"]}
    },
    "root": {"handlers": ["console"], "level": env_str("MEMORIA_LOG_LEVEL", "INFO")},
    "loggers": {
        "neo4j": {"level": "WARNING"},
        "memoria.cypher": {"level": "DEBUG" if env_bool("MEMORIA_LOG_CYPHER", False) else "WARNING"},
    },
}
