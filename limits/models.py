"""The gatekeeper's tables.

* Self-limits (GP §6) per player and kind of gambling, with a pending loosening and the full
  history of every change.
* Running counters (GP §6(7) net loss, GP §6(6)a-b stakes, GP §8(5) hourly loss, GP §7(4)-(5)
  play time) so that a stake check reads a fixed, small number of rows whatever the player's
  history: one row per (player, kind, day), per (player, kind, month), per (player, kind,
  minute) for the last hour, and one state row per (player, kind).
* A ledger of settled bets (:class:`SettledBet`) that ``manage.py limits_reconcile`` sums to
  prove the counters right.
* Open bets (the "open round" marker, GP §7(6)), the panic button (of the person) and its outbox of reports to
  the register of excluded persons, self-listing requests, the exclusion-check watch list and the log of refused
  stakes.
* The responsible-gaming texts and help contacts published in the application (GP §13(4)).

Amounts are minor units (haléře) of CZK.
"""

from __future__ import annotations

from datetime import datetime

from django.db import models


class LimitType(models.TextChoices):
    """The seven self-limits of GP §6(6), in its order."""

    DAILY_STAKE = "daily_stake", "(a) stakes per day"
    MONTHLY_STAKE = "monthly_stake", "(b) stakes per calendar month"
    DAILY_LOSS = "daily_loss", "(c) net loss per day"
    MONTHLY_LOSS = "monthly_loss", "(d) net loss per calendar month"
    MONTHLY_LOGINS = "monthly_logins", "(e) logins per calendar month"
    DAILY_TIME = "daily_time", "(f) logged-in time per day (minutes)"
    PAUSE_AFTER_LOGOUT = "pause_after_logout", "(g) pause after logout (minutes)"


def value_in_force(
    value: int | None, has_pending: bool, pending_value: int | None, pending_effective_at: datetime | None, at: datetime
) -> int | None:
    """A self-limit's value in force at ``at``: its pending value once that is effective, else its value (the one
    rule of :meth:`SelfLimit.effective_value` and of the stake gate, which reads the row's figures as a tuple)."""
    if has_pending and pending_effective_at is not None and at >= pending_effective_at:
        return pending_value
    return value


class SelfLimit(models.Model):
    """One self-limit of one player for one kind of gambling (GP §6).

    ``value`` is the limit in force (None = no limit). ``decided_at`` is when the player first set
    or declined it (GP §4(4)e; None = not decided yet). A loosening waits in ``pending_*`` until
    ``pending_effective_at`` (GP §6(4)); readers use :meth:`effective_value`, so a due loosening is
    in force at its instant even before the sweeper writes it into ``value``.
    """

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="self_limits")
    kind = models.CharField(max_length=32)
    limit_type = models.CharField(max_length=32, choices=LimitType.choices)
    value = models.BigIntegerField(null=True, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    has_pending = models.BooleanField(default=False)
    pending_value = models.BigIntegerField(null=True, blank=True)
    pending_requested_at = models.DateTimeField(null=True, blank=True)
    pending_effective_at = models.DateTimeField(null=True, blank=True, db_index=True)
    updated_at = models.DateTimeField()

    class Meta:
        permissions = [
            ("apply_loosening", "Applies due loosenings of self-limits (GP §6(4))"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["player", "kind", "limit_type"], name="limits_selflimit_unique"),
            models.CheckConstraint(
                condition=models.Q(has_pending=False) | models.Q(pending_effective_at__isnull=False),
                name="limits_selflimit_pending_has_date",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_id}/{self.kind}/{self.limit_type}={self.value}"

    def effective_value(self, at: datetime) -> int | None:
        return value_in_force(self.value, self.has_pending, self.pending_value, self.pending_effective_at, at)

    def pending_at(self, at: datetime) -> bool:
        return self.has_pending and self.pending_effective_at is not None and at < self.pending_effective_at


class SelfLimitChange(models.Model):
    """Append-only history of every self-limit change: who, when, old, new, effective from."""

    class Action(models.TextChoices):
        SET = "set", "set (first decision)"
        DECLINED = "declined", "declined (first decision)"
        TIGHTENED = "tightened", "tightened (in force at once, GP §6(5))"
        LOOSENING_REQUESTED = "loosening_requested", "loosening requested (GP §6(4))"
        LOOSENING_APPLIED = "loosening_applied", "loosening applied"
        LOOSENING_CANCELLED = "loosening_cancelled", "pending loosening cancelled"

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="self_limit_changes")
    kind = models.CharField(max_length=32)
    limit_type = models.CharField(max_length=32, choices=LimitType.choices)
    action = models.CharField(max_length=32, choices=Action.choices)
    old_value = models.BigIntegerField(null=True, blank=True)
    new_value = models.BigIntegerField(null=True, blank=True)
    requested_at = models.DateTimeField()
    effective_from = models.DateTimeField()
    actor_type = models.CharField(max_length=10)
    actor_id = models.CharField(max_length=64, blank=True, default="")
    actor_label = models.CharField(max_length=150, blank=True, default="")
    note = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        ordering = ["-requested_at", "-id"]
        indexes = [models.Index(fields=["player", "kind", "requested_at"])]


class ClosingSnapshot(models.Model):
    """Self-limits in force when an account was closed, kept for ZHH §14a (re-registration within 7 days
    cannot set milder limits). ``limits`` = {kind: {limit_type: value|None}}."""

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="+")
    person_key = models.CharField(max_length=64, db_index=True)
    closed_at = models.DateTimeField()
    limits = models.JSONField(default=dict)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player"], name="limits_closing_snapshot_one_per_player")]


