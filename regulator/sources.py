"""Platform records -> the records of the data files of one period (the mapping table: docs/regulator.md).

Read-only. Every function yields the records of one data file for one :class:`~regulator.wire.Period`, streamed
from PostgreSQL through a server-side cursor (``CHUNK`` rows at a time), so a period of a million rounds is
written in bounded memory.

Money files come from the ledger (wallet postings), not from the rounds: a posting belongs to the period in which it
was written, and its amount is what it moved on the player's own accounts (temporary, player and held accounts).
That makes the package reconcile with the ledger to the haléř, including wins credited later than their stake (a
studio's late win, a round across a period boundary), deductions and voids where they fall."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Q

from accounts.models import LoginSession, Player
from games.models import Game, Round
from jackpots.models import Award
from limits.kinds import TECHNICAL
from limits.models import LimitType, SelfLimitChange
from regulator import schema
from regulator.wire import Period, fmt_money, fmt_time, ident, operator_id
from wallet.models import Deposit, Entry, LedgerAccount, LedgerTransaction, PaymentMethod

CHUNK = 5000
Record = dict[str, object]
K = LedgerTransaction.Kind

# Kinds of ledger postings and the file they go to (net effect on the player's own accounts; zero is no record).
GAME_KINDS = (K.STAKE, K.WIN, K.REFUND, K.WIN_DEDUCTION, K.WIN_FORFEIT)
OTHER_KINDS = (K.ADJUSTMENT, K.FEE)
# holds, releases, the temporary -> player conversion and operator transfers move nothing in or out of the player's
# accounts as a whole (net zero): they produce no record.
CASH_KINDS = (K.BRANCH_CASH_IN, K.BRANCH_CASH_OUT, K.PAYOUT_CASH)

# Identifier kinds (the part after "<IČO>-"); a record's identifier is the kind and the platform's key of the record.
ID_ACCOUNT, ID_ACCOUNT_CHANGE, ID_LOGIN, ID_PARTICIPATION = "K", "KZ", "P", "DU"
ID_MOVE, ID_BET, ID_LINK, ID_BET_FIX, ID_OTHER, ID_OTHER_FIX = "U", "HT", "VS", "HO", "OP", "OO"
ID_LIMIT, ID_LIMIT_KIND, ID_GAME = "SO", "SD", "G"

TYPSO = {
    LimitType.DAILY_STAKE: "a",
    LimitType.MONTHLY_STAKE: "b",
    LimitType.DAILY_LOSS: "c",
    LimitType.MONTHLY_LOSS: "d",
    LimitType.MONTHLY_LOGINS: "e",
    LimitType.DAILY_TIME: "f",
    LimitType.PAUSE_AFTER_LOGOUT: "g",
}
# a refused limit still needs its value item (the Ministry's rule makes it mandatory for the kind): the highest value
# the item's format allows, i.e. no limit (the Ministry's own sample data writes 999999999,00 for "no limit")
REFUSED_MONEY, REFUSED_NUMBER = 99_999_999_900, 999_999_999

METHOD_TEXT = {
    PaymentMethod.Kind.BANK_ACCOUNT: "bankovní převod",
    PaymentMethod.Kind.CARD: "platební karta",
    PaymentMethod.Kind.SKRILL: "elektronická peněženka Skrill",
    PaymentMethod.Kind.PAYU: "PayU",
    PaymentMethod.Kind.PAYSAFECARD: "paysafecard",
}
KIND_TEXT = {
    K.DEPOSIT: "vklad",
    K.DEPOSIT_RETURN: "vrácení vkladu",
    K.WITHDRAWAL_SEND: "výběr převodem",
    K.WITHDRAWAL_RETURN: "vrácený výběr",
    K.BRANCH_CASH_IN: "hotovostní vklad na pobočce",
    K.BRANCH_CASH_OUT: "hotovostní výběr na pobočce",
    K.PAYOUT_START: "výplata zůstatku",
    K.PAYOUT_SEND: "výplata zůstatku převodem",
    K.PAYOUT_RETURN: "vrácená výplata",
    K.PAYOUT_CASH: "výplata v hotovosti na pobočce",
    K.PAYOUT_POST: "výplata poštovní poukázkou",
    K.BANK_UNMATCHED_OUT: "nespárovaná platba přiřazená",
    K.WITHDRAWAL_HOLD: "blokace pro výběr",
    K.WITHDRAWAL_RELEASE: "uvolnění blokace výběru",
}


def _stream(sql: str, params: dict[str, Any]) -> Iterator[tuple[Any, ...]]:
    """Rows of ``sql`` through a server-side cursor (PostgreSQL), CHUNK at a time."""
    with connection.chunked_cursor() as cur:
        cur.execute(sql, params)
        while rows := cur.fetchmany(CHUNK):
            yield from rows


def _moves_sql() -> str:
    """Every posting of the period that moved money on a player's own accounts, with that net amount and the round it
    belongs to (from the wallet reference the games and jackpots write: ``games:round:<id>:...``,
    ``jackpot:<award>:paid``; a hold's ``hold:`` prefix is read through)."""
    t, e, a = LedgerTransaction._meta.db_table, Entry._meta.db_table, LedgerAccount._meta.db_table
    aw = Award._meta.db_table
    return f"""
    WITH m AS (
        SELECT t.id, t.kind, t.reference, t.player_id, t.currency, t.created_at, SUM(e.amount) AS net
        FROM {t} t JOIN {e} e ON e.transaction_id = t.id JOIN {a} a ON a.id = e.account_id AND a.player_id IS NOT NULL
        WHERE t.created_at >= %(start)s AND t.created_at < %(end)s AND t.player_id IS NOT NULL
        GROUP BY t.id
    ), g AS (
        SELECT m.*, regexp_replace(m.reference, '^hold:', '') AS ref FROM m WHERE m.net <> 0
    ), moves AS (
        SELECT g.*, CASE
            WHEN g.ref ~ '^games:round:[0-9]+:' THEN split_part(g.ref, ':', 3)::bigint
            WHEN g.ref ~ '^jackpot:[0-9]+:paid$' THEN (SELECT aw.round_id FROM {aw} aw
                                                         WHERE aw.id = split_part(g.ref, ':', 2)::bigint)
        END AS round_id
        FROM g
    )"""


def _params(period: Period) -> dict[str, Any]:
    return {"start": period.start, "end": period.end}


def operator() -> Iterator[Record]:
    yield {"IDProvozovatel": operator_id(), "ProvozovatelNazev": settings.REGULATOR_OPERATOR_NAME}


def games(period: Period) -> Iterator[Record]:
    """Every game the platform offers or has offered for real money (engine and studio games, one record per
    catalogue row), in every package: a reference to it must resolve within the Ministry's data. The launch time is
    given in the package of the period in which staff recorded the approval (the item is optional)."""
    qs = (
        Game.objects.filter(approved_at__isnull=False)
        .order_by("pk")
        .only("pk", "name", "name_cs", "code", "version", "approved_at")
    )
    for g in qs.iterator(chunk_size=CHUNK):
        yield {
            "IDHraPopis": ident(ID_GAME, g.pk),
            "HraNazev": f"{g.name_cs or g.name} (v{g.version})",
            "HraDruh": schema.GAME_TYPE,
            "HraKategorie": schema.GAME_CATEGORY,
            "IDProvozovatel": operator_id(),
            "SpusteniCas": fmt_time(g.approved_at) if g.approved_at and period.contains(g.approved_at) else "",
        }


def _opened_at(p: Player) -> Any:
    return p.temporary_activated_at or p.completed_at


def accounts(period: Period) -> Iterator[Record]:
    """A player account is opened when the temporary account is activated, or when a registration completes without
    one (a branch registration)."""
    qs = (
        Player.objects.filter(
            Q(temporary_activated_at__gte=period.start, temporary_activated_at__lt=period.end)
            | Q(temporary_activated_at__isnull=True, completed_at__gte=period.start, completed_at__lt=period.end)
        )
        .order_by("pk")
        .only("pk", "temporary_activated_at", "completed_at")
    )
    for p in qs.iterator(chunk_size=CHUNK):
        yield {
            "IDUzivKonto": ident(ID_ACCOUNT, p.pk),
            "IDProvozovatel": operator_id(),
            "ZrizeniCas": fmt_time(_opened_at(p)),
        }


def account_changes(period: Period) -> Iterator[Record]:
    """The account's scope for game type T: opened temporary (D), made permanent (T), closed (Internet 0)."""
    fields = ("temporary_activated_at", "completed_at", "closed_at")
    within = Q()
    for f in fields:
        within |= Q(**{f"{f}__gte": period.start, f"{f}__lt": period.end})
    qs = Player.objects.filter(within).order_by("pk").only("pk", *fields)
    for p in qs.iterator(chunk_size=CHUNK):
        events = [
            ("D", p.temporary_activated_at, "D", 1),
            ("T", p.completed_at, "T", 1),
            ("X", p.closed_at, "T" if p.completed_at else "D", 0),
        ]
        for suffix, at, kind, internet in events:
            if at is not None and period.contains(at):
                yield {
                    "IDZaznamUzivKonto": ident(ID_ACCOUNT_CHANGE, f"{p.pk}-{suffix}"),
                    "IDUzivKonto": ident(ID_ACCOUNT, p.pk),
                    "HraDruh": schema.GAME_TYPE,
                    "Landbased": 0,
                    "Internet": internet,
                    "DocasneTrvale": kind,
                    "ZmenaCas": fmt_time(at),
                }


def _sessions(period: Period) -> Iterator[LoginSession]:
    """Login sessions that started in the period, and those that started earlier and ended in it (sent again, same
    identifier, now with the logout)."""
    qs = LoginSession.objects.filter(
        Q(started_at__gte=period.start, started_at__lt=period.end)
        | Q(ended_at__gte=period.start, ended_at__lt=period.end)
    ).filter(Q(player__temporary_activated_at__isnull=False) | Q(player__completed_at__isnull=False))
    yield from qs.order_by("pk").only("pk", "player_id", "started_at", "ended_at").iterator(chunk_size=CHUNK)


def logins(period: Period) -> Iterator[Record]:
    for s in _sessions(period):
        ended = s.ended_at if s.ended_at is not None and s.ended_at < period.end else None
        yield {
            "IDPrihlaseni": ident(ID_LOGIN, s.pk),
            "IDUzivKonto": ident(ID_ACCOUNT, s.player_id),
            "PrihlaseniCas": fmt_time(s.started_at),
            "OdhlaseniCas": fmt_time(ended),
        }


def participation(period: Period) -> Iterator[Record]:
    """A participation period is the time the player was logged in and able to take part (a login session)."""
    for s in _sessions(period):
        ended = s.ended_at if s.ended_at is not None and s.ended_at < period.end else None
        yield {
            "IDDobaUcasti": ident(ID_PARTICIPATION, s.pk),
            "IDUzivKonto": ident(ID_ACCOUNT, s.player_id),
            "ZacatekUcastiCas": fmt_time(s.started_at),
            "KonecUcastiCas": fmt_time(ended),
        }


def account_moves(period: Period) -> Iterator[Record]:
    """Deposits, withdrawals, branch cash, payouts: every other posting that moved money in or out of the player's
    accounts; the amount's sign is the direction (+ into the account, - out of it)."""
    d, pm = Deposit._meta.db_table, PaymentMethod._meta.db_table
    skip = [*GAME_KINDS, *OTHER_KINDS]
    sql = (
        _moves_sql()
        + f"""
    SELECT moves.id, moves.kind, moves.player_id, moves.net, moves.created_at, moves.currency, pm.kind
    FROM moves LEFT JOIN {d} d ON d.transaction_id = moves.id LEFT JOIN {pm} pm ON pm.id = d.method_id
    WHERE NOT (moves.kind = ANY(%(skip)s)) ORDER BY moves.created_at, moves.id"""
    )
    cash, noncash = settings.REGULATOR_CASH_CODE, settings.REGULATOR_NONCASH_CODE
    for txn_id, kind, player_id, net, at, currency, method in _stream(sql, {**_params(period), "skip": skip}):
        text = KIND_TEXT.get(kind, kind)
        if method:
            text = f"{text}: {METHOD_TEXT.get(method, method)}"
        yield {
            "IDTransakce": ident(ID_MOVE, txn_id),
            "IDUzivKonto": ident(ID_ACCOUNT, player_id),
            "TransakceVyse": fmt_money(net),
            "TransakceCas": fmt_time(at),
            "TransakceZpusob": cash if kind in CASH_KINDS else noncash,
            "TransakceZpusobUpresneni": text,
            "MenaKod": currency,
        }


def _bets_sql() -> str:
    r = Round._meta.db_table
    return (
        _moves_sql()
        + f""", wins AS (
        SELECT round_id, SUM(net) AS win, MAX(created_at) AS paid_at FROM moves
        WHERE kind = 'win' AND round_id IS NOT NULL GROUP BY round_id
    )
    SELECT s.round_id, s.player_id, -s.net, s.created_at, s.currency, r.game_id, wins.win, wins.paid_at
    FROM moves s JOIN {r} r ON r.id = s.round_id LEFT JOIN wins ON wins.round_id = s.round_id
    WHERE s.kind = 'stake' ORDER BY s.created_at, s.round_id"""
    )


def bets(period: Period) -> Iterator[tuple[Record, Record]]:
    """One ``hra_toky`` record per stake debited in the period (engine and studio rounds), with the wins credited to
    that round in the same period (jackpot awards included), and its ``vazba_hra_sazka`` link to the game."""
    for round_id, player_id, stake, at, currency, game_id, win, paid_at in _stream(_bets_sql(), _params(period)):
        bet_id = ident(ID_BET, round_id)
        yield (
            {
                "IDHraToky": bet_id,
                "HraDruh": schema.GAME_TYPE,
                "HraKategorie": schema.GAME_CATEGORY,
                "IDUzivKonto": ident(ID_ACCOUNT, player_id),
                "SazkaVysePuvodni": fmt_money(stake),
                "SazkaPrijetiCas": fmt_time(at),
                "VyhraVyseNarok": fmt_money(win) if win else "",
                "VyhraVysePuvodni": fmt_money(win) if win else "",
                "VyhraVyplaceniCas": fmt_time(paid_at),
                "MenaKod": currency,
            },
            {"IDVazbaHraSazka": ident(ID_LINK, round_id), "IDHraPopis": ident(ID_GAME, game_id), "IDHraToky": bet_id},
        )


def _fixes_sql() -> str:
    r = Round._meta.db_table
    return (
        _moves_sql()
        + f"""
    SELECT m.id, m.kind, m.net, m.created_at, m.currency, m.round_id, r.void_reason
    FROM moves m JOIN {r} r ON r.id = m.round_id
    WHERE m.kind <> 'stake' AND m.kind = ANY(%(game)s)
      AND NOT (m.kind = 'win' AND EXISTS (SELECT 1 FROM moves s WHERE s.kind = 'stake' AND s.round_id = m.round_id))
    ORDER BY m.created_at, m.id"""
    )


def bet_corrections(period: Period) -> Iterator[Record]:
    """Game-flow corrections (``TypTokyOprava``), each pointing at the stake's record (sent in this or an earlier
    package): a returned stake ``G`` (a provider's rollback: a rejected stake ``J``), a win credited after the
    stake's period, a deduction or a forfeited held win ``B`` (the amount's sign is the change)."""
    for txn_id, kind, net, at, currency, round_id, void_reason in _stream(
        _fixes_sql(), {**_params(period), "game": list(GAME_KINDS)}
    ):
        if kind == K.REFUND:
            code = "J" if void_reason == Round.VoidReason.PROVIDER else "G"
        else:
            code = "B"
        yield {
            "IDHraTokyOprava": ident(ID_BET_FIX, txn_id),
            "IDHraToky": ident(ID_BET, round_id),
            "TypTokyOprava": code,
            "TokyOpravaVyse": fmt_money(net),
            "TokyOpravaCas": fmt_time(at),
            "MenaKod": currency,
        }


def other_payments(period: Period) -> Iterator[Record]:
    """Complaint remedies and staff adjustments (credits), fees (debits), and any game posting the platform cannot
    tie to a round (a carried bonus paid out, a staff deduction not naming a round)."""
    r = Round._meta.db_table
    sql = (
        _moves_sql()
        + f"""
    SELECT m.id, m.player_id, m.net, m.created_at, m.currency FROM moves m LEFT JOIN {r} r ON r.id = m.round_id
    WHERE m.kind = ANY(%(other)s) OR (m.kind = ANY(%(game)s) AND r.id IS NULL) ORDER BY m.created_at, m.id"""
    )
    for txn_id, player_id, net, at, currency in _stream(
        sql, {**_params(period), "other": list(OTHER_KINDS), "game": list(GAME_KINDS)}
    ):
        yield {
            "IDOstatniPlneni": ident(ID_OTHER, txn_id),
            "IDProvozovatel": operator_id(),
            "IDUzivKonto": ident(ID_ACCOUNT, player_id),
            "HraDruh": schema.GAME_TYPE,
            "OstatniPlneniVysePuvodni": fmt_money(net),
            "OstatniPlneniCas": fmt_time(at),
            "MenaKod": currency,
        }


def other_payment_corrections(period: Period) -> Iterator[Record]:
    """The platform never changes an other payment once posted: a remedy taken back is a new posting (a record of
    ``ostatni_plneni``). The file carries its two header lines."""
    return iter(())


def self_limits(period: Period) -> Iterator[tuple[Record, Record]]:
    """Every decision on a self-limit of technical games in the period (set, refused, tightened, a loosening
    requested with the day it takes effect, a pending loosening cancelled) with its game-type link."""
    qs = SelfLimitChange.objects.filter(
        kind=TECHNICAL, requested_at__gte=period.start, requested_at__lt=period.end
    ).order_by("pk")
    for c in qs.iterator(chunk_size=CHUNK):
        typ = TYPSO[LimitType(c.limit_type)]
        refused = c.action == SelfLimitChange.Action.DECLINED
        value = c.old_value if c.action == SelfLimitChange.Action.LOOSENING_CANCELLED else c.new_value
        rec: Record = {
            "IDNastaveniSO": ident(ID_LIMIT, c.pk),
            "IDUzivKonto": ident(ID_ACCOUNT, c.player_id),
            "TypSO": typ,
            "SONastaveniCas": fmt_time(c.requested_at),
            "SOUcinnostiCas": fmt_time(c.effective_from),
            "SOOdmitnuti": 1 if refused else 0,
        }
        if typ in "abcd":
            rec["HodnotaVyse"] = fmt_money(REFUSED_MONEY if value is None else value)
            rec["MenaKod"] = "CZK"
        elif typ == "e":
            rec["HodnotaPocet"] = REFUSED_NUMBER if value is None else value
        else:
            rec["HodnotaCas"] = REFUSED_NUMBER if value is None else value
        yield (
            rec,
            {
                "IDSOHraDruh": ident(ID_LIMIT_KIND, c.pk),
                "IDNastaveniSO": rec["IDNastaveniSO"],
                "HraDruh": schema.GAME_TYPE,
            },
        )
