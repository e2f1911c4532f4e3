"""Fault suite: the web server SIGKILLed under load (master and workers at once, in the middle of rounds,
deposits, provider callbacks and withdrawals of several players), restarted, and every request that got no answer
sent again with its Idempotency-Key (a callback with its event id, as a provider retries it).

Two kills, each at an instant made certain rather than hoped for: (1) a withdrawal has committed and its answer is
not out (the web's broker stalls its after-commit enqueue: the test holds the lock kombu takes on the broker's
exchange file), so its retry must be a replay; (2) requests wait inside their transactions after their first writes
(the test holds the row locks of the players' accounts), so their work must roll back and their retries do it anew.

It proves, on a real gunicorn (2 sync workers, the project's config) against the test database:
- at the instant after each kill (before anything is retried) and again at the end: no round half-settled, no
  stake without its round, no round without its stake, every round either finished (settled) or waiting for the
  player with what it waits for (GP §7(8)); ``ledger_check`` and ``limits_reconcile`` clean;
- each key moved money at most once: one round per round key, one action row per action key, one deposit,
  one credit per deposit (one provider event per event id), one withdrawal, one hold and one send per withdrawal
  key; the request whose work committed before the kill is answered on its retry as a replay
  (``Idempotent-Replayed``), a request whose work the kill rolled back is done anew;
- every interrupted round is finished (a round that needs nothing from the player ended in its one transaction or
  not at all, GP §7(8)a; one waiting for the player resumes where it stopped, GP §7(8)b), every deposit credited
  once, every withdrawal sent once by the sweeper that picks up what the dead process never enqueued;
- each player's balance is what the answers the player saw add up to (nothing moved that the player was not
  told of, nothing told that did not move), and no answer was a 5xx.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from tests.faults.harness import (
    APP_WEB,
    Gunicorn,
    Transport,
    accounts_held,
    backends,
    blocked_by_me,
    error_code,
    request,
    wait_backends_gone,
)
from tests.kit.games import api_bet

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]

PLAYERS = 6
FUND = 100_000  # 1,000 CZK each
DEPOSIT = 5_000  # 50 CZK
WITHDRAWAL = 10_000  # 100 CZK, the bank transfer minimum
BETS: dict[str, dict[str, Any]] = {
    "european_roulette": {"bets": [{"type": "red", "amount": 100}]},  # settles at once, GP §7(8)a
    "fruit_king": {"lines": 10, "bet_per_line": 10},  # a base win waits for "gamble or collect", GP §7(8)b
    "kobushi": {"lines": 30, "coins": 1, "coin_value": 10},  # bonus picks / free spins wait for the player
}
# Each player's session: five rounds of the three games with deposits (and their provider callbacks) and
# withdrawals between them.
SCRIPT = [
    "fruit_king",
    "deposit",
    "fruit_king",
    "withdrawal",
    "kobushi",
    "deposit",
    "fruit_king",
    "withdrawal",
    "european_roulette",
]
# Two kills: at the first withdrawal (the work committed, its answer lost); after about half the session's answers,
# while requests wait inside their transactions (the work lost).
KILLS = [("answer lost", 0), ("mid-transaction", 45)]
THINK_SECONDS = 0.5  # a player looks at the round before the next action: rounds are open when the server dies
MIN_ROUND_SECONDS = 2.0  # GP §7(9): the client never starts its next round sooner
ATTEMPTS = 6


@dataclass
class Call:
    """One logical request (one key) and what happened to each of its attempts."""

    kind: str
    player: int
    key: str
    reference: str = ""  # the withdrawal row the call writes (its reference), to see it committed
    attempts: list[tuple[float, str]] = field(default_factory=list)  # (started, "answered" | "no answer")
    status: int = 0
    replayed: bool = False
    in_flight: bool = False


class Server:
    """The web server as the clients see it: ``up`` is cleared just before the kill and set after the restart."""

    def __init__(self, web: Gunicorn) -> None:
        self.web = web
        self.up = threading.Event()
        self.up.set()
        self.lock = threading.Lock()
        self.calls: list[Call] = []
        self.answers = 0
        self.closed = False  # the test is over (or failed): the clients stop instead of retrying


@dataclass
class Seen:
    """What one player was told: the final view of each round and the money moved."""

    rounds: dict[str, dict[str, Any]] = field(default_factory=dict)  # round key -> its last answer
    action_keys: dict[int, set[str]] = field(default_factory=dict)  # round id -> action keys answered 200
    deposits: dict[str, dict[str, Any]] = field(default_factory=dict)  # key -> deposit answer
    callbacks: dict[str, dict[str, Any]] = field(default_factory=dict)  # event id -> callback answer
    withdrawals: dict[str, dict[str, Any]] = field(default_factory=dict)  # key -> withdrawal answer
    failures: list[str] = field(default_factory=list)


class Client(threading.Thread):
    """One player's app: sends its session, and after a lost answer waits for the server and sends the same
    request again with the same key."""

    def __init__(self, server: Server, player: Any, token: str, method_id: int, payer: dict[str, Any]) -> None:
        super().__init__(name=f"player-{player.pk}", daemon=True)
        self.server, self.player, self.token, self.method_id, self.payer = server, player, token, method_id, payer
        self.seen = Seen()
        self.last_start = 0.0
        self.gambles = 0

    # --- the wire ----------------------------------------------------------------------------------------------------
    def send(
        self,
        kind: str,
        method: str,
        path: str,
        *,
        key: str,
        body: Any = None,
        raw: bytes | None = None,
        headers: dict[str, str] | None = None,
        auth: bool = True,
        reference: str = "",
    ) -> tuple[int, dict[str, str], Any]:
        call = Call(kind=kind, player=self.player.pk, key=key, reference=reference)
        with self.server.lock:
            self.server.calls.append(call)
        for _ in range(ATTEMPTS):
            self.server.up.wait(timeout=180)
            if self.server.closed:
                raise AssertionError("the test ended before this request was answered")
            started = time.monotonic()
            with self.server.lock:
                call.in_flight = True
            try:
                status, answer_headers, answer = request(
                    self.server.web.port,
                    method,
                    path,
                    token=self.token if auth else None,
                    body=body,
                    raw=raw,
                    key=key if auth else None,
                    headers=headers,
                )
            except Transport:
                with self.server.lock:
                    call.in_flight = False
                    call.attempts.append((started, "no answer"))
                if self.server.up.is_set():  # not the kill (which clears ``up`` first): a moment, then again
                    time.sleep(0.3)
                continue
            with self.server.lock:
                call.in_flight = False
                call.attempts.append((started, "answered"))
                call.status = status
                call.replayed = answer_headers.get("idempotent-replayed") == "true" or (
                    isinstance(answer, dict) and answer.get("status") == "duplicate"
                )
                self.server.answers += 1
            return status, answer_headers, answer
        raise AssertionError(f"{kind} {path} got no answer in {ATTEMPTS} attempts")

    # --- the session -------------------------------------------------------------------------------------------------
    def run(self) -> None:
        try:
            for step in SCRIPT:
                if step == "deposit":
                    self.deposit()
                elif step == "withdrawal":
                    self.withdraw()
                else:
                    self.play(step)
        except Exception as exc:  # noqa: BLE001 - reported by the test with the player's name
            self.seen.failures.append(f"{type(exc).__name__}: {exc}")

    def play(self, game: str) -> None:
        key = f"round-{uuid.uuid4().hex}"
        time.sleep(max(0.0, self.last_start + MIN_ROUND_SECONDS + 0.05 - time.time()))
        while True:
            status, _, body = self.send(
                "round", "POST", "/api/v1/games/rounds", key=key, body={"game": game, "bet": api_bet(BETS[game])}
            )
            code = error_code(status, body)
            if status == 201:
                break
            if code == "game.round_too_soon":  # GP §7(9): the server's clock decides; the same key again
                time.sleep(body["error"]["details"]["retry_after_ms"] / 1000 + 0.05)
                continue
            raise AssertionError(f"round refused: {code}")  # funds, no limits, one round at a time: never
        self.last_start = time.time()
        while body["status"] == "in_progress":  # GP §7(8)b: the round waits for this player
            time.sleep(THINK_SECONDS)
            action = self.choose(body["pending"]["options"])
            action_key = f"act-{uuid.uuid4().hex}"
            status, _, answer = self.send(
                "action", "POST", f"/api/v1/games/rounds/{body['id']}/actions", key=action_key, body={"action": action}
            )
            assert status == 200, (status, answer)
            self.seen.action_keys.setdefault(body["id"], set()).add(action_key)
            body = answer
        self.seen.rounds[key] = body

    def choose(self, options: list[dict[str, Any]]) -> dict[str, Any]:
        """Gamble once on red (a draw of its own) the first time it is offered, then collect; else the first
        option (a pick, the next free spin)."""
        red = {"type": "gamble", "colour": "red"}
        if red in options and self.gambles == 0:
            self.gambles += 1
            return red
        return {"type": "collect"} if {"type": "collect"} in options else options[0]

    def deposit(self) -> None:
        from wallet.adapters import SIGNATURE_HEADER, sandbox_event

        key = f"dep-{uuid.uuid4().hex}"
        status, _, body = self.send(
            "deposit",
            "POST",
            "/api/v1/wallet/deposits",
            key=key,
            body={"method_id": self.method_id, "amount": {"amount": DEPOSIT, "currency": "CZK"}},
        )
        assert status == 201, (status, body)
        self.seen.deposits[key] = body
        # The provider's signed callback; a provider sends the same event again until it gets an answer.
        event_id = f"evt-faults-{uuid.uuid4().hex}"
        raw, signature = sandbox_event(
            "payment.succeeded", body["payment_reference"], DEPOSIT, payer=self.payer, event_id=event_id
        )
        status, _, answer = self.send(
            "callback",
            "POST",
            "/api/v1/wallet/callbacks/sandbox",
            key=event_id,
            raw=raw,
            headers={SIGNATURE_HEADER: signature},
            auth=False,
        )
        assert status == 200 and answer["result"] == "confirmed", (status, answer)
        self.seen.callbacks[event_id] = answer

    def withdraw(self) -> None:
        key = f"wd-{uuid.uuid4().hex}"
        status, _, body = self.send(
            "withdrawal",
            "POST",
            "/api/v1/wallet/withdrawals",
            key=key,
            body={"method_id": self.method_id, "amount": {"amount": WITHDRAWAL, "currency": "CZK"}},
            reference=f"api:withdrawal:{self.player.user_id}:{key}",
        )
        assert status == 201, (status, body)
        self.seen.withdrawals[key] = body


def kill_moment(server: Server, trigger: str, seconds: float = 30.0) -> tuple[str, int]:
    """Wait (at most ``seconds``) for the instant to kill at: ``"answer lost"`` a withdrawal has committed and its
    answer is held up (the broker stalls its after-commit enqueue, ``broker_stalled``): its retry must be a
    replay; ``"mid-transaction"`` a request waits inside its transaction, after its first writes, for an account row
    this test holds (``accounts_held``): its work must roll back and its retry do it anew. Returns what it caught
    and how many web backends were inside a transaction then (``pg_stat_activity``)."""
    from wallet.models import Withdrawal

    started = time.monotonic()
    while time.monotonic() < started + seconds:
        refs = [call.reference for call in server.calls if call.in_flight and call.reference]
        if trigger == "answer lost" and refs and Withdrawal.objects.filter(reference__in=refs).exists():
            return "a withdrawal committed, its answer not yet sent", in_transaction()
        if trigger == "mid-transaction" and blocked_by_me(APP_WEB):
            time.sleep(0.2)  # let the other web worker stop at its posting too
            return f"requests waiting inside their transactions: {len(blocked_by_me(APP_WEB))}", in_transaction()
        time.sleep(0.005)
    raise AssertionError(f"no instant to kill at ({trigger}) within {seconds} s")


def in_transaction() -> int:
    return sum(1 for b in backends(APP_WEB) if b.in_transaction)


@contextlib.contextmanager
def broker_stalled(tmp_path: Path) -> Iterator[None]:
    """The web's broker stalls: the exchange file of its (filesystem) broker is locked, as kombu locks it, so a web
    worker's first publish waits inside the after-commit hook of its request (the withdrawal committed, the answer
    not sent). Released by the caller when the web server is dead."""
    with open(tmp_path / "broker" / "control" / "celery.exchange", "rb") as exchange:
        fcntl.flock(exchange, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(exchange, fcntl.LOCK_UN)


@dataclass
class Crash:
    """One kill and what it hit."""

    trigger: str
    caught: str = ""
    processes: int = 0
    in_flight: list[Call] = field(default_factory=list)
    open_transactions: int = 0
    rounds: Counter[str] = field(default_factory=Counter)


def crash(server: Server, ids: list[int], trigger: str, stall: contextlib.ExitStack) -> Crash:
    """SIGKILL gunicorn (master and workers) at the chosen instant, check the books before anything is retried,
    start it again (the broker no longer stalled) and let the clients retry."""
    c = Crash(trigger)
    with accounts_held(ids) if trigger == "mid-transaction" else contextlib.nullcontext():
        c.caught, c.open_transactions = kill_moment(server, trigger)
        with server.lock:
            server.up.clear()  # the clients wait for the server from here on
            c.in_flight = [call for call in server.calls if call.in_flight]
            c.processes = server.web.kill()
    stall.close()
    wait_backends_gone(APP_WEB)  # the database server ended them and rolled their transactions back
    # At the instant after the crash, before any retry: the books hold (a round may wait for its player).
    c.rounds = rounds_are_whole(ids, open_allowed=True)
    checks_clean()
    server.web.start()
    server.up.set()
    return c


# --- the books --------------------------------------------------------------------------------------------------------
def checks_clean() -> str:
    """``ledger_check`` and ``limits_reconcile`` as operations run them: each must pass (a difference raises)."""
    out = io.StringIO()
    call_command("ledger_check", stdout=out)
    call_command("limits_reconcile", stdout=out)
    text = out.getvalue()
    assert "ledger_check: OK" in text and "limits counters reconcile with the ledger" in text, text
    return text


def rounds_are_whole(player_ids: list[int], *, open_allowed: bool) -> Counter[str]:
    """No half-settled round and no stake without its round (GP §7(3), §7(8)): every real-money round has exactly
    one stake posting of its stake; a finished round has its settlement (and its win posted once when it won); a
    round in progress waits for the player with what it waits for (only allowed at the kill's instant); every
    stake posting of these players belongs to one of their rounds."""
    from games.models import Round
    from wallet.models import LedgerTransaction

    kinds = LedgerTransaction.Kind
    txns = LedgerTransaction.objects.filter(player_id__in=player_ids, kind__in=[kinds.STAKE, kinds.WIN, kinds.REFUND])
    by_ref = {(t.kind, t.reference): t.amount for t in txns}
    seen: Counter[str] = Counter()
    for rnd in Round.objects.filter(player_id__in=player_ids, play_money=False):
        ref = f"games:round:{rnd.pk}"
        assert by_ref.pop((kinds.STAKE, f"{ref}:stake"), None) == rnd.stake, f"round {rnd.pk} without its stake"
        win = by_ref.pop((kinds.WIN, f"{ref}:win"), 0)
        refund = by_ref.pop((kinds.REFUND, f"{ref}:refund"), 0)
        if rnd.status == Round.Status.FINISHED:
            assert rnd.settled_at is not None and win == rnd.win and refund == 0, f"round {rnd.pk} half-settled"
        elif rnd.status == Round.Status.IN_PROGRESS:
            assert open_allowed, f"round {rnd.pk} left unfinished"
            assert rnd.state.get("pending") and rnd.settled_at is None and win == refund == 0, (
                f"round {rnd.pk} in progress without a pending step (or already paid)"
            )
        else:  # voided/refunded: the stake came back, nothing paid
            assert refund == rnd.stake and win == 0, f"round {rnd.pk} {rnd.status} without its refund"
        seen[f"{rnd.game_code}:{rnd.status}"] += 1
    assert by_ref == {}, f"stake/win/refund postings without their round: {by_ref}"
    return seen


def assert_each_key_moved_money_at_most_once(client: Client) -> None:
    from core.models import IdempotencyRecord
    from games.models import Round, RoundAction
    from wallet.models import Deposit, LedgerTransaction, ProviderEvent, Withdrawal

    p, seen = client.player, client.seen
    user = p.user_id
    rounds = {r.idempotency_key: r for r in Round.objects.filter(player=p)}
    assert set(rounds) == set(seen.rounds), "a round without an answered key, or an answered key without a round"
    for key, answer in seen.rounds.items():
        rnd = rounds[key]
        assert (rnd.pk, rnd.status, rnd.stake, rnd.win) == (
            answer["id"],
            answer["status"],
            answer["stake"]["amount"],
            answer["win"]["amount"],
        )
        logged = list(RoundAction.objects.filter(round=rnd).values_list("idempotency_key", flat=True))
        assert sorted(logged) == sorted(seen.action_keys.get(rnd.pk, set())), f"round {rnd.pk}: actions != keys"
    deposits = Deposit.objects.filter(player=p)
    assert sorted(d.idempotency_reference for d in deposits) == sorted(f"api:deposit:{user}:{k}" for k in seen.deposits)
    assert all(d.status == Deposit.Status.CONFIRMED for d in deposits)
    credits = LedgerTransaction.objects.filter(player=p, kind=LedgerTransaction.Kind.DEPOSIT)
    assert sorted(t.reference for t in credits) == sorted(d.payment_reference for d in deposits)  # once each
    assert ProviderEvent.objects.filter(provider_txn_id__in=list(seen.callbacks)).count() == len(seen.callbacks)
    withdrawals = Withdrawal.objects.filter(player=p)
    assert sorted(w.reference for w in withdrawals) == sorted(f"api:withdrawal:{user}:{k}" for k in seen.withdrawals)
    for kind in (LedgerTransaction.Kind.WITHDRAWAL_HOLD, LedgerTransaction.Kind.WITHDRAWAL_SEND):  # held, sent once
        postings = LedgerTransaction.objects.filter(player=p, kind=kind)
        assert sorted(t.reference for t in postings) == sorted(w.reference for w in withdrawals), kind
    records = IdempotencyRecord.objects.filter(scope=f"user:{user}").values_list("key", flat=True)
    assert sorted(records) == sorted([*seen.deposits, *seen.withdrawals])


def expected_balance(seen: Seen) -> int:
    """The player's balance from the answers alone: funding, credited deposits, withdrawals, rounds."""
    credited = sum(d["amount"]["amount"] - d["fee"]["amount"] for d in seen.deposits.values())
    withdrawn = sum(w["amount"]["amount"] for w in seen.withdrawals.values())
    played = sum(r["win"]["amount"] - r["stake"]["amount"] for r in seen.rounds.values())
    return FUND + credited - withdrawn + played


def test_the_web_server_killed_mid_traffic_loses_nothing_and_moves_nothing_twice(tmp_path, settings):
    from games.services import games_sync
    from tests.kit.accounts import make_player, token_for
    from tests.kit.money import czk
    from tests.kit.wallet import fund, verified_bank
    from wallet.ledger import operator_account
    from wallet.models import Withdrawal
    from wallet.selectors import balance
    from wallet.services.sandbox import default_sandbox_payer
    from wallet.tasks import sweep

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # test users: no Argon2
    games_sync()
    # The house account exists, as on any platform that has played a round before: its creation racing the first
    # concurrent stakes is a defect of its own (test_operator_account_first_use.py, xfail).
    operator_account("house")
    web = Gunicorn(tmp_path, workers=2)
    server = Server(web)
    clients = []
    for _ in range(PLAYERS):
        player = make_player()
        fund(player, czk(FUND // 100))
        clients.append(
            Client(server, player, token_for(player.user), verified_bank(player).pk, default_sandbox_payer(player))
        )
    ids = [c.player.pk for c in clients]
    crashes: list[Crash] = []
    stall = contextlib.ExitStack()
    stall.enter_context(broker_stalled(tmp_path))  # until the first kill
    web.start()
    try:
        for c in clients:
            c.start()
        for trigger, answers in KILLS:
            deadline = time.monotonic() + 60
            while server.answers < answers and time.monotonic() < deadline:
                time.sleep(0.01)
            crashes.append(crash(server, ids, trigger, stall))
        for c in clients:
            c.join(timeout=180)
        assert not any(c.is_alive() for c in clients), "a player's session did not end"
        failures = {c.name: c.seen.failures for c in clients if c.seen.failures}
        assert failures == {}, failures
        # GP §7(8)b: nothing is left waiting for any player after the sessions (each resumed its round).
        for c in clients:
            status, _, body = request(web.port, "GET", "/api/v1/games/rounds/open", token=c.token)
            assert status == 200 and body["round"] is None, body
    finally:
        server.closed = True
        server.up.set()
        stall.close()
        web.stop()

    # What the dead server had queued for the worker (sending the withdrawals), the sweeper picks up.
    sent = sweep()
    assert Withdrawal.objects.filter(player_id__in=ids).exclude(status=Withdrawal.Status.CONFIRMED).count() == 0

    calls = server.calls
    statuses = Counter(str(call.status) for call in calls)
    assert not [s for s in statuses if s.startswith("5")], statuses  # no 500, and no 503 once restarted
    lost = [call for call in calls if any(outcome == "no answer" for _, outcome in call.attempts)]
    assert lost and all(call.status for call in lost), "every request that got no answer was answered on retry"
    replayed = Counter(call.kind for call in lost if call.replayed)
    assert sum(1 for call in calls if call.replayed) == sum(replayed.values())  # a replay only after a lost answer

    end = rounds_are_whole(ids, open_allowed=False)
    for c in clients:
        assert_each_key_moved_money_at_most_once(c)
        assert balance(c.player).amount == expected_balance(c.seen), c.name
    checks_clean()
    print(
        f"\nweb kill: {PLAYERS} players, {len(calls)} requests {dict(Counter(call.kind for call in calls))}, "
        f"{sum(len(call.attempts) for call in calls)} attempts; answers by status {dict(statuses)}"
    )
    for n, k in enumerate(crashes, 1):
        hit = [call for call in k.in_flight if any(outcome == "no answer" for _, outcome in call.attempts)]
        print(
            f"  kill {n} ({k.caught}): gunicorn master + {k.processes - 1} workers SIGKILLed with {len(k.in_flight)} "
            f"requests in flight and {k.open_transactions} web transactions open; {len(hit)} of them got no answer "
            f"and were retried with their keys {dict(Counter(call.kind for call in hit))}, answered as replays "
            f"(their work had committed before the kill) {dict(Counter(call.kind for call in hit if call.replayed))}"
            f"; rounds right after the kill {dict(k.rounds)}"
        )
    assert any(call.replayed and call.kind == "withdrawal" for call in crashes[0].in_flight), (
        "the withdrawal whose answer the first kill lost was not answered as a replay"
    )
    assert any(
        not call.replayed
        for call in crashes[1].in_flight
        if any(outcome == "no answer" for _, outcome in call.attempts)
    ), "no request the second kill interrupted inside its transaction was done anew on its retry"
    print(f"  rounds at the end {dict(end)}; the sweeper after the restarts: {sent}")
    assert {call.kind for call in calls} == {"round", "action", "deposit", "callback", "withdrawal"}
    assert sum(len(c.seen.rounds) for c in clients) == PLAYERS * sum(1 for step in SCRIPT if step in BETS)
