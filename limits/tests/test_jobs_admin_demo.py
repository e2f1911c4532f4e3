"""Periodic jobs are declared and registered, admin actions call services, demo data is idempotent, the
benchmark command runs (its timings are printed, not asserted)."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import time_machine
from django.core.management import call_command

from core.audit import Actor
from core.models import AuditEvent
from limits.models import MinuteBucket, SelfLimit, SelfListingRequest
from limits.services import minute_buckets_prune, self_limit_set, self_listing_request
from tests.kit.accounts import make_player, make_staff
from tests.kit.limits import settle, stake
from tests.kit.money import prague

T = prague(2025, 5, 5, 12)


def test_every_scheduled_job_names_a_registered_task():
    import limits.tasks  # noqa: F401 - registers the tasks
    from config.celery import app
    from limits.schedules import BEAT_SCHEDULE

    for name, entry in BEAT_SCHEDULE.items():
        assert name.startswith("limits.")
        assert entry["task"] in app.tasks, entry["task"]
    assert BEAT_SCHEDULE["limits.exclusion_check_sessions"]["schedule"] == 300.0  # checks <= 15 min apart


def test_old_minute_buckets_are_pruned_and_recent_ones_kept(player):
    stake(player, "1", T)
    settle(player, "1", "0", T, T + timedelta(seconds=2))
    stake(player, "1", T + timedelta(hours=2, minutes=30))
    assert minute_buckets_prune(now=T + timedelta(hours=2, minutes=30)) == 1
    assert MinuteBucket.objects.filter(player=player).count() == 1


def test_the_admin_action_applies_due_loosenings_with_the_staff_member_as_actor(player):
    from django.test import Client

    self_limit_set(
        player=player,
        kind="technical",
        limit_type="daily_stake",
        value=100,
        actor=Actor.player(player),
        now=T - timedelta(days=30),
    )
    row = self_limit_set(
        player=player,
        kind="technical",
        limit_type="daily_stake",
        value=500,
        actor=Actor.player(player),
        now=T - timedelta(days=8),
    )
    staff = make_staff(superuser=True)
    c = Client()
    c.force_login(staff)
    r = c.post("/admin/limits/selflimit/", {"action": "apply_due_loosenings", "_selected_action": [row.pk]})
    assert r.status_code == 302
    assert SelfLimit.objects.get(pk=row.pk).value == 500
    assert AuditEvent.objects.filter(action="limits.self_limit_loosening_applied", actor_type="staff").exists()


def test_the_admin_action_sends_a_self_listing_request_now(player):
    from django.test import Client

    with time_machine.travel(T, tick=False):
        req = self_listing_request(player=player, actor=Actor.player(player), now=T)
        SelfListingRequest.objects.filter(pk=req.pk).update(next_attempt_at=T + timedelta(hours=1))
        c = Client()
        c.force_login(make_staff(superuser=True))
        c.post("/admin/limits/selflistingrequest/", {"action": "send_now", "_selected_action": [req.pk]})
    assert SelfListingRequest.objects.get(pk=req.pk).status == "sent"


def test_demo_seed_decides_demo_players_limits_once(db):
    from limits.demo import seed
    from limits.selectors import self_limits_decided

    demo = make_player(status="active", username=f"demo_limits_{T.timestamp():.0f}")
    out = StringIO()
    seed(out)
    seed(out)
    assert self_limits_decided(demo)
    assert SelfLimit.objects.filter(player=demo).count() == 7


def test_the_benchmark_command_prints_both_figures(db):
    out = StringIO()
    call_command("limits_bench", "--rounds", "2000", "--repeat", "5", stdout=out)
    text = out.getvalue()
    assert "2,000 rounds of history: median" in text and "10 rounds of history: median" in text
    assert "reconciliation of the bench players' counters with the ledger: OK" in text
