from django.urls import path

from accounts import api, api_mailbox, api_privacy

urlpatterns = [
    path("registration", api.RegistrationView.as_view(), name="accounts-registration"),
    path("registration/documents", api.DocumentsView.as_view(), name="accounts-documents"),
    path("registration/confirm-email", api.ConfirmEmailView.as_view(), name="accounts-confirm-email"),
    path("registration/resend-link", api.ResendLinkView.as_view(), name="accounts-resend-link"),
    path("registration/steps", api.StepsView.as_view(), name="accounts-steps"),
    path("registration/complete", api.CompleteView.as_view(), name="accounts-complete"),
    path("auth/login", api.LoginView.as_view(), name="accounts-login"),
    path("auth/logout", api.LogoutView.as_view(), name="accounts-logout"),
    path("auth/password", api.PasswordChangeView.as_view(), name="accounts-password"),
    path("auth/sessions", api.SessionsView.as_view(), name="accounts-sessions"),
    path("me", api.MeView.as_view(), name="accounts-me"),
    path("me/export", api.ExportView.as_view(), name="accounts-export"),
    path("me/consents", api.ConsentsView.as_view(), name="accounts-consents"),
    path("me/consents/<str:kind>/withdraw", api.ConsentWithdrawView.as_view(), name="accounts-consent-withdraw"),
    path("me/corrections", api.CorrectionsView.as_view(), name="accounts-corrections"),
    path("me/closure", api.ClosureView.as_view(), name="accounts-closure"),
    path("me/messages", api.MessagesView.as_view(), name="accounts-messages"),
    path("me/messages/<int:message_id>", api.MessageDetailView.as_view(), name="accounts-message"),
    path("me/messages/<int:message_id>/read", api.MessageReadView.as_view(), name="accounts-message-read"),
    path("terms", api.TermsView.as_view(), name="accounts-terms"),
    path("me/terms/accept", api.TermsAcceptView.as_view(), name="accounts-terms-accept"),
    # personal-data requests and the privacy notice (GP §12(7))
    path("me/data-requests", api_privacy.DataRequestsView.as_view(), name="accounts-data-requests"),
    path(
        "me/data-requests/<int:request_id>", api_privacy.DataRequestDetailView.as_view(), name="accounts-data-request"
    ),
    path(
        "me/data-requests/<int:request_id>/withdraw",
        api_privacy.DataRequestWithdrawView.as_view(),
        name="accounts-data-request-withdraw",
    ),
    path("privacy", api_privacy.PrivacyView.as_view(), name="accounts-privacy"),
    # development only (DEV_MAILBOX_ENABLED): the sandbox's e-mails and SMS
    path("dev/mailbox", api_mailbox.MailboxView.as_view(), name="accounts-dev-mailbox"),
]
