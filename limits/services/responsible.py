"""Responsible-gaming information (GP §13(4)): staff edit the texts and the help contacts (each save audited);
the public API reads them through ``limits.selectors.responsible_gaming``."""

from __future__ import annotations

from typing import Any

from django.db import models, transaction
from django.forms.models import model_to_dict

from core import clock
from core.audit import Actor, audit_record
from limits.models import HelpContact, ResponsibleGamingText


def _save_audited(obj: ResponsibleGamingText | HelpContact, *, action: str, actor: Actor) -> None:
    """Save ``obj`` (a new row or a change) with the audit event of the change, in one transaction."""
    with transaction.atomic():
        before: models.Model | None = None
        if obj.pk:
            before = type(obj).objects.select_for_update(no_key=True).filter(pk=obj.pk).first()
        old: dict[str, Any] | None = model_to_dict(before) if before is not None else None
        obj.updated_at = clock.now()
        obj.save()
        audit_record(actor=actor, action=action, obj=obj, old=old, new=model_to_dict(obj), created=before is None)


def responsible_text_save(*, text: ResponsibleGamingText, actor: Actor) -> ResponsibleGamingText:
    """Add or change a responsible-gaming text (GP §13(4)); audited with the old and new wording."""
    _save_audited(text, action="limits.responsible_text_saved", actor=actor)
    return text


def help_contact_save(*, contact: HelpContact, actor: Actor) -> HelpContact:
    """Add or change a help contact shown with the responsible-gaming texts (GP §13(4)); audited."""
    _save_audited(contact, action="limits.help_contact_saved", actor=actor)
    return contact
