"""Games on the platform: the catalogue (one row per engine game version), rounds, actions, last bet settings.

The engine (``games/engine``) is pure Python and knows nothing of these tables. A :class:`Round` pins the game
code and version it ran on and stores everything needed to show it again and to replay it (GP §11(5)): the bet,
every RNG draw, every player action, the final state (steps, symbols, wins), the win paid, the balance before
and after. Amounts are integers in minor units (haléře) of ``currency``.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.indexes import BrinIndex
from django.db import models
from django.db.models import Q


class Game(models.Model):
    """A catalogue row per (code, version), synced from the engine registry (``games_sync`` / post_migrate).

    ``current`` marks the version new rounds are started on (the registry's newest); older versions stay for the
    rounds pinned to them. ``enabled`` is the operator's switch (admin); a disabled game starts no new round, but
    rounds already in progress can be finished (GP §7(8)).

    The approval (GP §1 and §2: the complete list of games is Part two of the plan the Ministry of Finance
    approved; GP §13(6): a change needs its approval) is entered by staff through
    ``games.services.game_approve`` / ``game_approval_withdraw`` (audited; the admin's actions call them). A
    version is offered for real money only while ``approval_state`` is ``approved``; a version the sync adds
    starts ``unapproved`` (the column's default; the sync never writes these fields).
    """

    class Approval(models.TextChoices):
        UNAPPROVED = "unapproved", "not approved (not offered for real money)"
        APPROVED = "approved", "approved in the game plan"
        WITHDRAWN = "withdrawn", "approval withdrawn (not offered for real money)"

    code = models.CharField(max_length=60)
    version = models.PositiveIntegerField()
    name = models.CharField(max_length=120)
    name_cs = models.CharField(max_length=120, blank=True, default="")
    kind = models.CharField(max_length=20)
    enabled = models.BooleanField(default=True)
    current = models.BooleanField(default=True, help_text="the version new rounds use (newest registered)")
    registered = models.BooleanField(default=True, help_text="present in the engine registry at the last sync")
    # GP §7(2): declared figures (amounts in minor units).
    rtp = models.DecimalField(max_digits=6, decimal_places=2)
    rtp_with_jackpots = models.DecimalField(max_digits=6, decimal_places=2, null=True, blank=True)
    min_bet = models.BigIntegerField()
    max_bet = models.BigIntegerField()
    max_win = models.BigIntegerField()
    avg_hourly_loss = models.BigIntegerField()
    unfinished_deadline_days = models.PositiveIntegerField()  # GP §7(8)b
    description = models.JSONField(default=dict, help_text="the engine's describe(): rules, paytable, bet options")
    synced_at = models.DateTimeField()
    # GP §13(6): the Ministry's approval of this version, as staff entered it.
    approval_state = models.CharField(max_length=20, choices=Approval.choices, default=Approval.UNAPPROVED)
    approval_plan_version = models.CharField(
        max_length=40, blank=True, default="", help_text="the version of the approved game plan listing this game"
    )
    approval_reference = models.CharField(
        max_length=120, blank=True, default="", help_text="the Ministry of Finance decision (číslo jednací)"
    )
    approved_at = models.DateTimeField(null=True, blank=True, help_text="when staff recorded the approval")
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="the staff member who recorded it",
    )
    # A game of an outside studio played through the seamless wallet (providers app). Blank for the
    # platform's own engine games; the catalogue sync leaves these rows alone.
    provider = models.CharField(
        max_length=30,
        blank=True,
        default="",
        db_default="",
        help_text="the provider's code for a remote game (blank: an engine game)",
    )
    provider_game_id = models.CharField(
        max_length=100,
        blank=True,
        default="",
        db_default="",
        help_text="the provider's own id of the game (its launch URL names it)",
    )

    class Meta:
        permissions = [
            ("approve_version", "Records or withdraws the approval of game versions (GP §13(6))"),
            ("toggle_game", "Enables and disables games"),
        ]
        ordering = ["code", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["code", "version"], name="games_game_unique_code_version"),
            models.UniqueConstraint(fields=["code"], condition=Q(current=True), name="games_game_one_current_version"),
            # an approval names its plan version and the Ministry's decision (GP §13(6))
            models.CheckConstraint(
                condition=~Q(approval_state="approved") | (~Q(approval_plan_version="") & ~Q(approval_reference="")),
                name="games_game_approval_names_plan_and_decision",
            ),
        ]

    def __str__(self):
        return f"{self.name} ({self.code} v{self.version})"

    @property
    def approved(self) -> bool:
        return self.approval_state == self.Approval.APPROVED

    @property
    def remote(self) -> bool:
        """A game of an outside studio (providers app): no engine here, the provider decides its outcomes."""
        return bool(self.provider)


class Round(models.Model):
    """One game round (hra technické hry), from the start button to settlement (GP §7(3))."""

    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress", "in progress (awaiting the player)"
        FINISHED = "finished", "finished and settled"
        VOIDED = "voided", "voided, stake returned (deadline GP §7(8)b, malfunction, or a void bet GP §3(6))"
        REFUNDED = "refunded", "stake refunded by staff"

    class VoidReason(models.TextChoices):
        NONE = "", "-"
        DEADLINE = "deadline", "unfinished past the game's deadline (GP §7(8)b)"
        MALFUNCTION = "malfunction", "game malfunction"
        STAFF = "staff", "staff decision"
        PROXY = "proxy", "a settled bet placed on order or by proxy, declared void (GP §3(6))"
        PROVIDER = "provider", "the remote game's provider cancelled the bet (rollback)"

    # no index of its own: the indexes (player, idempotency_key), (player, play_money, started_at) and
    # (player, game_code, started_at) lead with it (one index fewer to write per round)
    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="game_rounds", db_index=False)
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="rounds")
    game_code = models.CharField(max_length=60)  # pinned (denormalised from game)
    game_version = models.PositiveIntegerField()  # pinned
    play_money = models.BooleanField(default=False)
    forced_outcome = models.BooleanField(default=False, help_text="QA forced draws were used (play money only)")
    forced_draws_left = models.JSONField(default=list, blank=True)
    idempotency_key = models.CharField(max_length=128)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.IN_PROGRESS)
    bet_request = models.JSONField(default=dict, help_text="the bet parameters as the player sent them")
    bet_params = models.JSONField(default=dict, help_text="the engine's normalised bet parameters")
    stake = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="CZK")
    draws = models.JSONField(default=list, help_text="every RNG draw [n, value] in order")
    actions = models.JSONField(default=list, help_text="every player action in order (engine form)")
    state = models.JSONField(default=dict, help_text="the engine state: current, final once ended")
    win_engine = models.BigIntegerField(default=0, help_text="the win the engine computed")
    win = models.BigIntegerField(default=0, help_text="the win credited (after the GP §8(3) cap), jackpots included")
    jackpot_win = models.BigIntegerField(default=0, help_text="the part of the win paid by jackpots")
    win_capped = models.BooleanField(default=False)
    balance_before = models.BigIntegerField(null=True, blank=True)
    balance_after = models.BigIntegerField(null=True, blank=True)
    jackpot_events = models.JSONField(default=list, blank=True)
    void_reason = models.CharField(max_length=20, choices=VoidReason.choices, blank=True, default="")
    void_detail = models.TextField(blank=True, default="")
    started_at = models.DateTimeField()
    last_activity_at = models.DateTimeField()
    settled_at = models.DateTimeField(null=True, blank=True)
    voided_at = models.DateTimeField(
        null=True, blank=True, help_text="when a settled round was declared void (GP §3(6)); settled_at stays"
    )
    deadline = models.DateTimeField(help_text="started_at + the game's unfinished-round deadline (GP §7(8)b)")
    # The provider's round id of a round of a remote game (blank for an engine round). Its uniqueness per
    # player comes from idempotency_key = "provider:<provider>:<round id>" (the claim games_round_unique_player_key).
    # (db_default: rows written by bulk SQL that predates the column, e.g. benchmarks and the history of tests)
    provider_round_id = models.CharField(max_length=100, blank=True, default="", db_default="")

    class Meta:
        permissions = [
            ("void_round", "Declares settled bets void (GP §3(6))"),
            ("refund_round", "Ends rounds in progress and refunds their stakes"),
        ]
        ordering = ["-started_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["player", "idempotency_key"], name="games_round_unique_player_key"),
            # GP §7(6): from placing a bet until it is settled no other bet (one open round per player and mode).
            models.UniqueConstraint(
                fields=["player", "play_money"],
                condition=Q(status="in_progress"),
                name="games_round_one_open_per_player",
            ),
            models.CheckConstraint(
                condition=Q(stake__gte=0) & Q(win__gte=0) & Q(win_engine__gte=0),
                name="games_round_amounts_not_negative",
            ),
        ]
        indexes = [
            models.Index(fields=["player", "play_money", "-started_at"], name="games_round_player_recent"),
            # the player's last bet of a game (returned at launch) without a write on every round
            models.Index(fields=["player", "game_code", "-started_at"], name="games_round_player_game"),
            # the deadline sweeper's open rounds (games.services.deadlines, games.selectors): only open rounds are
            # looked up by it, so a round settled as it starts (every engine round but the interactive ones) writes
            # no entry in it
            models.Index(
                fields=["status", "deadline"], name="games_round_status_deadline", condition=Q(status="in_progress")
            ),
            # the round start's replay lookup by the player's Idempotency-Key (games.sql START_CONTEXT): on the
            # partitioned table the unique constraint lives in a claim table (core.partitioning), so the table itself
            # needs this plain index, or every round start scans the player's rounds of each month
            models.Index(fields=["player", "idempotency_key"], name="games_round_player_key"),
            # the report job reads one operating day of rounds (reports.services): BRIN indexes on the append-ordered
            # times cost the round path next to nothing (a summary per block range, not an entry per row)
            BrinIndex(fields=["started_at"], name="games_round_started_brin", autosummarize=True),
            BrinIndex(fields=["settled_at"], name="games_round_settled_brin", autosummarize=True),
            models.Index(fields=["voided_at"], condition=Q(voided_at__isnull=False), name="games_round_voided_at"),
        ]

    # Not a column: games.services sets it on the round it returns (True when an idempotent repeat of the same
    # request returned the stored round and moved nothing; the API answers 200 instead of 201).
    replayed: bool = False

    def __str__(self) -> str:
        return f"round {self.pk} {self.game_code}@{self.game_version} {self.status}"

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.IN_PROGRESS


class RoundAction(models.Model):
    """A player action applied to a round (pick, collect, gamble ...), with its idempotency key."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="action_log")
    seq = models.PositiveIntegerField()
    action = models.JSONField()
    idempotency_key = models.CharField(max_length=128)
    draws_before = models.PositiveIntegerField(help_text="number of draws of the round before this action")
    draws_after = models.PositiveIntegerField()
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["round", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["round", "seq"], name="games_action_unique_seq"),
            models.UniqueConstraint(fields=["round", "idempotency_key"], name="games_action_unique_key"),
        ]


class PlayerGameState(models.Model):
    """What a carry-over game (``Game.carry_over`` of the engine, e.g. Ismael Beiro version 2) keeps for one player
    from one round to the next: the machine's counters and credits (``state``, the engine's ``carry_out``).

    One row per (player, game, play money): real money and play money keep their own states. The row names the
    game version it belongs to; a round on another version starts fresh, and what the old state held in money is
    paid out to the player first (``games.carry``). ``carried_value`` is the money the state holds (haléře, the
    engine's ``carry_value``); for real money the sum of all rows is the balance of the ledger's ``games_carried``
    account (docs/games/ismael_beiro.md "Carried between rounds"). Written in the transaction of the round that
    changed it (``round``, its last writer), under the player's wallet lock."""

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="game_states")
    game_code = models.CharField(max_length=60)
    game_version = models.PositiveIntegerField()
    play_money = models.BooleanField(default=False)
    state = models.JSONField(default=dict, help_text="the engine's carried state (its carry_out)")
    carried_value = models.BigIntegerField(default=0, help_text="the money the state holds (haléře)")
    round = models.ForeignKey(
        Round,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="the round that last wrote the state",
    )
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "game_code", "play_money"], name="games_state_one_per_game"),
            models.CheckConstraint(condition=Q(carried_value__gte=0), name="games_state_value_not_negative"),
        ]

    def __str__(self) -> str:
        return f"state of player {self.player_id} in {self.game_code}@{self.game_version}"
