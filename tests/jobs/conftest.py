"""The API clients of tests/api, for the job tests."""

from tests.api.conftest import client_for  # noqa: F401 - the fixture
