"""URL map of the REST API."""

from django.urls import path

from memoria.api import browse_views, curation_views, episode_views, job_views, search_views, views
from memoria.api.community_views import GroupCommunitiesView
from memoria.api.context_views import ContextView
from memoria.api.graph_views import (
    GraphEdgeExistsView,
    GraphEdgesView,
    GraphNodeEdgesView,
    GraphNodeView,
    GraphRelatedView,
    GraphStatsView,
    GraphWalkView,
)
from memoria.api.ppr_views import PprRetrievalView
from memoria.api.schema_views import SchemaView, docs_page

urlpatterns = [
    path("health", views.HealthView.as_view(), name="api-health"),
    path("me", views.MeView.as_view(), name="api-me"),
    path("groups", views.GroupListView.as_view(), name="api-groups"),
    path("context", ContextView.as_view(), name="api-context"),
    path("groups/<str:group>/import", views.GroupImportView.as_view(), name="api-group-import"),
    path("groups/<str:group>/export", views.GroupExportView.as_view(), name="api-group-export"),
    path("groups/<str:group>/episodes", episode_views.GroupEpisodesView.as_view(), name="api-group-episodes"),
    path("groups/<str:group>/communities", GroupCommunitiesView.as_view(), name="api-group-communities"),
    # Background jobs (docs/api.md, "Jobs").
    path("groups/<str:group>/jobs", job_views.JobListView.as_view(), name="api-group-jobs"),
    path("groups/<str:group>/jobs/communities", job_views.CommunitiesJobView.as_view(), name="api-job-communities"),
    path("groups/<str:group>/jobs/reindex", job_views.ReindexJobView.as_view(), name="api-job-reindex"),
    path("groups/<str:group>/jobs/import", job_views.ImportJobView.as_view(), name="api-job-import"),
    path("groups/<str:group>/jobs/export", job_views.ExportJobView.as_view(), name="api-job-export"),
    path("groups/<str:group>/jobs/<uuid:job_id>", job_views.JobView.as_view(), name="api-job"),
    path("groups/<str:group>/jobs/<uuid:job_id>/cancel", job_views.JobCancelView.as_view(), name="api-job-cancel"),
    path("groups/<str:group>/jobs/<uuid:job_id>/result", job_views.JobResultView.as_view(), name="api-job-result"),
    # Curation (docs/curation.md). Ids may hold '/', so the longer patterns come first.
    path(
        "groups/<str:group>/edges/<path:edge_id>/invalidate",
        curation_views.GroupEdgeInvalidateView.as_view(),
        name="api-group-edge-invalidate",
    ),
    path("groups/<str:group>/edges/<path:edge_id>", curation_views.GroupEdgeView.as_view(), name="api-group-edge"),
    path("groups/<str:group>/edges", curation_views.GroupEdgesView.as_view(), name="api-group-edges"),
    path(
        "groups/<str:group>/entities/<path:entity_id>/merge",
        curation_views.GroupEntityMergeView.as_view(),
        name="api-group-entity-merge",
    ),
    path("groups/<str:group>/audit", curation_views.GroupAuditView.as_view(), name="api-group-audit"),
    path(
        "groups/<str:group>/audit/<int:entry_id>/undo",
        curation_views.GroupAuditUndoView.as_view(),
        name="api-group-audit-undo",
    ),
    # Graph view reads (docs/explorer.md); node ids may hold '/', so the longer pattern comes first.
    path(
        "groups/<str:group>/nodes/<path:node_id>/neighbours",
        browse_views.NeighbourhoodView.as_view(),
        name="api-group-node-neighbours",
    ),
    path("groups/<str:group>/nodes/<path:node_id>", browse_views.NodeDetailView.as_view(), name="api-group-node"),
    path("groups/<str:group>/nodes", browse_views.NodeCardsView.as_view(), name="api-group-nodes"),
    path("groups/<str:group>/subgraph", browse_views.SubgraphView.as_view(), name="api-group-subgraph"),
    path("groups/<str:group>/paths", browse_views.PathView.as_view(), name="api-group-paths"),
    # The graph index (docs/graph-index.md); node ids may hold '/', so the bare node pattern comes last.
    path("graph/<str:group>/edges/exists", GraphEdgeExistsView.as_view(), name="api-graph-edge-exists"),
    path("graph/<str:group>/edges", GraphEdgesView.as_view(), name="api-graph-edges"),
    path("graph/<str:group>/stats", GraphStatsView.as_view(), name="api-graph-stats"),
    path(
        "graph/<str:group>/nodes/<path:node_id>/outgoing",
        GraphNodeEdgesView.as_view(direction="outgoing"),
        name="api-graph-outgoing",
    ),
    path(
        "graph/<str:group>/nodes/<path:node_id>/incoming",
        GraphNodeEdgesView.as_view(direction="incoming"),
        name="api-graph-incoming",
    ),
    path(
        "graph/<str:group>/nodes/<path:node_id>/related",
        GraphRelatedView.as_view(),
        name="api-graph-related",
    ),
    path("graph/<str:group>/nodes/<path:node_id>/traverse", GraphWalkView.as_view(), name="api-graph-traverse"),
    path("graph/<str:group>/nodes/<path:node_id>", GraphNodeView.as_view(), name="api-graph-node"),
    path("retrieval/activation", views.ActivationRetrievalView.as_view(), name="api-retrieval-activation"),
    path("retrieval/ppr", PprRetrievalView.as_view(), name="api-retrieval-ppr"),
    path("search", search_views.SearchView.as_view(), name="api-search"),
    path("search/suggest", search_views.SuggestView.as_view(), name="api-search-suggest"),
    path("schema/", SchemaView.as_view(), name="api-schema"),
    path("docs/", docs_page, name="api-docs"),
]
