"""What a compliance case refuses, through the HTTP API at each state of the case (docs/aml.md, "Compliance cases and
what they refuse"): a blocking case (PEP declared, a sanctions / PEP list match) refuses deposits, withdrawals and
real-money stakes while it is open (``aml.compliance_review``) and once it is confirmed (``aml.compliance_refused``);
a cleared case and a rule case that does not block refuse nothing. The stake decision reads it in its one locking
statement (``Player.aml_restriction``, changed in the transaction of the case's change), so a stake is refused even
when the player's row was loaded before the case opened."""

from __future__ import annotations

import itertools
from datetime import date
from typing import Any

import pytest
import time_machine
from rest_framework.test import APIClient

from accounts.models import Player
from aml.models import ComplianceCase
from aml.selectors import DIRECTIONS, compliance_refusal
from aml.services import case_open, pep_declare, screening_run
from aml.services.cases import restriction_of
from core import clock
from core.audit import Actor
from core.errors import DomainError
from core.money import Money
from core.rng import use_rng
from games.models import Round
from games.services import round_play
from games.tests.platform.testgames import FixedRNG
from tests.kit.accounts import birth_number_for, make_player, make_staff, token_for
from tests.kit.games import api_bet

pytestmark = pytest.mark.django_db
SYSTEM = Actor.system("test")
LISTED = {"given_names": "Ivan", "surname": "Sankcionovaný", "date_of_birth": "1971-03-14", "sex": "M"}
RED_BET: dict[str, Any] = {"bets": [{"type": "red", "amount": 100}]}
RED: dict[str, Any] = {"game": "european_roulette", "bet": api_bet(RED_BET)}
LOSS = FixedRNG(0)
_keys = itertools.count(1)
REVIEW, REFUSED = "aml.compliance_review", "aml.compliance_refused"


@pytest.fixture(autouse=True)
def _aml_sandbox(settings: Any) -> None:
    settings.AML_SANDBOX_ENABLED = True
    settings.AML_SANDBOX_UNAVAILABLE = False


def _api(user: Any) -> APIClient:
    c = APIClient(raise_request_exception=False)
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(getattr(user, 'user', user))}")
    return c


def _key() -> str:
    return f"aml-case-{next(_keys)}"


def _listed_full_account() -> tuple[Player, int]:
    """A player account (completed registration) of a person on the sandbox sanctions list, with 1,000 CZK and a
    verified bank account; returns (player, method id)."""
    from wallet.models import PaymentMethod
    from wallet.services import adjustment_credit, payment_method_register, payment_method_verify

    data = {**LISTED, "birth_number": birth_number_for(date.fromisoformat(LISTED["date_of_birth"]), sex="M", serial=7)}
    player = make_player(status="active", personal_data=data)
    adjustment_credit(
        player=player, amount=Money(100_000), reference=f"fund-{player.pk}", reason="test funding", actor=SYSTEM
    )
    method = payment_method_register(
        player=player, kind="bank_account", data={"account_number": "19-2000145399/0800"}, actor=Actor.player(player)
    )
    payment_method_verify(method=method, by=PaymentMethod.VerifiedBy.DOCUMENTS, actor=SYSTEM)
    return player, method.pk


def _attempts(player: Player, method_id: int, clock_: Any) -> dict[str, tuple[int, str | None]]:
    """A deposit, a withdrawal and a real-money stake through the API: {what: (HTTP status, error code or None)}."""
    c = _api(player)
    out: dict[str, tuple[int, str | None]] = {}
    for what, path, body in (
        (
            "deposit",
            "/api/v1/wallet/deposits",
            {"method_id": method_id, "amount": {"amount": 10000, "currency": "CZK"}},
        ),
        (
            "withdrawal",
            "/api/v1/wallet/withdrawals",
            {"method_id": method_id, "amount": {"amount": 10000, "currency": "CZK"}},
        ),
    ):
        r = c.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY=_key())
        out[what] = (r.status_code, r.json()["error"]["code"] if r.status_code >= 400 else None)
    clock_.shift(3)  # GP §7(9)
    with use_rng(LOSS):
        r = c.post("/api/v1/games/rounds", RED, format="json", HTTP_IDEMPOTENCY_KEY=_key())
    out["stake"] = (r.status_code, r.json()["error"]["code"] if r.status_code >= 400 else None)
    return out


