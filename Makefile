# The two commands: `make run` starts the product, `make test` runs the whole suite.
PY := .venv/bin/python

.PHONY: run test lint install install-test stop loadtest-redis-deps

run: install
	$(PY) manage.py serve

test: install-test
	$(PY) -m ruff check .
	$(PY) -m mypy
	MEMORIA_CYPHER_CHECK=1 $(PY) -m pytest; status=$$?; [ $$status -ne 5 ] || echo "make test: pytest collected no tests" >&2; exit $$status

lint: install-test
	$(PY) -m ruff check .
	$(PY) -m mypy

install:
	scripts/bootstrap run

install-test:
	scripts/bootstrap test

stop:
	$(PY) manage.py graphdb stop

# `manage.py loadtest --layer redis` starts Debian's redis-server (docs/loadtest.md).
loadtest-redis-deps:
	apt-get update && apt-get install -y redis-server
