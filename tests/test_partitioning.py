"""The append-only tables partitioned by month (core/partitioning.py, docs/scaling.md "Partitions").

Each uniqueness the platform relies on keeps its guarantee (in the key, or in a claim table written in the row's
own statement), the append-only and zero-sum triggers still hold on the partitioned tables, a table with rows in
it converts without losing one (ids, sequence, foreign keys, triggers), partitions are made ahead, and retention
detaches and archives a month instead of deleting rows.
"""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction

from core import partitioning
from core.audit import Actor, audit_record
from core.models import AuditEvent
from core.partition_tables import Claim
from core.partitioning import month_range
from core.rng import use_rng
from games.models import Round
from games.services import round_play
from games.tests.platform.testgames import FixedRNG
from tests.kit.money import czk
from tests.kit.wallet import fund
from wallet.errors import REFERENCE_CONFLICT
from wallet.models import Entry, LedgerTransaction

pytestmark = pytest.mark.django_db

TABLES = (
    "games_round",
    "wallet_ledgertransaction",
    "wallet_entry",
    "core_auditevent",
    "jackpots_contribution",
    "limits_settledbet",
)
RED = {"bets": [{"type": "red", "amount": 1_000}]}


def _one(sql: str, params: list | None = None):
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return cursor.fetchone()


def _this_month() -> int:
    return int(_one("SELECT platform_month_index(now())")[0])


def test_every_append_only_table_is_partitioned_with_this_month_and_three_ahead():
    month = _this_month()
    for table in TABLES:
        assert partitioning.is_partitioned(connection, table), table
        names = {name for name, _ in partitioning.partitions(connection, table)}
        assert {partitioning.partition_name(table, m) for m in range(month, month + 4)} <= names, table


def test_a_new_round_and_its_postings_get_ids_of_this_month_and_land_in_its_partition(settings):
    from tests.kit.accounts import make_player

    settings.GP = {**settings.GP, "MIN_ROUND_SECONDS": 0}
    player = make_player()
    fund(player, czk(100))
    with use_rng(FixedRNG(0)):
        result = round_play(
            player=player, game_code="european_roulette", idempotency_key="p-1", bet=RED, actor=Actor.player(player)
        )
    low, high = month_range(_this_month())
    rnd = Round.objects.get(player=player)
    assert low <= rnd.pk < high and result is not None
    assert _one("SELECT tableoid::regclass::text FROM games_round WHERE id = %s", [rnd.pk])[
        0
    ] == partitioning.partition_name("games_round", _this_month())
    for txn in LedgerTransaction.objects.filter(player_id=player.pk):
        assert low <= txn.pk < high
    assert Round.objects.filter(pk=rnd.pk).exists()  # a lookup by id (one partition)


def test_a_ledger_reference_stays_unique_across_partitions_under_its_constraint_name():
    from tests.kit.accounts import make_player

    player = make_player()
    fund(player, czk(10), reference="once")
    with pytest.raises(IntegrityError, match="wallet_txn_unique_kind_reference"), transaction.atomic():
        with connection.cursor() as cursor:  # the same (kind, reference) written straight, past the services
            cursor.execute("""INSERT INTO wallet_ledgertransaction (kind, reference, player_id, amount, currency, memo,
                              created_at, actor_label) SELECT kind, reference, player_id, amount, currency, memo,
                              created_at, actor_label FROM wallet_ledgertransaction WHERE reference = 'once'""")
    with pytest.raises(type(REFERENCE_CONFLICT())) as conflict:
        fund(player, czk(20), reference="once")  # the service: another amount under the same reference
    assert conflict.value.code == REFERENCE_CONFLICT.code
    fund(player, czk(10), reference="once")  # a true replay posts nothing
    assert LedgerTransaction.objects.filter(reference="once").count() == 1


