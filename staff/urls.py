"""The person's own account pages, under ``/accounts/`` (casino/urls.py)."""

from django.urls import path

from . import views

app_name = "staff"

urlpatterns = [
    path("password/", views.PasswordChange.as_view(), name="password-change"),
]
