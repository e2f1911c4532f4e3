"""The periodic re-check through AISG by batch (OveritOsobyHromadne up to 1,000 a batch, collected by a job), the
report of changed personal data (ZmenitUdajeOsoby) and the age limit of the last check (no play without a fresh
answer)."""

import time
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from accounts import errors, selectors, services
from accounts.aisg import types as t
from accounts.aisg.v1 import q
from accounts.models import AisgBatch, LoginSession, PersonalData, Player, RegisterCheck, RegisterReview, User
from accounts.validation import derived_keys, validate_personal_data
from core import clock
from limits.models import ExclusionWatch
from limits.services import exclusion_batches_collect, exclusion_sweep
from tests.kit.accounts import applicant_data, make_player

pytestmark = pytest.mark.django_db


def on_aisg(aisg, player, **answer):
    pd = player.personal
    return aisg.add(pd.given_names, pd.surname, pd.date_of_birth, **answer)


def test_the_daily_sweep_submits_a_batch_and_the_job_applies_its_results(aisg):
    yesterday = clock.now() - timedelta(days=1)
    ok, listed, dead = (make_player(exclusion_checked_at=yesterday) for _ in range(3))
    on_aisg(aisg, ok)
    on_aisg(aisg, listed, rvo=t.RVO_LISTED)
    on_aisg(aisg, dead, rob=t.ROB_DEAD)
    LoginSession.objects.create(player=listed, started_at=clock.now(), last_seen_at=clock.now())
    aisg.batch_polls = 1
    sweep = exclusion_sweep(context="daily")
    assert sweep.checked == 3 and [a for a, _ in aisg.requests] == ["OveritOsobyHromadne"]
    rows = aisg.requests[0][1].findall(f"{q('Osoby')}/{q('OsobaKOvereni')}")
    assert sorted(r.findtext(q("IdentifikaceZaznamu")) for r in rows) == sorted(str(p.pk) for p in (ok, listed, dead))
    batch = AisgBatch.objects.get()
    assert exclusion_sweep(context="daily").checked == 0  # claimed while the batch is out
    assert exclusion_batches_collect()["batches"] == 0  # not due yet
    with time_machine.travel(batch.next_poll_at + timedelta(seconds=1)):
        assert exclusion_batches_collect()["batches"] == 0  # Prijata: asked again later
        batch.refresh_from_db()
        assert batch.polls == 1 and batch.state == "submitted"
    with time_machine.travel(batch.next_poll_at + timedelta(seconds=1)):
        out = exclusion_batches_collect()
    assert out == {"batches": 1, "listed": 1, "confirmed": 1, "failed": 1, "expired": 0}
    for p in (ok, listed, dead):
        p.refresh_from_db()
    assert listed.exclusion_listed and LoginSession.objects.get(player=listed).ended_at is not None
    assert not ok.exclusion_listed and ok.exclusion_checked_at is not None
    assert ok.exclusion_checked_at > batch.submitted_at
    assert dead.exclusion_checked_at == yesterday  # no fresh check: no play once it is too old
    assert RegisterReview.objects.filter(player=dead, kind="manual_review").exists()
    assert ExclusionWatch.objects.get(player=ok).last_listed is False
    assert ExclusionWatch.objects.get(player=dead).failures == 1
    assert RegisterCheck.objects.filter(player=ok, context="periodic_daily").count() == 2
    assert PersonalData.objects.get(player=ok).aisg_hid is not None  # the HID kept from the batch


def test_the_session_sweep_takes_every_player_with_a_live_login(aisg):
    live, idle = make_player(), make_player()
    on_aisg(aisg, live)
    LoginSession.objects.create(player=live, started_at=clock.now(), last_seen_at=clock.now())
    assert exclusion_sweep(context="session").checked == 1
    assert AisgBatch.objects.get().player_ids == [live.pk] and idle.pk


def test_no_batch_taken_is_an_outage_and_the_players_are_due_again(aisg):
    p = make_player()
    aisg.fault = (9100, "nedostupné")
    sweep = exclusion_sweep(context="daily")
    assert (sweep.checked, sweep.failed) == (0, 1)
    assert RegisterReview.objects.filter(kind="outage", context="periodic_daily").exists()
    assert ExclusionWatch.objects.get(player=p).claimed_until is None
    aisg.fault = None
    on_aisg(aisg, p)
    assert exclusion_sweep(context="daily").checked == 1


