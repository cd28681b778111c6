"""Websocket URL map."""

from django.urls import path

from explorer import consumers

websocket_urlpatterns = [
    path("ws/health/", consumers.HealthConsumer.as_asgi()),
    path("ws/retrievals/", consumers.RetrievalConsumer.as_asgi()),
    path("ws/retrievals/watch/", consumers.WatchConsumer.as_asgi()),
]
