"""The claim triggers' ``WHEN`` conditions (core/partitioning.py ``_claim_trigger_sql``, docs/scaling.md "Monthly
partitions").

Each claim is kept by one trigger per event whose ``WHEN`` holds exactly when the upkeep function acts: PostgreSQL
does not call the function for a round inserted already settled, a settled bet without a round reference or an update
of a round's status that leaves it open or closed, and still calls it whenever the claim table must change. The
calls are read from ``pg_stat_xact_user_functions`` (this transaction's counts, with ``track_functions = 'pl'``).
"""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from core import partitioning
from core.audit import Actor
from core.partition_tables import Claim, declared_claims
from core.rng import use_rng
from games.models import Round
from games.services import round_play
from games.tests.platform.testgames import FixedRNG
from tests.kit.money import czk
from tests.kit.wallet import fund

pytestmark = pytest.mark.django_db

RED = {"bets": [{"type": "red", "amount": 1_000}]}
OPEN_FN = "games_round_one_open_per_player_claim_keep"
KEY_FN = "games_round_unique_player_key_claim_keep"
REF_FN = "limits_settledbet_unique_ref_claim_keep"
CLAIMED_TABLES = ("games_round", "limits_settledbet", "wallet_ledgertransaction")


def _one(sql: str, params: list | None = None):
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return cursor.fetchone()


def _track() -> None:
    """Count this transaction's calls of PL/pgSQL functions (a superuser's setting, as the tests' role is)."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL track_functions = 'pl'")


def _calls(function: str) -> int:
    """This transaction's calls of ``function`` so far (counted once ``track_functions`` is on)."""
    return int(
        _one("SELECT coalesce(sum(calls), 0) FROM pg_stat_xact_user_functions WHERE funcname = %s", [function])[0]
    )


def _columns(table: str, leave_out: tuple[str, ...]) -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = %s
               ORDER BY ordinal_position""",
            [table],
        )
        return ", ".join(c for (c,) in cursor.fetchall() if c not in ("id", *leave_out))


def _triggers(table: str) -> list[tuple[str, str, str]]:
    """(table or partition, trigger, definition without the table's name) of every claim trigger of ``table`` and
    its partitions."""
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT t.tgrelid::regclass::text, t.tgname,
                      regexp_replace(pg_get_triggerdef(t.oid), ' ON \\S+ ', ' ON * ')
               FROM pg_trigger t
               WHERE t.tgname LIKE '%%claim\\_keep%%'
                 AND (t.tgrelid = %s::regclass OR t.tgrelid IN (SELECT inhrelid FROM pg_inherits
                                                                 WHERE inhparent = %s::regclass))
               ORDER BY 1, 2""",
            [table, table],
        )
        return [tuple(r) for r in cursor.fetchall()]


@pytest.fixture
def settled_round(settings):
    from tests.kit.accounts import make_player

    settings.GP = {**settings.GP, "MIN_ROUND_SECONDS": 0}
    player = make_player()
    fund(player, czk(100))
    with use_rng(FixedRNG(0)):
        round_play(
            player=player, game_code="european_roulette", idempotency_key="k", bet=RED, actor=Actor.player(player)
        )
    rnd = Round.objects.get(player=player)
    assert rnd.status == Round.Status.FINISHED
    _track()
    return rnd


def _round_copy(rnd: Round, key: str, status: str) -> int:
    copy = _columns("games_round", ("idempotency_key", "status"))
    return int(
        _one(
            f"INSERT INTO games_round ({copy}, idempotency_key, status) SELECT {copy}, %s, %s FROM games_round "
            "WHERE id = %s RETURNING id",
            [key, status, rnd.pk],
        )[0]
    )


def _open_claimed(round_id: int) -> bool:
    return bool(_one("SELECT count(*) FROM games_round_one_open_per_player_claim WHERE row_id = %s", [round_id])[0])


def test_a_round_inserted_settled_does_not_call_the_open_round_claims_function_and_an_open_one_does(settled_round):
    open_calls, key_calls = _calls(OPEN_FN), _calls(KEY_FN)
    settled = _round_copy(settled_round, "settled-1", "finished")
    assert (_calls(OPEN_FN), _calls(KEY_FN)) == (open_calls, key_calls + 1)  # the key claim has no condition
    assert not _open_claimed(settled)
    opened = _round_copy(settled_round, "open-1", "in_progress")
    assert (_calls(OPEN_FN), _calls(KEY_FN)) == (open_calls + 1, key_calls + 2)
    assert _open_claimed(opened)
    with pytest.raises(IntegrityError, match="games_round_one_open_per_player"), transaction.atomic():
        _round_copy(settled_round, "open-2", "in_progress")  # the claim still refuses a second open round
    with pytest.raises(IntegrityError, match="games_round_unique_player_key"), transaction.atomic():
        _round_copy(settled_round, "settled-1", "finished")


def test_an_update_calls_the_function_only_when_the_round_enters_or_leaves_in_progress(settled_round):
    opened = _round_copy(settled_round, "open-1", "in_progress")
    steps = [  # (status set, whether the claim must move)
        ("in_progress", False),  # UPDATE OF status to the same value: open before and after
        ("finished", True),  # leaves the condition: the claim is released
        ("voided", False),  # closed before and after
        ("in_progress", True),  # enters it again: the claim is taken again
    ]
    for status, moves in steps:
        before = _calls(OPEN_FN)
        Round.objects.filter(pk=opened).update(status=status)
        assert _calls(OPEN_FN) == before + moves, status
        assert _open_claimed(opened) == (status == "in_progress"), status
    before = _calls(OPEN_FN)
    Round.objects.filter(pk=opened).update(stake=1)  # no watched column in the statement
    assert _calls(OPEN_FN) == before and _open_claimed(opened)
    with pytest.raises(IntegrityError, match="games_round_one_open_per_player"), transaction.atomic():
        _round_copy(settled_round, "open-2", "in_progress")
    Round.objects.filter(pk=opened).update(status="finished")
    assert not _open_claimed(opened)
    _round_copy(settled_round, "open-2", "in_progress")  # the released claim lets another open round in


