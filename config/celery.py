"""The Celery app. Periodic tasks are declared in code (``CELERY_BEAT_SCHEDULE``
entries contributed by each app's ``tasks.py`` through ``core.schedules``) and synced
into django-celery-beat's tables at beat start-up."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_after_configure.connect
def _install_schedule(sender, **kwargs):
    from config.schedules import collect

    sender.conf.beat_schedule = collect()
