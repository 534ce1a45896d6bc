"""Refuse NUL characters in URLs and query strings before any view or query sees them
(PostgreSQL cannot compare text with NUL: it would be a 500)."""

from django.http import JsonResponse


class RejectNulMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if "\x00" in request.path:
            # No table, patron or round code contains NUL: there is no such resource.
            return JsonResponse({"error": "not_found", "detail": "no such resource"}, status=404)
        for name, values in request.GET.lists():
            if "\x00" in name or any("\x00" in value for value in values):
                message = "NUL characters are not allowed"
                return JsonResponse(
                    {"error": "invalid", "detail": message, "field": name, "errors": {name: [message]}}, status=400
                )
        return self.get_response(request)
