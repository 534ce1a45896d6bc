"""The runner's page: what a runner does and where he does it. He carries fills and credits;
his one act, signing for the chips the cage issued to him, is an approval signed through the
API, so the page says so in words and links there (no screen of his own to work from)."""

from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.http import require_safe

from .access import RUNNER_ROLES, roles_required


@require_safe
@roles_required(*RUNNER_ROLES, place="runner's")
def runner(request):
    return render(request, "workstations/runner.html")
