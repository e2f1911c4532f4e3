"""The studio's game server logic: one round of Sim Fruits against the platform's wallet, well or badly behaved.

A well-behaved round (``normal``) is what the contract expects: ``bet`` (round_closed false) -> the simulator draws
the outcome -> ``win`` with the amount (0 for a loss) and round_closed true. The misbehaving modes are the faults
real game servers produce; each is documented by the calls it makes (the tests assert exactly these):

``duplicate``         every call sent twice with the same body (the second must be a replay: same answer, nothing moves)
``out_of_order``      the outcome drawn first and the win sent before its bet (refused: the bet is unknown), then the
                      bet, then the same win again (if the platform replays its first refusal, once more under a new
                      transaction id)
``rollback_first``    the rollback of a bet before the bet itself (RS_OK: a tombstone), then the bet (refused:
                      rolled back); nothing moves, no outcome is drawn
``timeout``           the bet's answer is dropped (as if it timed out after the debit), the same bet retried (a
                      replay), then rolled back as the specifications of seamless wallets say: the stake comes back,
                      the round is void, no outcome is drawn
``late_round_end``    the win sent with round_closed false, then ``round-end`` (after ``late_seconds``) closes it
``forged_signature``  the bet signed with a wrong secret (refused 401)
``stale_timestamp``   the bet signed with a timestamp 301 s old, outside the replay window (refused 401)
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .client import Reply, WalletClient
from .signing import WINDOW_SECONDS
from .slot import GAME_ID, Slot, Spin

MODES = (
    "normal",
    "duplicate",
    "out_of_order",
    "rollback_first",
    "timeout",
    "late_round_end",
    "forged_signature",
    "stale_timestamp",
)


def new_id(kind: str) -> str:
    """A transaction or round id, unique per provider: ``sim-<kind>-<24 hex>``."""
    return f"sim-{kind}-{secrets.token_hex(12)}"


@dataclass
class RoundResult:
    round_id: str
    mode: str
    stake: int
    spin: Spin | None = None  # None: no outcome drawn (refused or voided)
    refusal: Reply | None = None  # the platform's refusal the player is shown
    balance: int | None = None  # the last balance the platform reported (haléře)
    calls: list[tuple[str, Reply | None]] = field(default_factory=list)  # (op, answer; None = dropped)
    settled: bool = False  # the round was closed with its win
    voided: bool = False  # the stake came back (rollback)

    def as_json(self, lang: str = "cs") -> dict[str, Any]:
        return {
            "round_id": self.round_id,
            "mode": self.mode,
            "stake": self.stake,
            "spin": self.spin.as_json() if self.spin else None,
            "balance": self.balance,
            "settled": self.settled,
            "voided": self.voided,
            "refused": None
            if self.refusal is None
            else {
                "status": self.refusal.provider_status,
                "code": self.refusal.code,
                "message": self.refusal.message(lang),
                "details": self.refusal.error.get("details") or {},
            },
            "calls": [
                {
                    "op": op,
                    "status": None if r is None else r.status,
                    "provider_status": None if r is None else r.provider_status,
                }
                for op, r in self.calls
            ],
        }


class Studio:
    def __init__(
        self,
        client: WalletClient,
        slot: Slot | None = None,
        *,
        ids: Callable[[str], str] = new_id,
        late_seconds: float = 0.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.client, self.slot, self.ids = client, slot or Slot(), ids
        self.late_seconds, self.sleep = late_seconds, sleep

    def session(self, launch_token: str) -> Reply:
        return self.client.session(launch_token)

    def play_round(self, session: str, stake: int, *, mode: str = "normal", game: str = GAME_ID) -> RoundResult:
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; one of {', '.join(MODES)}")
        r = _Round(self, session, RoundResult(round_id=self.ids("round"), mode=mode, stake=stake), game)
        if mode in ("forged_signature", "stale_timestamp"):
            r.forged()
        elif mode == "rollback_first":
            r.rollback_first()
        elif mode == "timeout":
            r.timeout()
        else:
            r.play()
        return r.result


class _Round:
    """The calls of one round (``send`` repeats each call in the ``duplicate`` mode)."""

    def __init__(self, studio: Studio, session: str, result: RoundResult, game: str) -> None:
        self.studio, self.session, self.result = studio, session, result
        self.mode, self.stake = result.mode, result.stake
        self.bet_id, self.win_id = studio.ids("bet"), studio.ids("win")
        self.bet: dict[str, Any] = {"transaction_id": self.bet_id, "game": game, "amount": self.stake}

    def send(self, op: str, note: str = "", **kw: Any) -> Reply | None:
        method = getattr(self.studio.client, op.replace("-", "_"))
        reply = None
        for n in range(2 if self.mode == "duplicate" else 1):
            reply = method(
                self.session,
                round_id=self.result.round_id,
                mode=self.mode,
                note=", ".join(filter(None, [note, "duplicate" if n else ""])),
                **kw,
            )
            self.result.calls.append((op, reply))
        if reply is not None and reply.balance is not None:
            self.result.balance = reply.balance
        return reply

    def forged(self) -> None:
        if self.mode == "forged_signature":
            self.result.refusal = self.send(
                "bet", **self.bet, secret="forged-" + secrets.token_hex(16), note="forged signature"
            )
        else:
            stale = int(self.studio.client.clock()) - WINDOW_SECONDS - 1
            self.result.refusal = self.send("bet", **self.bet, timestamp=stale, note="stale timestamp")

    def rollback_first(self) -> None:
        self.send(
            "rollback",
            transaction_id=self.studio.ids("rollback"),
            bet_transaction_id=self.bet_id,
            amount=self.stake,
            note="rollback before its bet",
        )
        self.result.refusal = self.send("bet", **self.bet)

    def timeout(self) -> None:
        self.send("bet", **self.bet, drop_answer=True)  # the debit happened; the answer never arrived
        retried = self.send("bet", **self.bet, note="retry after timeout")
        rollback = self.send(
            "rollback",
            transaction_id=self.studio.ids("rollback"),
            bet_transaction_id=self.bet_id,
            amount=self.stake,
            note="rollback after timeout",
        )
        self.result.voided = bool(rollback and rollback.ok)
        if retried is not None and not retried.ok:
            self.result.refusal = retried

    def play(self) -> None:
        """normal, duplicate, out_of_order, late_round_end"""
        closed = self.mode != "late_round_end"
        spin = None
        if self.mode == "out_of_order":
            # the outcome was drawn and the bet and the win sent together; the win overtook its bet (the same body
            # both times: a changed body under one id would be another transaction)
            spin = self.studio.slot.spin(self.stake)
            self.send(
                "win",
                transaction_id=self.win_id,
                bet_transaction_id=self.bet_id,
                amount=spin.win,
                round_closed=closed,
                round_detail={"outcome": spin.as_json()} if closed else None,
                note="win before its bet",
            )
        placed = self.send("bet", **self.bet)
        if placed is None or not placed.ok:
            self.result.refusal = placed
            return
        spin = self.result.spin = spin or self.studio.slot.spin(self.stake)
        win: dict[str, Any] = {
            "bet_transaction_id": self.bet_id,
            "amount": spin.win,
            "round_closed": closed,
            "round_detail": {"outcome": spin.as_json()} if closed else None,
        }
        won = self.send("win", transaction_id=self.win_id, **win)
        if self.mode == "out_of_order" and won is not None and not won.ok:
            # the platform kept its first answer to this id (the refusal): the win under a new id
            won = self.send("win", transaction_id=self.studio.ids("win"), **win, note="win again under a new id")
        if won is None or not won.ok:
            self.result.refusal = won
            return
        if not closed:
            if self.studio.late_seconds:
                self.studio.sleep(self.studio.late_seconds)
            ended = self.send(
                "round-end",
                transaction_id=self.studio.ids("end"),
                round_detail={"outcome": spin.as_json()},
                note="late round-end",
            )
            if ended is None or not ended.ok:
                self.result.refusal = ended
                return
        self.result.settled = True
