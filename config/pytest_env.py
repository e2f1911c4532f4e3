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

# Each pytest-xdist worker (PYTEST_XDIST_WORKER, set before this runs) and each run has folders of its own for what
# the settings keep on disk (uploads, the filesystem broker, the development seal, the regulator's packages), so no
# two workers share a file; the children the tests start inherit them. Its test database is pytest-django's
# ``test_<name>_<worker>``.
import atexit
import shutil
import tempfile

_worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
_root = tempfile.mkdtemp(prefix=f"platform-tests-{_worker}-")
atexit.register(shutil.rmtree, _root, ignore_errors=True)  # removed when the run ends
for _name, _folder in (
    ("MEDIA_ROOT", "media"),
    ("CELERY_FS_BROKER_DIR", "broker"),
    ("REPORTS_DEV_SEAL_DIR", "dev-seal"),
    ("REGULATOR_PACKAGE_DIR", "regulator"),
):
    os.environ.setdefault(_name, os.path.join(_root, _folder))
