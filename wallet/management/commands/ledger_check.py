"""Prove the ledger right: exit non-zero on any difference.

* every tracked (player) account's balance equals the sum of its entries, and every entry's balance_after
  equals the running sum up to it (so statements are right);
* every transaction balances (sum 0, at least two entries) and all entries together sum to zero;
* a player balance is below zero only by its recorded debt, which equals its open Debt rows;
* the held accounts equal the open withdrawals plus the held wins; ``refunds_payable`` equals what open
  payouts still owe; ``bank_unmatched`` equals the bank credits waiting in the staff queue.
"""
from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

CHECKS = {
    "account balance != sum of entries": """
        SELECT a.code, a.balance, COALESCE(SUM(e.amount), 0) AS total
        FROM wallet_ledgeraccount a LEFT JOIN wallet_entry e ON e.account_id = a.id
        WHERE a.tracks_balance
        GROUP BY a.id HAVING a.balance <> COALESCE(SUM(e.amount), 0)""",
    "entry balance_after != running sum": """
        SELECT account_id, id, balance_after, running FROM (
            SELECT e.account_id, e.id, e.balance_after,
                   SUM(e.amount) OVER (PARTITION BY e.account_id ORDER BY e.id) AS running
            FROM wallet_entry e JOIN wallet_ledgeraccount a ON a.id = e.account_id WHERE a.tracks_balance) x
        WHERE balance_after IS DISTINCT FROM running""",
    "transaction does not balance": """
        SELECT t.kind, t.reference, COALESCE(SUM(e.amount), 0), COUNT(e.id)
        FROM wallet_ledgertransaction t LEFT JOIN wallet_entry e ON e.transaction_id = t.id
        GROUP BY t.id HAVING COALESCE(SUM(e.amount), 0) <> 0 OR COUNT(e.id) < 2""",
    "transaction touches another player's account (GP §5(5))": """
        SELECT t.kind, t.reference, t.player_id, a.player_id
        FROM wallet_entry e JOIN wallet_ledgeraccount a ON a.id = e.account_id
        JOIN wallet_ledgertransaction t ON t.id = e.transaction_id
        WHERE a.player_id IS NOT NULL AND a.player_id IS DISTINCT FROM t.player_id""",
    "all entries do not sum to zero": """
        SELECT SUM(amount) FROM wallet_entry HAVING SUM(amount) <> 0""",
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
                   WHERE status IN ('requested', 'approved', 'sending') GROUP BY player_id) w ON w.player_id = a.player_id
        LEFT JOIN (SELECT player_id, SUM(amount) s FROM wallet_winhold
                   WHERE status IN ('held', 'escalated') GROUP BY player_id) h ON h.player_id = a.player_id
        WHERE a.kind = 'player_held' AND a.balance <> COALESCE(w.s, 0) + COALESCE(h.s, 0)""",
    "refunds_payable != outstanding payouts": """
        SELECT (SELECT COALESCE(SUM(e.amount), 0) FROM wallet_entry e JOIN wallet_ledgeraccount a ON a.id = e.account_id
                WHERE a.code = 'refunds_payable') AS book,
               (SELECT COALESCE(SUM(amount - paid - postage), 0) FROM wallet_payout) AS owed
        WHERE (SELECT COALESCE(SUM(e.amount), 0) FROM wallet_entry e JOIN wallet_ledgeraccount a ON a.id = e.account_id
               WHERE a.code = 'refunds_payable') <> (SELECT COALESCE(SUM(amount - paid - postage), 0) FROM wallet_payout)""",
    "bank_unmatched != the unmatched bank credits in the staff queue": """
        SELECT (SELECT COALESCE(SUM(e.amount), 0) FROM wallet_entry e JOIN wallet_ledgeraccount a ON a.id = e.account_id
                WHERE a.code = 'bank_unmatched') AS book,
               (SELECT COALESCE(SUM(amount), 0) FROM wallet_bankentry WHERE status = 'unmatched') AS queued
        WHERE (SELECT COALESCE(SUM(e.amount), 0) FROM wallet_entry e JOIN wallet_ledgeraccount a ON a.id = e.account_id
               WHERE a.code = 'bank_unmatched') <> (SELECT COALESCE(SUM(amount), 0) FROM wallet_bankentry
                                                    WHERE status = 'unmatched')""",
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
    help = "Reconcile the wallet ledger (balances = sums of entries, balanced transactions); non-zero exit on a difference."

    def handle(self, *args: Any, **opts: Any) -> None:
        problems = run_checks()
        with connection.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM wallet_ledgertransaction")
            n_txn = cur.fetchone()[0]
            cur.execute("SELECT COUNT(*) FROM wallet_ledgeraccount")
            n_acc = cur.fetchone()[0]
        if problems:
            for name, rows in problems.items():
                self.stderr.write(f"LEDGER ERROR: {name}: {len(rows)} row(s)")
                for row in rows[:20]:
                    self.stderr.write(f"  {row}")
            raise CommandError(f"ledger_check failed: {', '.join(problems)}")
        if opts["verbosity"] > 0:
            self.stdout.write(f"ledger_check: OK ({n_acc} accounts, {n_txn} transactions, {len(CHECKS)} checks)")
