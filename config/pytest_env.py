"""The test environment, loaded by pytest before anything reads the settings (``-p config.pytest_env`` in
pyproject's addopts): pytest-django imports ``config.settings`` before the root ``conftest.py`` runs, so what the
settings read from the environment (TESTING: the fast password hasher; DATABASE_URL: the embedded PostgreSQL when no
server is given) must be set here. Child processes the tests start (a real Celery worker, gunicorn) inherit it."""
import os

os.environ.setdefault("TESTING", "1")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "0")
if not os.environ.get("DATABASE_URL"):
    # No server given: start the embedded PostgreSQL (pgserver) and hand its URL to the settings and to the
    # child processes the tests start.
    from config.embedded_db import embedded_url

    os.environ["DATABASE_URL"] = embedded_url()
