"""Mounted at /api/v1/aml/."""

from django.urls import path

from aml import api

urlpatterns = [
    path("status", api.StatusView.as_view(), name="aml-status"),
    path("identifications", api.IdentificationListView.as_view(), name="aml-identifications"),
    path("identifications/<int:pk>", api.IdentificationDetailView.as_view(), name="aml-identification"),
    path("identifications/bankid", api.BankIdStartView.as_view(), name="aml-bankid-start"),
    path("identifications/bankid/callback", api.BankIdCallbackView.as_view(), name="aml-bankid-callback"),
    path(
        "identifications/<int:pk>/images/<str:side>",
        api.IdentificationImageView.as_view(),
        name="aml-identification-image",
    ),
    path("pep-declaration", api.PepDeclarationView.as_view(), name="aml-pep-declaration"),
    path("source-of-funds", api.SourceOfFundsView.as_view(), name="aml-source-of-funds"),
    path("callbacks/<str:provider>", api.IdentificationCallbackView.as_view(), name="aml-callback"),
    path("staff/identifications", api.StaffIdentificationListView.as_view(), name="aml-staff-identifications"),
    path(
        "staff/identifications/<int:pk>/review",
        api.StaffIdentificationReviewView.as_view(),
        name="aml-staff-identification-review",
    ),
    path(
        "staff/players/<int:player_id>/identification-attempts",
        api.StaffIdentificationAttemptsView.as_view(),
        name="aml-staff-identification-attempts",
    ),
    path("staff/cases", api.StaffCaseListView.as_view(), name="aml-staff-cases"),
    path("staff/cases/<int:pk>/decide", api.StaffCaseDecideView.as_view(), name="aml-staff-case-decide"),
    path("staff/cases/<int:pk>/holds", api.StaffCaseHoldView.as_view(), name="aml-staff-case-hold"),
    path("staff/source-of-funds", api.StaffSofListView.as_view(), name="aml-staff-source-of-funds"),
    path(
        "staff/source-of-funds/<int:pk>/review",
        api.StaffSofReviewView.as_view(),
        name="aml-staff-source-of-funds-review",
    ),
    path("staff/screening-lists", api.StaffScreeningListView.as_view(), name="aml-staff-screening-lists"),
    path(
        "staff/screening-lists/import",
        api.StaffScreeningListImportView.as_view(),
        name="aml-staff-screening-list-import",
    ),
]
