"""The Celery app.

Tasks are ``core.taskbase.PlatformTask``, Celery's ``DjangoTask`` (``task.delay_on_commit(...)`` enqueues after the
transaction commits) with a broker's refusal after the commit logged instead of answered (core/taskbase.py). Periodic
tasks are declared in code, ``BEAT_SCHEDULE`` in each app's ``schedules.py``,
collected with Django's ``autodiscover_modules`` (``config/schedules.py``) and synced into
django-celery-beat's tables when beat starts.
"""

import os

from celery import Celery
from django.apps import apps
from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("platform", task_cls="core.taskbase:PlatformTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _install_schedule(sender: Celery) -> None:
    """The periodic tasks of every app (``<app>/schedules.py``) into ``beat_schedule``, once Django's apps are loaded.

    ``celery beat`` reads the configuration (its command-line defaults) before the Django fixup loads the apps; a
    schedule collected then would fail or come out empty, and beat would run NO deadline job. So it is (re)installed
    when the app is finalized too, which beat and the worker do after Django's setup (config/tests: a real beat)."""
    from config.schedules import collect  # imports every app's schedules, so only once the apps are loaded

    if apps.ready:
        sender.conf.beat_schedule = collect()


@app.on_after_configure.connect
def _configure(sender: Celery, **kwargs: object) -> None:
    if settings.CELERY_BROKER_URL.startswith("filesystem"):
        # kombu's filesystem transport needs its folders; made here (first use of Celery), not on settings import.
        for folder in ("queue", "processed", "control"):
            (settings.CELERY_FS_BROKER_DIR / folder).mkdir(parents=True, exist_ok=True)
    _install_schedule(sender)


@app.on_after_finalize.connect
def _finalized(sender: Celery, **kwargs: object) -> None:
    _install_schedule(sender)
