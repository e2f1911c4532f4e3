"""Complaints (reklamace) and win claims with their legal terms (GP §10(2), §11).

A :class:`Complaint` is written only by ``complaints.services`` (the admin and the API call them). Its terms are
row fields computed once at filing from the date received (``complaints.deadlines``): ``respond_by`` (overdue
from this instant, GP §11(1)), ``remind_first_at`` / ``remind_second_at`` (day 20 and 27) and the filing window
(``filing_deadline`` and ``late``, GP §11(1)/(3), §10(2)). The sweeper (``complaints.tasks``) reads them.

Rounds and ledger transactions the complaint names are stored as :class:`ComplaintItem` rows holding the id of
the round / transaction (checked to be the player's own at filing) and a snapshot of what the player saw; the
full recall is read live from the games app (GP §11(5): the stored data decide).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Complaint(models.Model):
    class Kind(models.TextChoices):
        COMPLAINT = "complaint", "complaint (GP §11)"
        WIN_CLAIM = "win_claim", "win claim (GP §10(2))"

    class Channel(models.TextChoices):
        API = "api", "player app / web"
        EMAIL = "email", "e-mail"
        BRANCH = "branch", "branch"
        POST = "post", "post"

    class Reason(models.TextChoices):
        GAME_RESULT = "game_result", "game round result or malfunction"
        WIN_NOT_CREDITED = "win_not_credited", "win not credited (win claim)"
        DEPOSIT = "deposit", "deposit"
        WITHDRAWAL = "withdrawal", "withdrawal"
        BALANCE = "balance", "account movement or balance"
        LIMITS = "limits", "self-limits, breaks, exclusion"
        ACCOUNT = "account", "registration, login, account state"
        PERSONAL_DATA = "personal_data", "personal data (GP §12(7))"
        OTHER = "other", "other"

    class Status(models.TextChoices):
        NEW = "new", "new"
        ASSIGNED = "assigned", "assigned"
        INVESTIGATING = "investigating", "under investigation"
        WAITING_PLAYER = "waiting_player", "waiting for the player"
        RESOLVED = "resolved", "resolved"

    class Outcome(models.TextChoices):
        NONE = "", "-"
        UPHELD = "upheld", "upheld"
        PARTLY_UPHELD = "partly_upheld", "partly upheld"
        REJECTED = "rejected", "rejected"
        NOT_JUSTIFIED_RULES = (
            "not_justified_rules",
            "not justified: misunderstanding of rules or terminology (GP §11(3))",
        )
        NOT_JUSTIFIED_LATE = "not_justified_late", "not justified: filed late (GP §11(3))"

    class Language(models.TextChoices):
        CS = "cs", "čeština"
        EN = "en", "English"

    OPEN_STATUSES = (Status.NEW, Status.ASSIGNED, Status.INVESTIGATING, Status.WAITING_PLAYER)

    reference = models.CharField(max_length=24, unique=True, help_text="RK-<year>-<number>, shown to the player")
    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="complaints")
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.COMPLAINT)
    channel = models.CharField(max_length=10, choices=Channel.choices, default=Channel.API)
    reason = models.CharField(max_length=30, choices=Reason.choices)
    language = models.CharField(max_length=2, choices=Language.choices, default=Language.CS)
    # GP §11(4): time of the bet / event concerned, the reason and the remedy wanted.
    event_at = models.DateTimeField(help_text="the bet or event concerned (win claim: the bet's settlement)")
    event_at_stated = models.DateTimeField(null=True, blank=True, help_text="the time the player stated, if any")
    event_at_from_records = models.BooleanField(
        default=False, help_text="event_at taken from the platform's records of the named rounds/transactions"
    )
    description = models.TextField()
    remedy_requested = models.TextField(blank=True, default="")
    remedy_amount_requested = models.BigIntegerField(null=True, blank=True, help_text="minor units")
    currency = models.CharField(max_length=3, default="CZK")
    # Filing and the terms (row fields; see complaints.deadlines).
    received_at = models.DateTimeField(db_index=True, help_text="when the operator received it (GP §11(1))")
    filed_at = models.DateTimeField(help_text="when it was recorded on the platform")
    entered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="staff who entered a complaint received off-line",
    )
    filing_deadline = models.DateField(help_text="last Prague day of the filing window (6 months / 1 year)")
    late = models.BooleanField(default=False, help_text="received after the filing window (GP §11(3))")
    respond_by_date = models.DateField(help_text="day 30 after receipt: answer due (GP §11(1))")
    respond_by = models.DateTimeField(db_index=True, help_text="overdue from this instant (00:00 Prague of day 31)")
    remind_first_at = models.DateTimeField()
    remind_second_at = models.DateTimeField()
    first_reminder_sent_at = models.DateTimeField(null=True, blank=True)
    second_reminder_sent_at = models.DateTimeField(null=True, blank=True)
    overdue_flagged_at = models.DateTimeField(null=True, blank=True)
    # Workflow.
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.NEW, db_index=True)
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="assigned_complaints"
    )
    assigned_at = models.DateTimeField(null=True, blank=True)
    # Resolution (GP §11(1), §11(3), §11(8)).
    outcome = models.CharField(max_length=30, choices=Outcome.choices, blank=True, default="")
    answer_cs = models.TextField(blank=True, default="")
    answer_en = models.TextField(blank=True, default="")
    remedy_text = models.TextField(blank=True, default="", help_text="a remedy other than money, described")
    remedy_amount = models.BigIntegerField(null=True, blank=True, help_text="credited to the player, minor units")
    credit_reference = models.CharField(max_length=64, null=True, blank=True, unique=True)
    credit_transaction_id = models.CharField(max_length=64, blank=True, default="")
    credited_at = models.DateTimeField(null=True, blank=True)
    answered_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["-received_at", "-id"]
        permissions = [
            ("supervise_complaint", "Supervises complaints: receives deadline reminders and overdue alerts"),
            ("resolve_complaint", "Investigates and resolves complaints"),
            ("credit_remedy", "Credits a money remedy to the player when resolving an upheld complaint"),
        ]
        constraints = [
            models.CheckConstraint(
                name="complaints_resolved_has_outcome_and_answer_time",
                condition=(Q(status="resolved") & ~Q(outcome="") & Q(answered_at__isnull=False))
                | (~Q(status="resolved") & Q(outcome="") & Q(answered_at__isnull=True)),
            ),
            models.CheckConstraint(
                name="complaints_remedy_only_when_upheld",
                condition=Q(remedy_amount__isnull=True)
                | (Q(remedy_amount__gt=0) & Q(outcome__in=["upheld", "partly_upheld"])),
            ),
            models.CheckConstraint(
                name="complaints_late_is_not_justified",
                condition=Q(late=False) | ~Q(status="resolved") | Q(outcome="not_justified_late"),
            ),
        ]
        indexes = [
            models.Index(fields=["player", "-received_at"], name="complaints_player_recent"),
            models.Index(fields=["status", "remind_first_at"], name="complaints_status_remind1"),
            models.Index(fields=["status", "remind_second_at"], name="complaints_status_remind2"),
        ]

    def __str__(self):
        return f"{self.reference} ({self.get_status_display()})"

    @property
    def is_open(self) -> bool:
        return self.status != self.Status.RESOLVED


class ComplaintItem(models.Model):
    """A game round or ledger transaction the complaint names; always the complaining player's own."""

    class Kind(models.TextChoices):
        ROUND = "round", "game round"
        TRANSACTION = "transaction", "ledger transaction"

    complaint = models.ForeignKey(Complaint, on_delete=models.CASCADE, related_name="items")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    object_id = models.CharField(max_length=64)
    occurred_at = models.DateTimeField(
        null=True, blank=True, help_text="from the records: round settlement (or start) / transaction time"
    )
    late = models.BooleanField(default=False, help_text="outside the filing window on its own")
    summary = models.JSONField(default=dict, blank=True, help_text="snapshot of the record at filing")

    class Meta:
        ordering = ["complaint", "kind", "id"]
        constraints = [
            models.UniqueConstraint(fields=["complaint", "kind", "object_id"], name="complaints_item_unique")
        ]

    def __str__(self):
        return f"{self.kind} {self.object_id}"


