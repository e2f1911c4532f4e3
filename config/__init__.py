import django_stubs_ext

from .celery import app as celery_app

# Django's generic classes (QuerySet[Model], ModelAdmin[Model], Field[...]) subscriptable at run time, as the type
# checker sees them, so annotations need no string quoting or ``# type: ignore``. Before the settings load.
django_stubs_ext.monkeypatch()

__all__ = ("celery_app",)
