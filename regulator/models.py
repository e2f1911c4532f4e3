"""Issued remote-access packages. A package is written once, sealed, stored with its SHA-256 and never rebuilt from live
data; only its delivery state changes afterwards (downloaded, confirmed, rejected with the Ministry's code,
re-issued as the next version)."""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models import Q

IMMUTABLE_FIELDS = (
    "name",
    "period_start",
    "period_end",
    "game_type",
    "version",
    "sha256",
    "path",
    "size",
    "files",
    "issued_at",
)


class RegulatorPackage(models.Model):
    class State(models.TextChoices):
        ISSUED = "issued", "issued (published for download)"
        DOWNLOADED = "downloaded", "downloaded by the Ministry"
        CONFIRMED = "confirmed", "confirmed by the Ministry"
        REJECTED = "rejected", "rejected by the Ministry (formal error)"
        REISSUED = "reissued", "re-issued as a later version"

    name = models.CharField(max_length=60, unique=True, help_text="<IČO>-V-<YYYYMMDDHH>-<type>-<version>")
    period_start = models.DateTimeField()
    period_end = models.DateTimeField()
    game_type = models.CharField(max_length=1, default="T")
    version = models.PositiveSmallIntegerField()
    state = models.CharField(max_length=12, choices=State.choices, default=State.ISSUED, db_index=True)
    error_code = models.CharField(max_length=60, blank=True, default="", help_text="the Ministry's ERR_* code")
    error_detail = models.TextField(blank=True, default="")
    sha256 = models.CharField(max_length=64, help_text="of the sealed file <name>.zip.p7e.p7s")
    path = models.CharField(max_length=300, help_text="the sealed file, relative to REGULATOR_PACKAGE_DIR")
    size = models.BigIntegerField()
    files = models.JSONField(default=dict, help_text="record count per data file")
    issued_at = models.DateTimeField()
    downloaded_at = models.DateTimeField(null=True, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    state_changed_at = models.DateTimeField()
    previous = models.OneToOneField("self", null=True, blank=True, on_delete=models.PROTECT, related_name="next")
    # keeping (docs/regulator.md "Keeping the packages"): the stored file is re-hashed every day against ``sha256``;
    # after the retention period it is deleted and this row (name, hash, states) stays as the record that it existed
    checked_at = models.DateTimeField(null=True, blank=True, help_text="last time the stored file matched its hash")
    damaged_at = models.DateTimeField(
        null=True, blank=True, help_text="the stored file was missing or no longer matched its hash"
    )
    purged_at = models.DateTimeField(
        null=True, blank=True, help_text="the sealed file was deleted at the end of its retention period"
    )

    class Meta:
        ordering = ["-period_start", "-version"]
        permissions = [("reissue_package", "Issues a rejected remote-access package again as its next version")]
        constraints = [
            models.UniqueConstraint(fields=["period_start", "game_type", "version"], name="regulator_one_version"),
            models.CheckConstraint(condition=Q(version__gte=1) & Q(version__lte=99), name="regulator_version_range"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Once issued, only the delivery state may change."""
        if self.pk is not None and not self._state.adding:
            stored = type(self).objects.filter(pk=self.pk).values(*IMMUTABLE_FIELDS).first()
            if stored is not None:
                changed = [f for f in IMMUTABLE_FIELDS if stored[f] != getattr(self, f)]
                if changed:
                    raise ValueError(f"an issued package is immutable: {', '.join(changed)}")
        super().save(*args, **kwargs)


class MinistryNotice(models.Model):
    """A notification from the Ministry (success or error URL), kept as received, with the package it names."""

    class Kind(models.TextChoices):
        SUCCESS = "success", "processed successfully"
        ERROR = "error", "processing ended with an error"

    kind = models.CharField(max_length=8, choices=Kind.choices)
    package = models.ForeignKey(
        RegulatorPackage, null=True, blank=True, on_delete=models.PROTECT, related_name="notices"
    )
    package_name = models.CharField(max_length=120, blank=True, default="")
    error_code = models.CharField(max_length=60, blank=True, default="")
    body = models.TextField(blank=True, default="")
    client_identity = models.CharField(max_length=500)
    received_at = models.DateTimeField()
    staff_task_open = models.BooleanField(default=False, help_text="an error notice waits for staff")
    handled_at = models.DateTimeField(null=True, blank=True)
    handled_by = models.CharField(max_length=150, blank=True, default="")

    class Meta:
        ordering = ["-received_at"]
        permissions = [("handle_notice", "Closes the staff task of a Ministry error notice")]
