"""Periodic tasks, declared in code. Each app may define ``<app>/schedules.py`` with a
``BEAT_SCHEDULE`` dict (Celery's beat_schedule format); they are merged here and synced
into django-celery-beat's tables when beat starts (DatabaseScheduler)."""
from __future__ import annotations

import importlib

APPS = ("core", "accounts", "wallet", "limits", "games", "jackpots", "complaints")


def collect() -> dict:
    schedule: dict = {}
    for app in APPS:
        try:
            module = importlib.import_module(f"{app}.schedules")
        except ModuleNotFoundError as exc:
            if exc.name != f"{app}.schedules":
                raise
            continue
        for name, entry in getattr(module, "BEAT_SCHEDULE", {}).items():
            if name in schedule:
                raise RuntimeError(f"duplicate periodic task name {name!r}")
            schedule[name] = entry
    return schedule
