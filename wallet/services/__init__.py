"""The wallet's writes (docs/contracts.md): keyword-only, each in one transaction, audited.

Other apps import from here: ``from wallet.services import stake_debit``. One module per workflow; the modules
import each other without a cycle (deposits -> payouts -> withdrawals -> sending -> sandbox); only the enqueueing
of a Celery task imports ``wallet.tasks`` inside a function, because the tasks import these services.
"""

from wallet.ledger import DeferredPosting, LockedWallet, wallet_lock, wallet_lock_live
from wallet.services.bank import (
    bank_statement_import,
    bank_statement_process,
    bank_statement_store,
    bank_statement_upload,
)
from wallet.services.bank_orders import bank_payment_order_export, bank_payment_status_import
from wallet.services.bank_queue import bank_credit_assign, bank_credit_return
from wallet.services.branch import branch_cash_record
from wallet.services.callbacks import provider_callback_handle
from wallet.services.conversion import wallet_convert_temporary
from wallet.services.deductions import debt_sweep_one, win_deduct
from wallet.services.deposits import deposit_expire_one, deposit_start
from wallet.services.holds import (
    win_hold_extend,
    win_hold_forfeit,
    win_hold_place,
    win_hold_release,
    win_hold_sweep_one,
)
from wallet.services.payment_methods import (
    method_document_review,
    method_document_upload,
    method_term_sweep_one,
    payment_method_cancel,
    payment_method_mark_doubtful,
    payment_method_owner_confirm,
    payment_method_refuse,
    payment_method_register,
    payment_method_remove,
    payment_method_verify,
)
from wallet.services.payouts import (
    closure_settlement_start,
    misuse_payout_start,
    payout_collect_cash,
    payout_dispatch,
    payout_post_one,
    payout_resend,
    temporary_refund_start,
)
from wallet.services.play import (
    adjustment_credit,
    operator_transfer,
    round_stake_debit,
    round_win_credit,
    round_win_deferred,
    stake_debit,
    stake_refund,
    win_credit,
)
from wallet.services.sandbox import sandbox_pay
from wallet.services.withdrawals import (
    withdrawal_approve,
    withdrawal_cancel,
    withdrawal_dispatch,
    withdrawal_reject,
    withdrawal_request,
)

__all__ = [
    "DeferredPosting",
    "LockedWallet",
    "round_stake_debit",
    "round_win_credit",
    "round_win_deferred",
    "wallet_lock_live",
    "adjustment_credit",
    "bank_credit_assign",
    "bank_credit_return",
    "bank_payment_order_export",
    "bank_payment_status_import",
    "bank_statement_import",
    "bank_statement_process",
    "bank_statement_store",
    "bank_statement_upload",
    "branch_cash_record",
    "closure_settlement_start",
    "debt_sweep_one",
    "deposit_expire_one",
    "deposit_start",
    "method_document_review",
    "method_document_upload",
    "method_term_sweep_one",
    "misuse_payout_start",
    "operator_transfer",
    "payment_method_cancel",
    "payment_method_mark_doubtful",
    "payment_method_owner_confirm",
    "payment_method_refuse",
    "payment_method_register",
    "payment_method_remove",
    "payment_method_verify",
    "payout_collect_cash",
    "payout_dispatch",
    "payout_post_one",
    "payout_resend",
    "provider_callback_handle",
    "sandbox_pay",
    "stake_debit",
    "stake_refund",
    "temporary_refund_start",
    "wallet_convert_temporary",
    "wallet_lock",
    "win_credit",
    "win_deduct",
    "win_hold_extend",
    "win_hold_forfeit",
    "win_hold_place",
    "win_hold_release",
    "win_hold_sweep_one",
    "withdrawal_approve",
    "withdrawal_cancel",
    "withdrawal_dispatch",
    "withdrawal_reject",
    "withdrawal_request",
]
