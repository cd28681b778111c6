"""The explorer's pages. Node ids may hold '/', so they are matched as paths."""

from django.urls import path

from explorer import views

app_name = "explorer"
urlpatterns = [
    path("", views.home, name="home"),
    path("group/", views.switch_group, name="switch-group"),
    path("search/", views.search_page, name="search"),
    path("search/export", views.search_export, name="search-export"),
    path("help/", views.help_page, name="help"),
    path("g/<str:group>/entities/<path:node_id>/", views.entity_view, name="entity"),
    path("g/<str:group>/episodes/<path:node_id>/", views.episode_view, name="episode"),
    path("g/<str:group>/communities/<path:node_id>/", views.community_view, name="community"),
    path("g/<str:group>/graph/", views.graph_view, name="graph"),
    path("g/<str:group>/live/", views.live_view, name="live"),
    path("g/<str:group>/watch/", views.watch_view, name="watch"),
    path("g/<str:group>/audit/", views.audit_view, name="audit"),
    path("g/<str:group>/jobs/", views.jobs_view, name="jobs"),
]
