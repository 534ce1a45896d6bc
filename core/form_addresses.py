"""A form's address opened again: the page that refused a form is shown at the address the form
posted to (``/dashboard/tables/S1/limits``), so a reload or a bookmark asks that address with
GET, which only takes a POST. A person gets the page the form belongs to, not a blank 405."""

from django.http import HttpResponseRedirect
from django.urls import Resolver404, resolve

# The pages people work in; the API answers a 405 as APIs do.
PAGES = ("/dashboard/", "/workstations/")


def _page_above(path: str) -> str | None:
    """The nearest address above ``path`` that is a page (resolves to a view), or None."""
    parts = path.rstrip("/").split("/")
    while len(parts) > 2:
        parts.pop()
        candidate = "/".join(parts) + "/"
        try:
            resolve(candidate)
        except Resolver404:
            continue
        return candidate
    return None


class FormAddressMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.status_code != 405 or request.method != "GET" or not request.path.startswith(PAGES):
            return response
        above = _page_above(request.path)
        return HttpResponseRedirect(above) if above is not None else response
