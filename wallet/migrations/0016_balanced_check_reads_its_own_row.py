"""The ledger's zero-sum check (``wallet_txn_balanced()``, 0012) takes the transaction's player from the row that
fired it instead of reading that row back.

The check fires at commit once per ledger transaction (for its own row) and, rarely, for an entry added to another
ledger transaction. Fired for the transaction's row, ``NEW`` IS that row: ledger transactions are append-only (a
trigger refuses UPDATE and DELETE), so ``NEW.player_id`` is what the read of the row by its key returned. The read is
kept for an entry's firing, which knows only its transaction's id. One statement fewer at the commit of every posting
(1.5 a settled round: a query of all five partitions of ``wallet_ledgertransaction`` under a generic plan). The rules
and their messages are unchanged (wallet/tests/test_ledger.py, test_ledger_guard.py).
"""

from django.db import migrations

from core.partitioning import MONTH_BITS

_FUNCTION = """
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
        {entry_player}
    ELSE
        tid := NEW.id;
        IF current_setting('wallet.open_txn', true) = tid::text THEN
            PERFORM set_config('wallet.open_txn', '', true);
        END IF;
        {txn_player}
    END IF;
    {both_player}
    SELECT COALESCE(SUM(e.amount), 0), COUNT(*),
           MIN((SELECT a.player_id FROM wallet_ledgeraccount a
                 WHERE a.id = e.account_id AND a.player_id IS NOT NULL AND a.player_id IS DISTINCT FROM txn_player))
      INTO total, n, foreign_player
      FROM wallet_entry e
     WHERE e.transaction_id = tid AND e.id >= ((tid >> {bits}) << {bits});
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
"""
_READ = "SELECT player_id INTO txn_player FROM wallet_ledgertransaction WHERE id = tid;"

SQL = _FUNCTION.format(entry_player=_READ, txn_player="txn_player := NEW.player_id;", both_player="", bits=MONTH_BITS)
REVERSE = _FUNCTION.format(entry_player="", txn_player="", both_player=_READ, bits=MONTH_BITS)


class Migration(migrations.Migration):
    dependencies = [("wallet", "0015_ledger_no_redundant_indexes")]
    operations = [migrations.RunSQL(SQL, REVERSE)]
