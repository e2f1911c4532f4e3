"""Outside game studios played through the seamless-wallet API (docs/providers.md).

A :class:`Provider` is a studio whose games are ``games.Game`` rows (``provider`` = its code). A player launches a
game with a single-use :class:`LaunchToken`; the provider exchanges it for a :class:`GameSession` and then calls
the platform (signed) for bets, wins, rollbacks and round ends. Every call is one :class:`ProviderTransaction`,
unique per (provider, transaction_id): the exactly-once guarantee. :class:`ReconciliationCase` records a difference
between the provider's daily report and the platform's transactions.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Provider(models.Model):
    """A game studio. ``secret`` signs every call both ways (HMAC-SHA256); staff set a new one in the admin and never
    see the stored one. ``allowed_sources``: the addresses or networks its calls may come from (empty: none, unless
    ``settings.PROVIDERS_ALLOW_ANY_SOURCE`` in development)."""

    code = models.CharField(max_length=30, unique=True, help_text="lower-case letters, digits, underscores")
    name = models.CharField(max_length=120)
    enabled = models.BooleanField(default=True)
    launch_url = models.URLField(max_length=500, help_text="the provider's game page; the player's launch URL")
    api_url = models.URLField(max_length=500, help_text="the provider's API: round-cancelled, round-report")
    secret = models.CharField(max_length=200, help_text="the shared HMAC secret (write-only in the admin)")
    allowed_sources = models.JSONField(
        default=list, blank=True, help_text="IP addresses or networks (CIDR) its calls may come from"
    )
    currency = models.CharField(max_length=3, default="CZK")
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["code"]
        permissions = [("manage_provider", "Manages game providers (their switch, addresses and secret)")]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"


class LaunchToken(models.Model):
    """A single-use token the player's launch hands to the provider (only its SHA-256 is kept)."""

    token_hash = models.CharField(max_length=64, unique=True)
    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="+")
    game = models.ForeignKey("games.Game", on_delete=models.PROTECT, related_name="+")
    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="launch_tokens")
    login_session = models.ForeignKey(
        "accounts.LoginSession",
        null=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="the player's login that launched the game",
    )
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)


class GameSession(models.Model):
    """The provider's session of one player in one game (only the SHA-256 of the opaque session is kept).

    It belongs to exactly one login (``login_session``, the login that launched the game): a studio's call is
    activity on that login, and once the login has ended (logout, idle timeout, forced logout, panic, exclusion, a
    limit's logout) the game session has ended with it (GP §6(6)e-g)."""

    session_hash = models.CharField(max_length=64, unique=True)
    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="+")
    game = models.ForeignKey("games.Game", on_delete=models.PROTECT, related_name="+")
    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="sessions")
    login_session = models.ForeignKey(
        "accounts.LoginSession",
        null=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="the login it belongs to (None only on sessions older than the rule)",
    )
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()


class ProviderTransaction(models.Model):
    """One call of a provider, recorded with the answer it got. UNIQUE (provider, transaction_id) is the
    exactly-once guarantee: a repeat with the same body gets the stored answer and moves nothing.

    A ``tombstone`` is the row of a bet the platform never saw but the provider rolled back: it holds the bet's
    ``transaction_id``, so the late bet finds it and is refused (its own rollback is a ``rollback`` row)."""

    class Kind(models.TextChoices):
        BET = "bet", "bet"
        WIN = "win", "win"
        ROLLBACK = "rollback", "rollback"
        ROUND_END = "round_end", "round end"
        TOMBSTONE = "tombstone", "tombstone (a rolled-back bet never seen)"

    # no index of its own: the unique (provider, transaction_id) serves every lookup by provider
    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="transactions", db_index=False)
    transaction_id = models.CharField(max_length=100)
    kind = models.CharField(max_length=12, choices=Kind.choices)
    player = models.ForeignKey("accounts.Player", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    round = models.ForeignKey("games.Round", null=True, blank=True, on_delete=models.PROTECT, related_name="+")
    provider_round_id = models.CharField(max_length=100, blank=True, default="")
    bet_transaction_id = models.CharField(max_length=100, blank=True, default="")
    amount = models.BigIntegerField(default=0, help_text="haléře, as the provider sent it")
    credited = models.BigIntegerField(default=0, help_text="what the platform moved (a win within the GP §8(3) cap)")
    request_sha256 = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField()
    response = models.JSONField(default=dict)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["provider", "transaction_id"], name="providers_txn_unique_per_provider"),
        ]
        # the daily reconciliation's range of a day, then the provider; not led by the provider, so a lookup of one
        # transaction (provider, transaction_id) has one index to use whatever the statistics, as its generic plan
        # (core/sql.py, prepared once per connection, perhaps while the table is still empty) must
        indexes = [models.Index(fields=["created_at", "provider"], name="providers_txn_day_provider")]

    def __str__(self) -> str:
        return f"{self.provider_id}:{self.transaction_id} {self.kind}"


class ReconciliationCase(models.Model):
    """A difference between a provider's daily report and the platform's transactions of that day."""

    class Difference(models.TextChoices):
        MISSING_ON_PLATFORM = "missing_on_platform", "reported by the provider, not on the platform"
        MISSING_AT_PROVIDER = "missing_at_provider", "on the platform, not in the provider's report"
        AMOUNT_DIFFERS = "amount_differs", "amount differs"
        KIND_DIFFERS = "kind_differs", "type differs"

    class Status(models.TextChoices):
        OPEN = "open", "open"
        RESOLVED = "resolved", "resolved"

    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="reconciliation_cases")
    day = models.DateField(help_text="the Prague operating day")
    transaction_id = models.CharField(max_length=100)
    difference = models.CharField(max_length=24, choices=Difference.choices)
    platform_side = models.JSONField(null=True, blank=True)
    provider_side = models.JSONField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    resolution = models.TextField(blank=True, default="")
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["-day", "id"]
        permissions = [("resolve_reconciliation", "Resolves provider reconciliation cases")]
        constraints = [
            models.UniqueConstraint(fields=["provider", "day", "transaction_id"], name="providers_recon_one_per_txn"),
            models.CheckConstraint(
                condition=Q(status="open") | ~Q(resolution=""), name="providers_recon_resolved_says_how"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.provider_id} {self.day} {self.transaction_id}: {self.difference}"