@pytest.fixture
def frozen() -> Any:
    with time_machine.travel(clock.now(), tick=False) as traveller:
        yield traveller


def _decide(case: ComplianceCase, decision: str, note: str) -> None:
    r = _api(make_staff(role="compliance")).post(
        f"/api/v1/aml/staff/cases/{case.pk}/decide", {"decision": decision, "note": note}, format="json"
    )
    assert r.status_code == 200, r.content


def _nothing_moved(player: Player, before: tuple[int, int, int, int]) -> bool:
    return _books(player) == before


def _books(player: Player) -> tuple[int, int, int, int]:
    from wallet.models import Deposit, Withdrawal
    from wallet.selectors import balance

    return (
        balance(player).amount,
        Round.objects.filter(player=player).count(),
        Deposit.objects.filter(player=player).count(),
        Withdrawal.objects.filter(player=player).count(),
    )


def test_an_open_list_match_refuses_deposits_withdrawals_and_stakes_and_nothing_moves(frozen):
    player, method = _listed_full_account()
    assert screening_run(player=player, actor=SYSTEM, trigger="periodic").result == "hit"
    case = ComplianceCase.objects.get(player=player)
    assert (case.kind, case.status, case.blocking) == ("screening_hit", "open", True)
    before = _books(player)
    assert _attempts(player, method, frozen) == {
        "deposit": (409, REVIEW),
        "withdrawal": (409, REVIEW),
        "stake": (409, REVIEW),
    }
    assert _nothing_moved(player, before)
    status = _api(player).get("/api/v1/aml/status").json()["refusals"]
    assert (status["deposit"], status["withdrawal"], status["stake"]) == (REVIEW, REVIEW, REVIEW)
    assert _api(player).get("/api/v1/accounts/me").json()["betting_refusal"] == REVIEW


def test_a_confirmed_list_match_refuses_stakes_as_well_as_money_movements(frozen):
    """The review's probe: with a confirmed sanctions case deposits and withdrawals were refused, a stake got 201."""
    player, method = _listed_full_account()
    screening_run(player=player, actor=SYSTEM, trigger="periodic")
    _decide(ComplianceCase.objects.get(player=player), "confirmed", "list match confirmed: the same person")
    player.refresh_from_db()
    assert player.aml_restriction == "refused"
    before = _books(player)
    assert _attempts(player, method, frozen) == {
        "deposit": (403, REFUSED),
        "withdrawal": (403, REFUSED),
        "stake": (403, REFUSED),
    }
    assert _nothing_moved(player, before)
    assert _api(player).get("/api/v1/aml/status").json()["refusals"] == {
        "deposit": REFUSED,
        "withdrawal": REFUSED,
        "completion": REFUSED,
        "stake": REFUSED,
    }


def test_a_cleared_false_positive_lets_everything_through_again(frozen):
    player, method = _listed_full_account()
    screening_run(player=player, actor=SYSTEM, trigger="periodic")
    _decide(ComplianceCase.objects.get(player=player), "cleared", "false positive: another person")
    player.refresh_from_db()
    assert player.aml_restriction == ""
    result = _attempts(player, method, frozen)
    assert result == {"deposit": (201, None), "withdrawal": (201, None), "stake": (201, None)}


def test_a_pep_declaration_blocks_until_compliance_accepts_the_relationship(frozen):
    """A PEP declared by the player opens a blocking case: money and stakes wait for enhanced due diligence."""
    player, method = _listed_full_account()
    r = _api(player).post(
        "/api/v1/aml/pep-declaration", {"relation": "self", "position": "mayor of Kolín"}, format="json"
    )
    assert r.status_code == 201
    assert _attempts(player, method, frozen) == {
        "deposit": (409, REVIEW),
        "withdrawal": (409, REVIEW),
        "stake": (409, REVIEW),
    }
    _decide(
        ComplianceCase.objects.get(player=player, kind="pep_declared"),
        "cleared",
        "enhanced due diligence done, relationship accepted by the management",
    )
    assert _attempts(player, method, frozen) == {
        "deposit": (201, None),
        "withdrawal": (201, None),
        "stake": (201, None),
    }


