"""URL map of the REST API."""

from django.urls import path
from drf_spectacular.views import SpectacularAPIView

from memoria.api import episode_views, search_views, views
from memoria.api.community_views import GroupCommunitiesView

urlpatterns = [
    path("health", views.HealthView.as_view(), name="api-health"),
    path("me", views.MeView.as_view(), name="api-me"),
    path("groups", views.GroupListView.as_view(), name="api-groups"),
    path("groups/<str:group>/import", views.GroupImportView.as_view(), name="api-group-import"),
    path("groups/<str:group>/export", views.GroupExportView.as_view(), name="api-group-export"),
    path("groups/<str:group>/episodes", episode_views.GroupEpisodesView.as_view(), name="api-group-episodes"),
    path("groups/<str:group>/communities", GroupCommunitiesView.as_view(), name="api-group-communities"),
    path("retrieval/activation", views.ActivationRetrievalView.as_view(), name="api-retrieval-activation"),
    path("search", search_views.SearchView.as_view(), name="api-search"),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
]
