"""Writes of the aml app (docs/aml.md). Other apps import from here (``aml.services.<name>``).

Modules, lowest first: ``seams`` (the writes that belong to accounts / wallet, to move there), ``cases``,
``identification``, ``bankid`` (identification by the player's bank, OpenID Connect), ``screening`` (PEP
declaration and list screening), ``lists`` (imported sanctions and PEP lists, re-screening, PEP claims of other
identification sources), ``funds`` (source of funds), ``monitoring`` (suspicious-transaction rules).
"""

from aml.services.bankid import bank_pep_claim_record, bankid_complete, bankid_start
from aml.services.cases import case_decide, case_hold_place, case_open
from aml.services.funds import sof_declare, sof_requirement_record, sof_requirements_scan, sof_review
from aml.services.identification import (
    identification_attempts_allow,
    identification_callback_handle,
    identification_review,
    identification_start,
    identification_submit_due,
    identification_submit_one,
    sandbox_callback_deliver,
)
from aml.services.lists import pep_claim_record, screening_list_import, screening_list_withdraw, screening_rescreen
from aml.services.monitoring import rules_evaluate
from aml.services.risk import risk_assess, risk_review_due
from aml.services.screening import pep_declare, profile_ensure, screening_due, screening_request, screening_run

__all__ = [
    "bankid_complete",
    "bankid_start",
    "case_decide",
    "case_hold_place",
    "case_open",
    "identification_attempts_allow",
    "identification_callback_handle",
    "identification_review",
    "identification_start",
    "identification_submit_due",
    "identification_submit_one",
    "pep_claim_record",
    "bank_pep_claim_record",
    "pep_declare",
    "profile_ensure",
    "rules_evaluate",
    "sandbox_callback_deliver",
    "screening_due",
    "risk_assess",
    "risk_review_due",
    "screening_list_import",
    "screening_list_withdraw",
    "screening_request",
    "screening_rescreen",
    "screening_run",
    "sof_declare",
    "sof_requirement_record",
    "sof_requirements_scan",
    "sof_review",
]
