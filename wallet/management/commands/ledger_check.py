"""Prove the ledger right: exit non-zero on any difference.

An account's entries are its live entries plus the totals carried forward from the archived months of
``wallet_entry`` (``wallet_carriedentries``, written when ``core.partitions_archive`` detached the month;
docs/scaling.md
"Retention"). So:

* every tracked (player) account's balance equals the sum of its entries (carried + live), and every live entry's
  balance_after equals the running sum up to it (the carried months below its id + the live entries up to it), so
  statements are right;
* every live transaction balances (sum 0, at least two entries; a transaction of a month whose entries are archived
  has none left live, and was proven while they were) and all entries together, carried and live, sum to zero;
* a player balance is below zero only by its recorded debt, which equals its open Debt rows;
* the held accounts equal the open withdrawals plus the held wins; ``refunds_payable`` equals what open
  payouts still owe; ``bank_unmatched`` equals the bank credits waiting in the staff queue.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

#: the sum of an account's entries: the carried months' totals plus the live entries
_BOOK = """(SELECT COALESCE(SUM(c.amount), 0) FROM wallet_carriedentries c WHERE c.account_id = {a})
           + (SELECT COALESCE(SUM(e.amount), 0) FROM wallet_entry e WHERE e.account_id = {a})"""
_OPERATOR_BOOK = _BOOK.format(a="(SELECT id FROM wallet_ledgeraccount WHERE code = '{code}')")

CHECKS = {
    "account balance != sum of entries": """
        SELECT a.code, a.balance, COALESCE(l.s, 0) + COALESCE(c.s, 0) AS total
        FROM wallet_ledgeraccount a
        LEFT JOIN (SELECT account_id, SUM(amount) s FROM wallet_entry GROUP BY account_id) l ON l.account_id = a.id
        LEFT JOIN (SELECT account_id, SUM(amount) s FROM wallet_carriedentries GROUP BY account_id) c
            ON c.account_id = a.id
        WHERE a.tracks_balance AND a.balance <> COALESCE(l.s, 0) + COALESCE(c.s, 0)""",
    # a carried month stands at its first id: every live entry of the account is below or above its whole range
    "entry balance_after != running sum": """
        SELECT account_id, id, balance_after, running FROM (
            SELECT x.account_id, x.id, x.balance_after, x.live,
                   SUM(x.amount) OVER (PARTITION BY x.account_id ORDER BY x.id) AS running
            FROM (SELECT e.account_id, e.id, e.balance_after, e.amount, true AS live
                  FROM wallet_entry e JOIN wallet_ledgeraccount a ON a.id = e.account_id WHERE a.tracks_balance
                  UNION ALL
                  SELECT c.account_id, c.ids_from, NULL, c.amount, false
                  FROM wallet_carriedentries c JOIN wallet_ledgeraccount a ON a.id = c.account_id
                  WHERE a.tracks_balance) x) y
        WHERE live AND balance_after IS DISTINCT FROM running""",
    "transaction does not balance": """
        SELECT t.kind, t.reference, COALESCE(SUM(e.amount), 0), COUNT(e.id)
        FROM wallet_ledgertransaction t LEFT JOIN wallet_entry e ON e.transaction_id = t.id
        GROUP BY t.id HAVING (COALESCE(SUM(e.amount), 0) <> 0 OR COUNT(e.id) < 2)
           AND NOT (COUNT(e.id) = 0 AND EXISTS (
               SELECT 1 FROM wallet_archivedledgermonth m
               WHERE m.table_name = 'wallet_entry' AND t.id >= m.ids_from AND t.id < m.ids_to))""",
    "transaction touches another player's account (GP §5(5))": """
        SELECT t.kind, t.reference, t.player_id, a.player_id
        FROM wallet_entry e JOIN wallet_ledgeraccount a ON a.id = e.account_id
        JOIN wallet_ledgertransaction t ON t.id = e.transaction_id
        WHERE a.player_id IS NOT NULL AND a.player_id IS DISTINCT FROM t.player_id""",
    "all entries do not sum to zero": """
        SELECT total FROM (SELECT (SELECT COALESCE(SUM(amount), 0) FROM wallet_carriedentries)
                                  + (SELECT COALESCE(SUM(amount), 0) FROM wallet_entry) AS total) x
        WHERE total <> 0""",
    "player balance below zero beyond its recorded debt": """
        SELECT code, balance, debt FROM wallet_ledgeraccount
        WHERE player_id IS NOT NULL AND (balance + debt < 0 OR debt < 0)""",
    "account debt != open Debt rows": """
        SELECT a.code, a.debt, COALESCE(SUM(d.outstanding), 0)
        FROM wallet_ledgeraccount a
        LEFT JOIN wallet_debt d ON d.account_id = a.id AND d.status IN ('open', 'overdue')
        GROUP BY a.id HAVING a.debt <> COALESCE(SUM(d.outstanding), 0)""",
    "held account != open withdrawals + held wins": """
        SELECT a.code, a.balance, COALESCE(w.s, 0) + COALESCE(h.s, 0)
        FROM wallet_ledgeraccount a
        LEFT JOIN (SELECT player_id, SUM(amount) s FROM wallet_withdrawal
                   WHERE status IN ('requested', 'approved', 'sending') GROUP BY player_id) w
               ON w.player_id = a.player_id
        LEFT JOIN (SELECT player_id, SUM(amount) s FROM wallet_winhold
                   WHERE status IN ('held', 'escalated') GROUP BY player_id) h ON h.player_id = a.player_id
        WHERE a.kind = 'player_held' AND a.balance <> COALESCE(w.s, 0) + COALESCE(h.s, 0)""",
    "refunds_payable != outstanding payouts": f"""
        SELECT book, owed FROM (
            SELECT {_OPERATOR_BOOK.format(code="refunds_payable")} AS book,
                   (SELECT COALESCE(SUM(amount - paid - postage), 0) FROM wallet_payout) AS owed) x
        WHERE book <> owed""",
    "bank_unmatched != the unmatched bank credits in the staff queue": f"""
        SELECT book, queued FROM (
            SELECT {_OPERATOR_BOOK.format(code="bank_unmatched")} AS book,
                   (SELECT COALESCE(SUM(amount), 0) FROM wallet_bankentry WHERE status = 'unmatched') AS queued) x
        WHERE book <> queued""",
}


def run_checks() -> dict[str, list[tuple[Any, ...]]]:
    problems: dict[str, list[tuple[Any, ...]]] = {}
    with connection.cursor() as cur:
        for name, sql in CHECKS.items():
            cur.execute(sql)
            rows = cur.fetchall()
            if rows:
                problems[name] = rows
    return problems


class Command(BaseCommand):
    help = (
        "Reconcile the wallet ledger (balances = sums of entries, balanced transactions); "
        "non-zero exit on a difference."
    )

    def handle(self, *args: Any, **opts: Any) -> None:
        problems = run_checks()
        with connection.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM wallet_ledgertransaction")
            n_txn = cur.fetchone()[0]
            cur.execute(
                "SELECT COALESCE(SUM(row_count), 0) FROM wallet_archivedledgermonth "
                "WHERE table_name = 'wallet_ledgertransaction'"
            )
            n_archived = cur.fetchone()[0]
            cur.execute("SELECT COUNT(*) FROM wallet_ledgeraccount")
            n_acc = cur.fetchone()[0]
        if problems:
            for name, rows in problems.items():
                self.stderr.write(f"LEDGER ERROR: {name}: {len(rows)} row(s)")
                for row in rows[:20]:
                    self.stderr.write(f"  {row}")
            raise CommandError(f"ledger_check failed: {', '.join(problems)}")
        if opts["verbosity"] > 0:
            self.stdout.write(
                f"ledger_check: OK ({n_acc} accounts, {n_txn} transactions live, {n_archived} archived, "
                f"{len(CHECKS)} checks)"
            )
