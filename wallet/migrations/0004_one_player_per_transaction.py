"""GP §5(5): no transfer between players, ever. The database refuses (at commit) a ledger transaction whose
entries touch the accounts of a player other than the transaction's own player; the only movement between a
player's own accounts that changes who may use the money is the temporary -> player account conversion."""
from django.db import migrations

SQL = """
CREATE OR REPLACE FUNCTION wallet_txn_balanced() RETURNS trigger AS $$
DECLARE
    tid bigint;
    total numeric;
    n integer;
    foreign_player bigint;
BEGIN
    IF TG_TABLE_NAME = 'wallet_entry' THEN
        tid := NEW.transaction_id;
    ELSE
        tid := NEW.id;
    END IF;
    SELECT COALESCE(SUM(amount), 0), COUNT(*) INTO total, n FROM wallet_entry WHERE transaction_id = tid;
    IF total <> 0 THEN
        RAISE EXCEPTION 'ledger transaction % does not balance: its entries sum to %', tid, total
            USING ERRCODE = 'check_violation';
    END IF;
    IF n < 2 THEN
        RAISE EXCEPTION 'ledger transaction % has % entries (at least 2 required)', tid, n
            USING ERRCODE = 'check_violation';
    END IF;
    SELECT a.player_id INTO foreign_player
        FROM wallet_entry e
        JOIN wallet_ledgeraccount a ON a.id = e.account_id
        JOIN wallet_ledgertransaction t ON t.id = e.transaction_id
        WHERE e.transaction_id = tid AND a.player_id IS NOT NULL AND a.player_id IS DISTINCT FROM t.player_id
        LIMIT 1;
    IF foreign_player IS NOT NULL THEN
        RAISE EXCEPTION 'ledger transaction % touches the account of player % (no transfers between players, GP 5(5))',
            tid, foreign_player USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
"""

REVERSE = migrations.RunSQL.noop


class Migration(migrations.Migration):
    dependencies = [("wallet", "0003_deposit_instructions")]
    operations = [migrations.RunSQL(SQL, REVERSE)]
