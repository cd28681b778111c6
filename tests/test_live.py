"""Every feed of a group's watch channel reaches a handler of the watch consumer: the channel layer calls the method
named by the message type (a dot read as an underscore), and a type with no such method would end the socket."""

from __future__ import annotations

import uuid

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

from explorer.consumers import WatchConsumer
from memoria.live import CurationChanged, Feed, JobChanged, feed_of, publish_from_thread, watch_channel_group
from memoria.retrieval.event_types import Algorithm, RetrievalFinished, RetrievalStarted
from memoria.retrieval.journal import retrieval_journal


def test_the_watch_consumer_handles_every_feed() -> None:
    handlers = {feed: getattr(WatchConsumer, feed.value.replace(".", "_"), None) for feed in Feed}
    assert [feed for feed, handler in handlers.items() if not callable(handler)] == []
    assert {feed.value for feed in Feed} == {"retrieval.event", "curation.event", "job.event"}


def test_each_event_class_names_its_feed() -> None:
    """The feed follows from what was published, so no caller can send a job's event down the retrieval feed."""
    assert feed_of(RetrievalFinished(retrieval_id="r", status="completed")) is Feed.RETRIEVAL
    assert feed_of(CurationChanged(group="g", entry={}, nodes={}, edges={})) is Feed.CURATION
    assert feed_of(JobChanged(job={"id": "j"})) is Feed.JOB


def test_publish_sends_the_frame_once_built_and_journals_only_retrievals() -> None:
    group = f"live-{uuid.uuid4().hex[:8]}"
    layer = get_channel_layer()
    channel = async_to_sync(layer.new_channel)()
    async_to_sync(layer.group_add)(watch_channel_group(group), channel)
    started = RetrievalStarted(
        retrieval_id="r1", algorithm=Algorithm.PPR, group=group, seeds=[], params={}, budget={}, time=None
    )
    job = JobChanged(job={"id": "j1", "state": "running"})
    for event in (started, job):
        publish_from_thread(group, event)
    received = [async_to_sync(layer.receive)(channel) for _ in range(2)]
    assert received == [
        {"type": "retrieval.event", "event": started.frame()},
        {"type": "job.event", "event": {"type": "job", "job": {"id": "j1", "state": "running"}}},
    ]
    assert received[0]["event"]["type"] == "retrieval_started" and "query_tags" not in received[0]["event"]
    assert [run["retrieval_id"] for run in retrieval_journal.runs(group)] == ["r1"]
