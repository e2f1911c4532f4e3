"""The audit trail's retention periods (issue 24), checked when the settings load: pure Python, no database.

The audit trail holds the platform's records of what was done and by whom, so it is kept at least as long as the
longest period the law sets for any record it documents: the AML Act 253/2008 Sb. §16(1) 10 years for the AML
events (identification, screening, cases, holds), and 5 years for the rest (the accounting act 563/1991 Sb. §31(2)b
for the money movements; the gambling records' 3 years of ``ACCOUNTS_RETENTION_GAMBLING_YEARS`` are shorter). These
are the same legal periods the privacy contract uses (``accounts.retention.periods``).
"""
from __future__ import annotations

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
