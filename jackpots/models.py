"""Jackpot pools, their append-only contribution log, folds and awards (docs/jackpots.md).

Amounts: the ledger and every award are whole haléře; a contribution is a share of a stake (e.g. 0.25 % of
1.50 CZK = 0.375 haléře), so contributions and pool values are kept exactly in **micro-haléře** (1e-6 haléř,
``*_micro`` fields). A pool's ledger account holds the whole haléře of its value; the fraction is carried.

Why no hot row: a spin INSERTs its contributions into :class:`Pending` (one small index, the composite key) and
adds them to one slot of the pool's running counter (:class:`PendingTotal`, ``SLOTS`` rows per pool, the slot is
the round id modulo ``SLOTS``: two spins share a slot only when their round ids are that far apart and their
transactions overlap). Nothing on the spin path updates the pool row. A fold (the job every few seconds, and every
award before it decides) locks the pool row, moves the pending rows into the permanent :class:`Contribution` log
(DELETE ... RETURNING into INSERT, one statement), adds them to the pool and to what it has taken of the counter
(``counted_*``), and posts the whole haléře to the ledger. The counter only grows, so a fold never touches a
spin's row: in any snapshot, the pool's slots sum to ``counted_*`` plus its pending rows (``jackpot_check`` proves
it), and the value shown and the must-hit check read the pool row plus its slots (a fixed ``SLOTS`` rows, however
many spins the fold has not yet taken), not the pending rows.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from core.money import Money

MICRO = 1_000_000  # micro-haléře per haléř
PPM = 1_000_000  # rates and shares are parts per million
PPB = 1_000_000_000  # draw odds are parts per billion
#: slots of a pool's running counter of contributions (:class:`PendingTotal`): a spin adds to slot round id % SLOTS
SLOTS = 16


class Jackpot(models.Model):
    """One jackpot level (a pool): Kobushi's Sushi or Kobushi progressive, or a central BRONZE/SILVER/GOLD level.

    The configuration is chosen in ``draft`` and frozen once the level runs (``jackpot_start``, audited); staff
    can suspend a running level (it stops taking contributions and paying) and resume it."""

    class Family(models.TextChoices):
        KOBUSHI = "kobushi", "Kobushi progressive (seed 000 §9)"
        CENTRAL = "central", "central BRONZE/SILVER/GOLD (KAJOT premium game)"

    class Status(models.TextChoices):
        DRAFT = "draft", "draft (configurable)"
        RUNNING = "running", "running (configuration frozen)"
        SUSPENDED = "suspended", "suspended (no contributions, no wins)"

    class Basis(models.TextChoices):
        STAKE = "stake", "a share of stakes (0.1-5 %)"
        NET_REVENUE = "net_revenue", "a share of net revenue, stakes minus wins (1-40 %)"

    class Trigger(models.TextChoices):
        GAME_EVENT = "game_event", "the game's own event (Kobushi pick bonus)"
        DRAW = "draw", "a draw after every stake, equal chance whatever its size"
        MUST_HIT = "must_hit", "a hidden must-hit value (WIN_AT) drawn when the level starts"

    class Split(models.TextChoices):
        NONE = "none", "no background pot"
        FIXED = "fixed", "a fixed share to the background pot"
        CURVE = "curve", "50 % to the future pot when it is empty, falling to 0 % at RESET_VALUE"

    class Reseed(models.TextChoices):
        SEED_PER_COIN = "seed_per_coin", "the house tops up the seed at the winner's coin value (Kobushi)"
        FROM_BACKGROUND = "from_background", "RESET_VALUE taken from the background pot, the rest stays there"
        WHOLE_FUTURE = "whole_future", "the whole future pot becomes the new pot"

    code = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=80)
    name_cs = models.CharField(max_length=80)
    family = models.CharField(max_length=20, choices=Family.choices)
    level = models.CharField(max_length=20, help_text="sushi, kobushi, bronze, silver, gold")
    pay_order = models.PositiveSmallIntegerField(help_text="simultaneous wins are paid in this order (low first)")
    games = models.JSONField(
        default=list, blank=True, help_text="game codes this level covers; empty = every game (network)"
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.DRAFT)
    # --- configuration (frozen while running) ---
    basis = models.CharField(max_length=20, choices=Basis.choices, default=Basis.STAKE)
    rate_ppm = models.PositiveIntegerField(help_text="this level's contribution, ppm of the basis")
    split = models.CharField(max_length=20, choices=Split.choices, default=Split.NONE)
    background_ppm = models.PositiveIntegerField(default=0, help_text="fixed split: ppm to the background pot")
    trigger = models.CharField(max_length=20, choices=Trigger.choices)
    draw_ppb = models.PositiveIntegerField(default=0, help_text="draw trigger: chance per stake, parts per billion")
    reseed = models.CharField(max_length=20, choices=Reseed.choices)
    reset_value = models.BigIntegerField(default=0, help_text="haléře: the value a new level starts at")
    win_from = models.BigIntegerField(default=0, help_text="haléře: WINRANGE_FROM")
    win_to = models.BigIntegerField(default=0, help_text="haléře: WINRANGE_TO (0 = none)")
    seed_per_coin = models.BigIntegerField(default=0, help_text="Kobushi: the seed is this many coin values")
    reference_coin = models.BigIntegerField(default=0, help_text="Kobushi: the pool is kept at this coin value")
    eligible = models.JSONField(default=dict, blank=True, help_text="Kobushi: bet parameters a win needs")
    # --- GP §13(6): a central level is a premium game of its own; it starts only with its approval in the game plan
    # recorded (``jackpot_start``); Kobushi's pools are part of the Kobushi game and its approval ---
    approval_plan_version = models.CharField(
        max_length=40,
        blank=True,
        default="",
        help_text="the game plan version that describes this level (e.g. 2026-01)",
    )
    approval_reference = models.CharField(
        max_length=120,
        blank=True,
        default="",
        help_text="the Ministry of Finance's decision approving it (číslo jednací)",
    )
    started_at = models.DateTimeField(null=True, blank=True)
    # --- state (changed only under this row's lock: fold, award, start) ---
    amount_micro = models.BigIntegerField(default=0, help_text="the active pot (folded), micro-haléře")
    future_micro = models.BigIntegerField(default=0, help_text="the background / future pot (folded)")
    ledger_balance = models.BigIntegerField(default=0, help_text="haléře posted to this pool's ledger account")
    contributed_micro = models.BigIntegerField(default=0, help_text="all folded contributions")
    seeded = models.BigIntegerField(default=0, help_text="haléře the house put in as seeds")
    awarded = models.BigIntegerField(default=0, help_text="haléře taken out by decided awards")
    returned = models.BigIntegerField(default=0, help_text="haléře of awards that came back (cap excess, voids)")
    generation = models.PositiveIntegerField(default=0, help_text="the level's run; +1 at every win")
    # must-hit: WIN_AT sealed with a key the database does not hold; the commitment is published at the start
    win_at_sealed = models.CharField(max_length=64, blank=True, default="")
    win_at_nonce = models.CharField(max_length=64, blank=True, default="")
    win_at_commitment = models.CharField(max_length=64, blank=True, default="")
    folded_at = models.DateTimeField(null=True, blank=True)
    # what the folds have taken of the running counter (:class:`PendingTotal`): the pending value is the slots' sum
    # minus these (changed only by a fold, under this row's lock)
    counted_active_micro = models.BigIntegerField(default=0, help_text="the counter's active part already folded")
    counted_future_micro = models.BigIntegerField(default=0, help_text="the counter's future part already folded")

    class Meta:
        permissions = [
            ("start_level", "Starts jackpot levels"),
            ("manage_level", "Suspends and resumes jackpot levels"),
        ]
        ordering = ["family", "pay_order", "code"]
        constraints = [
            models.CheckConstraint(condition=Q(rate_ppm__lte=400_000), name="jackpots_rate_at_most_40pct"),
            models.CheckConstraint(
                condition=Q(reset_value__gte=0) & Q(win_from__gte=0) & Q(win_to__gte=0),
                name="jackpots_values_not_negative",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"

    @property
    def ledger_code(self) -> str:
        return f"jackpot:{self.code}"


class Fold(models.Model):
    """One fold of pending contributions into a pool (by the job or before an award), with its ledger posting."""

    jackpot = models.ForeignKey(Jackpot, on_delete=models.PROTECT, related_name="folds")
    rows = models.PositiveIntegerField()
    active_micro = models.BigIntegerField()
    future_micro = models.BigIntegerField()
    clamped_micro = models.BigIntegerField(default=0, help_text="a negative pot set back to 0 (the house absorbs)")
    posted = models.BigIntegerField(help_text="haléře posted house -> pool (negative: pool -> house)")
    created_at = models.DateTimeField()


class Pending(models.Model):
    """A contribution not yet folded: written by the spin (one row per level), moved to :class:`Contribution` by
    the next fold. Its key (jackpot, round, reversal) is its only index: a spin pays for one index entry per row,
    and the pending rows of a pool are a range of that key."""

    pk = models.CompositePrimaryKey("jackpot_id", "round_id", "reversal")
    jackpot = models.ForeignKey(
        Jackpot, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )
    round_id = models.BigIntegerField()
    reversal = models.BooleanField(default=False)
    player_id = models.BigIntegerField()
    basis_amount = models.BigIntegerField()
    active_micro = models.BigIntegerField()
    future_micro = models.BigIntegerField(default=0)
    created_at = models.DateTimeField()


class PendingTotal(models.Model):
    """One slot of a pool's running counter: every contribution (and reversal) ever written to the pool by rounds
    whose id is ``slot`` modulo ``SLOTS``, in micro-haléře. Written by the spin in the statement that writes its
    :class:`Pending` rows, in the same transaction, so the two are committed together; never decreased (the fold
    records what it took in the pool's ``counted_*``, it does not write here). A pool's pending value is
    ``sum(slots) - counted``."""

    pk = models.CompositePrimaryKey("jackpot_id", "slot")
    jackpot = models.ForeignKey(
        Jackpot, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )
    slot = models.SmallIntegerField()
    active_micro = models.BigIntegerField(default=0)
    future_micro = models.BigIntegerField(default=0)


class Contribution(models.Model):
    """Append-only: one level's share of one round (or its reversal, negative, when the round is voided), written
    by the fold that took it into the pool (``fold``)."""

    jackpot = models.ForeignKey(Jackpot, on_delete=models.PROTECT, related_name="contributions")
    round_id = models.BigIntegerField(help_text="games.Round id")
    player_id = models.BigIntegerField()
    basis_amount = models.BigIntegerField(help_text="haléře: the stake, or stake minus win")
    active_micro = models.BigIntegerField()
    future_micro = models.BigIntegerField(default=0)
    reversal = models.BooleanField(default=False)
    fold = models.ForeignKey(Fold, on_delete=models.PROTECT, null=True, blank=True, related_name="contributions")
    created_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["round_id"], name="jackpots_contrib_round")]


class CarriedContributions(models.Model):
    """One pool's contributions of one archived month of the log (``core.partitions_archive``, docs/scaling.md
    "Retention"), carried forward by ``jackpots.archived_totals`` in the transaction that detached the month: what the
    pool's
    folded rows summed to. ``jackpot_check`` proves the pool against these plus the live rows. Written once per
    pool and month, never changed."""

    jackpot = models.ForeignKey(Jackpot, on_delete=models.PROTECT, related_name="+")
    month = models.DateField(help_text="the archived month (UTC), its first day")
    ids_from = models.BigIntegerField(help_text="the month's ids: [ids_from, ids_to)")
    ids_to = models.BigIntegerField()
    active_micro = models.BigIntegerField()
    future_micro = models.BigIntegerField()
    row_count = models.BigIntegerField(help_text="the contribution rows archived")
    archived_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "carried contributions"
        constraints = [models.UniqueConstraint(fields=["jackpot", "month"], name="jackpots_carried_pool_month")]


class Award(models.Model):
    """A jackpot won in a round: decided (the pool is reset at once), then paid at the round's settlement within
    the per-round cap (the excess back to the pool), or reversed if the round is voided."""

    class Status(models.TextChoices):
        DECIDED = "decided", "decided, paid when the round settles"
        PAID = "paid", "paid"
        REVERSED = "reversed", "reversed (round voided)"

    jackpot = models.ForeignKey(Jackpot, on_delete=models.PROTECT, related_name="awards")
    generation = models.PositiveIntegerField()
    round_id = models.BigIntegerField()
    player_id = models.BigIntegerField()
    game_code = models.CharField(max_length=60)
    event_key = models.CharField(max_length=60, help_text="what won it: engine event n, must_hit, draw")
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.DECIDED)
    amount = models.BigIntegerField(help_text="haléře decided (the pool's value for this bet)")
    paid = models.BigIntegerField(default=0, help_text="haléře credited (after the per-round cap)")
    returned = models.BigIntegerField(default=0, help_text="haléře back to the pool (cap excess or void)")
    coin_value = models.BigIntegerField(null=True, blank=True)
    pool_value = models.BigIntegerField(help_text="haléře: the pool at the reference (before the win)")
    win_at = models.BigIntegerField(null=True, blank=True, help_text="must-hit: revealed once won")
    win_at_nonce = models.CharField(max_length=64, blank=True, default="", help_text="must-hit: the salt, revealed")
    win_at_commitment = models.CharField(max_length=64, blank=True, default="")
    draw = models.JSONField(default=dict, blank=True, help_text="draw trigger: the number drawn and the odds")
    decided_at = models.DateTimeField()
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-decided_at", "-id"]
        constraints = [
            # a level's run is won exactly once, and an event of a round wins at most once
            models.UniqueConstraint(fields=["jackpot", "generation"], name="jackpots_award_once_per_generation"),
            models.UniqueConstraint(fields=["round_id", "jackpot", "event_key"], name="jackpots_award_once_per_event"),
            models.CheckConstraint(
                condition=Q(amount__gte=0) & Q(paid__gte=0) & Q(returned__gte=0),
                name="jackpots_award_amounts_not_negative",
            ),
        ]
        indexes = [
            models.Index(fields=["round_id"], name="jackpots_award_round"),
            models.Index(fields=["player_id", "-decided_at"], name="jackpots_award_player"),
        ]

    def __str__(self) -> str:
        return f"{self.jackpot.code} run {self.generation}: {Money(self.amount).format('cs')}"
