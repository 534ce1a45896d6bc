"""Routes of the patron registry, identity (AML) and self-limit (under /api/)."""

from django.urls import path

from core import converters  # noqa: F401  registers <id:>, <code:>, <name:>, <serial:>, <day:>

from . import comps, identity, patrons, self_limit

urlpatterns = [
    path("patrons/", patrons.PatronList.as_view(), name="patron-list"),
    path("patrons/register", patrons.PatronRegister.as_view(), name="patron-register"),
    path("patrons/<code:code>/", patrons.PatronDetail.as_view(), name="patron-detail"),
    path("patrons/<code:code>/self-limit", self_limit.PatronSelfLimit.as_view(), name="patron-self-limit"),
    path("patrons/<code:code>/pin", self_limit.PatronPinSet.as_view(), name="patron-pin"),
    path("patrons/<code:code>/comps", comps.PatronComps.as_view(), name="patron-comps"),
    path(
        "patrons/<code:code>/comps/<pos:position>/reverse",
        comps.PatronCompReverse.as_view(),
        name="patron-comp-reverse",
    ),
    path("patrons/<code:code>/identity", identity.PatronIdentityRecord.as_view(), name="patron-identity"),
]
