"""Project-wide pytest setup: tests run on PostgreSQL, DATABASE_URL or the embedded one started here."""
import os

os.environ.setdefault("TESTING", "1")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "0")
if not os.environ.get("DATABASE_URL"):
    # No server given: start the embedded PostgreSQL (pgserver) and hand its URL to the settings and to the
    # child processes the tests start (a real Celery worker).
    from config.embedded_db import embedded_url

    os.environ["DATABASE_URL"] = embedded_url()
