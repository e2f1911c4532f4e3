"""The complaints app's privacy contract (``accounts.privacy_contract``; registered by ``ComplaintsConfig.ready``).

One record, ``complaints.complaints`` (complaints and win claims with their items, attachments, messages, staff notes
and e-mail notices), kept for the Gambling Act period (``ACCOUNTS_RETENTION_GAMBLING_YEARS``, counted from the end of
the relationship): a complaint is a record of the participation (GP §11). At the end: the description, the remedy
asked for, the answers, the remedy text, the messages, the staff notes and the notices' bodies and recipients are
replaced; the snapshots of the named rounds and transactions are erased; **the attachment files are deleted from
storage** (at once, inside the job's transaction) and their names erased. The reference, kind, reason, dates, outcome
and amounts stay (the monthly complaints report, and a credited remedy is in the ledger).

Export: every complaint of the player with its texts, items, messages and the list of attachments with the player's
own download path. Withheld: the staff's internal notes (their own assessments; GDPR art. 15(4)).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.files.storage import default_storage

from accounts import privacy_contract
from accounts.models import Player
from accounts.privacy_contract import Contract, Record
from complaints.models import (
    Complaint,
    ComplaintAttachment,
    ComplaintItem,
    ComplaintMessage,
    ComplaintNote,
    ComplaintNotice,
)
from core.audit import Actor

PLACEHOLDER = "[anonymised]"
DOWNLOAD = "/api/v1/complaints/{reference}/attachments/{id}"

RECORDS = (
    Record(
        code="complaints.complaints",
        models=(
            "complaints.Complaint",
            "complaints.ComplaintItem",
            "complaints.ComplaintAttachment",
            "complaints.ComplaintMessage",
            "complaints.ComplaintNote",
            "complaints.ComplaintNotice",
        ),
        periods=("gambling",),
        what_cs="reklamace a nároky na výhru (HP §10 odst. 2, §11) s přílohami, zprávami a oznámeními",
        what_en="complaints and win claims (GP §10(2), §11) with their attachments, messages and notices",
        erased_cs="texty reklamace, odpovědí, zpráv, poznámek a oznámení nahrazeny, adresy oznámení vymazány, "
        "soubory příloh smazány",
        erased_en="the texts of the complaint, the answers, messages, notes and notices replaced, the notices' "
        "addresses erased, the attachment files deleted",
        kept_cs="značka, druh, důvod, data, výsledek a částky (měsíční přehled reklamací)",
        kept_en="the reference, kind, reason, dates, outcome and amounts (the monthly complaints report)",
    ),
)

WITHHELD = (
    {
        "what_cs": "interní poznámky pracovníků k reklamaci",
        "what_en": "the staff's internal notes on a complaint",
        "why_cs": "vlastní hodnocení pracovníků (čl. 15 odst. 4 GDPR); odpověď na reklamaci je uvedena",
        "why_en": "the staff's own assessments (GDPR art. 15(4)); the answer to the complaint is given",
    },
)


def export(player: Player) -> dict[str, Any]:
    """The complaints part of the player's export (GP §12(7)a)."""
    rows = []
    for c in (
        Complaint.objects.filter(player=player)
        .prefetch_related("items", "attachments", "messages")
        .order_by("received_at", "id")
    ):
        rows.append(
            {
                "reference": c.reference,
                "kind": c.kind,
                "channel": c.channel,
                "reason": c.reason,
                "status": c.status,
                "received_at": c.received_at,
                "event_at": c.event_at,
                "description": c.description,
                "remedy_requested": c.remedy_requested,
                "remedy_amount_requested": c.remedy_amount_requested,
                "respond_by": c.respond_by,
                "outcome": c.outcome,
                "answer_cs": c.answer_cs,
                "answer_en": c.answer_en,
                "remedy_text": c.remedy_text,
                "remedy_amount": c.remedy_amount,
                "answered_at": c.answered_at,
                "items": [
                    {"kind": i.kind, "object_id": i.object_id, "occurred_at": i.occurred_at} for i in c.items.all()
                ],
                "attachments": [
                    {
                        "name": a.original_name,
                        "content_type": a.content_type,
                        "size": a.size,
                        "uploaded_by": a.uploaded_by_type,
                        "uploaded_at": a.uploaded_at,
                        "download": DOWNLOAD.format(reference=c.reference, id=a.pk) if a.file else None,
                    }
                    for a in c.attachments.all()
                ],
                "messages": [
                    {"author": m.author_type, "text": m.text, "created_at": m.created_at} for m in c.messages.all()
                ],
            }
        )
    return {"complaints": rows}


def anonymise(*, player: Player, records: frozenset[str], actor: Actor, now: datetime) -> dict[str, dict[str, int]]:
    """Blank the complaints of one ended player and delete their attachment files (the retention job; idempotent)."""
    if "complaints.complaints" not in records:
        return {}
    attachments = list(ComplaintAttachment.objects.filter(complaint__player=player))
    deleted = 0
    for a in attachments:
        if a.file:
            default_storage.delete(a.file.name)
            deleted += 1
    return {
        "complaints.complaints": {
            "complaints": Complaint.objects.filter(player=player).update(
                description=PLACEHOLDER,
                remedy_requested="",
                answer_cs=PLACEHOLDER,
                answer_en=PLACEHOLDER,
                remedy_text="",
                updated_at=now,
            ),
            "items": ComplaintItem.objects.filter(complaint__player=player).update(summary={}),
            "attachment_files_deleted": deleted,
            "attachments": ComplaintAttachment.objects.filter(pk__in=[a.pk for a in attachments]).update(
                file="", original_name="", sha256=""
            ),
            "messages": ComplaintMessage.objects.filter(complaint__player=player).update(text=PLACEHOLDER),
            "notes": ComplaintNote.objects.filter(complaint__player=player).update(text=PLACEHOLDER),
            "notices": ComplaintNotice.objects.filter(complaint__player=player).update(body=PLACEHOLDER, recipients=[]),
        }
    }


CONTRACT = Contract(app="complaints", records=RECORDS, export=export, anonymise=anonymise, withheld=WITHHELD)


def register() -> None:
    privacy_contract.register(CONTRACT)
