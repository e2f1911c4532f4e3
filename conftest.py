"""Project-wide pytest setup: tests run on PostgreSQL (DATABASE_URL or the embedded one)."""
import os

os.environ.setdefault("TESTING", "1")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "0")
