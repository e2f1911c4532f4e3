"""The database itself guards the ledger:

* every ledger transaction's entries sum to zero and there are at least two of them (deferred constraint
  triggers: checked at commit, so a transaction's legs can be written one by one);
* entries and transactions are append-only (UPDATE and DELETE refused; corrections are new transactions);
* a player account's balance is below zero only by its recorded debt (CHECK in 0001: balance + debt >= 0),
  and that ``debt`` equals the outstanding amount of its open Debt rows (deferred constraint trigger), so a
  negative balance always is a recorded debt (GP §7(7)).
TRUNCATE is not trapped (the test runner's flush uses it; production roles do not own the tables).
"""
from django.db import migrations

SQL = """
CREATE OR REPLACE FUNCTION wallet_txn_balanced() RETURNS trigger AS $$
DECLARE
    tid bigint;
    total numeric;
    n integer;
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
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER wallet_entry_balanced
    AFTER INSERT ON wallet_entry
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wallet_txn_balanced();

CREATE CONSTRAINT TRIGGER wallet_txn_has_balanced_entries
    AFTER INSERT ON wallet_ledgertransaction
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wallet_txn_balanced();

CREATE OR REPLACE FUNCTION wallet_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION '% is append-only (% refused)', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER wallet_entry_append_only
    BEFORE UPDATE OR DELETE ON wallet_entry
    FOR EACH ROW EXECUTE FUNCTION wallet_append_only();

CREATE TRIGGER wallet_txn_append_only
    BEFORE UPDATE OR DELETE ON wallet_ledgertransaction
    FOR EACH ROW EXECUTE FUNCTION wallet_append_only();

CREATE OR REPLACE FUNCTION wallet_debt_recorded() RETURNS trigger AS $$
DECLARE
    acc bigint;
    acc_debt bigint;
    recorded numeric;
BEGIN
    IF TG_TABLE_NAME = 'wallet_ledgeraccount' THEN
        acc := NEW.id;
    ELSE
        acc := NEW.account_id;
    END IF;
    SELECT debt INTO acc_debt FROM wallet_ledgeraccount WHERE id = acc;
    SELECT COALESCE(SUM(outstanding), 0) INTO recorded FROM wallet_debt
        WHERE account_id = acc AND status IN ('open', 'overdue');
    IF acc_debt <> recorded THEN
        RAISE EXCEPTION 'ledger account % carries debt % but its recorded open debts total %', acc, acc_debt, recorded
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER wallet_account_debt_is_recorded
    AFTER INSERT OR UPDATE ON wallet_ledgeraccount
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.debt <> 0)
    EXECUTE FUNCTION wallet_debt_recorded();

CREATE CONSTRAINT TRIGGER wallet_account_debt_cleared
    AFTER UPDATE OF debt ON wallet_ledgeraccount
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.debt <> 0)
    EXECUTE FUNCTION wallet_debt_recorded();

CREATE CONSTRAINT TRIGGER wallet_debt_matches_account
    AFTER INSERT OR UPDATE ON wallet_debt
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION wallet_debt_recorded();
"""

REVERSE = """
DROP TRIGGER IF EXISTS wallet_debt_matches_account ON wallet_debt;
DROP TRIGGER IF EXISTS wallet_account_debt_cleared ON wallet_ledgeraccount;
DROP TRIGGER IF EXISTS wallet_account_debt_is_recorded ON wallet_ledgeraccount;
DROP FUNCTION IF EXISTS wallet_debt_recorded();
DROP TRIGGER IF EXISTS wallet_txn_append_only ON wallet_ledgertransaction;
DROP TRIGGER IF EXISTS wallet_entry_append_only ON wallet_entry;
DROP FUNCTION IF EXISTS wallet_append_only();
DROP TRIGGER IF EXISTS wallet_txn_has_balanced_entries ON wallet_ledgertransaction;
DROP TRIGGER IF EXISTS wallet_entry_balanced ON wallet_entry;
DROP FUNCTION IF EXISTS wallet_txn_balanced();
"""


class Migration(migrations.Migration):
    dependencies = [("wallet", "0001_initial")]
    operations = [migrations.RunSQL(SQL, REVERSE)]
