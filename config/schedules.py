"""Periodic tasks, declared in code: each app may define ``<app>/schedules.py`` with a ``BEAT_SCHEDULE`` dict
(Celery's beat_schedule format). Django's ``autodiscover_modules`` imports them from every installed app;
they are merged here (a duplicate name is an error) and synced into django-celery-beat's tables at beat start."""

from __future__ import annotations

import sys
from typing import Any

from django.apps import apps
from django.utils.module_loading import autodiscover_modules


def collect() -> dict[str, Any]:
    autodiscover_modules("schedules")
    schedule: dict[str, Any] = {}
    for config in apps.get_app_configs():
        module = sys.modules.get(f"{config.name}.schedules")
        for name, entry in getattr(module, "BEAT_SCHEDULE", {}).items():
            if name in schedule:
                raise RuntimeError(f"duplicate periodic task name {name!r}")
            schedule[name] = entry
    return schedule