class PlayerKindState(models.Model):
    """The per (player, kind) row every stake decision locks (SELECT ... FOR NO KEY UPDATE) and the play-time state.

    Play (GP §7(4)-(5)), as this app counts it: each round is play from its stake to its settlement;
    a gap between the end of one round and the next stake is play too while it is shorter than
    15 minutes; a gap of 15 minutes or more is a pause and ends the play period. ``play_started_at`` is
    the stake that opened the current period; ``last_round_ended_at`` the end of the last round.
    """

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=32)
    play_started_at = models.DateTimeField(null=True, blank=True)
    last_round_ended_at = models.DateTimeField(null=True, blank=True)
    last_bucket_minute = models.DateTimeField(null=True, blank=True)  # newest hourly-loss bucket written
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "kind"], name="limits_state_unique")]


class OpenBet(models.Model):
    """A placed stake whose bet is not decided yet: the "open round" marker of GP §7(6).

    stake_gate_and_place creates it, stake_settled (or stake_voided) deletes it. For technical games a second
    stake is refused while one exists; other kinds may keep several, told apart by ``round_ref``.
    """

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=32)
    round_ref = models.CharField(max_length=100, blank=True, default="")
    game_code = models.CharField(max_length=64, blank=True, default="")
    stake = models.BigIntegerField()
    placed_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "kind", "round_ref"], name="limits_openbet_unique")]


class PeriodTotal(models.Model):
    """Running totals of one player and kind for one Prague day or calendar month.

    ``stakes_placed`` counts stakes by the instant they were placed (GP §6(6)a-b); ``stakes_decided`` and
    ``wins_decided`` count bets by the instant they were decided (GP §6(7) net loss = stakes - wins of the
    bets decided in the period).
    """

    class Period(models.TextChoices):
        DAY = "day", "day"
        MONTH = "month", "calendar month"

    #: the running figures, in the order every statement that adds to them takes (limits/sql.py)
    FIGURES = ("stakes_placed", "bets_placed", "stakes_decided", "wins_decided", "bets_decided")

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=32)
    period = models.CharField(max_length=5, choices=Period.choices)
    start = models.DateField()  # Prague date of the day, or the first day of the month
    stakes_placed = models.BigIntegerField(default=0)
    bets_placed = models.IntegerField(default=0)
    stakes_decided = models.BigIntegerField(default=0)
    wins_decided = models.BigIntegerField(default=0)
    bets_decided = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "kind", "period", "start"], name="limits_periodtotal_unique")
        ]

    @property
    def net_loss(self) -> int:
        return self.stakes_decided - self.wins_decided


class MinuteBucket(models.Model):
    """Stakes placed and wins credited in one UTC minute (GP §8(5) rolling hourly loss). Pruned after 2 hours.

    ``peak`` is the largest net loss (stakes - wins) of any tail of the minute's events in the order they were
    recorded (>= 0, the empty tail counts): the loss of a window that starts inside this minute is at most
    ``peak`` plus the net loss of the later minutes. Kept exact for events recorded in time order and raised
    conservatively otherwise (see limits.services.counters.bucket_row).
    """

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=32)
    minute = models.DateTimeField()
    stakes = models.BigIntegerField(default=0)
    wins = models.BigIntegerField(default=0)
    peak = models.BigIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["player", "kind", "minute"], name="limits_minutebucket_unique")]


