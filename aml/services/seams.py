"""The places where aml hands over to the app that owns the record.

1. :func:`player_aml_identified_record`: an approved online identification is recorded by accounts
   (``accounts.services.aml_identification_record``: an ``IdentityVerification`` with method ``online_provider``,
   or ``bankid`` for a Bank iD identification, and ``Player.aml_identified_at``, GP §4(4)b).

2. :func:`win_hold_place`: a GP §10(3) hold on a win already credited is placed by the wallet
   (``wallet.services.win_hold_place``).

3. :func:`player_aml_restriction_record`: what the player's blocking compliance cases refuse is recorded on the
   Player row by accounts (``accounts.services.aml_restriction_record``), where the stake gate reads it.
"""

from __future__ import annotations

from accounts.models import IdentityVerification, Player
from accounts.services import aml_identification_record, aml_restriction_record
from aml.models import IdentificationCheck
from core.audit import Actor
from wallet import services as wallet_services


def player_aml_identified_record(*, player: Player, check: IdentificationCheck, actor: Actor) -> bool:
    """The check was approved (by the provider or by staff): accounts records the AML identification (GP §4(4)b)
    through ``accounts.services.aml_identification_record`` (method ``bankid`` for a Bank iD check, else
    ``online_provider``); True if the player was not identified before."""
    bankid = check.provider == "bankid"
    note = ""
    if bankid:
        verification = (
            (check.verified_claims.get("verification") or {}) if isinstance(check.verified_claims, dict) else {}
        )
        note = (
            f"Bank iD, check {check.reference}, transaction {check.provider_check_id}, verified by the bank "
            f"{verification.get('verification_process') or '?'} ({verification.get('trust_framework') or '?'})"
        )
    return aml_identification_record(
        player=player,
        reference=check.reference,
        actor=actor,
        note=note,
        method=IdentityVerification.Method.BANKID if bankid else IdentityVerification.Method.ONLINE_PROVIDER,
        document={
            "type": check.document_type,
            "number": check.document_number,
            "issuing_state": check.document_issuing_state,
            "issuing_authority": check.document_issuing_authority,
            "valid_until": check.document_valid_until,
        },
    )


def win_hold_place(*, player: Player, win_reference: str, reason: str, note: str, actor: Actor) -> int:
    """Hold a credited win through the wallet (GP §10(3)): ``wallet.services.win_hold_place`` (the win moves live ->
    held under the wallet lock; a repeat returns the same hold); returns the ``wallet.WinHold`` id."""
    return wallet_services.win_hold_place(
        player=player, win_reference=win_reference, reason=reason, note=note, actor=actor
    ).pk


def player_aml_restriction_record(*, player: Player, restriction: str, actor: Actor, reason: str) -> bool:
    """Record ``Player.aml_restriction`` through ``accounts.services.aml_restriction_record`` (in the caller's
    transaction: the case's change and the restriction commit together); True if it changed."""
    return aml_restriction_record(player=player, restriction=restriction, actor=actor, reason=reason)
