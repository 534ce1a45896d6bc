"""``GET /api/schema/``: the OpenAPI document, generated and rendered once per process.

Generating it walks every view (about 0.5 s) and rendering its half megabyte of YAML or JSON
takes a quarter of a second more; the document depends on the code alone, which does not
change while the process runs. So each process keeps the bytes it sent, per version,
language and media type asked. Apart from ``core.schema``, which ``DEFAULT_SCHEMA_CLASS``
imports while drf-spectacular's views are still loading (importing them there is circular).
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SCHEMA_KWARGS, SpectacularAPIView
from rest_framework.response import Response


class CachedSchemaView(SpectacularAPIView):
    """``SpectacularAPIView`` answering from the bytes it rendered first (module docstring)."""

    _rendered: dict[tuple, tuple[bytes, str, str]] = {}  # key → (content, Content-Type, Content-Disposition)

    def _key(self, request) -> tuple:
        version = self.api_version or request.version or self._get_version_parameter(request)
        lang = request.GET.get("lang") or ""
        return (version, lang, self.urlconf, self.serve_public, getattr(request, "accepted_media_type", ""))

    @extend_schema(**SCHEMA_KWARGS)  # as the parent's: the schema leaves itself out (SERVE_INCLUDE_SCHEMA)
    def get(self, request, *args, **kwargs):
        hit = self._rendered.get(self._key(request))
        if hit is None:
            return super().get(request, *args, **kwargs)
        content, content_type, disposition = hit
        response = HttpResponse(content, content_type=content_type)
        response["Content-Disposition"] = disposition
        return response

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if isinstance(response, Response) and response.status_code == 200:
            response.render()
            self._rendered[self._key(request)] = (
                response.content,
                response["Content-Type"],
                response.get("Content-Disposition", ""),
            )
        return response