class SettledBet(models.Model):
    """The ledger of decided (and voided) bets as told by the games; the reconciliation sums it.

    ``voided`` bets count nowhere: a stake returned before the bet was decided (``stake_voided``; ``settled_at`` is
    then the instant of the return) or a decided bet declared void afterwards (``settled_bet_voided``, GP §3(6):
    ``settled_at`` stays the decision, ``voided_at`` is when it was taken out of the counters)."""

    # no index of its own: the indexes (player, kind, settled_at / placed_at / round_ref) lead with it
    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="+", db_index=False)
    kind = models.CharField(max_length=32)
    game_code = models.CharField(max_length=64, blank=True, default="")
    round_ref = models.CharField(max_length=100, blank=True, default="")
    stake = models.BigIntegerField()
    win = models.BigIntegerField(default=0)
    placed_at = models.DateTimeField()  # the instant the stake was counted (stake_gate_and_place's ``now``)
    started_at = models.DateTimeField()
    settled_at = models.DateTimeField()
    voided = models.BooleanField(default=False)  # stake returned: neither a stake nor a decided bet
    voided_at = models.DateTimeField(null=True, blank=True)  # when it was taken out of the counters

    class Meta:
        indexes = [
            models.Index(fields=["player", "kind", "settled_at"]),
            models.Index(fields=["player", "kind", "placed_at"]),
            # a settled bet found by its round (a void, GP §3(6)): the unique constraint lives in a claim table on the
            # partitioned table (core.partitioning), so the table keeps a plain index of its own
            models.Index(fields=["player", "kind", "round_ref"], name="limits_settled_round_ref"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["player", "kind", "round_ref"],
                condition=~models.Q(round_ref=""),
                name="limits_settledbet_unique_ref",
            ),
        ]


class CarriedBetTotals(models.Model):
    """What one archived month of settled bets (``core.partitions_archive``, docs/scaling.md "Retention") added to
    one player's day or month total of one kind, carried forward by ``limits.archived_totals`` in the transaction that
    detached the month: the same figures as :class:`PeriodTotal`, from the month's bets that are not voided, keyed as
    ``limits_reconcile`` keys them (the Prague day or month of ``placed_at`` for the placement, of ``settled_at``
    for the decision). ``limits_reconcile`` adds them to the live bets. Written once per month and key, never
    changed."""

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=32)
    period = models.CharField(max_length=5, choices=PeriodTotal.Period.choices)
    start = models.DateField()  # Prague date of the day, or the first day of the month
    month = models.DateField(help_text="the archived month of the settled bets (UTC), its first day")
    stakes_placed = models.BigIntegerField()
    bets_placed = models.BigIntegerField()
    stakes_decided = models.BigIntegerField()
    wins_decided = models.BigIntegerField()
    bets_decided = models.BigIntegerField()
    archived_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "carried bet totals"
        constraints = [
            models.UniqueConstraint(
                fields=["month", "player", "kind", "period", "start"], name="limits_carried_month_key"
            )
        ]


class StakeRefusal(models.Model):
    """Every refused stake, for staff (why was this stake refused?).

    Written on its own database connection so it survives the rollback of the caller's transaction;
    hence no database foreign key (the player row may be uncommitted on the caller's connection).
    """

    player = models.ForeignKey("accounts.Player", on_delete=models.DO_NOTHING, db_constraint=False, related_name="+")
    kind = models.CharField(max_length=32)
    game_code = models.CharField(max_length=64, blank=True, default="")
    stake = models.BigIntegerField()
    code = models.CharField(max_length=64, db_index=True)
    details = models.JSONField(default=dict)
    refused_at = models.DateTimeField(db_index=True)
    request_id = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["-refused_at", "-id"]
        indexes = [models.Index(fields=["player", "refused_at"])]


class PanicExclusion(models.Model):
    """The panic button: exclusion from all gambling for 48 hours (2024 amendment). Pressing it while one
    runs starts a new 48 hours from that moment.

    It holds for the person, not only for this account: ``person_key`` (``accounts.selectors.person_key``, the
    key ZHH §14a uses for the limits at re-registration) refuses every account of the same person, a new one
    included, until ``ends_at``. Each press is reported to the register of excluded persons (:class:`PanicReport`).
    """

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="+")
    person_key = models.CharField(max_length=64, blank=True, default="")
    started_at = models.DateTimeField()
    ends_at = models.DateTimeField()

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [
            models.Index(fields=["player", "ends_at"]),
            models.Index(fields=["person_key", "ends_at"], name="limits_panic_person_ends_idx"),
        ]

    def __str__(self) -> str:
        return f"panic #{self.pk} of player {self.player_id} until {self.ends_at:%Y-%m-%d %H:%M:%S} UTC"


