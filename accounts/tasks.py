"""Periodic jobs of the accounts app: thin wrappers of sweeper services (safe to run twice)."""

from celery import shared_task

from accounts import services


@shared_task(name="accounts.temporary_expire", time_limit=300, soft_time_limit=240)
def temporary_expire() -> int:
    """GP §5(2)a: cancel temporary accounts past 30 days; hand the balance to the refund (GP §5(2)e)."""
    return services.temporary_expire_due()


@shared_task(name="accounts.registration_checks_retry", time_limit=300, soft_time_limit=240)
def registration_checks_retry() -> int:
    """Re-run register checks that could not run (register unavailable)."""
    return services.registration_checks_retry_due()


@shared_task(name="accounts.sessions_timeout", time_limit=120, soft_time_limit=100)
def sessions_timeout() -> int:
    """End idle login sessions."""
    return services.sessions_timeout_due()


@shared_task(name="accounts.closures_finalize", time_limit=300, soft_time_limit=240)
def closures_finalize() -> int:
    """GP §5(15): close accounts whose balance the wallet has settled."""
    return services.closures_finalize_due()


@shared_task(name="accounts.balance_handoffs_retry", time_limit=300, soft_time_limit=240)
def balance_handoffs_retry() -> int:
    """Retry wallet refund/settlement hand-offs the wallet refused."""
    return services.balance_handoffs_retry_due()


@shared_task(name="accounts.registrations_autocomplete", time_limit=300, soft_time_limit=240)
def registrations_autocomplete() -> int:
    """Complete registrations whose last step was done elsewhere (e.g. payment method verified)."""
    return services.registrations_autocomplete_due()


@shared_task(name="accounts.duplicates_scan", time_limit=600, soft_time_limit=540)
def duplicates_scan() -> int:
    """GP §5(3): find accounts of one person; freeze their money movements until staff resolve it."""
    return services.duplicates_scan()


@shared_task(name="accounts.message_emails_retry", time_limit=300, soft_time_limit=240)
def message_emails_retry() -> int:
    """GP §7(7), §10(4): send again the notices' e-mails that failed (each attempt is recorded)."""
    return services.message_emails_retry_due()


@shared_task(name="accounts.terms_announce", time_limit=600, soft_time_limit=540)
def terms_announce() -> int:
    """GP §8(1): tell the players of a published version of the game plan and terms before it applies."""
    return services.terms_announce_due()


@shared_task(name="accounts.personal_data_anonymise", time_limit=1800, soft_time_limit=1700)
def personal_data_anonymise() -> int:
    """GP §12(5), §12(7): anonymise the ended accounts whose legal retention periods have passed."""
    return services.personal_data_anonymise_due()


@shared_task(name="accounts.recipient_notices_send", time_limit=600, soft_time_limit=540)
def recipient_notices_send() -> dict[str, int]:
    """GP §12(7), GDPR art. 19: e-mail the due notices of corrections and erasures to the recipients of the data."""
    return services.recipient_notices_send_due()


@shared_task(name="accounts.aisg_changes_send", time_limit=300, soft_time_limit=240)
def aisg_changes_send() -> int:
    """Report changed personal data to the AISG interface (ZmenitUdajeOsoby), retrying failures."""
    return services.aisg_changes_send_due()
