"""The explorer's own REST endpoints, mounted under /api/ beside memoria.api's: saved views of the graph page
("perspectives", docs/explorer.md). They live with the explorer, whose model they serve, because memoria.api sits
below the explorer (docs/architecture.md) and may not import it."""

from django.urls import path

from explorer.perspective_api import GroupDefaultViewView, GroupViewsView, GroupViewView

urlpatterns = [
    path("groups/<str:group>/views", GroupViewsView.as_view(), name="api-group-views"),
    path("groups/<str:group>/views/default", GroupDefaultViewView.as_view(), name="api-group-view-default"),
    path("groups/<str:group>/views/<int:view_id>", GroupViewView.as_view(), name="api-group-view"),
]
