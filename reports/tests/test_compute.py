"""Report figures checked against the rounds and the ledger they come from: per Prague operating day
and per game, GGR = stakes - returned stakes - wins + reclaimed wins to the haléř, a round that crosses midnight,
DST days, recomputing a day replaces its rows."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest
import time_machine
from django.core.management import CommandError, call_command
from django.db.models import Sum

from core.audit import Actor
from core.money import Money
from core.rng import use_rng
from games.models import Round
from games.services import round_refund
from games.tests.platform.testgames import FixedRNG
from reports import figures, selectors
from reports.errors import DAY_ARCHIVED
from reports.models import DayReport, GameDayReport
from reports.services import day_range, reports_compute_day
from tests.kit.clients import client_for
from tests.kit.platform import act, funded_player, start
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db
PICK = "test_pick"


def _ledger(kind: str, d: date) -> int:
    start, end = day_range(d)
    return (
        LedgerTransaction.objects.filter(kind=kind, created_at__gte=start, created_at__lt=end).aggregate(
            x=Sum("amount")
        )["x"]
        or 0
    )


def _play_roulette(traveller, c, n: int) -> None:
    for _ in range(n):
        assert start(c).status_code == 201
        traveller.shift(3)  # GP §7(9): rounds at least 2 s apart


def test_a_day_s_ggr_equals_the_ledger_s_stakes_minus_wins_to_the_haler_also_for_a_round_crossing_midnight():
    day1, day2 = date(2026, 3, 10), date(2026, 3, 11)
    player = funded_player(1_000_000)
    c = client_for(player)
    # 23:58 Prague (CET, UTC+1) on day 1: roulette rounds, then a pick round started before midnight
    with time_machine.travel(datetime(2026, 3, 10, 22, 58, tzinfo=UTC), tick=False) as t:
        _play_roulette(t, c, 12)
        with use_rng(FixedRNG(3, 2)):
            rid = start(c, game=PICK, bet={"stake": 500}).json()["id"]
            t.move_to(datetime(2026, 3, 10, 23, 0, 30, tzinfo=UTC))  # 00:00:30 Prague, day 2
            act(c, rid, {"pick": 0})
            assert act(c, rid, {"pick": 1}).json()["status"] == "finished"
        t.shift(3)
        _play_roulette(t, c, 5)
        d1, d2 = reports_compute_day(day=day1), reports_compute_day(day=day2)
    pick = Round.objects.get(pk=rid)
    assert pick.settled_at is not None and pick.started_at < day_range(day2)[0] <= pick.settled_at
    assert pick.win == 500 * (5 + 2)
    for rep, d in ((d1, day1), (d2, day2)):
        assert rep.stakes == _ledger("stake", d) and rep.wins == _ledger("win", d) and rep.ledger_agrees
        assert rep.ggr == rep.stakes - rep.wins  # nothing voided these days
    # the pick round's stake on day 1, its win on day 2; it is decided (counted) on day 2
    g1 = GameDayReport.objects.get(day=day1, game_code=PICK)
    g2 = GameDayReport.objects.get(day=day2, game_code=PICK)
    assert (g1.stakes, g1.wins, g1.rounds, g1.ggr) == (500, 0, 0, 500)
    assert (g2.stakes, g2.wins, g2.rounds, g2.ggr) == (0, 3500, 1, -3500)
    roulette = Round.objects.filter(game_code="european_roulette")
    for rep_day in (day1, day2):
        s, e = day_range(rep_day)
        mine = roulette.filter(started_at__gte=s, started_at__lt=e)
        g = GameDayReport.objects.get(day=rep_day, game_code="european_roulette")
        assert g.rounds == mine.count() and g.stakes == sum(r.stake for r in mine)
        assert g.wins == sum(r.win for r in mine) and g.ggr == g.stakes - g.wins
    assert d1.rounds + d2.rounds == Round.objects.count() == 18
    assert sum(g.ggr for g in GameDayReport.objects.filter(day=day1)) == d1.ggr


@pytest.mark.parametrize(
    ("label", "instant", "day"),
    [
        ("00:30 CET on the 23-hour day", datetime(2026, 3, 28, 23, 30, tzinfo=UTC), date(2026, 3, 29)),
        ("23:59 CEST on the 23-hour day", datetime(2026, 3, 29, 21, 59, tzinfo=UTC), date(2026, 3, 29)),
        ("00:30 CEST after it", datetime(2026, 3, 29, 22, 30, tzinfo=UTC), date(2026, 3, 30)),
        ("02:30 CEST on the 25-hour day", datetime(2026, 10, 25, 0, 30, tzinfo=UTC), date(2026, 10, 25)),
        ("02:30 CET, the repeated hour", datetime(2026, 10, 25, 1, 30, tzinfo=UTC), date(2026, 10, 25)),
        ("23:30 CET on the 25-hour day", datetime(2026, 10, 25, 22, 30, tzinfo=UTC), date(2026, 10, 25)),
        ("00:30 CET after it", datetime(2026, 10, 25, 23, 30, tzinfo=UTC), date(2026, 10, 26)),
    ],
)
def test_a_round_on_a_dst_change_day_counts_on_its_prague_operating_day(label, instant, day):
    player = funded_player(100_000)
    with time_machine.travel(instant, tick=False):
        assert start(client_for(player)).status_code == 201
        on, before, after = (
            reports_compute_day(day=d) for d in (day, day - timedelta(days=1), day + timedelta(days=1))
        )
    assert (on.rounds, on.stakes) == (1, 100), label
    assert before.rounds == after.rounds == 0 and before.stakes == after.stakes == 0, label
    assert on.stakes == _ledger("stake", day) and on.wins == _ledger("win", day)
    hours = (day_range(day)[1] - day_range(day)[0]) / timedelta(hours=1)
    assert hours == {date(2026, 3, 29): 23, date(2026, 10, 25): 25}.get(day, 24)


def test_a_refunded_round_returns_its_stake_on_the_day_of_the_refund_and_its_ggr_nets_to_zero():
    player = funded_player(100_000)
    c = client_for(player)
    with time_machine.travel(datetime(2026, 4, 1, 10, tzinfo=UTC), tick=False) as t:
        with use_rng(FixedRNG(3, 3)):
            rid = start(c, game=PICK, bet={"stake": 700}).json()["id"]
        t.move_to(datetime(2026, 4, 2, 10, tzinfo=UTC))
        from tests.kit.accounts import make_staff

        round_refund(round_id=rid, reason="stuck", actor=Actor.staff(make_staff()))
        a, b = reports_compute_day(day=date(2026, 4, 1)), reports_compute_day(day=date(2026, 4, 2))
    assert (a.stakes, a.stakes_returned, a.ggr, a.rounds) == (700, 0, 700, 0)
    assert (b.stakes, b.stakes_returned, b.ggr, b.rounds) == (0, 700, -700, 0)
    assert b.stakes_returned == _ledger("refund", date(2026, 4, 2))
    assert a.ggr + b.ggr == 0


def test_recomputing_a_day_replaces_its_rows_and_changes_nothing_else():
    player = funded_player(100_000)
    with time_machine.travel(datetime(2026, 5, 5, 8, tzinfo=UTC), tick=False) as t:
        _play_roulette(t, client_for(player), 4)
        first = reports_compute_day(day=date(2026, 5, 5))
        _play_roulette(t, client_for(player), 2)
        second = reports_compute_day(day=date(2026, 5, 5))
    assert DayReport.objects.filter(day=date(2026, 5, 5)).count() == 1
    assert GameDayReport.objects.filter(day=date(2026, 5, 5)).count() == 1
    assert (first.rounds, second.rounds) == (4, 6) and second.stakes == 600
    assert not DayReport.objects.filter(pk=first.pk).exists()


def _coin_flips(n: int) -> dict:
    """n rounds of stake 100 paying 200 half the time (actual RTP 100 %), as the day rows' moments."""
    half = n // 2
    return {
        "rounds": n,
        "stakes": n * 100,
        "base_wins": half * 200,
        "s2": Decimal(n * 100 * 100),
        "w2": Decimal(half * 200 * 200),
        "sw": Decimal(half * 100 * 200),
    }


