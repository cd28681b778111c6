"""The explorer's pages."""

from django.urls import path

from explorer import views

app_name = "explorer"
urlpatterns = [
    path("", views.home, name="home"),
]