def attachment_path(instance: ComplaintAttachment, filename: str) -> str:
    return f"complaints/{instance.complaint.reference}/{filename}"


class ComplaintAttachment(models.Model):
    """A file the player (or staff) attached; its type is decided by its content (PDF/PNG/JPEG), max 5 MB."""

    complaint = models.ForeignKey(Complaint, on_delete=models.PROTECT, related_name="attachments")
    file = models.FileField(upload_to=attachment_path, max_length=255)
    original_name = models.CharField(max_length=255)
    content_type = models.CharField(max_length=50)
    size = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    uploaded_by_type = models.CharField(max_length=10)  # player | staff
    uploaded_at = models.DateTimeField()

    class Meta:
        ordering = ["complaint", "id"]


class ComplaintMessage(models.Model):
    """A message the player sees: staff asking for information, the player's additions."""

    class Author(models.TextChoices):
        PLAYER = "player", "player"
        STAFF = "staff", "staff"

    complaint = models.ForeignKey(Complaint, on_delete=models.PROTECT, related_name="messages")
    author_type = models.CharField(max_length=10, choices=Author.choices)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    text = models.TextField()
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["complaint", "created_at", "id"]


class ComplaintNote(models.Model):
    """An internal note of the staff; never shown to the player."""

    complaint = models.ForeignKey(Complaint, on_delete=models.PROTECT, related_name="notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    text = models.TextField()
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["complaint", "created_at", "id"]


class ComplaintNotice(models.Model):
    """An e-mail the complaint caused (outbox): written in the service's transaction, sent after commit.

    Confirmation, answer, reminders and the overdue alert exist at most once per complaint (unique), so a
    sweeper run twice, or two workers, cannot send them twice. Unsent rows (mail server down) are retried by
    the sweeper."""

    class Kind(models.TextChoices):
        CONFIRMATION = "confirmation", "confirmation of receipt (GP §11(4))"
        ANSWER = "answer", "answer / resolution (GP §11(1), §11(8))"
        INFO_REQUEST = "info_request", "request for information to the player"
        ASSIGNED = "assigned", "assignment to a staff member"
        REMINDER_FIRST = "reminder_first", "reminder, day 20"
        REMINDER_SECOND = "reminder_second", "reminder, day 27"
        OVERDUE = "overdue", "overdue alert (past day 30)"

    ONCE = (Kind.CONFIRMATION, Kind.ANSWER, Kind.REMINDER_FIRST, Kind.REMINDER_SECOND, Kind.OVERDUE)

    complaint = models.ForeignKey(Complaint, on_delete=models.PROTECT, related_name="notices")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    recipients = models.JSONField(default=list)
    subject = models.CharField(max_length=255)
    body = models.TextField()
    created_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        ordering = ["complaint", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["complaint", "kind"],
                name="complaints_notice_once",
                condition=Q(kind__in=["confirmation", "answer", "reminder_first", "reminder_second", "overdue"]),
            )
        ]
        indexes = [models.Index(fields=["sent_at", "created_at"], name="complaints_notice_unsent")]
