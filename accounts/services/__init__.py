"""Writes of the accounts app. Other apps import from here (``accounts.services.<name>``)."""
from accounts.services.lifecycle import (  # noqa: F401
    balance_handoff_attempt,
    balance_handoffs_retry_due,
    closure_request,
    closures_finalize_due,
    player_close,
    player_reinstate,
    player_set_barred_insider,
    player_suspend,
    registration_complete,
    registration_reject,
    registration_try_complete,
    registrations_autocomplete_due,
    temporary_activate,
    temporary_expire,
    temporary_expire_due,
)
from accounts.services.personal import (  # noqa: F401
    barred_person_save,
    consent_give,
    consent_withdraw,
    correction_approve,
    correction_reject,
    correction_request_create,
    duplicate_case_open,
    duplicate_case_resolve,
    duplicates_scan,
    personal_data_update,
)
from accounts.services.registration import (  # noqa: F401
    email_link_confirm,
    email_link_issue,
    email_link_resend,
    identity_verify_at_branch,
    registration_checks_retry_due,
    registration_submit,
)
from accounts.services.sessions import (  # noqa: F401
    exclusion_check,
    password_change,
    player_force_logout,
    session_end,
    session_start,
    session_touch,
    sessions_timeout_due,
)
