"""The fold job as code, and once through a real Celery worker and broker (the configured one, e.g. RabbitMQ in
CI; the filesystem transport otherwise)."""

from __future__ import annotations

import os
import time
import uuid

import pytest

from core.audit import Actor
from core.rng import use_rng
from core.tests.test_celery_worker import (  # noqa: F401 - worker_env is a fixture
    _reachable,
    _start_worker,
    stop_worker,
    transport_options,
    worker_env,
)
from games.services import round_play
from games.tests.platform.testgames import FixedRNG
from jackpots.models import MICRO, Contribution, Fold, Pending
from jackpots.tasks import fold
from jackpots.tests.helpers import central_level, pool
from tests.kit.platform import funded_player


def _spins(player, n):
    with use_rng(FixedRNG(0)):
        for i in range(n):
            round_play(
                player=player,
                game_code="european_roulette",
                bet={"bets": [{"type": "red", "amount": 100}]},
                idempotency_key=f"w-{uuid.uuid4().hex}-{i}",
                actor=Actor.player(player),
            )


def test_the_fold_task_folds_every_pending_contribution_once(clock, settings):
    settings.GP = {**settings.GP, "MIN_ROUND_SECONDS": 0}
    central_level("central-bronze", rate_ppm=10_000, reset_value=1_000, win_from=100_000, win_to=200_000)
    _spins(funded_player(100_000), 5)
    assert Pending.objects.count() == 5 and not Contribution.objects.exists()
    assert fold() == {"pools": 1, "rows": 5}
    assert fold() == {"pools": 0, "rows": 0}  # nothing twice
    jp = pool("central-bronze")
    assert jp.amount_micro == (1_000 + 5) * MICRO and jp.ledger_balance == 1_005
    assert Fold.objects.get().rows == 5


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_fold_job_runs_in_a_real_worker(worker_env, clock, settings):  # noqa: F811 - the fixture
    from config.celery import app

    settings.GP = {**settings.GP, "MIN_ROUND_SECONDS": 0}
    central_level("central-bronze", rate_ppm=10_000, reset_value=1_000, win_from=100_000, win_to=200_000)
    _spins(funded_player(100_000), 3)
    configured = os.environ.get("CELERY_BROKER_URL", "")
    url = (
        configured
        if configured and not configured.startswith("filesystem") and _reachable(configured)
        else "filesystem://"
    )
    queue = f"test-{uuid.uuid4().hex[:8]}"
    proc = _start_worker(worker_env, url, queue)
    try:
        with app.connection_for_write(url, transport_options=transport_options(worker_env, url)) as conn:
            fold.apply_async(queue=queue, connection=conn)  # type: ignore[call-arg]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and Pending.objects.exists():
            time.sleep(0.2)
    finally:
        out = stop_worker(proc)
    assert not Pending.objects.exists() and Contribution.objects.count() == 3, out
    assert pool("central-bronze").ledger_balance == 1_003
    print(f"fold ran in a worker on {url.split(':')[0]}")
