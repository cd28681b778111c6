"""Top-level URL map: the explorer's pages, the REST API, sign-in, Django's admin and the load balancer's /healthz."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from memoria.api.healthz_views import healthz

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("healthz", healthz, name="healthz"),
    # Pages link the icon; what asks for /favicon.ico anyway (the API docs, a bookmark) is sent there.
    path("favicon.ico", RedirectView.as_view(url=static("favicon.svg"), permanent=True)),
    path("api/", include("explorer.api_urls")),  # the explorer's saved views, beside the API below
    path("api/", include("memoria.api.urls")),
    path("admin/", admin.site.urls),
    path("", include("explorer.urls")),
]
handler404 = "memoria.api.handlers.page_not_found"
