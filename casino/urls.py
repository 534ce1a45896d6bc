"""URL map: the API under /api/, OpenAPI schema and docs, admin."""

from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularSwaggerView

from core.schema_view import CachedSchemaView
from dashboard import views as dashboard_views

from .metrics import metrics_view

api = [
    path("", include("games.api.urls")),  # first: bet placement is most of the traffic
    path("", include("patrons.api.urls")),
    path("", include("cashier.api.urls")),
    path("", include("approvals.api.urls")),  # approvals, and the acts that wait for one
    path("", include("audit.api.urls")),
    path("", include("compliance.api.urls")),  # suspicion cases: the compliance role only
    path("schema/", CachedSchemaView.as_view(), name="schema"),  # generated once per process
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
]

handler404 = "dashboard.errors.not_found"  # the site's page; JSON under /api/ (core.errors)
handler403 = "dashboard.errors.permission_denied"
handler400 = "core.errors.bad_request"
handler500 = "core.errors.server_error"  # a database out of reach before any view: 503, not 500

urlpatterns = [
    path("", dashboard_views.home, name="home"),  # each role's own page; the logins for a visitor
    path("dashboard/", include("dashboard.urls")),
    path("workstations/", include("workstations.urls")),  # the cage and the auditor
    path("api/", RedirectView.as_view(pattern_name="docs")),
    path("accounts/", include("staff.urls")),  # one's own password (after a change by two admins)
    path("admin/", admin.site.urls),
    path("api/", include(api)),
    path("api/staff/", include("staff.api.urls")),  # assignments, device tokens, role changes
    path("api/auth/", include("rest_framework.urls")),  # session login/logout for people
    path("metrics", metrics_view, name="metrics"),  # Prometheus: allowed addresses or a token
]
