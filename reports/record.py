"""An INTERNAL daily summary in the project's own XML format; it is NOT the regulator's output. The Ministry's remote
access under decree 10/2019 Sb. is the ``regulator`` app's 8-hour packages (docs/regulator.md); this record stays for
the operator's own auditors and keeps its historical name.

The record of one operating day (format: docs/reports.md and
``reports/schema/regulator-record-1.0.xsd``), streamed to a file with lxml's incremental writer: rows are read in
chunks and written one element at a time, so the day is never held in memory as a tree.

The Ministry's exact schema was not at hand: this module is the one place that knows the format. Each record type
has one function turning a row into its element's attributes (``round_attrs``, ``deposit_attrs``, ...); replacing
the format means replacing this module (and the XSD)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils.crypto import salted_hmac
from lxml import etree

from core import clock
from games.models import Round
from jackpots.models import Award, Jackpot
from reports.db import read_alias
from reports.services import day_range
from wallet.models import Deposit, LedgerTransaction, Withdrawal

VERSION = "1.0"
NS = f"urn:x-hraj:regulator-record:{VERSION}"
SCHEMA = Path(__file__).with_name("schema") / f"regulator-record-{VERSION}.xsd"
CHUNK = 2000


def player_reference(player_id: int | None) -> str:
    """A pseudonymous, stable reference of a player (not the name): HMAC-SHA256 of the id under
    ``REPORTS_PLAYER_REFERENCE_KEY`` (default SECRET_KEY). The operator can map it back; the file alone cannot."""
    if player_id is None:
        return ""
    key = settings.REPORTS_PLAYER_REFERENCE_KEY or settings.SECRET_KEY
    return (
        "P" + salted_hmac("reports.player_reference", str(player_id), secret=key, algorithm="sha256").hexdigest()[:24]
    )


def _attrs(**values: Any) -> dict[str, str]:
    """Element attributes: None is left out, everything else as text."""
    return {k: (v.isoformat() if isinstance(v, datetime) else str(v)) for k, v in values.items() if v is not None}


# --- one function per record type ------------------------------------------------------------------------------------
def round_attrs(r: Round) -> dict[str, str]:
    return _attrs(
        id=r.pk,
        game=r.game_code,
        gameVersion=r.game_version,
        player=player_reference(r.player_id),
        stake=r.stake,
        win=r.win,
        jackpotWin=r.jackpot_win,
        currency=r.currency,
        state=r.status,
        voidReason=r.void_reason or None,
        started=r.started_at,
        settled=r.settled_at,
        voided=r.voided_at,
    )


def deposit_attrs(d: Deposit) -> dict[str, str]:
    return _attrs(
        id=d.pk,
        reference=d.payment_reference,
        player=player_reference(d.player_id),
        amount=d.amount,
        fee=d.fee,
        currency=d.currency,
        provider=d.provider,
        state=d.status,
        created=d.created_at,
        confirmed=d.confirmed_at,
    )


def withdrawal_attrs(w: Withdrawal) -> dict[str, str]:
    return _attrs(
        id=w.pk,
        reference=w.reference,
        player=player_reference(w.player_id),
        amount=w.amount,
        currency=w.currency,
        provider=w.provider,
        state=w.status,
        requested=w.requested_at,
        sent=w.sent_at,
        finished=w.finished_at,
    )


def adjustment_attrs(t: LedgerTransaction) -> dict[str, str]:
    return _attrs(
        id=t.pk,
        reference=t.reference,
        player=player_reference(t.player_id),
        amount=t.amount,
        currency=t.currency,
        memo=t.memo[:200],
        created=t.created_at,
    )


def award_attrs(a: Award, jackpot_code: str) -> dict[str, str]:
    return _attrs(
        id=a.pk,
        jackpot=jackpot_code,
        round=a.round_id,
        player=player_reference(a.player_id),
        game=a.game_code,
        amount=a.amount,
        paid=a.paid,
        returned=a.returned,
        state=a.status,
        decided=a.decided_at,
        settled=a.settled_at,
    )


# --- the day ---------------------------------------------------------------------------------------------------------
@dataclass
class Written:
    day: date
    path: Path
    counts: dict[str, int] = field(default_factory=dict)
    sums: dict[str, int] = field(default_factory=dict)


def _sections(
    alias: str, start: datetime, end: datetime
) -> list[tuple[str, str, Iterable[Any], Callable[[Any], dict[str, str]]]]:
    def within(f: str) -> Q:
        return Q(**{f"{f}__gte": start, f"{f}__lt": end})

    rounds = (
        Round.objects.using(alias)
        .filter(play_money=False)
        .filter(within("started_at") | within("settled_at") | within("voided_at"))
        .only(
            "id",
            "game_code",
            "game_version",
            "player_id",
            "stake",
            "win",
            "jackpot_win",
            "currency",
            "status",
            "void_reason",
            "started_at",
            "settled_at",
            "voided_at",
        )
        .order_by("started_at", "id")
    )
    deposits = Deposit.objects.using(alias).filter(within("created_at")).order_by("created_at", "id")
    withdrawals = Withdrawal.objects.using(alias).filter(within("requested_at")).order_by("requested_at", "id")
    adjustments = (
        LedgerTransaction.objects.using(alias)
        .filter(within("created_at"))
        .filter(kind=LedgerTransaction.Kind.ADJUSTMENT)
        .order_by("created_at", "id")
    )
    awards = Award.objects.using(alias).filter(within("decided_at")).order_by("decided_at", "id")
    codes = dict(Jackpot.objects.using(alias).values_list("id", "code"))
    return [
        ("Rounds", "Round", rounds.iterator(chunk_size=CHUNK), round_attrs),
        ("Deposits", "Deposit", deposits.iterator(chunk_size=CHUNK), deposit_attrs),
        ("Withdrawals", "Withdrawal", withdrawals.iterator(chunk_size=CHUNK), withdrawal_attrs),
        ("Adjustments", "Adjustment", adjustments.iterator(chunk_size=CHUNK), adjustment_attrs),
        (
            "JackpotAwards",
            "JackpotAward",
            awards.iterator(chunk_size=CHUNK),
            lambda a: award_attrs(a, codes.get(a.jackpot_id, str(a.jackpot_id))),
        ),
    ]


SUMMED = {
    "Round": ("stake", "win", "jackpotWin"),
    "Deposit": ("amount",),
    "Withdrawal": ("amount",),
    "Adjustment": ("amount",),
    "JackpotAward": ("amount", "paid"),
}


def record_write(*, day: date, path: Path) -> Written:
    """Write ``day``'s unsealed record to ``path`` (streamed); returns what it wrote."""
    alias = read_alias()
    start, end = day_range(day)
    out = Written(day=day, path=path)
    q = f"{{{NS}}}"
    with etree.xmlfile(str(path), encoding="utf-8") as xf:
        xf.write_declaration()
        root_attrs = _attrs(
            version=VERSION,
            operatingDay=day.isoformat(),
            timeZone="Europe/Prague",
            periodStart=start,
            periodEnd=end,
            created=clock.now(),
            operator=settings.REPORTS_OPERATOR,
            amountUnit="minor (haler)",
        )
        with xf.element(f"{q}RegulatorRecord", root_attrs, nsmap={None: NS}):
            for section, tag, rows, attrs in _sections(alias, start, end):
                n = 0
                sums = dict.fromkeys(SUMMED[tag], 0)
                with xf.element(f"{q}{section}"):
                    for row in rows:
                        a = attrs(row)
                        for k in sums:
                            sums[k] += int(a.get(k, 0))
                        xf.write(etree.Element(f"{q}{tag}", a))
                        n += 1
                out.counts[tag] = n
                out.sums.update({f"{tag}.{k}": v for k, v in sums.items()})
            xf.write(
                etree.Element(
                    f"{q}Summary",
                    {
                        **{f"{t[0].lower()}{t[1:]}Count": str(n) for t, n in out.counts.items()},
                        "stakes": str(out.sums["Round.stake"]),
                        "wins": str(out.sums["Round.win"]),
                        "deposits": str(out.sums["Deposit.amount"]),
                        "withdrawals": str(out.sums["Withdrawal.amount"]),
                        "adjustments": str(out.sums["Adjustment.amount"]),
                        "jackpotAwarded": str(out.sums["JackpotAward.amount"]),
                    },
                )
            )
    return out
