"""A task sent from this (web-side) process is executed by a real Celery worker through a real broker.

Brokers tried: the configured one (CI: RabbitMQ), Redis when TEST_REDIS_URL is reachable,
and always the server-less filesystem transport used by `make run` without a broker.
"""

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.db import connection

from core.models import TaskHeartbeat
from core.tasks import heartbeat, heartbeat_send

ROOT = Path(__file__).resolve().parents[2]


def _reachable(url: str) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=1):
            return True
    except OSError:
        return False


def _brokers(tmp_root: Path) -> list[tuple[str, str]]:
    found = [("filesystem", "filesystem://")]
    configured = os.environ.get("CELERY_BROKER_URL", "")
    if configured and not configured.startswith("filesystem") and _reachable(configured):
        found.append(("configured", configured))
    redis_url = os.environ.get("TEST_REDIS_URL", "")
    if redis_url and _reachable(redis_url) and redis_url != configured:
        found.append(("redis", redis_url))
    return found


@pytest.fixture
def worker_env(tmp_path):
    env = dict(os.environ)
    env["DATABASE_NAME"] = connection.settings_dict["NAME"]  # the test database
    env["CELERY_FS_BROKER_DIR"] = str(tmp_path / "broker")
    env.pop("CELERY_TASK_ALWAYS_EAGER", None)
    return env


def _start_worker(env: dict, broker: str, queue: str) -> subprocess.Popen:
    env = {**env, "CELERY_BROKER_URL": broker}
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-l",
            "warning",
            "--pool",
            "solo",
            "-Q",
            queue,
            "-n",
            f"test-{queue}@%h",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def transport_options(worker_env: dict, url: str) -> dict:
    """The filesystem transport's folders (created), shared by this process and the worker; {} for a real broker."""
    if not url.startswith("filesystem"):
        return {}
    base = worker_env["CELERY_FS_BROKER_DIR"]
    for d in ("queue", "processed", "control"):
        Path(base, d).mkdir(parents=True, exist_ok=True)
    return {
        "data_folder_in": f"{base}/queue",
        "data_folder_out": f"{base}/queue",
        "processed_folder": f"{base}/processed",
        "control_folder": f"{base}/control",
    }


def stop_worker(proc: subprocess.Popen) -> str:
    """Stop a worker started by ``_start_worker`` and return the end of its output."""
    proc.terminate()
    try:
        out: str = proc.communicate(timeout=20)[0].decode(errors="replace")
    except subprocess.TimeoutExpired:
        proc.kill()
        out = proc.communicate()[0].decode(errors="replace")
    return out[-3000:]


@pytest.mark.worker
@pytest.mark.filterwarnings("ignore:task_always_eager has no effect on send_task")
@pytest.mark.django_db(transaction=True)
def test_a_task_sent_from_the_web_process_runs_in_a_real_worker_on_each_reachable_broker(worker_env, tmp_path):
    from config.celery import app

    ran = {}
    for name, url in _brokers(tmp_path):
        queue = f"test-{uuid.uuid4().hex[:8]}"
        proc = _start_worker(worker_env, url, queue)
        try:
            marker = f"{name}-{uuid.uuid4().hex[:12]}"
            TaskHeartbeat.objects.create(marker=marker, sent_at=__import__("core.clock").clock.now())
            with app.connection_for_write(url, transport_options=transport_options(worker_env, url)) as conn:
                # send_task: always sent to the broker; the tests' CELERY_TASK_ALWAYS_EAGER made apply_async run the
                # task here, in this process, so the worker was never needed for the row to be marked
                app.send_task(heartbeat.name, args=(marker,), queue=queue, connection=conn)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                hb = TaskHeartbeat.objects.get(marker=marker)
                if hb.ran_at:
                    break
                time.sleep(0.2)
            ran[name] = hb.ran_at is not None
        finally:
            out = stop_worker(proc)
        assert ran[name], f"worker on {name} did not run the task; worker output:\n{out}"
    print(f"brokers exercised: {sorted(ran)}")


@pytest.mark.django_db(transaction=True)
def test_a_task_is_enqueued_only_after_commit_and_never_for_a_rollback(monkeypatch):
    sent = []
    monkeypatch.setattr(heartbeat, "delay", lambda *a, **k: sent.append(a))
    from django.db import transaction

    with pytest.raises(RuntimeError), transaction.atomic():
        heartbeat.delay_on_commit("rolled-back")
        raise RuntimeError
    assert sent == []
    with transaction.atomic():
        heartbeat.delay_on_commit("committed")
        assert sent == []
    assert sent == [("committed",)]
    heartbeat_send("marker-x")
    assert sent[-1] == ("marker-x",)


def test_celery_is_configured_json_only_with_time_limits():
    assert settings.CELERY_TASK_SERIALIZER == "json" and settings.CELERY_ACCEPT_CONTENT == ["json"]
    assert settings.CELERY_TASK_TIME_LIMIT > settings.CELERY_TASK_SOFT_TIME_LIMIT > 0


def test_periodic_tasks_are_declared_in_code_and_installed_on_the_app():
    from config.celery import app
    from config.schedules import collect

    schedule = collect()
    assert "core.heartbeat-every-minute" in schedule
    assert set(schedule) <= set(app.conf.beat_schedule)
    for entry in schedule.values():
        assert entry["task"] in app.tasks or entry["task"].split(".")[0] in settings.INSTALLED_APPS


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_beat_installs_every_periodic_task_of_the_apps(worker_env, tmp_path):
    """``celery -A config beat`` (as production and ``make run`` start it) writes every app's periodic task into
    django-celery-beat's table and runs them. It once read the configuration before Django's apps were loaded and
    ran with an empty schedule: no deadline job at all (config/celery.py ``_install_schedule``)."""
    from django_celery_beat.models import PeriodicTask

    from config.schedules import collect

    env = {**worker_env, "CELERY_BROKER_URL": "filesystem://"}
    beat = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "beat", "-l", "info", "-s", str(tmp_path / "beat")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    wanted = set(collect())
    try:
        deadline = time.monotonic() + 60
        names: set[str] = set()
        while time.monotonic() < deadline and not wanted <= names:
            time.sleep(0.5)
            names = set(PeriodicTask.objects.values_list("name", flat=True))
        time.sleep(4)  # jackpots.fold is due every second: beat sends it meanwhile
    finally:
        out = stop_worker(beat)
    assert "core.heartbeat-every-minute" in wanted and "wallet.sweep" in wanted
    assert wanted <= names, (sorted(wanted - names), out)
    assert "Sending due task" in out, out  # and it runs them (jackpots.fold is due every second)
