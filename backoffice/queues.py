"""The work queues on the admin home page, registered with ``core.home`` when the app starts.

Each queue is a selector of the app that owns its rows (one statement: the count and the oldest item) and links to
the admin list filtered to the same rows; it is shown to the staff whose role holds the permission that acts on it
(not to role names): a finance officer sees the documents and withdrawals, a compliance officer the identifications,
screening hits and cases, support the complaints. The reports' panel is the ``reports`` app's: it
registers a ``HomePanel`` with the key "reports" the same way.

The panels' texts are marked with ``gettext_noop`` (``N_``): ``makemessages`` finds them and the catalogue test
(``backoffice/tests/test_catalogues.py``) checks each has its Czech, while the values stay the English texts, so a
queue is named the same in every language wherever code or tests name it; the home page translates them when it
draws them (``core/templates/admin/platform/index.html``)."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlencode

from django.urls import reverse
from django.utils.translation import gettext_noop as N_

from accounts import selectors as accounts_selectors
from aml import selectors as aml_selectors
from complaints import selectors as complaints_selectors
from core.home import HomeLink, HomePanel, QueueState, queue_of, register_home_panel
from games import selectors as games_selectors
from providers.models import ReconciliationCase
from regulator import selectors as regulator_selectors
from wallet import selectors as wallet_selectors


def reconciliation_differences_queue() -> QueueState:
    """Open differences between a game provider's daily report and the platform's transactions."""
    return queue_of(ReconciliationCase.objects.filter(status=ReconciliationCase.Status.OPEN), "created_at")


def _list(name: str, **query: str) -> Callable[[], str]:
    def url() -> str:
        base = reverse(f"admin:{name}")
        return f"{base}?{urlencode(query)}" if query else base

    return url


SEARCH = HomeLink(
    N_("Find a player"),
    _list("backoffice_player_search"),
    "accounts.view_player",
    note=N_(
        "name, username, e-mail, phone, birth number (exact), round id, complaint, payment or "
        "ledger reference, variable symbol"
    ),
)

QUEUES = HomePanel(
    "queues",
    N_("Work queues"),
    order=10,
    search=SEARCH,
    description=N_("Waiting items, the age of the oldest; each opens the list of the same items."),
    links=(
        HomeLink(
            N_("Identifications to review (doubtful)"),
            _list("aml_identificationcheck_changelist", status__exact="doubtful"),
            "aml.review_identification",
            aml_selectors.identifications_review_queue,
            overdue_after_days=2,
        ),
        HomeLink(
            N_("Payment-method documents to review"),
            _list("wallet_methoddocument_changelist", status__exact="pending"),
            "wallet.review_method_document",
            wallet_selectors.method_documents_queue,
            overdue_after_days=2,
        ),
        HomeLink(
            N_("Screening hits (sanctions, PEP lists)"),
            _list("aml_compliancecase_changelist", status__exact="open", kind__exact="screening_hit"),
            "aml.decide_case",
            aml_selectors.screening_hits_queue,
            overdue_after_days=1,
        ),
        HomeLink(
            N_("Other open compliance cases"),
            _list("aml_compliancecase_changelist", status__exact="open"),
            "aml.decide_case",
            aml_selectors.cases_open_queue,
            overdue_after_days=7,
        ),
        HomeLink(
            N_("Withdrawals to approve"),
            _list("wallet_withdrawal_changelist", status__exact="requested", needs_approval__exact="1"),
            "wallet.approve_withdrawal",
            wallet_selectors.withdrawals_queue,
            overdue_after_days=1,
        ),
        HomeLink(
            N_("Unmatched bank credits"),
            _list("wallet_bankentry_changelist", status__exact="unmatched"),
            "wallet.match_bank_credit",
            wallet_selectors.unmatched_credits_queue,
            overdue_after_days=3,
        ),
        HomeLink(
            N_("New and unassigned complaints"),
            _list("complaints_complaint_changelist", status__exact="new"),
            "complaints.resolve_complaint",
            complaints_selectors.complaints_new_queue,
            overdue_after_days=3,
            note=N_("from the day they arrive; resolving one assigns it to you"),
        ),
        HomeLink(
            N_("Complaints asking for money (remedy to decide)"),
            _list("complaints_complaint_changelist", remedy_amount_requested__isnull="False"),
            "complaints.credit_remedy",
            complaints_selectors.complaints_money_queue,
            overdue_after_days=20,
        ),
        HomeLink(
            N_("Complaints due within 7 days"),
            _list("complaints_complaint_changelist", deadline="due7"),
            "complaints.resolve_complaint",
            complaints_selectors.complaints_near_deadline_queue,
            overdue_after_days=23,
            note=N_("GP §11(1): answered within 30 days of receipt"),
        ),
        HomeLink(
            N_("Complaints past their 30-day deadline"),
            _list("complaints_complaint_changelist", deadline="overdue"),
            "complaints.resolve_complaint",
            complaints_selectors.complaints_overdue_queue,
            overdue_after_days=0,
        ),
        HomeLink(
            N_("Duplicate accounts to resolve"),
            _list("accounts_duplicatecase_changelist", state__exact="open"),
            "accounts.resolve_duplicate",
            accounts_selectors.duplicate_cases_queue,
            overdue_after_days=5,
        ),
        HomeLink(
            N_("Game versions awaiting approval"),
            _list("games_game_changelist", approval_state__exact="unapproved", current__exact="1"),
            "games.approve_version",
            games_selectors.versions_awaiting_approval_queue,
            overdue_after_days=30,
            note=N_("not offered for real money until approved in the game plan (GP §13(6))"),
        ),
        HomeLink(
            N_("Reconciliation differences with game providers"),
            _list("providers_reconciliationcase_changelist", status__exact="open"),
            "providers.resolve_reconciliation",
            reconciliation_differences_queue,
            overdue_after_days=3,
        ),
        HomeLink(
            N_("Personal-data requests to answer"),
            _list("accounts_datarequest_changelist", state__exact="pending"),
            "accounts.decide_data_request",
            accounts_selectors.data_requests_queue,
            overdue_after_days=25,
            note=N_("GDPR art. 12(3): within one month"),
        ),
        HomeLink(
            N_("Rounds past their game's deadline"),
            _list("games_round_changelist", status__exact="in_progress"),
            "games.refund_round",
            games_selectors.rounds_past_deadline_queue,
            overdue_after_days=0,
            note=N_("the sweeper ends them; any here is stalled"),
        ),
        HomeLink(
            N_("Refunds and payouts due (stopped or past their term)"),
            _list("wallet_payout_changelist"),
            "wallet.resend_payout",
            wallet_selectors.refunds_due_queue,
            overdue_after_days=0,
        ),
        HomeLink(
            N_("Register answers to review (AISG: not found, under 18, outage)"),
            _list("accounts_registerreview_changelist", resolved_at__isnull="True"),
            "accounts.check_exclusion",
            accounts_selectors.register_reviews_queue,
            overdue_after_days=1,
            note=N_("the platform failed closed: no registration, login or play until the register answers"),
        ),
        HomeLink(
            N_("Bank lines to look at (unmatched reversals, unbookable lines)"),
            _list("wallet_bankentry_changelist", status__in="reversal_unmatched,invalid"),
            "wallet.match_bank_credit",
            wallet_selectors.bank_attention_queue,
            overdue_after_days=2,
        ),
        HomeLink(
            N_("Regulator packages rejected by the Ministry"),
            _list("regulator_regulatorpackage_changelist", state__exact="rejected"),
            "regulator.reissue_package",
            regulator_selectors.packages_rejected_queue,
            overdue_after_days=0,
            note=N_("issue them again (the next version) once the cause is fixed"),
        ),
        HomeLink(
            N_("Ministry error notices to handle"),
            _list("regulator_ministrynotice_changelist", staff_task_open__exact="1"),
            "regulator.handle_notice",
            regulator_selectors.error_notices_queue,
            overdue_after_days=1,
        ),
        HomeLink(
            N_("Regulator packages whose stored file is damaged"),
            _list("regulator_regulatorpackage_changelist", damaged_at__isnull="False"),
            "regulator.view_regulatorpackage",
            regulator_selectors.packages_damaged_queue,
            overdue_after_days=0,
            note=N_("restore the file from the backup (its hash is recorded); a package is never rebuilt"),
        ),
    ),
)

AUDIT = HomePanel(
    "audit",
    N_("Audit trail"),
    order=90,
    links=(HomeLink(N_("Search the audit trail"), _list("backoffice_audit_search"), "core.view_auditevent"),),
)


def register_panels() -> None:
    register_home_panel(QUEUES)
    register_home_panel(AUDIT)
