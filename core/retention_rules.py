"""Retention periods checked when the settings load (pure Python, no database): the audit trail's and how
long each monthly-partitioned table's months stay live before the archiving job moves them (the tables and their
legal periods are declared by their apps: core/partition_tables.py).

The audit trail holds the platform's records of what was done and by whom, so it is kept at least as long as the
longest period the law sets for any record it documents: the AML Act 253/2008 Sb. §16(1) 10 years for the AML
events (identification, screening, cases, holds), and 5 years for the rest (the accounting act 563/1991 Sb. §31(2)b
for the money movements; the gambling records' 3 years of ``ACCOUNTS_RETENTION_GAMBLING_YEARS`` are shorter). These
are the same legal periods the privacy contract uses (``accounts.retention.periods``).
"""

from __future__ import annotations

from collections.abc import Iterable

from core.partition_tables import declared_tables

#: the legal minimums in whole years: AML events, every other event
MIN_AML_YEARS = 10
MIN_OTHER_YEARS = 5


class RetentionTooShort(ValueError):
    pass


def audit_retention(years: int, aml_years: int) -> tuple[int, int]:
    """The configured (general, AML) periods, refused below the legal minimums."""
    if years < MIN_OTHER_YEARS:
        raise RetentionTooShort(
            f"AUDIT_RETENTION_YEARS={years} is below the legal {MIN_OTHER_YEARS} years "
            "(accounting act 563/1991 Sb. §31(2)b)"
        )
    if aml_years < max(MIN_AML_YEARS, years):
        raise RetentionTooShort(
            f"AUDIT_RETENTION_AML_YEARS={aml_years} is below the legal {MIN_AML_YEARS} years "
            "(AML Act 253/2008 Sb. §16(1)) or the general period"
        )
    return years, aml_years


# Monthly partitions (docs/scaling.md "Retention: the archiving job") ---------------------------------------------

#: the legal basis of a table whose rows are money movements and gambling records kept for the AML Act's period
AML_ACCOUNTING = (
    "AML Act 253/2008 Sb. §16(1): 10 years; accounting act 563/1991 Sb. §31(2)b: 5 years from the end "
    "of the year (the privacy contract's records: accounting + aml)"
)


def partition_retention(
    overrides: dict[str, int], *, audit_years: int, audit_aml_years: int, app_names: Iterable[str] | None = None
) -> dict[str, int]:
    """Months each partitioned table's months stay live (``PARTITION_RETENTION_MONTHS``): the legal period of its
    declaration (``core.partition_tables``, the apps ``app_names``, by default the settings' ``INSTALLED_APPS``)
    unless ``overrides`` names a longer one; a shorter one, or a table that is not partitioned, is refused. The audit
    trail's months also stay at least as long as the configured audit periods (a month mixes AML events with the
    rest)."""
    tables = declared_tables(app_names)
    known = {t.table for t in tables}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise RetentionTooShort(
            f"PARTITION_RETENTION_MONTHS names {', '.join(unknown)}, not a partitioned table "
            f"({', '.join(sorted(known))})"
        )
    out = {}
    for t in tables:
        floor = t.legal_months
        if t.audit_trail:
            floor = max(floor, 12 * audit_years, 12 * audit_aml_years)
        months = int(overrides.get(t.table, floor))
        if months < floor:
            raise RetentionTooShort(
                f"PARTITION_RETENTION_MONTHS[{t.table}]={months} is below the legal {floor} months ({t.basis})"
            )
        out[t.table] = months
    return out
