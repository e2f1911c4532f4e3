"""Writes of the accounts app. Other apps import from here (``accounts.services.<name>``).

Modules, lowest first (each imports only those before it): ``locks`` (``player_lock``), ``notify`` (e-mail,
SMS, the e-mail link), ``messages`` (notices the operator can prove: inbox + e-mail, GP §7(7), §10(4)),
``sessions`` (logins, tokens, passwords, the exclusion check), ``lifecycle`` (account states), ``terms`` (the game
plan and terms in force, GP §3(5), §8(1)), ``registration`` (applications, register checks, credentials),
``personal`` (personal data, consents, branch identification, duplicates, barred persons), ``privacy``
(personal-data requests and the anonymisation at the end of retention, GP §12(5), §12(7)).

Other apps notify a player with ``message_send(*, player, kind, subject_cs, subject_en, body_cs, body_en,
reference="", email=True) -> Message``.
"""

from accounts.services.lifecycle import (
    aml_restriction_record,
    balance_handoff_attempt,
    balance_handoffs_retry_due,
    closure_request,
    closures_finalize_due,
    player_close,
    player_reinstate,
    player_set_barred_insider,
    player_suspend,
    player_transition,
    registration_complete,
    registration_reject,
    registration_try_complete,
    registrations_autocomplete_due,
    temporary_activate,
    temporary_expire,
    temporary_expire_due,
)
from accounts.services.locks import player_lock
from accounts.services.messages import message_email_send, message_emails_retry_due, message_read, message_send
from accounts.services.notify import email_link_issue
from accounts.services.personal import (
    aml_identification_record,
    barred_person_save,
    consent_give,
    consent_withdraw,
    correction_approve,
    correction_reject,
    correction_request_create,
    duplicate_case_open,
    duplicate_case_resolve,
    duplicates_scan,
    identity_verify_at_branch,
    personal_data_update,
)
from accounts.services.privacy import (
    blocking_lift,
    data_request_create,
    data_request_decide,
    data_request_withdraw,
    personal_data_anonymise_due,
    player_anonymise,
)
from accounts.services.recheck import aisg_changes_send_due, recheck_collect_due, recheck_submit
from accounts.services.recipients import recipient_notices_record, recipient_notices_send_due
from accounts.services.registers import register_review_resolve
from accounts.services.registration import (
    email_link_confirm,
    email_link_resend,
    registration_checks_retry_due,
    registration_submit,
)
from accounts.services.sessions import (
    exclusion_check,
    password_change,
    player_force_logout,
    session_activity,
    session_end,
    session_start,
    sessions_timeout_due,
)
from accounts.services.terms import terms_accept, terms_announce_due, terms_publish

__all__ = [
    "aisg_changes_send_due",
    "recheck_collect_due",
    "recheck_submit",
    "register_review_resolve",
    "balance_handoff_attempt",
    "balance_handoffs_retry_due",
    "barred_person_save",
    "blocking_lift",
    "closure_request",
    "closures_finalize_due",
    "consent_give",
    "consent_withdraw",
    "correction_approve",
    "correction_reject",
    "aml_identification_record",
    "aml_restriction_record",
    "correction_request_create",
    "data_request_create",
    "data_request_decide",
    "data_request_withdraw",
    "duplicate_case_open",
    "duplicate_case_resolve",
    "duplicates_scan",
    "email_link_confirm",
    "email_link_issue",
    "email_link_resend",
    "exclusion_check",
    "identity_verify_at_branch",
    "message_email_send",
    "message_emails_retry_due",
    "message_read",
    "message_send",
    "password_change",
    "personal_data_anonymise_due",
    "personal_data_update",
    "player_anonymise",
    "recipient_notices_record",
    "recipient_notices_send_due",
    "player_close",
    "player_force_logout",
    "player_lock",
    "player_reinstate",
    "player_set_barred_insider",
    "player_suspend",
    "player_transition",
    "registration_checks_retry_due",
    "registration_complete",
    "registration_reject",
    "registration_submit",
    "registration_try_complete",
    "registrations_autocomplete_due",
    "session_activity",
    "session_end",
    "session_start",
    "sessions_timeout_due",
    "temporary_activate",
    "temporary_expire",
    "temporary_expire_due",
    "terms_accept",
    "terms_announce_due",
    "terms_publish",
]
