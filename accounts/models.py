"""People: users (credentials), players (one per person) and API tokens.

The accounts issue extends these (registration data, login sessions, consents ...).
Other apps reference ``accounts.Player`` as *the* participant.
"""
import hashlib

from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """Credentials of a player or a staff member (staff: is_staff)."""

    must_change_password = models.BooleanField(default=False)  # GP §4(7): first password changed at first login


class Player(models.Model):
    """A participant (Účastník). One per person (GP §5(3))."""

    class Status(models.TextChoices):
        APPLICANT = "applicant", "applicant (data entered, age not yet verified)"
        TEMPORARY = "temporary", "temporary account (GP §5(1))"
        ACTIVE = "active", "player account"
        SUSPENDED = "suspended", "suspended"
        CLOSING = "closing", "closing (settlement pending)"
        CLOSED = "closed", "closed"
        EXPIRED = "expired", "temporary account expired (GP §5(2)a)"

    user = models.OneToOneField(User, on_delete=models.PROTECT, related_name="player")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.APPLICANT, db_index=True)
    created_at = models.DateTimeField()

    def __str__(self):
        return f"{self.user.username} ({self.status})"


class AuthToken(models.Model):
    """A revocable API token; only its SHA-256 is stored."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="auth_tokens")
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_reason = models.CharField(max_length=50, blank=True, default="")

    @staticmethod
    def hash_key(key: str) -> str:
        return hashlib.sha256(key.encode()).hexdigest()
