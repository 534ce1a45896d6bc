"""Routes of the suspicion cases (under /api/)."""

from django.urls import path

from core import converters  # noqa: F401  registers <id:>, <code:>, <name:>, <serial:>, <day:>

from . import cases

urlpatterns = [
    path("compliance/cases/", cases.CaseList.as_view(), name="case-list"),
    path("compliance/cases/open", cases.CaseOpen.as_view(), name="case-open"),
    path("compliance/cases/<code:case>/", cases.CaseDetail.as_view(), name="case-detail"),
    path("compliance/cases/<code:case>/transactions", cases.CaseAttach.as_view(), name="case-attach"),
    path("compliance/cases/<code:case>/findings", cases.CaseFindings.as_view(), name="case-findings"),
    path("compliance/cases/<code:case>/decision", cases.CaseDecision.as_view(), name="case-decision"),
    path("compliance/cases/<code:case>/filing", cases.CaseFiling.as_view(), name="case-filing"),
]
