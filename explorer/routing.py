"""Websocket URL map."""

from django.urls import path

from explorer import consumers

websocket_urlpatterns = [
    path("ws/health/", consumers.HealthConsumer.as_asgi()),
]
