"""The providers' services (docs/providers.md): the player's launch, the signed calls of a provider
(session, balance, bet, win, rollback, round-end), exactly once per (provider, transaction_id), and staff's
provider settings and reconciliation decisions.

The rules of a round live in games (:mod:`games.services.remote`); these services authenticate the call, find the
player and the round, record the call with its answer (:class:`~providers.models.ProviderTransaction`) and
translate a refusal into the provider's vocabulary (:func:`providers.errors.rs_status`).

Other modules import from here (``from providers.services import provider_save``); the parts: ``calls`` (the signed
calls), ``launch`` (the player's launch), ``staff`` (a provider's settings, reconciliation decisions).
"""

from providers.services.calls import Answer, Call, money, player_ref, provider_call
from providers.services.launch import Launch, launch_start
from providers.services.staff import (
    production_refusal,
    provider_save,
    reconciliation_resolve,
    secret_refusal,
    source_allowed,
)

__all__ = [
    "Answer",
    "Call",
    "Launch",
    "launch_start",
    "money",
    "player_ref",
    "production_refusal",
    "provider_call",
    "provider_save",
    "reconciliation_resolve",
    "secret_refusal",
    "source_allowed",
]
