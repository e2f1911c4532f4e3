"""Staff's provider services: a provider's settings (the secret, the allowed sources, enabling it in production) and
the decisions on reconciliation cases. Audited.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

from django.conf import settings
from django.db import transaction

from core import clock
from core.audit import Actor, audit_record
from providers import errors
from providers.models import Provider, ReconciliationCase

PROVIDER_CODE_RE = re.compile(r"^[a-z0-9_]{1,30}$")


# --- the provider's settings -------------------------------------------------------------------------------------
def source_allowed(provider: Provider, address: str) -> bool:
    """Whether ``address`` (the client address core.middleware.ClientAddressMiddleware set) is in the provider's
    allowed sources. An empty list allows nothing, unless ``settings.PROVIDERS_ALLOW_ANY_SOURCE`` (development
    only; production refuses to start with it)."""
    sources = provider.allowed_sources or []
    if not sources:
        return settings.PROVIDERS_ALLOW_ANY_SOURCE
    try:
        ip = ipaddress.ip_address((address or "").strip())
    except ValueError:
        return False
    for entry in sources:
        try:
            if ip in ipaddress.ip_network(str(entry), strict=False):
                return True
        except ValueError:
            continue
    return False


def secret_refusal(secret: str) -> str:
    """Why a secret may not be used in production ("" when it may)."""
    if secret == settings.PROVIDERS_DEV_SECRET:
        return "the development secret"
    if len(secret.encode()) < settings.MIN_SECRET_BYTES:
        return f"shorter than {settings.MIN_SECRET_BYTES} bytes"
    return ""


def production_refusal(provider: Provider) -> str:
    """Why production refuses this provider's calls ("" when it does not): its secret is the development value or
    shorter than 32 bytes, or it lists no allowed source."""
    if not settings.PRODUCTION:
        return ""
    reason = secret_refusal(provider.secret)
    if reason:
        return f"secret: {reason}"
    if not provider.allowed_sources:
        return "no allowed source addresses"
    return ""


def _clean_sources(sources: Any) -> list[str]:
    if not isinstance(sources, list):
        raise errors.PROVIDER_INVALID(reason="allowed sources must be a list")
    out = []
    for entry in sources:
        try:
            out.append(str(ipaddress.ip_network(str(entry).strip(), strict=False)))
        except ValueError:
            raise errors.PROVIDER_INVALID(reason=f"not an address or network: {str(entry)[:60]}")
    return out


def provider_save(*, provider: Provider, new_secret: str = "", actor: Actor) -> Provider:
    """Create or change a provider (staff, admin). ``new_secret`` replaces the stored secret (never shown back);
    in production a secret that is the development value or shorter than 32 bytes is refused. Audited (the
    secret never in the trail)."""
    if not PROVIDER_CODE_RE.match(provider.code or ""):
        raise errors.PROVIDER_INVALID(reason="the code is 1-30 lower-case letters, digits or underscores")
    provider.allowed_sources = _clean_sources(provider.allowed_sources or [])
    if new_secret:
        if settings.PRODUCTION and secret_refusal(new_secret):
            raise errors.PROVIDER_INVALID(reason=f"the secret is {secret_refusal(new_secret)}")
        provider.secret = new_secret
    if not provider.secret:
        raise errors.PROVIDER_INVALID(reason="a provider needs a secret")
    now = clock.now()
    with transaction.atomic():
        created = provider.pk is None
        found = (
            None
            if created
            else (
                Provider.objects.select_for_update(no_key=True)
                .filter(pk=provider.pk)
                .values("enabled", "launch_url", "api_url", "allowed_sources", "name")
                .first()
            )
        )
        old: dict[str, Any] | None = dict(found) if found is not None else None
        if created:
            provider.created_at = now
        provider.updated_at = now
        provider.save()
        audit_record(
            actor=actor,
            action="providers.provider_created" if created else "providers.provider_changed",
            obj=provider,
            old=old,
            new={
                "enabled": provider.enabled,
                "launch_url": provider.launch_url,
                "api_url": provider.api_url,
                "allowed_sources": provider.allowed_sources,
                "name": provider.name,
            },
            secret_changed=bool(new_secret),
        )
    return provider


# --- reconciliation decisions ------------------------------------------------------------------------------------
def reconciliation_resolve(*, case: ReconciliationCase, resolution: str, actor: Actor) -> ReconciliationCase:
    """Staff (finance): close a reconciliation case, saying how the difference was resolved. Audited."""
    resolution = str(resolution or "").strip()
    if not resolution:
        raise errors.RESOLUTION_REQUIRED()
    with transaction.atomic():
        row = ReconciliationCase.objects.select_for_update(no_key=True).get(pk=case.pk)
        if row.status != ReconciliationCase.Status.OPEN:
            raise errors.CASE_NOT_OPEN(case=row.pk)
        row.status = ReconciliationCase.Status.RESOLVED
        row.resolution = resolution[:2000]
        row.resolved_at = clock.now()
        row.resolved_by_id = int(actor.id) if actor.type == "staff" and actor.id else None
        row.save(update_fields=["status", "resolution", "resolved_at", "resolved_by"])
        audit_record(
            actor=actor,
            action="providers.reconciliation_resolved",
            obj=row,
            old={"status": ReconciliationCase.Status.OPEN},
            new={"status": row.status},
            resolution=row.resolution,
        )
    return row