def test_the_rtp_interval_narrows_with_rounds_and_flags_a_game_outside_it():
    # declared 99.50 %: sum((w - 0.995 s)^2) = 10,000.25 n, so the half-width is
    # 2.5758 * sqrt(10,000.25 n) / (100 n) * 100 pp: 2.58 pp at 10,000 rounds, 0.26 pp at 1,000,000
    inside = figures.rtp(declared=Decimal("99.50"), **_coin_flips(10_000))
    assert inside.actual == Decimal("100.00") and not inside.outside
    assert (inside.low, inside.high) == (Decimal("96.92"), Decimal("102.08"))
    outside = figures.rtp(declared=Decimal("99.50"), **_coin_flips(1_000_000))
    assert (outside.low, outside.high) == (Decimal("99.24"), Decimal("99.76")) and outside.outside
    few = figures.rtp(declared=Decimal("50.00"), **_coin_flips(figures.MIN_ROUNDS - 1))
    assert few.low is None and not few.outside


def test_a_month_sums_its_days_and_recomputes_the_rtp_from_the_summed_moments():
    player = funded_player(1_000_000)
    c = client_for(player)
    days = [date(2026, 6, 1), date(2026, 6, 2), date(2026, 6, 30)]
    with time_machine.travel(datetime(2026, 6, 1, 9, tzinfo=UTC), tick=False) as t:
        for d in days:
            t.move_to(datetime(d.year, d.month, d.day, 9, tzinfo=UTC))
            _play_roulette(t, c, 15)
            reports_compute_day(day=d)
    month = selectors.period_report(figures.month(2026, 6))
    rounds = Round.objects.filter(game_code="european_roulette")
    assert month["totals"]["rounds"] == 45 == rounds.count()
    assert month["totals"]["ggr"] == sum(r.stake - r.win for r in rounds)
    assert len(month["days_missing"]) == 27
    g = month["games"][0]
    direct = figures.rtp(
        declared=Decimal(g["rtp_declared"]),
        rounds=45,
        stakes=sum(r.stake for r in rounds),
        base_wins=sum(r.win - r.jackpot_win for r in rounds),
        s2=Decimal(sum(r.stake**2 for r in rounds)),
        w2=Decimal(sum((r.win - r.jackpot_win) ** 2 for r in rounds)),
        sw=Decimal(sum(r.stake * (r.win - r.jackpot_win) for r in rounds)),
    )
    assert (g["rtp_actual"], g["rtp_low"], g["rtp_high"]) == (str(direct.actual), str(direct.low), str(direct.high))
    q2 = selectors.period_report(figures.quarter(2026, 2))
    assert q2["first"] == "2026-04-01" and q2["last"] == "2026-06-30" and q2["totals"]["ggr"] == month["totals"]["ggr"]
    assert "2026-06" in selectors.period_csv(figures.month(2026, 6))


