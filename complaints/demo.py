"""Demo complaints (``manage.py seed_demo``): for the first two demo players, one open complaint and one
resolved win claim; for the first, two complaints support entered from letters received 25 and 32 days ago (one
due within the week, one past its 30-day answer term). Idempotent: a player who already has a ``[demo]``
complaint is skipped."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model

from accounts.models import Player
from complaints import services
from complaints.models import Complaint
from core import clock
from core.audit import Actor
from core.money import Money


def seed(stdout: Any) -> None:
    players = list(Player.objects.select_related("user").filter(status="active").order_by("pk")[:2])
    if not players:
        stdout.write("complaints: no active player to attach demo complaints to (skipped)")
        return
    for player in players:
        if Complaint.objects.filter(player=player, description__startswith="[demo]").exists():
            continue
        c = services.complaint_file(
            player=player,
            reason=Complaint.Reason.DEPOSIT,
            actor=Actor.player(player),
            description="[demo] My card deposit was charged but not credited to my account.",
            event_at=clock.now() - timedelta(days=3),
            remedy_requested="Credit the deposit.",
            remedy_amount_requested=Money.parse("250,50"),  # the money queue of finance and the complaint supervisor
        )
        stdout.write(f"complaints: {c.reference} (open) for {player.user.username}")
        late = services.complaint_file(
            player=player,
            reason=Complaint.Reason.GAME_RESULT,
            actor=Actor.player(player),
            description="[demo] A round eight months ago did not pay what I expected.",
            event_at=clock.now() - timedelta(days=240),
        )
        stdout.write(f"complaints: {late.reference} (filed late, answered automatically) for {player.user.username}")
        if player == players[0]:
            _letters(player, stdout)


def _letters(player: Player, stdout: Any) -> None:
    """Two complaints that came by post, entered by the demo support agent with the date received: one answered
    within the week (the near-deadline queue), one past its term (the overdue queue)."""
    staff = get_user_model().objects.filter(username="staff_support").first()
    if staff is None:
        return
    for days, what in ((25, "due within the week"), (32, "past its 30-day term")):
        received = clock.now() - timedelta(days=days)
        c = services.complaint_file(
            player=player,
            reason=Complaint.Reason.OTHER,
            actor=Actor.staff(staff),
            entered_by=staff,
            channel=Complaint.Channel.POST,
            received_at=received,
            event_at=received - timedelta(days=2),
            description=f"[demo] A letter received {days} days ago: my account was blocked without a reason.",
        )
        stdout.write(f"complaints: {c.reference} (a letter, {what}) for {player.user.username}")