def test_a_round_idempotency_key_and_the_one_open_round_rule_hold_on_the_partitioned_table(settings):
    from tests.kit.accounts import make_player

    settings.GP = {**settings.GP, "MIN_ROUND_SECONDS": 0}
    player = make_player()
    fund(player, czk(100))
    with use_rng(FixedRNG(0)):
        first = round_play(
            player=player, game_code="european_roulette", idempotency_key="k", bet=RED, actor=Actor.player(player)
        )
        again = round_play(
            player=player, game_code="european_roulette", idempotency_key="k", bet=RED, actor=Actor.player(player)
        )
    assert again == first and Round.objects.filter(player=player).count() == 1
    rnd = Round.objects.get(player=player)
    copy = (
        "player_id, game_id, game_code, game_version, play_money, forced_outcome, forced_draws_left, "
        "bet_request, bet_params, stake, currency, draws, actions, state, win_engine, win, jackpot_win, "
        "win_capped, jackpot_events, void_reason, void_detail, started_at, last_activity_at, deadline"
    )
    with pytest.raises(IntegrityError, match="games_round_unique_player_key"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO games_round ({copy}, idempotency_key, status) "
                f"SELECT {copy}, idempotency_key, 'settled' FROM games_round WHERE id = %s",
                [rnd.pk],
            )
    with connection.cursor() as cursor:  # two open rounds of one player: the second is refused
        cursor.execute(
            f"INSERT INTO games_round ({copy}, idempotency_key, status) "
            f"SELECT {copy}, 'open-1', 'in_progress' FROM games_round WHERE id = %s RETURNING id",
            [rnd.pk],
        )
        open_id = cursor.fetchone()[0]
    with pytest.raises(IntegrityError, match="games_round_one_open_per_player"), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                f"INSERT INTO games_round ({copy}, idempotency_key, status) "
                f"SELECT {copy}, 'open-2', 'in_progress' FROM games_round WHERE id = %s",
                [rnd.pk],
            )
    Round.objects.filter(pk=open_id).update(status="settled")  # the open round ends: the claim is released
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO games_round ({copy}, idempotency_key, status) "
            f"SELECT {copy}, 'open-3', 'in_progress' FROM games_round WHERE id = %s",
            [rnd.pk],
        )


def test_the_append_only_and_zero_sum_triggers_hold_on_every_partition():
    from tests.kit.accounts import make_player

    player = make_player()
    fund(player, czk(10))
    audit_record(actor=Actor.system("test"), action="test.partitioned", obj=player)
    event = AuditEvent.objects.filter(action="test.partitioned").get()
    with pytest.raises(Exception, match="append-only"), transaction.atomic():
        AuditEvent.objects.filter(pk=event.pk).update(action="changed")
    entry = Entry.objects.filter(account__player_id=player.pk).earliest("id")
    with pytest.raises(Exception, match="append-only"), transaction.atomic():
        Entry.objects.filter(pk=entry.pk).delete()
    with pytest.raises(IntegrityError, match="does not balance|at least 2"), transaction.atomic():
        with connection.cursor() as cursor:  # a transaction with one leg: the deferred trigger refuses it
            cursor.execute(
                """INSERT INTO wallet_ledgertransaction (kind, reference, player_id, amount, currency, memo,
                              created_at, actor_label) VALUES ('adjustment', 'one-leg', %s, 5, 'CZK', '', now(), 't')
                              RETURNING id""",
                [player.pk],
            )
            txn_id = cursor.fetchone()[0]
            cursor.execute(
                "INSERT INTO wallet_entry (transaction_id, account_id, amount, created_at) VALUES (%s, %s, 5, now())",
                [txn_id, entry.account_id],
            )
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def test_a_table_with_rows_converts_keeping_rows_sequence_keys_and_triggers():
    claims = (Claim("scratch_log", "scratch_log_ab_unique", ("a", "b")),)
    with connection.cursor() as cursor:
        cursor.execute("""
            CREATE TABLE scratch_log (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, a int NOT NULL,
                                      b text NOT NULL, note text NOT NULL DEFAULT '', CHECK (a >= 0));
            ALTER TABLE scratch_log ADD CONSTRAINT scratch_log_ab_unique UNIQUE (a, b);
            CREATE INDEX scratch_log_b ON scratch_log (b);
            CREATE TABLE scratch_ref (id serial PRIMARY KEY, log_id bigint NOT NULL REFERENCES scratch_log (id));
            CREATE FUNCTION scratch_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'scratch is append-only'; END $$;
            CREATE TRIGGER scratch_refuse BEFORE UPDATE OR DELETE ON scratch_log FOR EACH ROW
                EXECUTE FUNCTION scratch_refuse();
            INSERT INTO scratch_log (a, b) VALUES (1, 'x'), (2, 'y'), (3, 'z');
            INSERT INTO scratch_ref (log_id) SELECT id FROM scratch_log;""")
    partitioning.convert(connection, "scratch_log", claims)
    assert partitioning.is_partitioned(connection, "scratch_log")
    assert _one("SELECT count(*), max(id) FROM scratch_log_p_legacy") == (3, 3)  # attached, not copied
    new_id = _one("INSERT INTO scratch_log (a, b) VALUES (4, 'w') RETURNING id")[0]
    low, high = month_range(_this_month())
    assert low <= new_id < high and new_id > 3  # this month's range, after every old id
    with pytest.raises(IntegrityError, match="scratch_log_ab_unique"), transaction.atomic():
        _one("INSERT INTO scratch_log (a, b) VALUES (1, 'x') RETURNING id")  # an old row's key, new partition
    with pytest.raises(IntegrityError, match="scratch_check|violates check"), transaction.atomic():
        _one("INSERT INTO scratch_log (a, b) VALUES (-1, 'q') RETURNING id")
    with pytest.raises(IntegrityError, match="foreign key"), transaction.atomic():
        _one("INSERT INTO scratch_ref (log_id) VALUES (%s) RETURNING id", [new_id + 1])
    _one("INSERT INTO scratch_ref (log_id) VALUES (%s) RETURNING id", [new_id])
    for row in (1, new_id):
        with pytest.raises(Exception, match="append-only"), transaction.atomic():
            _one("UPDATE scratch_log SET note = 'changed' WHERE id = %s RETURNING id", [row])


