"""Celery: JSON only, time limits, tasks enqueued after commit (``task.delay_on_commit``). Without CELERY_BROKER_URL:
kombu's filesystem transport (no server; works across processes on one machine; its folders are made when the Celery
app is configured, config/celery.py). Production: amqp://... (RabbitMQ) or redis://..."""

from __future__ import annotations

from config.settings.base import BASE_DIR, env

env.area("Celery")
CELERY_FS_BROKER_DIR = env.path(
    "CELERY_FS_BROKER_DIR",
    BASE_DIR / ".data" / "broker",
    "the filesystem broker's folders (used without CELERY_BROKER_URL)",
)
CELERY_BROKER_URL = env.str(
    "CELERY_BROKER_URL",
    "filesystem://",
    "the Celery broker: amqp://user:pw@host:5672// (RabbitMQ) or redis://...; filesystem:// only outside production",
    required=True,
)
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {
        "data_folder_in": str(CELERY_FS_BROKER_DIR / "queue"),
        "data_folder_out": str(CELERY_FS_BROKER_DIR / "queue"),
        "processed_folder": str(CELERY_FS_BROKER_DIR / "processed"),
        "control_folder": str(CELERY_FS_BROKER_DIR / "control"),
        "store_processed": False,
    }
    if CELERY_BROKER_URL.startswith("filesystem")
    else {}
)
CELERY_RESULT_BACKEND = (
    env.str("CELERY_RESULT_BACKEND", "", "where task results are kept; empty: results are ignored") or None
)
CELERY_TASK_IGNORE_RESULT = CELERY_RESULT_BACKEND is None
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_ENABLE_UTC = True
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", 300, "seconds after which a task is killed")
CELERY_TASK_SOFT_TIME_LIMIT = env.int(
    "CELERY_TASK_SOFT_TIME_LIMIT",
    240,
    "seconds after which a task is asked to stop (re-enqueueing jobs stop before it)",
)
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env.bool(
    "CELERY_TASK_ALWAYS_EAGER", False, "run tasks inside the caller (no worker); refused in production"
)
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
