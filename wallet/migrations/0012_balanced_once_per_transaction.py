"""The ledger's zero-sum guard (0002, 0004, 0010) checks each ledger transaction once, not once per row.

Before, the deferred check ``wallet_txn_balanced()`` fired at commit for the transaction's row AND for each of its
entries, each time summing the entries and joining them to the accounts for the no-transfer-between-players rule
(GP §5(5)): three full checks for a two-legged posting, two of them repeating the first. Now:

* ``wallet_txn_open`` (BEFORE INSERT on a ledger transaction) names it this database transaction's *open* ledger
  transaction (``wallet.open_txn``, a transaction-local setting: rolled back with a savepoint, gone at commit; nothing
  outlives the transaction, so PgBouncer's transaction mode is safe);
* an entry of the open ledger transaction is not queued for a check of its own (the constraint trigger's ``WHEN`` is
  evaluated as the row is written): its transaction's own check at commit sees it. An entry of any other ledger
  transaction (one written earlier, or before the open one changed) is queued and checked at commit, as before;
* the transaction's check, when it fires, closes it (clears ``wallet.open_txn``), so an entry added after a
  ``SET CONSTRAINTS ALL IMMEDIATE`` ran the check is queued and checked again at commit;
* the check is two statements whose plans cannot go wrong on tables without statistics (a fresh month's partition:
  the join of the old check chose sequential scans there): the transaction's player by its key, then the entries'
  sum, count and first account of another player (a key lookup per entry), reading only the entries' partitions
  from the transaction's month on: an entry's id encodes the month of its database transaction's start
  (core/partitioning.py), which is never before its ledger transaction's.

The rules and their error messages are unchanged (wallet/tests/test_ledger.py); wallet/tests/test_ledger_guard.py counts
the checks per posting.
"""
from django.db import migrations

from core.partitioning import MONTH_BITS

SQL = f"""
CREATE OR REPLACE FUNCTION wallet_txn_balanced() RETURNS trigger AS $$
DECLARE
    tid bigint;
    total numeric;
    n integer;
    foreign_player bigint;
    txn_player bigint;
BEGIN
    IF TG_TABLE_NAME = 'wallet_entry' OR TG_TABLE_NAME LIKE 'wallet\\_entry\\_p%' THEN
        tid := NEW.transaction_id;
    ELSE
        tid := NEW.id;
        IF current_setting('wallet.open_txn', true) = tid::text THEN
            PERFORM set_config('wallet.open_txn', '', true);
        END IF;
    END IF;
    SELECT player_id INTO txn_player FROM wallet_ledgertransaction WHERE id = tid;
    SELECT COALESCE(SUM(e.amount), 0), COUNT(*),
           MIN((SELECT a.player_id FROM wallet_ledgeraccount a
                 WHERE a.id = e.account_id AND a.player_id IS NOT NULL AND a.player_id IS DISTINCT FROM txn_player))
      INTO total, n, foreign_player
      FROM wallet_entry e
     WHERE e.transaction_id = tid AND e.id >= ((tid >> {MONTH_BITS}) << {MONTH_BITS});
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger transaction % does not balance: its entries sum to %', tid, total
            USING ERRCODE = 'check_violation';
    END IF;
    IF n < 2 THEN
        RAISE EXCEPTION 'ledger transaction % has % entries (at least 2 required)', tid, n
            USING ERRCODE = 'check_violation';
    END IF;
    IF foreign_player IS NOT NULL THEN
        RAISE EXCEPTION 'ledger transaction % touches the account of player % (no transfers between players, GP 5(5))',
            tid, foreign_player USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE OR REPLACE FUNCTION wallet_txn_open() RETURNS trigger AS $$
BEGIN
    PERFORM set_config('wallet.open_txn', NEW.id::text, true);
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER wallet_txn_open
    BEFORE INSERT ON wallet_ledgertransaction
    FOR EACH ROW EXECUTE FUNCTION wallet_txn_open();

DROP TRIGGER wallet_entry_balanced ON wallet_entry;
CREATE CONSTRAINT TRIGGER wallet_entry_balanced
    AFTER INSERT ON wallet_entry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW
    WHEN (current_setting('wallet.open_txn', true) IS DISTINCT FROM NEW.transaction_id::text)
    EXECUTE FUNCTION wallet_txn_balanced();
"""

REVERSE = """
DROP TRIGGER wallet_entry_balanced ON wallet_entry;
CREATE CONSTRAINT TRIGGER wallet_entry_balanced
    AFTER INSERT ON wallet_entry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wallet_txn_balanced();
DROP TRIGGER wallet_txn_open ON wallet_ledgertransaction;
DROP FUNCTION wallet_txn_open();
"""


class Migration(migrations.Migration):
    dependencies = [("wallet", "0011_claim_lookup_indexes")]
    operations = [migrations.RunSQL(SQL, REVERSE)]