def test_retention_detaches_a_month_and_archives_it_with_its_rows():
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE scratch_events (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, v int)")
    partitioning.convert(connection, "scratch_events", ())
    month = _this_month()
    old = month - 40
    low, high = month_range(old)
    with connection.cursor() as cursor:  # a month long past, with a row in it
        cursor.execute(
            f"CREATE TABLE scratch_events_old PARTITION OF scratch_events FOR VALUES FROM ({low}) TO ({high})"
        )
        cursor.execute("INSERT INTO scratch_events (id, v) VALUES (%s, 7)", [low + 1])
    partitioning.partitions_ensure(connection)
    archived = partitioning.partition_archive(connection, "scratch_events", "scratch_events_old")
    assert archived == "archive.scratch_events_old"
    assert _one("SELECT count(*) FROM scratch_events WHERE id = %s", [low + 1]) == (0,)  # out of the live table
    assert _one("SELECT v FROM archive.scratch_events_old WHERE id = %s", [low + 1]) == (7,)  # not deleted


def test_the_hourly_job_moves_a_sequence_left_behind_into_this_months_range():
    with connection.cursor() as cursor:  # as if the month had just begun: the round ids' sequence still in the last
        cursor.execute("SELECT setval('games_round_id_seq', %s)", [month_range(_this_month() - 1)[0] + 5])
    partitioning.partitions_ensure(connection)
    low, high = month_range(_this_month())
    assert low <= _one("SELECT nextval(pg_get_serial_sequence('games_round', 'id'))")[0] < high


def test_the_hourly_job_makes_the_partitions_ahead_and_is_safe_to_run_twice():
    from core.tasks import partitions_ensure

    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {partitioning.partition_name('jackpots_contribution', _this_month() + 3)}")
    assert partitions_ensure.apply().get() == [partitioning.partition_name("jackpots_contribution", _this_month() + 3)]
    assert partitions_ensure.apply().get() == []


def test_health_reports_a_missing_partition_of_next_month(client):
    assert client.get("/health").json()["checks"]["partitions"] == {"ok": True, "missing": []}
    gone = partitioning.partition_name("wallet_entry", _this_month() + 1)
    with connection.cursor() as cursor:
        cursor.execute(f"DROP TABLE {gone}")
    assert client.get("/health").json()["checks"]["partitions"] == {"ok": False, "missing": [gone]}
