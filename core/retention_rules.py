"""Retention periods checked when the settings load (pure Python, no database): the audit trail's and how
long each monthly-partitioned table's months stay live before the archiving job moves them.

The audit trail holds the platform's records of what was done and by whom, so it is kept at least as long as the
longest period the law sets for any record it documents: the AML Act 253/2008 Sb. §16(1) 10 years for the AML
events (identification, screening, cases, holds), and 5 years for the rest (the accounting act 563/1991 Sb. §31(2)b
for the money movements; the gambling records' 3 years of ``ACCOUNTS_RETENTION_GAMBLING_YEARS`` are shorter). These
are the same legal periods the privacy contract uses (``accounts.retention.periods``).
"""
from __future__ import annotations

from dataclasses import dataclass

#: the legal minimums in whole years: AML events, every other event
MIN_AML_YEARS = 10
MIN_OTHER_YEARS = 5


class RetentionTooShort(ValueError):
    pass


def audit_retention(years: int, aml_years: int) -> tuple[int, int]:
    """The configured (general, AML) periods, refused below the legal minimums."""
    if years < MIN_OTHER_YEARS:
        raise RetentionTooShort(f"AUDIT_RETENTION_YEARS={years} is below the legal {MIN_OTHER_YEARS} years "
                                "(accounting act 563/1991 Sb. §31(2)b)")
    if aml_years < max(MIN_AML_YEARS, years):
        raise RetentionTooShort(f"AUDIT_RETENTION_AML_YEARS={aml_years} is below the legal {MIN_AML_YEARS} years "
                                "(AML Act 253/2008 Sb. §16(1)) or the general period")
    return years, aml_years


# Monthly partitions (docs/scaling.md "Retention: the archiving job") ---------------------------------------------


@dataclass(frozen=True)
class PartitionRule:
    """How long a partitioned table's months stay live before ``core.partitions_archive`` may move them to the
    ``archive`` schema (archived rows are kept, not deleted): at least ``legal_months`` after the end of the month, for
    the reason ``basis``.

    ``summed_by``, when set, names the checks and balances that sum the table's live rows against a running total
    kept elsewhere (the ledger accounts' balances, a pool's counter, the limits' day and month totals): archiving a
    month would change those sums. Such a table has a carry-forward hook (``core.archiving.carry_forward``) that
    records the month's totals in the owning app's carried-forward table, in the same transaction as the DETACH, and
    every check adds those totals to its live sum. The owning app registers it in its ``AppConfig.ready``; a summed
    table whose hook is not registered keeps its months (reported ``summed``): the job never archives a summed month
    without carrying it forward."""

    table: str
    legal_months: int
    basis: str
    summed_by: str = ""


_AML_ACCOUNTING = ("AML Act 253/2008 Sb. §16(1): 10 years; accounting act 563/1991 Sb. §31(2)b: 5 years from the end "
                   "of the year (the privacy contract's records: accounting + aml)")

#: in the order the job archives them: a month of ``wallet_entry`` before the same month of
#: ``wallet_ledgertransaction`` (the entries point at the transactions, so a transactions month whose entries are live
#: is ``referenced``; the entries of a transaction are written in its database transaction, so in its month)
PARTITION_RULES: tuple[PartitionRule, ...] = (
    PartitionRule("games_round", 12 * MIN_AML_YEARS, _AML_ACCOUNTING + ", games.rounds"),
    PartitionRule("wallet_entry", 12 * MIN_AML_YEARS, _AML_ACCOUNTING + ", wallet.ledger",
                  summed_by="ledger_check and the ledger accounts' balances (the sum of their entries)"),
    PartitionRule("wallet_ledgertransaction", 12 * MIN_AML_YEARS, _AML_ACCOUNTING + ", wallet.ledger",
                  summed_by="ledger_check (every live transaction's entries balance)"),
    PartitionRule("jackpots_contribution", 12 * MIN_AML_YEARS, _AML_ACCOUNTING + ", jackpots.awards",
                  summed_by="jackpot_check (the folded contribution rows against each pool's counter)"),
    PartitionRule("limits_settledbet", 12 * 3,
                  "decree 466/2023 Sb.: gambling records 3 years (the privacy contract's limits.self_limits: gambling)",
                  summed_by="limits_reconcile (every day and month total against the settled bets)"),
    PartitionRule("core_auditevent", 12 * MIN_AML_YEARS,
                  "AML Act 253/2008 Sb. §16(1): 10 years for the AML events, which a month holds among the rest "
                  "(AUDIT_RETENTION_AML_YEARS)"),
)


def partition_rule(table: str) -> PartitionRule:
    for rule in PARTITION_RULES:
        if rule.table == table:
            return rule
    raise KeyError(table)


def partition_retention(overrides: dict[str, int], *, audit_years: int, audit_aml_years: int) -> dict[str, int]:
    """Months each partitioned table's months stay live (``PARTITION_RETENTION_MONTHS``): the legal period unless
    ``overrides`` names a longer one; a shorter one, or a table that is not partitioned, is refused. The audit trail's
    months also stay at least as long as the configured audit periods (a month mixes AML events with the rest)."""
    known = {rule.table for rule in PARTITION_RULES}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise RetentionTooShort(f"PARTITION_RETENTION_MONTHS names {', '.join(unknown)}, not a partitioned table "
                                f"({', '.join(sorted(known))})")
    out = {}
    for rule in PARTITION_RULES:
        floor = rule.legal_months
        if rule.table == "core_auditevent":
            floor = max(floor, 12 * audit_years, 12 * audit_aml_years)
        months = int(overrides.get(rule.table, floor))
        if months < floor:
            raise RetentionTooShort(f"PARTITION_RETENTION_MONTHS[{rule.table}]={months} is below the legal {floor} "
                                    f"months ({rule.basis})")
        out[rule.table] = months
    return out
