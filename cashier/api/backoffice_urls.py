"""Routes of the regulatory back office (issue 26) under /api/: tips (tronc)."""

from django.urls import path

from core import converters  # noqa: F401  registers <id:>, <code:>, <name:>, <serial:>, <day:>

from . import tronc

REPORTS = [
    ("tips-book", tronc.TipsBookReport),
    ("tronc-shares", tronc.TroncSharesReport),
]

urlpatterns = [
    path("tronc/counts", tronc.TipsCount.as_view(), name="tips-count"),
    path("tronc/shares", tronc.TroncShare.as_view(), name="tronc-share"),
]
for slug, view in REPORTS:
    urlpatterns += [
        path(f"reports/{slug}", view.as_view(), name=f"report-{slug}"),
        path(f"reports/{slug}.csv", view.as_view(), {"csv": True}, name=f"report-{slug}-csv"),
    ]
