"""A ledger posting's integrity failures: only a reused reference is the client's conflict (409
``wallet.reference_conflict``); a broken zero sum, balance or debt check is a bug in the money path, answered as a
server error, logged at ERROR on ``platform.alarm`` and never a 409 (wallet/ledger.py ``_integrity_refusal``)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction

from core.audit import Actor
from core.errors import SERVER_ERROR, DomainError
from core.rng import use_rng
from games.models import Round
from games.tests.platform.testgames import FixedRNG
from tests.kit.clients import client_for
from tests.kit.platform import balance, funded_player, start
from wallet import sql as wallet_sql
from wallet.errors import REFERENCE_CONFLICT
from wallet.ledger import post_with_operator, wallet_lock_live

SYSTEM = Actor.system("tests")


def _zero_sum_broken(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
    """The service's own posting, with the operator's leg one haléř off (a raw insert that breaks the zero sum) and
    the ledger's deferred checks made immediate, so the trigger refuses inside the posting statement."""
    if _is_posting(sql):
        execute("SET CONSTRAINTS ALL IMMEDIATE", None, False, context)
        sql = _broken_posting()
    return execute(sql, params, many, context)


def _is_posting(sql: str) -> bool:
    """The posting as the service sends it: its prepared form's EXECUTE (core/sql.py) or its text."""
    return sql in (wallet_sql.POST_WITH_OPERATOR.sql, wallet_sql.POST_WITH_OPERATOR.execute_sql)


def _broken_posting() -> str:
    """The posting's text (same named parameters) with the operator's leg one haléř off."""
    broken = wallet_sql.POST_WITH_OPERATOR.sql.replace(
        "SELECT txn.id, op.id, -%(delta)s,", "SELECT txn.id, op.id, -%(delta)s + 1,"
    )
    assert broken != wallet_sql.POST_WITH_OPERATOR.sql
    return broken


@pytest.mark.django_db
def test_a_reference_posted_twice_is_a_reference_conflict(clock):
    player = funded_player(10_000)
    with transaction.atomic():
        locked = wallet_lock_live(player=player)
        post_with_operator(locked=locked, kind="stake", reference="twice", delta=-100, operator="house", actor=SYSTEM)
        with pytest.raises(DomainError) as refused, transaction.atomic():
            post_with_operator(
                locked=locked, kind="stake", reference="twice", delta=-100, operator="house", actor=SYSTEM
            )
    assert refused.value.code == REFERENCE_CONFLICT.code and refused.value.status == 409


@pytest.mark.django_db
def test_a_zero_sum_failure_inside_the_posting_is_alarmed_and_raised_never_a_conflict(clock, caplog):
    player = funded_player(10_000)
    caplog.set_level(logging.ERROR, logger="platform.alarm")
    with pytest.raises(IntegrityError), transaction.atomic():
        locked = wallet_lock_live(player=player)
        with connection.execute_wrapper(_zero_sum_broken):
            post_with_operator(
                locked=locked, kind="stake", reference="broken", delta=-100, operator="house", actor=SYSTEM
            )
    alarms = [r for r in caplog.records if r.name == "platform.alarm"]
    assert len(alarms) == 1 and alarms[0].levelno == logging.ERROR and "does not balance" in alarms[0].getMessage()
    assert balance(player) == 10_000


@pytest.mark.django_db(transaction=True)
def test_through_the_api_a_zero_sum_failure_is_a_500_logged_and_moves_nothing(clock, caplog):
    player = funded_player(10_000)
    c = client_for(player)
    caplog.set_level(logging.ERROR)
    with use_rng(FixedRNG(0)), connection.execute_wrapper(_zero_sum_broken):
        r = start(c)
    assert r.status_code == 500 and r.json()["error"]["code"] != REFERENCE_CONFLICT.code
    assert len([rec for rec in caplog.records if rec.name == "platform.alarm" and rec.levelno == logging.ERROR]) == 1
    assert balance(player) == 10_000 and not Round.objects.filter(player=player).exists()


@pytest.mark.django_db(transaction=True)
def test_through_the_api_a_zero_sum_failure_at_commit_is_a_500_not_a_conflict(clock, caplog):
    """The same broken posting left to the deferred trigger: it fails at COMMIT, outside the posting; the answer is
    still a server error (logged at ERROR and alarmed by the error handler)."""

    def deferred(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if _is_posting(sql):
            sql = _broken_posting()
        return execute(sql, params, many, context)

    player = funded_player(10_000)
    c = client_for(player)
    caplog.set_level(logging.ERROR)
    with use_rng(FixedRNG(0)), connection.execute_wrapper(deferred):
        r = start(c)
    assert r.status_code == 500 and r.json()["error"]["code"] == SERVER_ERROR.code
    assert any(rec.name == "platform.alarm" and rec.levelno == logging.ERROR for rec in caplog.records)
    assert balance(player) == 10_000 and not Round.objects.filter(player=player).exists()
