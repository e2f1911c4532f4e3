from django.db import models


class AuditEvent(models.Model):
    """Append-only record of a regulated write (the database refuses UPDATE and DELETE).

    Services write it in their own transaction (core.audit.audit_record), so an action
    and its audit trail commit or roll back together. Kept at least 3 years (decree 466/2023).
    """

    class ActorType(models.TextChoices):
        PLAYER = "player", "player"
        STAFF = "staff", "staff"
        SYSTEM = "system", "system"

    occurred_at = models.DateTimeField(db_index=True)
    actor_type = models.CharField(max_length=10, choices=ActorType.choices)
    actor_id = models.CharField(max_length=64, blank=True, default="")
    actor_label = models.CharField(max_length=150, blank=True, default="")
    actor_role = models.CharField(max_length=100, blank=True, default="")  # staff: the role used (core.roles)
    action = models.CharField(max_length=100, db_index=True)
    object_type = models.CharField(max_length=100, blank=True, default="")
    object_id = models.CharField(max_length=64, blank=True, default="", db_index=True)
    old_values = models.JSONField(null=True, blank=True)
    new_values = models.JSONField(null=True, blank=True)
    details = models.JSONField(default=dict, blank=True)
    request_id = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        permissions = [
            ("export_audit", "Exports the audit trail"),
        ]
        ordering = ["-occurred_at", "-id"]
        indexes = [models.Index(fields=["object_type", "object_id", "occurred_at"])]

    def __str__(self) -> str:
        return f"{self.occurred_at:%Y-%m-%d %H:%M:%S} {self.actor_type}:{self.actor_label} {self.action}"


class SecurityEventWindow(models.Model):
    """How many times one security event (an action, e.g. ``security.callback_refused``) came from one source (a
    client address; IPv6: its /64) in one time window.

    A refusal anyone can repeat at request speed (a forged provider callback, a throttled login) writes the audit
    event only for the first of its window (``core.audit.security_event(..., summarise=True)``; the event's details
    name this row); the others only count here, so the append-only audit trail grows by at most one event per
    action, source and window. ``count`` includes the first. Written on the side connection (``refusal_log``)."""

    action = models.CharField(max_length=100)
    source = models.CharField(max_length=64, blank=True, default="")
    window_start = models.DateTimeField()
    window_seconds = models.PositiveIntegerField()
    count = models.PositiveIntegerField(default=1)
    first_at = models.DateTimeField()
    last_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["action", "source", "window_start"], name="core_security_event_window_once")
        ]
        indexes = [models.Index(fields=["window_start"])]

    def __str__(self) -> str:
        return f"{self.action} from {self.source or '?'}: {self.count} since {self.window_start:%Y-%m-%d %H:%M}"


class IdempotencyRecord(models.Model):
    """The stored result of an unsafe API call made with an Idempotency-Key.

    Written in the same transaction as the call's effects: a replay returns the stored
    response and moves nothing; the same key with a different body is a 409.
    """

    scope = models.CharField(max_length=64)  # the caller (user id) so keys never collide across players
    key = models.CharField(max_length=128)
    endpoint = models.CharField(max_length=200)
    request_hash = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField()
    response_body = models.JSONField()
    created_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scope", "key"], name="idempotency_unique_scope_key")]


class TaskHeartbeat(models.Model):
    """Written by core.tasks.heartbeat: proof that a worker really ran a task."""

    marker = models.CharField(max_length=64, unique=True)
    sent_at = models.DateTimeField()
    ran_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True, default="")


class SandboxEmail(models.Model):
    """An e-mail as the development mail backend (``core.mail.SandboxEmailBackend``) 'sent' it: kept so that the
    development mailbox (``/dev/mailbox``) can show it. Never used in production (config/settings/ refuses it)."""

    to = models.JSONField(default=list)
    subject = models.CharField(max_length=998)
    body = models.TextField()
    sent_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-sent_at", "-id"]
        verbose_name = "sandbox e-mail"
        verbose_name_plural = "sandbox e-mails"

    def __str__(self) -> str:
        return f"{', '.join(self.to)}: {self.subject}"
