from django.urls import path

from accounts import api

urlpatterns = [
    path("registration/", api.RegistrationView.as_view(), name="accounts-registration"),
    path("registration/documents/", api.DocumentsView.as_view(), name="accounts-documents"),
    path("registration/confirm-email/", api.ConfirmEmailView.as_view(), name="accounts-confirm-email"),
    path("registration/resend-link/", api.ResendLinkView.as_view(), name="accounts-resend-link"),
    path("registration/steps/", api.StepsView.as_view(), name="accounts-steps"),
    path("registration/complete/", api.CompleteView.as_view(), name="accounts-complete"),
    path("auth/login/", api.LoginView.as_view(), name="accounts-login"),
    path("auth/logout/", api.LogoutView.as_view(), name="accounts-logout"),
    path("auth/password/", api.PasswordChangeView.as_view(), name="accounts-password"),
    path("auth/sessions/", api.SessionsView.as_view(), name="accounts-sessions"),
    path("me/", api.MeView.as_view(), name="accounts-me"),
    path("me/export/", api.ExportView.as_view(), name="accounts-export"),
    path("me/consents/", api.ConsentsView.as_view(), name="accounts-consents"),
    path("me/consents/<str:kind>/withdraw/", api.ConsentWithdrawView.as_view(), name="accounts-consent-withdraw"),
    path("me/corrections/", api.CorrectionsView.as_view(), name="accounts-corrections"),
    path("me/closure/", api.ClosureView.as_view(), name="accounts-closure"),
]
