"""The password page: a person chooses his own new password (after a reset by two admins, the
temporary one is his current password). Reached from either login form: the middleware sends
him here before any other page while ``PasswordChangeDue`` holds."""

from __future__ import annotations

from django.contrib.auth import update_session_auth_hash
from django.contrib.auth import views as auth_views
from django.utils.http import url_has_allowed_host_and_scheme

from ledger.errors import DomainError

from .accounts import password_change_due, staff_password_change


class PasswordChange(auth_views.PasswordChangeView):
    template_name = "staff/password_change.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["due"] = password_change_due(self.request.user)
        context["next"] = self._next()
        return context

    def _next(self) -> str:
        wanted = self.request.POST.get("next") or self.request.GET.get("next") or ""
        safe = url_has_allowed_host_and_scheme(wanted, allowed_hosts={self.request.get_host()})
        return wanted if safe and wanted.startswith("/") and not wanted.startswith("/accounts/") else "/"

    def form_valid(self, form):
        # The form checked the old password and the validators; the service records the change
        # (``StaffPasswordChanged``) and lifts the requirement, in one command.
        try:
            staff_password_change(
                user=self.request.user,
                old_password=form.cleaned_data["old_password"],
                new_password=form.cleaned_data["new_password1"],
            )
        except DomainError as exc:
            field = {"old_password": "old_password", "new_password": "new_password1"}.get(exc.field or "", None)
            form.add_error(field, exc.message)
            return self.form_invalid(form)
        update_session_auth_hash(self.request, self.request.user)
        self.success_url = self._next()
        return super(auth_views.PasswordChangeView, self).form_valid(form)
