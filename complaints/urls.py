"""Mounted at /api/v1/complaints/."""

from django.urls import path

from complaints import api

urlpatterns = [
    path("", api.ComplaintListCreateView.as_view(), name="complaints-list"),
    path("staff/report", api.ComplaintReportView.as_view(), name="complaints-staff-report"),
    path("<str:reference>", api.ComplaintDetailView.as_view(), name="complaints-detail"),
    path("<str:reference>/messages", api.ComplaintMessageView.as_view(), name="complaints-messages"),
    path("<str:reference>/attachments", api.ComplaintAttachmentView.as_view(), name="complaints-attachments"),
    path(
        "<str:reference>/attachments/<int:attachment_id>",
        api.ComplaintAttachmentDownloadView.as_view(),
        name="complaints-attachment-download",
    ),
]