def test_one_confirmed_case_refuses_while_another_is_cleared_and_a_new_open_one_does_not_soften_it(frozen):
    player, method = _listed_full_account()
    pep_declare(player=player, relation="self", position="minister", actor=Actor.player(player))
    screening_run(player=player, actor=SYSTEM, trigger="periodic")
    pep_case, hit = (ComplianceCase.objects.get(player=player, kind=k) for k in ("pep_declared", "screening_hit"))
    _decide(hit, "confirmed", "sanctions: confirmed")
    _decide(pep_case, "cleared", "PEP accepted")
    case_open(player_id=player.pk, kind="pep_declared", key="another", summary="again", blocking=True, actor=SYSTEM)
    player.refresh_from_db()
    assert player.aml_restriction == "refused" == restriction_of(player.pk)
    assert _attempts(player, method, frozen)["stake"] == (403, REFUSED)


@pytest.mark.parametrize("blocks", [False, True])
def test_a_rule_case_refuses_only_when_rule_cases_are_configured_to_block(frozen, settings, blocks):
    """A suspicious-transaction rule hit is an alert, not a finding: by default it refuses nothing (blocking every
    alert would tip the suspicious players off); with AML_RULE_CASES_BLOCK it blocks like any blocking case."""
    settings.AML_RULE_CASES_BLOCK = blocks
    player, method = _listed_full_account()
    case_open(
        player_id=player.pk,
        kind="suspicious",
        rule="rapid_cycles",
        key=f"rule:test:{player.pk}",
        summary="cycles",
        blocking=bool(settings.AML_RULE_CASES_BLOCK),
        actor=SYSTEM,
    )
    expected = (
        {"deposit": (409, REVIEW), "withdrawal": (409, REVIEW), "stake": (409, REVIEW)}
        if blocks
        else {"deposit": (201, None), "withdrawal": (201, None), "stake": (201, None)}
    )
    assert _attempts(player, method, frozen) == expected


def test_the_stake_decision_reads_the_case_under_its_lock_not_the_row_loaded_earlier(frozen):
    """The player's row as the token loaded it knows no case; the case opens before the stake is decided: the
    stake gate's locking statement reads the restriction committed with the case, so the stake is refused."""
    player, _method = _listed_full_account()
    loaded = Player.objects.select_related("user").get(pk=player.pk)  # what authentication loaded
    screening_run(player=player, actor=SYSTEM, trigger="periodic")
    assert loaded.aml_restriction == ""
    frozen.shift(3)
    with pytest.raises(DomainError) as exc, use_rng(LOSS):
        round_play(
            player=loaded,
            game_code="european_roulette",
            bet=RED_BET,
            idempotency_key=_key(),
            actor=Actor.player(loaded),
        )
    assert exc.value.code == REVIEW and not Round.objects.filter(player=player).exists()


def test_the_restriction_the_gate_reads_is_the_answer_the_money_checks_give_at_every_state(frozen):
    """One decision, two readers: ``Player.aml_restriction`` (the stake gate) and ``compliance_refusal`` (deposits,
    withdrawals, completion) agree through open, confirmed and cleared cases."""
    from accounts.selectors import aml_refusal

    player, _method = _listed_full_account()

    def agree() -> None:
        player.refresh_from_db()
        gate = aml_refusal(player.aml_restriction)
        for direction in DIRECTIONS:
            money = compliance_refusal(player, direction)
            if direction == "completion":
                continue  # completion needs more (the declaration, a screening); its case part is the same code
            assert (gate.code if gate else None) == (money.code if money else None), direction

    agree()
    pep_declare(player=player, relation="associate", position="adviser", actor=Actor.player(player))
    agree()
    (case,) = ComplianceCase.objects.filter(player=player)
    _decide(case, "confirmed", "relationship refused")
    agree()
    assert player.aml_restriction == "refused"
