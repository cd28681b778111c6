"""An audit entry waits for SQLite's write lock held by another curation's commit, rather than failing at once; so
does a transaction that reads before it writes (a job's start)."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest
from django.db import connection, transaction

from memoria.curation.models import AuditEntry

HELD_SECONDS = 6.0  # past SQLite's default wait of 5 s
SHORT_HOLD_SECONDS = 2.0


@pytest.mark.django_db(transaction=True)
def test_an_audit_entry_waits_for_a_commit_that_holds_the_lock() -> None:
    # Another process's curation: its SQL transaction is open while its graph write commits.
    other = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(HELD_SECONDS, lambda: other.execute("COMMIT"))
    started = time.monotonic()
    release.start()
    try:
        entry = AuditEntry.objects.create(
            group="lock", actor="c", action="edge.update", item_kind="edge", item_id="e", before={}, after={}
        )
    finally:
        release.join()
        other.close()
    assert time.monotonic() - started >= HELD_SECONDS - 0.5
    assert AuditEntry.objects.filter(pk=entry.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_a_transaction_that_reads_then_writes_waits_for_the_lock() -> None:
    # Deferred, its read would take a shared lock and its write then fail at once: SQLite does not wait to upgrade
    # a reader while another connection holds the write lock.
    other = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(SHORT_HOLD_SECONDS, lambda: other.execute("COMMIT"))
    started = time.monotonic()
    release.start()
    try:
        with transaction.atomic():
            assert AuditEntry.objects.filter(group="lock-upgrade").first() is None
            AuditEntry.objects.create(
                group="lock-upgrade",
                actor="c",
                action="edge.update",
                item_kind="edge",
                item_id="e",
                before={},
                after={},
            )
    finally:
        release.join()
        other.close()
    assert time.monotonic() - started >= SHORT_HOLD_SECONDS - 0.5
    assert AuditEntry.objects.filter(group="lock-upgrade").count() == 1