def test_an_expired_batch_returns_its_players_to_the_next_sweep(aisg):
    p = make_player()
    on_aisg(aisg, p)
    exclusion_sweep(context="daily")
    batch = AisgBatch.objects.get()
    aisg.batches[str(batch.batch_id)]["expired"] = True
    with time_machine.travel(batch.next_poll_at + timedelta(seconds=1)):
        assert exclusion_batches_collect()["expired"] == 1
        assert exclusion_sweep(context="daily").checked == 1


def test_play_stops_when_the_last_answer_is_older_than_the_limit(settings):
    settings.ACCOUNTS_EXCLUSION_MAX_AGE_HOURS = 48
    p = make_player(exclusion_checked_at=clock.now())
    assert selectors.betting_refusal(p) is None
    with time_machine.travel(clock.now() + timedelta(hours=48, minutes=1)):
        refusal = selectors.betting_refusal(p)
    assert refusal is not None and refusal.code == errors.EXCLUSION_CHECK_STALE.code


def test_a_change_of_personal_data_is_reported_with_zmenit_udaje_osoby(aisg):
    p = make_player()
    person = on_aisg(aisg, p)
    PersonalData.objects.filter(player=p).update(aisg_hid=person.hid)
    staff = User.objects.create(username="staff1", is_staff=True)
    from core.audit import Actor

    services.personal_data_update(
        player=p, changes={"surname": "Dvořáková"}, actor=Actor.staff(staff), reason="marriage"
    )
    pd = PersonalData.objects.get(player=p)
    assert pd.aisg_change_due_at is not None
    aisg.fault = (9100, "nedostupné")
    assert services.aisg_changes_send_due() == 0
    assert RegisterReview.objects.filter(player=p, context="personal_data", kind="outage").exists()
    aisg.fault = None
    with time_machine.travel(clock.now() + timedelta(minutes=16)):
        assert services.aisg_changes_send_due() == 1
    hid, request = aisg.changes[-1]
    assert hid == person.hid and request.findtext(f"{q('Osoba')}/{q('Prijmeni')}") == "Dvořáková"
    assert PersonalData.objects.get(player=p).aisg_change_due_at is None


def test_a_change_of_data_aisg_does_not_know_is_not_reported(aisg):
    p = make_player()
    PersonalData.objects.filter(player=p).update(aisg_hid=on_aisg(aisg, p).hid)
    staff = User.objects.create(username="staff2", is_staff=True)
    from core.audit import Actor

    services.personal_data_update(
        player=p, changes={"phone": "+420731999888"}, actor=Actor.staff(staff), reason="new phone"
    )
    assert PersonalData.objects.get(player=p).aisg_change_due_at is None


def _many_players(n):
    now = clock.now()
    users = User.objects.bulk_create(
        [
            User(username=f"many{i:06d}", email=f"many{i:06d}@example.cz", password="!x", date_joined=now)
            for i in range(n)
        ]
    )
    players = Player.objects.bulk_create(
        [
            Player(
                user=u,
                status=Player.Status.ACTIVE,
                created_at=now,
                status_changed_at=now,
                identity_verified_at=now,
                completed_at=now,
                exclusion_checked_at=now - timedelta(days=2),
            )
            for u in users
        ]
    )
    today = timezone.localdate(now)
    rows = []
    for p, i in zip(players, range(n), strict=True):
        clean = validate_personal_data(applicant_data(n=500_000 + i), today=today)
        rows.append(PersonalData(player=p, **clean, **derived_keys(clean), updated_at=now))
    PersonalData.objects.bulk_create(rows, batch_size=2000)
    return rows


def test_ten_thousand_players_re_checked_by_batch_timed(aisg, capsys):
    rows = _many_players(10_000)
    for pd in rows:
        aisg.add(pd.given_names, pd.surname, pd.date_of_birth)
    started = time.perf_counter()
    sweep = exclusion_sweep(context="daily", limit=10_000)
    submitted = time.perf_counter()
    batch = AisgBatch.objects.order_by("next_poll_at").last()
    assert batch is not None
    with time_machine.travel(batch.next_poll_at + timedelta(seconds=1)):
        out = exclusion_batches_collect()
    done = time.perf_counter()
    assert sweep.checked == 10_000 and AisgBatch.objects.count() == 10
    assert out == {"batches": 10, "listed": 0, "confirmed": 10_000, "failed": 0, "expired": 0}
    assert not Player.objects.filter(exclusion_checked_at__lt=clock.now() - timedelta(days=1)).exists()
    with capsys.disabled():
        print(
            f"\nAISG re-check of 10,000 players: submit {submitted - started:.1f} s (10 batches), "
            f"collect and apply {done - submitted:.1f} s, total {done - started:.1f} s"
        )
