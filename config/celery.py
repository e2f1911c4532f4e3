"""The Celery app.

Tasks are ``core.taskbase.PlatformTask``, Celery's ``DjangoTask`` (``task.delay_on_commit(...)`` enqueues after the
transaction commits) with a broker's refusal after the commit logged instead of answered (core/taskbase.py). Periodic tasks are declared in code, ``BEAT_SCHEDULE`` in each app's ``schedules.py``,
collected with Django's ``autodiscover_modules`` (``config/schedules.py``) and synced into
django-celery-beat's tables when beat starts.
"""
import os
from pathlib import Path

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("platform", task_cls="core.taskbase:PlatformTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_configure.connect
def _configure(sender: Celery, **kwargs: object) -> None:
    from django.conf import settings

    from config.schedules import collect

    if settings.CELERY_BROKER_URL.startswith("filesystem"):
        # kombu's filesystem transport needs its folders; made here (first use of Celery), not on settings import.
        for folder in ("queue", "processed", "control"):
            (Path(settings.CELERY_FS_BROKER_DIR) / folder).mkdir(parents=True, exist_ok=True)
    sender.conf.beat_schedule = collect()
