"""Mounted at /api/v1/wallet/."""

from django.urls import path

from wallet import api

urlpatterns = [
    path("overview", api.OverviewView.as_view(), name="wallet-overview"),
    path("statement", api.StatementView.as_view(), name="wallet-statement"),
    path("statement.csv", api.StatementCsvView.as_view(), name="wallet-statement-csv"),
    path("payment-methods", api.PaymentMethodListView.as_view(), name="wallet-methods"),
    path("payment-methods/<int:pk>", api.PaymentMethodDetailView.as_view(), name="wallet-method"),
    path("payment-methods/<int:pk>/documents", api.MethodDocumentView.as_view(), name="wallet-method-documents"),
    path("deposits", api.DepositListView.as_view(), name="wallet-deposits"),
    path("deposits/<int:pk>", api.DepositDetailView.as_view(), name="wallet-deposit"),
    path("sandbox/deposits/<int:pk>/pay", api.SandboxPayView.as_view(), name="wallet-sandbox-pay"),
    path("callbacks/<slug:provider>", api.ProviderCallbackView.as_view(), name="wallet-provider-callback"),
    path("withdrawals", api.WithdrawalListView.as_view(), name="wallet-withdrawals"),
    path("withdrawals/<int:pk>", api.WithdrawalDetailView.as_view(), name="wallet-withdrawal"),
    path("withdrawals/<int:pk>/cancel", api.WithdrawalCancelView.as_view(), name="wallet-withdrawal-cancel"),
    path("payouts", api.PayoutListView.as_view(), name="wallet-payouts"),
    path("holds", api.WinHoldListView.as_view(), name="wallet-holds"),
    path("deductions", api.WinDeductionListView.as_view(), name="wallet-deductions"),
    path("staff/branch-cash", api.StaffBranchCashView.as_view(), name="wallet-staff-branch-cash"),
    path("staff/players/<int:player_id>/statement", api.StaffStatementView.as_view(), name="wallet-staff-statement"),
    path("staff/bank/statements", api.StaffBankStatementListView.as_view(), name="wallet-staff-bank-statements"),
    path(
        "staff/bank/statements/<int:pk>", api.StaffBankStatementDetailView.as_view(), name="wallet-staff-bank-statement"
    ),
    path("staff/bank/entries", api.StaffBankEntryListView.as_view(), name="wallet-staff-bank-entries"),
    path(
        "staff/bank/entries/<int:pk>/assign",
        api.StaffBankEntryAssignView.as_view(),
        name="wallet-staff-bank-entry-assign",
    ),
    path(
        "staff/bank/entries/<int:pk>/return",
        api.StaffBankEntryReturnView.as_view(),
        name="wallet-staff-bank-entry-return",
    ),
    path("staff/bank/payment-orders", api.StaffPaymentOrderListView.as_view(), name="wallet-staff-payment-orders"),
    path(
        "staff/bank/payment-orders/<int:pk>/file",
        api.StaffPaymentOrderFileView.as_view(),
        name="wallet-staff-payment-order-file",
    ),
]