class PanicReport(models.Model):
    """The outbox of the panic button: one press to be reported to the register of excluded persons ("from all
    gambling", 2024 amendment), sent after the press commits and retried with a growing delay until the register
    acknowledges it.

    What is sent: the player's identity (read from accounts' personal data when sending), ``reference`` (the
    idempotency key: a repeat is harmless), and the panic's ``started_at`` / ``ends_at``. ``attempts`` counts the
    calls, ``next_attempt_at`` is when the next one is due (a claim pushes it on while a call runs),
    ``acknowledged_at`` / ``register_reference`` record the register's acknowledgement, ``last_error`` the last
    failure. Staff read it in the admin."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending (to be sent or retried)"
        ACKNOWLEDGED = "acknowledged", "acknowledged by the register"

    panic = models.OneToOneField(PanicExclusion, on_delete=models.PROTECT, related_name="report")
    reference = models.CharField(max_length=64, unique=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField()
    attempts = models.PositiveIntegerField(default=0)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    register_reference = models.CharField(max_length=100, blank=True, default="")
    last_error = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        permissions = [
            ("send_register_report", "Sends panic-button and self-listing reports to the register now"),
        ]
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(
                fields=["next_attempt_at"], condition=models.Q(status="pending"), name="limits_panicreport_due_idx"
            )
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(status="pending", acknowledged_at__isnull=True)
                | models.Q(status="acknowledged", acknowledged_at__isnull=False),
                name="limits_panicreport_ack_has_time",
            ),
        ]

    def __str__(self) -> str:
        return f"panic report {self.reference} ({self.status})"


class SelfListingRequest(models.Model):
    """A player's request to be listed in the register of excluded persons (removal at the earliest after
    1 year), passed on to the register through the accounts adapter by a retrying job. The player is
    refused at once, from the request, without waiting for the register."""

    class Status(models.TextChoices):
        PENDING = "pending", "pending (to be sent)"
        SENT = "sent", "sent to the register"

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="+")
    requested_at = models.DateTimeField()
    listed_until = models.DateTimeField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True, db_index=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["-requested_at", "-id"]
        indexes = [models.Index(fields=["player", "listed_until"])]


class ExclusionWatch(models.Model):
    """When the scheduled jobs last checked this player in the register of excluded persons, and the result.

    ``claimed_until`` lets several workers share the sweep (a guarded update claims a player)."""

    player = models.OneToOneField("accounts.Player", on_delete=models.PROTECT, related_name="+")
    last_checked_at = models.DateTimeField(null=True, blank=True, db_index=True)
    last_listed = models.BooleanField(null=True, blank=True)
    last_context = models.CharField(max_length=30, blank=True, default="")
    last_error = models.CharField(max_length=300, blank=True, default="")
    failures = models.PositiveIntegerField(default=0)
    claimed_until = models.DateTimeField(null=True, blank=True)


class ExclusionSweep(models.Model):
    """One run of a scheduled exclusion check (for staff: the job really runs and how it went)."""

    context = models.CharField(max_length=30)  # "session" (every <= 15 min) or "daily"
    started_at = models.DateTimeField(db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    checked = models.PositiveIntegerField(default=0)
    listed = models.PositiveIntegerField(default=0)
    failed = models.PositiveIntegerField(default=0)
    note = models.CharField(max_length=300, blank=True, default="")

    class Meta:
        ordering = ["-started_at", "-id"]


class ResponsibleGamingText(models.Model):
    """A responsible-gaming text published in the application (GP §13(4)), in Czech and English.

    Staff edit them in the admin (each save is audited); an unpublished text is kept but not shown. Migration
    0003 puts in the platform's own principles and tools; the operator words them as it wishes."""

    key = models.SlugField(max_length=50, unique=True)
    order = models.PositiveIntegerField(default=0)
    title_cs = models.CharField(max_length=200)
    title_en = models.CharField(max_length=200)
    body_cs = models.TextField()
    body_en = models.TextField()
    published = models.BooleanField(default=True)
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["order", "id"]

    def __str__(self) -> str:
        return self.key


class HelpContact(models.Model):
    """A help line or service for people with a gambling problem, shown with the responsible-gaming texts
    (GP §13(4)). None is built in: the platform invents no phone numbers, staff enter the contacts the operator
    publishes (the source documents give none)."""

    order = models.PositiveIntegerField(default=0)
    name_cs = models.CharField(max_length=200)
    name_en = models.CharField(max_length=200)
    description_cs = models.TextField(blank=True, default="")
    description_en = models.TextField(blank=True, default="")
    phone = models.CharField(max_length=40, blank=True, default="")
    email = models.EmailField(blank=True, default="")
    url = models.URLField(blank=True, default="")
    hours_cs = models.CharField(max_length=200, blank=True, default="")
    hours_en = models.CharField(max_length=200, blank=True, default="")
    published = models.BooleanField(default=True)
    updated_at = models.DateTimeField()

    class Meta:
        ordering = ["order", "id"]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(phone="", email="", url=""),
                name="limits_helpcontact_reachable",
                violation_error_message="Give a phone number, an e-mail address or a web address.",
            ),
        ]

    def __str__(self) -> str:
        return self.name_en
