"""Report rows: one per Prague operating day, and one per day and game version. Written only by the report job
(``reports.services.reports_compute_day``), which replaces a day's rows in one transaction; pages, the API and the
CSV read them and never scan rounds. Amounts are haléře; jackpot contributions micro-haléře (docs/reports.md)."""

from __future__ import annotations

from django.db import models


class DayReport(models.Model):
    """The platform's figures of one operating day (Europe/Prague, 00:00-24:00; 23 or 25 hours on DST days)."""

    day = models.DateField(unique=True)
    computed_at = models.DateTimeField()
    read_from = models.CharField(max_length=30, help_text="the database alias the job read (replica or default)")
    # money, counted on the day the ledger posted each movement (haléře)
    rounds = models.PositiveIntegerField(default=0, help_text="real-money rounds decided (settled) this day")
    stakes = models.BigIntegerField(default=0, help_text="stakes received (debited) this day")
    stakes_returned = models.BigIntegerField(default=0, help_text="stakes of voided/refunded rounds returned this day")
    wins = models.BigIntegerField(default=0, help_text="wins credited this day, jackpot wins included")
    jackpot_wins = models.BigIntegerField(default=0, help_text="the jackpot part of the wins")
    wins_reclaimed = models.BigIntegerField(default=0, help_text="wins of settled bets declared void taken back")
    ggr = models.BigIntegerField(default=0, help_text="stakes - returned stakes - wins + reclaimed wins")
    ledger_stakes = models.BigIntegerField(default=0, help_text="the same stakes read from the ledger")
    ledger_wins = models.BigIntegerField(default=0, help_text="the same wins read from the ledger")
    ledger_agrees = models.BooleanField(default=True, help_text="rounds and ledger give the same stakes and wins")
    # jackpots
    jackpot_contributed_micro = models.BigIntegerField(default=0, help_text="contributions of this day's rounds")
    jackpot_awarded = models.BigIntegerField(default=0, help_text="awards decided this day")
    jackpot_awards_paid = models.BigIntegerField(default=0, help_text="of which paid to players")
    jackpot_liability = models.BigIntegerField(default=0, help_text="the pools' ledger balance at the day's end")
    # players and protection
    players_registered = models.PositiveIntegerField(default=0)
    temporary_opened = models.PositiveIntegerField(default=0)
    temporary_completed = models.PositiveIntegerField(default=0)
    temporary_expired = models.PositiveIntegerField(default=0)
    temporary_refunded = models.PositiveIntegerField(default=0)
    limits = models.JSONField(default=dict, help_text="self-limit changes by action (set, tightened ...)")
    breaks_enforced = models.PositiveIntegerField(default=0, help_text="players refused a stake for the break")
    exclusions = models.PositiveIntegerField(default=0, help_text="self-listing requests to the register")
    exclusion_register_hits = models.PositiveIntegerField(default=0, help_text="register checks answered listed")
    panic_presses = models.PositiveIntegerField(default=0)
    aml = models.JSONField(default=dict, help_text="cases opened by kind, decided by kind and outcome")
    complaints_received = models.PositiveIntegerField(default=0)
    complaints_answered_in_time = models.PositiveIntegerField(default=0)
    complaints_answered_late = models.PositiveIntegerField(default=0)
    complaints_overdue = models.PositiveIntegerField(default=0, help_text="open past their term at the day's end")
    queues = models.JSONField(default=dict, help_text="open work at the day's end: count and oldest age in days")
    # the operator's liability to players at the day's end, per kind of player account: {kind: {"accounts": n,
    # "total": haléře}}, each account's balance after its last entry before the day's end (written once the day is
    # over; the per-account figures: reports.services.player_balances)
    player_balances = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-day"]
        permissions = [("export_regulator_record", "Downloads the sealed regulator's record of a day")]

    def __str__(self) -> str:
        return f"report {self.day:%Y-%m-%d}"


class GameDayReport(models.Model):
    """One game version's figures of one operating day. The moments (sums of squares) make the RTP interval of any
    period computable from its days' rows: monthly and quarterly RTP are recomputed from summed moments."""

    day = models.DateField()
    game_code = models.CharField(max_length=60)
    game_version = models.PositiveIntegerField()
    declared_rtp = models.DecimalField(max_digits=6, decimal_places=2, help_text="the game's declared RTP, %")
    rounds = models.PositiveIntegerField(default=0, help_text="real-money rounds decided this day")
    stakes = models.BigIntegerField(default=0)
    stakes_returned = models.BigIntegerField(default=0)
    wins = models.BigIntegerField(default=0)
    jackpot_wins = models.BigIntegerField(default=0)
    wins_reclaimed = models.BigIntegerField(default=0)
    ggr = models.BigIntegerField(default=0)
    # the decided rounds of the day (the RTP sample): stake s, base win w (jackpot part excluded)
    decided_stakes = models.BigIntegerField(default=0)
    decided_base_wins = models.BigIntegerField(default=0)
    sum_s2 = models.DecimalField(max_digits=40, decimal_places=0, default=0)
    sum_w2 = models.DecimalField(max_digits=40, decimal_places=0, default=0)
    sum_sw = models.DecimalField(max_digits=40, decimal_places=0, default=0)

    class Meta:
        ordering = ["-day", "game_code", "game_version"]
        constraints = [
            models.UniqueConstraint(fields=["day", "game_code", "game_version"], name="reports_gameday_once")
        ]

    def __str__(self) -> str:
        return f"{self.game_code}@{self.game_version} {self.day:%Y-%m-%d}"
