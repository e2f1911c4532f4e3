"""The claims of a table kept by one trigger function (core/partitioning.py ``claims_trigger_sql``, docs/scaling.md
"Monthly partitions").

A round's insert wrote its two claims (the idempotency key, the one open round) through two trigger functions, the
second doing nothing for a round inserted already finished; now one function writes every claim of its table, so a
row costs one call. The claims hold at their boundaries (tests/test_partitioning.py too), an update moves the
one-open-round claim both ways, a NULL condition counts as false, and a database converted before gets the same
triggers as a fresh one. The calls are read from ``pg_stat_xact_user_functions`` (this transaction's counts, with
``track_functions = 'pl'``).
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
ROUND_FN = "games_round_claims_keep"
BET_FN = "limits_settledbet_claims_keep"
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
               WHERE t.tgname LIKE '%%claims\\_keep%%'
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


def _key_claimed(round_id: int) -> bool:
    return bool(_one("SELECT count(*) FROM games_round_unique_player_key_claim WHERE row_id = %s", [round_id])[0])


def test_a_round_s_insert_calls_one_function_for_both_its_claims(settled_round):
    calls = _calls(ROUND_FN)
    finished = _round_copy(settled_round, "finished-1", "finished")
    assert _calls(ROUND_FN) == calls + 1  # one call whatever the number of claims
    assert _key_claimed(finished) and not _open_claimed(finished)
    opened = _round_copy(settled_round, "open-1", "in_progress")
    assert _calls(ROUND_FN) == calls + 2
    assert _key_claimed(opened) and _open_claimed(opened)
    with pytest.raises(IntegrityError, match="games_round_one_open_per_player"), transaction.atomic():
        _round_copy(settled_round, "open-2", "in_progress")  # a second open round of the player
    with pytest.raises(IntegrityError, match="games_round_unique_player_key"), transaction.atomic():
        _round_copy(settled_round, "finished-1", "finished")
    with pytest.raises(IntegrityError, match="games_round_one_open_per_player"), transaction.atomic():
        _round_copy(settled_round, "open-1", "in_progress")  # both broken: the claims' order, as their triggers had
    assert not _one(
        "SELECT count(*) FROM pg_proc WHERE proname IN (%s, %s)",
        ["games_round_one_open_per_player_claim_keep", "games_round_unique_player_key_claim_keep"],
    )[0]


def test_an_update_of_the_status_moves_the_open_round_claim_both_ways(settled_round):
    opened = _round_copy(settled_round, "open-1", "in_progress")
    for status in ("in_progress", "finished", "voided", "in_progress"):
        before = _calls(ROUND_FN)
        Round.objects.filter(pk=opened).update(status=status)
        assert _calls(ROUND_FN) == before + 1, status  # UPDATE OF status
        assert _open_claimed(opened) == (status == "in_progress"), status
        assert _key_claimed(opened), status
    before = _calls(ROUND_FN)
    Round.objects.filter(pk=opened).update(stake=1)  # no watched column in the statement: no call
    assert _calls(ROUND_FN) == before and _open_claimed(opened)
    with pytest.raises(IntegrityError, match="games_round_one_open_per_player"), transaction.atomic():
        _round_copy(settled_round, "open-2", "in_progress")
    Round.objects.filter(pk=opened).update(status="finished")
    assert not _open_claimed(opened)
    _round_copy(settled_round, "open-2", "in_progress")  # the released claim lets another open round in


def test_a_settled_bet_is_claimed_only_with_a_round_reference(settled_round):
    copy = _columns("limits_settledbet", ("round_ref",))
    source = _one("SELECT id FROM limits_settledbet WHERE player_id = %s", [settled_round.player_id])[0]
    insert = f"INSERT INTO limits_settledbet ({copy}, round_ref) SELECT {copy}, %s FROM limits_settledbet WHERE id = %s"
    claims = "SELECT count(*) FROM limits_settledbet_unique_ref_claim"
    before, claimed = _calls(BET_FN), _one(claims)[0]
    with connection.cursor() as cursor:
        cursor.execute(insert, ["", source])
        cursor.execute(insert, ["", source])  # no reference, no claim: any number of them
        cursor.execute(insert, ["ref-1", source])
    assert (_calls(BET_FN), _one(claims)[0]) == (before + 3, claimed + 1)
    with pytest.raises(IntegrityError, match="limits_settledbet_unique_ref"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(insert, ["ref-1", source])


def test_a_nullable_condition_counts_null_as_false():
    claims = (
        Claim("scratch_job", "scratch_job_one_open", ("owner",), where="{row}.state = 'open'", watch=("state",)),
        Claim("scratch_job", "scratch_job_unique_name", ("name",)),
    )
    with connection.cursor() as cursor:
        cursor.execute(
            """CREATE TABLE scratch_job (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, owner int,
                                         name text NOT NULL, state text)"""
        )
    partitioning.convert(connection, "scratch_job", claims)
    job = _one("INSERT INTO scratch_job (owner, name, state) VALUES (1, 'a', NULL) RETURNING id")[0]

    def claimed() -> bool:
        return bool(_one("SELECT count(*) FROM scratch_job_one_open_claim WHERE row_id = %s", [job])[0])

    assert not claimed()
    for state in (None, "open", None, "done", "open", "open"):
        with connection.cursor() as cursor:
            cursor.execute("UPDATE scratch_job SET state = %s WHERE id = %s", [state, job])
        assert claimed() == (state == "open"), state  # open -> NULL releases it (NULL is not open)
    with pytest.raises(IntegrityError, match="scratch_job_one_open"), transaction.atomic():
        _one("INSERT INTO scratch_job (owner, name, state) VALUES (1, 'b', 'open') RETURNING id")
    with pytest.raises(IntegrityError, match="scratch_job_unique_name"), transaction.atomic():
        _one("INSERT INTO scratch_job (owner, name, state) VALUES (2, 'a', 'open') RETURNING id")
    _one("DELETE FROM scratch_job WHERE id = %s RETURNING id", [job])
    assert not claimed()
    assert not _one("SELECT count(*) FROM scratch_job_unique_name_claim")[0]
    _one("INSERT INTO scratch_job (owner, name, state) VALUES (1, 'a', 'open') RETURNING id")


def test_reinstalling_the_triggers_over_the_first_ones_gives_what_a_fresh_database_has():
    """What the migrations of this change do on a database converted before: a function and two triggers per claim
    (``<claim table>_keep``, ``<claim table>_keep_trunc``, as ``convert`` made them until then), replaced by one
    function and two triggers per table, the same as a database migrated from empty has."""
    fresh = {table: _triggers(table) for table in CLAIMED_TABLES}
    partitions = {name for name, _ in partitioning.partitions(connection, "games_round")}
    assert {rel for rel, name, _ in fresh["games_round"] if name == ROUND_FN} == {"games_round", *partitions}
    with connection.cursor() as cursor:
        for table in CLAIMED_TABLES:
            fn = partitioning.claims_function(table)
            cursor.execute(f"DROP TRIGGER {fn} ON {table}; DROP TRIGGER {fn}_trunc ON {table}")
        for claim in declared_claims():
            old = f"{claim.claim_table}_keep"
            events = "INSERT OR DELETE" + (f" OR UPDATE OF {', '.join(claim.watch)}" if claim.watch else "")
            cursor.execute(
                f"""CREATE FUNCTION {old}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
                    CREATE TRIGGER {old} AFTER {events} ON {claim.table} FOR EACH ROW EXECUTE FUNCTION {old}();
                    CREATE TRIGGER {old}_trunc AFTER TRUNCATE ON {claim.table} EXECUTE FUNCTION {old}()"""
            )
    assert _triggers("games_round") == []
    for table in CLAIMED_TABLES:
        partitioning.claim_triggers_install(connection, table)
        partitioning.claim_triggers_install(connection, table)  # safe to run twice
    assert {table: _triggers(table) for table in CLAIMED_TABLES} == fresh
    assert not _one("SELECT count(*) FROM pg_proc WHERE proname LIKE '%%\\_claim\\_keep'")[0]


def test_a_month_made_later_gets_the_row_trigger():
    table = "limits_settledbet"
    gone = partitioning.partition_name(table, int(_one("SELECT platform_month_index(now())")[0]) + 3)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {gone}")
    assert gone in partitioning.partitions_ensure(connection)
    made = {name: definition for rel, name, definition in _triggers(table) if rel == gone}
    parent = {name: definition for rel, name, definition in _triggers(table) if rel == table}
    assert made == {BET_FN: parent[BET_FN]}  # the statement trigger stays on the parent