def test_the_command_computes_a_day_a_range_or_a_month_and_refuses_bad_input(capsys):
    call_command("reports_compute", "--day", "2026-07-01")
    call_command("reports_compute", "--from", "2026-07-02", "--to", "2026-07-03")
    assert DayReport.objects.count() == 3
    for bad in (["--day", "2026-13-01"], ["--month", "2026-7"], ["--from", "2026-07-03", "--to", "2026-07-01"], []):
        with pytest.raises(CommandError):
            call_command("reports_compute", *bad)
    assert DayReport.objects.count() == 3


def test_the_scheduled_job_computes_yesterday_and_today():
    from reports.schedules import BEAT_SCHEDULE
    from reports.tasks import compute_recent

    assert BEAT_SCHEDULE["reports.compute_recent"]["task"] == compute_recent.name
    with time_machine.travel(datetime(2026, 8, 1, 22, 30, tzinfo=UTC), tick=False):  # 00:30 Prague on 2 August
        assert compute_recent.apply().get() == ["2026-08-01", "2026-08-02"]


def _archive_month(table: str, year: int, month: int) -> None:
    """As core.partitioning.partition_archive leaves a month: its partition in the archive schema."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("CREATE SCHEMA IF NOT EXISTS archive")
        cur.execute(f"CREATE TABLE archive.{table}_p{year:04d}{month:02d} (id bigint)")


@pytest.mark.parametrize("table", ["games_round", "wallet_ledgertransaction", "wallet_entry"])
def test_a_day_whose_rounds_or_ledger_are_archived_is_refused_and_its_stored_figures_stand(table):
    from core.errors import DomainError

    day = date(2026, 3, 10)
    player = funded_player(100_000)
    with time_machine.travel(datetime(2026, 3, 10, 10, 0, tzinfo=UTC), tick=False) as t:
        _play_roulette(t, client_for(player), 3)
        stored = reports_compute_day(day=day)
    _archive_month(table, 2026, 3)
    with pytest.raises(DomainError) as refused:
        reports_compute_day(day=day)
    assert refused.value.code == DAY_ARCHIVED.code and table in refused.value.details["tables"]
    kept = DayReport.objects.get(day=day)
    assert (kept.pk, kept.rounds, kept.stakes) == (stored.pk, 3, stored.stakes)  # not overwritten with zeros
    with pytest.raises(CommandError, match="archived"):
        call_command("reports_compute", "--day", "2026-03-10")
    assert reports_compute_day(day=date(2026, 4, 10)).rounds == 0  # a live month is computed as before


def test_the_first_day_of_a_month_reads_the_month_before_too():
    """1 April in Prague begins on 31 March in UTC: its rows carry March's ids."""
    from core.errors import DomainError

    _archive_month("games_round", 2026, 3)
    with pytest.raises(DomainError):
        reports_compute_day(day=date(2026, 4, 1))
    assert reports_compute_day(day=date(2026, 4, 2)).rounds == 0


