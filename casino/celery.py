"""Celery application.

With no ``CELERY_BROKER_URL`` in the environment tasks run eagerly in-process
(``task_always_eager``), so the demo needs no broker; CI and production point it at
RabbitMQ (or Redis). DESIGN.md §Projections.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")

app = Celery("casino")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
