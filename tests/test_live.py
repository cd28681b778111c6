"""Every feed of a group's watch channel reaches a handler of the watch consumer: the channel layer calls the method
named by the message type (a dot read as an underscore), and a type with no such method would end the socket."""

from __future__ import annotations

from explorer.consumers import WatchConsumer
from memoria.live import Feed


def test_the_watch_consumer_handles_every_feed() -> None:
    handlers = {feed: getattr(WatchConsumer, feed.value.replace(".", "_"), None) for feed in Feed}
    assert [feed for feed, handler in handlers.items() if not callable(handler)] == []
    assert {feed.value for feed in Feed} == {"retrieval.event", "curation.event", "job.event"}
