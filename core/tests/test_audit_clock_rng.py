from datetime import UTC, datetime

import pytest
from django.db import DatabaseError, transaction

from core import clock
from core.audit import Actor, audit_record
from core.models import AuditEvent
from core.rng import SeededRNG, SystemRNG, get_rng, use_rng
from tests.kit.accounts import make_player, make_staff


@pytest.mark.django_db
def test_audit_events_record_who_what_and_old_new_values():
    player = make_player()
    staff = make_staff()
    ev = audit_record(
        actor=Actor.staff(staff),
        action="player.suspend",
        obj=player,
        old={"status": "active"},
        new={"status": "suspended"},
        reason="test",
    )
    ev.refresh_from_db()
    assert ev.actor_type == "staff" and ev.actor_label == staff.username
    assert ev.object_type == "accounts.player" and ev.object_id == str(player.pk)
    assert ev.old_values == {"status": "active"} and ev.details == {"reason": "test"}


@pytest.mark.django_db
def test_the_database_refuses_to_change_or_delete_an_audit_event():
    ev = audit_record(actor=Actor.system("test"), action="x")
    with pytest.raises(DatabaseError), transaction.atomic():
        AuditEvent.objects.filter(pk=ev.pk).update(action="y")
    with pytest.raises(DatabaseError), transaction.atomic():
        AuditEvent.objects.filter(pk=ev.pk).delete()
    assert AuditEvent.objects.get(pk=ev.pk).action == "x"


@pytest.mark.django_db
def test_an_audit_event_rolls_back_with_its_service_transaction():
    with pytest.raises(RuntimeError), transaction.atomic():
        audit_record(actor=Actor.system(), action="rolled.back")
        raise RuntimeError
    assert not AuditEvent.objects.filter(action="rolled.back").exists()


def test_the_business_day_is_prague_not_utc():
    # 23:30 UTC on 31 Dec is already 1 Jan in Prague (UTC+1).
    dt = datetime(2026, 12, 31, 23, 30, tzinfo=UTC)
    assert clock.business_date(dt).isoformat() == "2027-01-01"
    start, end = clock.month_bounds(dt)
    assert start.isoformat() == "2026-12-31T23:00:00+00:00" and end.isoformat() == "2027-01-31T23:00:00+00:00"


def test_a_dst_day_in_prague_is_23_or_25_hours_long():
    spring = clock.day_bounds(datetime(2026, 3, 29, 12, tzinfo=UTC))
    autumn = clock.day_bounds(datetime(2026, 10, 25, 12, tzinfo=UTC))
    assert (spring[1] - spring[0]).total_seconds() == 23 * 3600
    assert (autumn[1] - autumn[0]).total_seconds() == 25 * 3600


def test_the_clock_follows_time_machine():
    import time_machine

    with time_machine.travel(datetime(2026, 5, 1, 10, tzinfo=UTC), tick=False):
        assert clock.now() == datetime(2026, 5, 1, 10, tzinfo=UTC)


def test_the_platform_rng_is_the_os_csprng_and_a_seeded_one_can_be_injected():
    assert isinstance(get_rng(), SystemRNG) and get_rng().name == "system"
    with use_rng(SeededRNG(7)) as rng:
        assert get_rng() is rng
        seq = [get_rng().randbelow(37) for _ in range(20)]
    assert [SeededRNG(7).randbelow(37) for _ in range(1)] == seq[:1]
    assert get_rng().name == "system"
    assert all(0 <= SystemRNG().randbelow(5) < 5 for _ in range(1000))
    with pytest.raises(ValueError):
        SystemRNG().randbelow(0)


def test_randbelow_is_unbiased_for_a_range_that_does_not_divide_a_power_of_two():
    # 3 does not divide 2**k: modulo scaling would bias it. Chi-square at 99 % (df=2 -> 9.21).
    rng = SeededRNG(12345)
    n = 60_000
    counts = [0, 0, 0]
    for _ in range(n):
        counts[rng.randbelow(3)] += 1
    chi2 = sum((c - n / 3) ** 2 / (n / 3) for c in counts)
    assert chi2 < 9.21