def test_a_win_deduction_lowers_the_wins_on_the_day_it_is_posted_and_the_ggr_follows_the_ledger():
    """The tax base from the ledger: a win credited in error and taken back (GP §7(7), §10(4)) counts on the day of
    the deduction, whether or not the deduction names the round (one not naming it counts in the day's total)."""
    from wallet.services import win_deduct

    player = funded_player(100_000)
    c = client_for(player)
    with time_machine.travel(datetime(2026, 3, 10, 9, 0, tzinfo=UTC), tick=False) as t:
        with use_rng(FixedRNG(1)):  # pocket 1: red wins 200
            rid = start(c).json()["id"]
        t.shift(3)
    rnd = Round.objects.get(pk=rid)
    assert rnd.win == 200
    with time_machine.travel(datetime(2026, 3, 11, 9, 0, tzinfo=UTC), tick=False):
        win_deduct(
            player=player,
            amount=Money(150),
            reference=f"games:round:{rid}:deduction",
            reason="error",
            notice_text="x",
            actor=Actor.system("tests"),
            win_references=[f"games:round:{rid}:win"],
        )
        win_deduct(
            player=player,
            amount=Money(20),
            reference="staff-deduction-1",
            reason="error",
            notice_text="x",
            actor=Actor.system("tests"),
        )
        d1, d2 = reports_compute_day(day=date(2026, 3, 10)), reports_compute_day(day=date(2026, 3, 11))
    assert (d1.stakes, d1.wins, d1.wins_reclaimed, d1.ggr) == (100, 200, 0, -100)
    assert (d2.stakes, d2.wins, d2.wins_reclaimed, d2.ggr) == (0, 0, 170, 170)
    g2 = GameDayReport.objects.get(day=date(2026, 3, 11), game_code="european_roulette")
    assert (g2.wins_reclaimed, g2.ggr) == (150, 150)