def test_a_settled_bet_without_a_round_reference_does_not_call_the_claims_function(settled_round):
    copy = _columns("limits_settledbet", ("round_ref",))
    source = _one("SELECT id FROM limits_settledbet WHERE player_id = %s", [settled_round.player_id])[0]
    insert = f"INSERT INTO limits_settledbet ({copy}, round_ref) SELECT {copy}, %s FROM limits_settledbet WHERE id = %s"
    before = _calls(REF_FN)
    with connection.cursor() as cursor:
        cursor.execute(insert, ["", source])
        cursor.execute(insert, ["", source])  # no reference, no claim: any number of them
    assert _calls(REF_FN) == before
    with connection.cursor() as cursor:
        cursor.execute(insert, ["ref-1", source])
    assert _calls(REF_FN) == before + 1
    with pytest.raises(IntegrityError, match="limits_settledbet_unique_ref"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(insert, ["ref-1", source])


def test_a_nullable_condition_counts_null_as_false_in_the_function_and_its_when():
    claims = (Claim("scratch_job", "scratch_job_one_open", ("owner",), where="{row}.state = 'open'", watch=("state",)),)
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE scratch_job (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, owner int, state text)"
        )
    partitioning.convert(connection, "scratch_job", claims)
    _track()
    fn = "scratch_job_one_open_claim_keep"
    job = _one("INSERT INTO scratch_job (owner, state) VALUES (1, NULL) RETURNING id")[0]
    claimed = lambda: bool(_one("SELECT count(*) FROM scratch_job_one_open_claim WHERE row_id = %s", [job])[0])  # noqa: E731
    assert _calls(fn) == 0 and not claimed()
    for state, moves in ((None, False), ("open", True), (None, True), ("done", False), ("open", True), ("open", False)):
        before = _calls(fn)
        with connection.cursor() as cursor:
            cursor.execute("UPDATE scratch_job SET state = %s WHERE id = %s", [state, job])
        assert (_calls(fn) - before, claimed()) == (int(moves), state == "open"), state
    with pytest.raises(IntegrityError, match="scratch_job_one_open"), transaction.atomic():
        _one("INSERT INTO scratch_job (owner, state) VALUES (1, 'open') RETURNING id")
    _one("DELETE FROM scratch_job WHERE id = %s RETURNING id", [job])
    assert not claimed()  # the DELETE trigger (no WHEN) releases it
    _one("INSERT INTO scratch_job (owner, state) VALUES (1, 'open') RETURNING id")


def test_reinstalling_the_triggers_over_the_first_ones_gives_what_a_fresh_database_has():
    """What the migrations of this change do on a database converted before: one trigger per claim for every event,
    no WHEN (as ``convert`` made them until then), replaced by the per-event triggers with the same definitions as a
    database migrated from empty."""
    fresh = {table: _triggers(table) for table in CLAIMED_TABLES}
    assert {name for table in CLAIMED_TABLES for _, name, _ in fresh[table]} >= {
        f"{OPEN_FN}_ins",
        f"{OPEN_FN}_upd",
        f"{OPEN_FN}_del",
        f"{OPEN_FN}_trunc",
        f"{KEY_FN}_ins",
        f"{REF_FN}_ins",
    }
    partitions = {name for name, _ in partitioning.partitions(connection, "games_round")}
    assert {rel for rel, name, _ in fresh["games_round"] if name == f"{OPEN_FN}_ins"} == {"games_round", *partitions}
    with connection.cursor() as cursor:
        for claim in declared_claims():
            fn, names = partitioning._claim_trigger_names(claim)
            for name in names[:3]:
                cursor.execute(f"DROP TRIGGER IF EXISTS {name} ON {claim.table}")
            events = "INSERT OR DELETE" + (f" OR UPDATE OF {', '.join(claim.watch)}" if claim.watch else "")
            cursor.execute(f"CREATE TRIGGER {fn} AFTER {events} ON {claim.table} FOR EACH ROW EXECUTE FUNCTION {fn}()")
    assert _triggers("games_round") != fresh["games_round"]
    for table in CLAIMED_TABLES:
        partitioning.claim_triggers_install(connection, table)
        partitioning.claim_triggers_install(connection, table)  # safe to run twice
    assert {table: _triggers(table) for table in CLAIMED_TABLES} == fresh


def test_a_month_made_later_gets_the_triggers_with_their_conditions():
    table = "limits_settledbet"
    gone = partitioning.partition_name(table, int(_one("SELECT platform_month_index(now())")[0]) + 3)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {gone}")
    assert gone in partitioning.partitions_ensure(connection)
    made = {name: definition for rel, name, definition in _triggers(table) if rel == gone}
    parent = {name: definition for rel, name, definition in _triggers(table) if rel == table}
    assert made == {name: d for name, d in parent.items() if not name.endswith("_trunc")}  # statement triggers stay
    assert "WHEN" in made[f"{REF_FN}_ins"]
