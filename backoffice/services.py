"""The back office's own writes: only the audit of a search by birth number (the decisions it offers are the owning
apps' services, called from the admin views)."""

from __future__ import annotations

from django.db import transaction

from accounts import selectors as accounts_selectors
from accounts.models import Player
from core.audit import Actor, audit_record
from core.masking import mask


def birth_number_search(*, birth_number: str, actor: Actor) -> list[Player]:
    """The players with exactly this birth number; the search itself is audited (who looked for which number,
    masked, and whom it found), in the same transaction as the read."""
    with transaction.atomic():
        found = accounts_selectors.players_by_birth_number(birth_number)
        audit_record(
            actor=actor,
            action="backoffice.birth_number_searched",
            object_type="accounts.player",
            object_id=str(found[0].pk) if len(found) == 1 else "",
            birth_number=mask(birth_number.replace("/", "").strip()),
            found_player_ids=[p.pk for p in found],
        )
        return found


def audit_export_record(*, filters: dict[str, str], actor: Actor) -> None:
    """An export of the audit trail is itself audited (who took which part of it out)."""
    with transaction.atomic():
        audit_record(actor=actor, action="backoffice.audit_exported", object_type="core.auditevent", filters=filters)
