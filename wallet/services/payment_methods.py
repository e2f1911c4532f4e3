"""Payment methods: registration, ownership verification (GP §5(8)), refusal and cancellation (GP §5(11))."""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction

from accounts.models import Message, Player
from accounts.services import message_send
from core import clock
from core.audit import Actor, audit_record
from wallet import errors, methods
from wallet.ledger import wallet_lock
from wallet.models import Deposit, MethodDocument, PaymentMethod, Wallet, Withdrawal
from wallet.selectors import (
    PayerVerdict,
    method_term_passed,
    payer_name_key,
    payment_method_deadline,
    player_status_fresh,
)
from wallet.services.notices import method_refused_notice
from wallet.services.withdrawals import withdrawal_release_locked

MethodStatus = PaymentMethod.Status
REGISTER_STATUSES = ("applicant", "temporary", "active", "suspended")


def _has_verified(player_id: int, exclude_pk: int | None = None) -> bool:
    qs = PaymentMethod.objects.filter(player_id=player_id, status=MethodStatus.VERIFIED)
    if exclude_pk:
        qs = qs.exclude(pk=exclude_pk)
    return qs.exists()


def payment_method_register(
    *, player: Player, kind: str, data: dict[str, Any], actor: Actor, holder_name: str = ""
) -> PaymentMethod:
    """Register a method (GP §5(6)); bank accounts only at a bank seated in CZ (GP §5(7)).

    Registering the same method again returns it; a method another player registered is refused."""
    if kind not in PaymentMethod.Kind.values:
        raise errors.METHOD_INVALID(field="kind", allowed=PaymentMethod.Kind.values)
    norm = methods.normalise(kind, data)
    status = player_status_fresh(player)
    if status not in REGISTER_STATUSES:
        raise errors.ACCOUNT_STATE(state=status)
    with transaction.atomic():
        wallet = wallet_lock(player=player)
        same = PaymentMethod.objects.filter(kind=kind, identifier=norm.identifier)
        mine = same.filter(player_id=player.pk)
        live = mine.filter(status__in=PaymentMethod.ACTIVE_STATUSES).first()
        if live is not None:
            return live
        if same.exclude(player_id=player.pk).exists():
            raise errors.METHOD_TAKEN(kind=kind)
        if mine.filter(status__in=[MethodStatus.REFUSED, MethodStatus.CANCELLED]).exists():
            raise errors.METHOD_NOT_USABLE(reason="this method was refused or cancelled (GP §5(11))")
        now = clock.now()
        try:
            with transaction.atomic():
                method = PaymentMethod.objects.create(
                    player_id=player.pk,
                    kind=kind,
                    identifier=norm.identifier,
                    bank_code=norm.bank_code,
                    iban=norm.iban,
                    card_token=norm.card_token,
                    card_masked=norm.card_masked,
                    holder_name=(holder_name or data.get("holder_name", "") or "")[:200],
                    verify_by=None if _has_verified(player.pk) else payment_method_deadline(player, wallet=wallet),
                    created_at=now,
                    status_changed_at=now,
                )
        except IntegrityError:
            raise errors.METHOD_TAKEN(kind=kind)
        audit_record(
            actor=actor,
            action="wallet.method_registered",
            obj=method,
            kind=kind,
            identifier=method.display,
            player_id=player.pk,
        )
        return method


def _lock_method(method: PaymentMethod) -> PaymentMethod:
    return PaymentMethod.objects.select_for_update(no_key=True).get(pk=method.pk)


def _set_status(method: PaymentMethod, status: str, reason: str, actor: Actor, action: str, **extra: Any) -> None:
    old = {"status": method.status}
    method.status, method.status_reason, method.status_changed_at = status, reason[:255], clock.now()
    fields = ["status", "status_reason", "status_changed_at"]
    for k, v in extra.items():
        setattr(method, k, v)
        fields.append(k)
    method.save(update_fields=fields)
    audit_record(
        actor=actor,
        action=action,
        obj=method,
        old=old,
        new={"status": status},
        reason=reason,
        player_id=method.player_id,
    )


def payment_method_verify(*, method: PaymentMethod, by: str, actor: Actor, evidence: str = "") -> PaymentMethod:
    """Ownership proven (GP §5(8)): by the first payment or by documents. The method becomes the registered
    payment method (GP §5(10))."""
    with transaction.atomic():
        wallet = wallet_lock(player=method.player)
        method = _lock_method(method)
        if method.status == MethodStatus.VERIFIED:
            return method
        if method.status not in (MethodStatus.PENDING, MethodStatus.DOUBTFUL):
            raise errors.METHOD_NOT_USABLE(state=method.status)
        _set_status(
            method,
            MethodStatus.VERIFIED,
            evidence or by,
            actor,
            "wallet.method_verified",
            verified_by=by,
            verified_at=clock.now(),
        )
        if wallet.method_missing_since is not None or wallet.method_term_flagged_at is not None:
            # GP §5(11): a registered method again; the term (and its flag for staff) ends.
            Wallet.objects.filter(pk=wallet.pk).update(method_missing_since=None, method_term_flagged_at=None)
        return method


def payment_method_mark_doubtful(*, method: PaymentMethod, reason: str, actor: Actor) -> PaymentMethod:
    """Ownership doubtful: the player is asked for documents (GP §5(8)b, §5(11))."""
    with transaction.atomic():
        wallet_lock(player=method.player)
        method = _lock_method(method)
        if method.status == MethodStatus.PENDING:
            _set_status(method, MethodStatus.DOUBTFUL, reason, actor, "wallet.method_doubtful")
        return method


def verify_by_first_payment(*, method: PaymentMethod, verdict: PayerVerdict, actor: Actor) -> str:
    """Called with the wallet locked when a payment from ``method`` was credited (GP §5(8)a): a payer shown to
    be the player verifies the method; a payer that cannot be compared leaves it doubtful (documents, GP §5(8)b);
    no payer reported changes nothing. (A payer shown to be someone else never gets here: that deposit is
    refused, ``deposits.deposit_confirm_locked``, GP §5(6).)"""
    if method.status not in (MethodStatus.PENDING, MethodStatus.DOUBTFUL) or verdict.outcome == "unknown":
        return "no_change"
    if verdict.outcome == "player":
        payment_method_verify(
            method=method,
            by=PaymentMethod.VerifiedBy.FIRST_PAYMENT,
            actor=actor,
            evidence=f"first payment: {verdict.why}",
        )
        return "verified"
    payment_method_mark_doubtful(method=method, reason=f"first payment: {verdict.why}", actor=actor)
    return "doubtful"


def method_deposits_block_locked(*, method: PaymentMethod, reason: str, actor: Actor) -> None:
    """GP §5(6): a deposit through ``method`` was paid by another person: no deposit from it until staff decide
    (``payment_method_owner_confirm`` or ``payment_method_refuse``). A method not yet verified becomes doubtful
    (the player is asked for documents, GP §5(8)b, §5(11)). Caller holds the wallet lock."""
    method = _lock_method(method)
    if method.deposits_blocked_at is None:
        old = {"deposits_blocked": False}
        method.deposits_blocked_at, method.deposits_blocked_reason = clock.now(), reason[:255]
        method.save(update_fields=["deposits_blocked_at", "deposits_blocked_reason"])
        audit_record(
            actor=actor,
            action="wallet.method_deposits_blocked",
            obj=method,
            old=old,
            new={"deposits_blocked": True},
            reason=reason,
            player_id=method.player_id,
        )
    if method.status == MethodStatus.PENDING:
        _set_status(method, MethodStatus.DOUBTFUL, reason, actor, "wallet.method_doubtful")


def payment_method_owner_confirm(*, method: PaymentMethod, note: str, actor: Actor) -> PaymentMethod:
    """Staff: a method blocked after a deposit paid by another person is the player's own after all (GP §5(6),
    §5(8)b, on the evidence named in ``note``). Deposits from it work again; the payer names of its refused
    deposits are accepted as the player's for this method; a method not yet verified becomes the registered one
    (``verified_by="staff"``). The refused deposits stay returned. The other decision is
    ``payment_method_refuse`` (GP §5(11))."""
    if not note.strip():
        raise errors.METHOD_INVALID(reason="a decision needs a note naming the evidence")
    with transaction.atomic():
        wallet_lock(player=method.player)
        method = _lock_method(method)
        if method.status not in PaymentMethod.ACTIVE_STATUSES:
            raise errors.METHOD_NOT_USABLE(state=method.status)
        if method.deposits_blocked_at is None:
            raise errors.METHOD_NOT_BLOCKED(method_id=method.pk)
        names = {
            payer_name_key(str((payer or {}).get("name") or (payer or {}).get("holder_name") or ""))
            for payer in Deposit.objects.filter(method=method, status=Deposit.Status.REFUSED).values_list(
                "payer", flat=True
            )
            if isinstance(payer, dict)
        }
        accepted = sorted({*method.accepted_payers, *(n for n in names if n)})
        old = {"deposits_blocked": True, "accepted_payers": len(method.accepted_payers)}
        blocked_since = method.deposits_blocked_at
        method.deposits_blocked_at, method.deposits_blocked_reason, method.accepted_payers = None, "", accepted
        method.save(update_fields=["deposits_blocked_at", "deposits_blocked_reason", "accepted_payers"])
        audit_record(
            actor=actor,
            action="wallet.method_owner_confirmed",
            obj=method,
            old=old,
            new={"deposits_blocked": False, "accepted_payers": len(accepted)},
            note=note,
            blocked_since=blocked_since,
            player_id=method.player_id,
        )
        if method.status != MethodStatus.VERIFIED:
            payment_method_verify(
                method=method, by=PaymentMethod.VerifiedBy.STAFF, actor=actor, evidence=f"staff: {note}"
            )
            method.refresh_from_db()
        return method


def _after_method_lost(wallet: Wallet, player_id: int) -> None:
    """GP §5(11): with no registered method left the player has 30 days to register another."""
    if not _has_verified(player_id) and wallet.method_missing_since is None:
        wallet.method_missing_since = clock.now()
        Wallet.objects.filter(pk=wallet.pk).update(method_missing_since=wallet.method_missing_since)


def method_term_sweep_one(*, wallet_id: int, actor: Actor) -> str:
    """Sweeper, GP §5(11): a full account still without a registered method when its 30-day term ran out is
    flagged for staff (``Wallet.method_term_flagged_at``, admin filter) and the player is told. From the
    deadline on deposits are refused (``refusals.refuse_deposit_if_method_term_passed``, live, not waiting for
    this flag); stakes stay allowed (docs/wallet.md). Once per term; safe to run twice."""
    with transaction.atomic():
        wallet = (
            Wallet.objects.select_for_update(skip_locked=True, no_key=True, of=("self",))
            .select_related("player__user")
            .filter(pk=wallet_id, method_term_flagged_at__isnull=True)
            .first()
        )
        if wallet is None:
            return "skipped"
        now = clock.now()
        deadline = method_term_passed(wallet, now)
        if deadline is None:
            return "skipped"
        wallet.method_term_flagged_at = now
        wallet.save(update_fields=["method_term_flagged_at"])
        audit_record(
            actor=actor,
            action="wallet.method_term_passed",
            obj=wallet,
            deadline=deadline,
            missing_since=wallet.method_missing_since,
            consequence="deposits refused; staff notified",
            player_id=wallet.player_id,
        )
        message_send(  # a notice the operator can prove (inbox + e-mail)
            player=wallet.player,
            kind=Message.Kind.NOTICE,
            reference=f"wallet.method_term_passed:{wallet.player_id}:{deadline:%Y%m%d%H%M%S}",
            subject_cs="Chybí platební prostředek: vklady pozastaveny",
            subject_en="No payment method: deposits stopped",
            body_cs=(
                "Lhůta 30 dnů k registraci nového platebního prostředku uplynula (HP §5 odst. 11). Hrát můžete "
                "dál se zůstatkem na kontě, vklady však přijmeme až po ověření platebního prostředku; vlastnictví "
                "doložte dokladem (výpis z účtu, smlouva)."
            ),
            body_en=(
                "The 30-day term to register a new payment method has passed (GP §5(11)). You may keep playing "
                "with your balance, but deposits are accepted again only once a payment method is verified; "
                "prove its ownership with a document (account statement, contract)."
            ),
        )
        return "flagged"


def _cancel_open_withdrawals(method: PaymentMethod, actor: Actor, reason: str) -> list[Withdrawal]:
    open_ = (
        Withdrawal.objects.select_for_update(no_key=True)
        .filter(method=method, status__in=[Withdrawal.Status.REQUESTED, Withdrawal.Status.APPROVED])
        .order_by("pk")
    )
    return [
        withdrawal_release_locked(withdrawal=w, status=Withdrawal.Status.REJECTED, reason=reason, actor=actor)
        for w in open_
    ]


def _method_lost(method: PaymentMethod, wallet: Wallet, reason: str, actor: Actor) -> None:
    """After a refusal or cancellation (GP §5(11)): open withdrawals to the method stopped, the 30-day term to
    register another started when none is left, and the player told (a notice the operator can prove)."""
    stopped = _cancel_open_withdrawals(method, actor, f"payment method {method.status}: {reason}")
    _after_method_lost(wallet, method.player_id)
    player = method.player
    new_method_by = None if _has_verified(player.pk) else payment_method_deadline(player, wallet=wallet)
    method_refused_notice(method=method, reason=reason, stopped=stopped, new_method_by=new_method_by)


def payment_method_refuse(*, method: PaymentMethod, reason: str, actor: Actor) -> PaymentMethod:
    """Staff: ownership stayed doubtful after a request (GP §5(11)): the method is refused, open withdrawals to it
    stopped, and the player told (``wallet.method_refused:<id>``)."""
    if not reason:
        raise errors.METHOD_INVALID(reason="a refusal needs a reason")
    with transaction.atomic():
        wallet = wallet_lock(player=method.player)
        method = _lock_method(method)
        if method.status not in PaymentMethod.ACTIVE_STATUSES:
            raise errors.METHOD_NOT_USABLE(state=method.status)
        _set_status(method, MethodStatus.REFUSED, reason, actor, "wallet.method_refused")
        _method_lost(method, wallet, reason, actor)
        return method


def payment_method_cancel(*, method: PaymentMethod, reason: str, actor: Actor) -> PaymentMethod:
    """Staff: a method suspected of misuse is cancelled (GP §5(11)); open withdrawals to it are stopped; the
    player is told (``wallet.method_refused:<id>``)."""
    if not reason:
        raise errors.METHOD_INVALID(reason="a cancellation needs a reason")
    with transaction.atomic():
        wallet = wallet_lock(player=method.player)
        method = _lock_method(method)
        if method.status not in PaymentMethod.ACTIVE_STATUSES:
            raise errors.METHOD_NOT_USABLE(state=method.status)
        _set_status(method, MethodStatus.CANCELLED, reason, actor, "wallet.method_cancelled")
        _method_lost(method, wallet, reason, actor)
        return method


def payment_method_remove(*, method: PaymentMethod, actor: Actor) -> PaymentMethod:
    """The player removes a method (not while a withdrawal to it is open)."""
    with transaction.atomic():
        wallet = wallet_lock(player=method.player)
        method = _lock_method(method)
        if method.status not in PaymentMethod.ACTIVE_STATUSES:
            raise errors.METHOD_NOT_USABLE(state=method.status)
        if Withdrawal.objects.filter(method=method, status__in=Withdrawal.OPEN).exists():
            raise errors.WITHDRAWAL_STATE(reason="a withdrawal to this method is open")
        was_verified = method.status == MethodStatus.VERIFIED
        _set_status(method, MethodStatus.REMOVED, "removed by the player", actor, "wallet.method_removed")
        if was_verified:
            _after_method_lost(wallet, method.player_id)
        return method


# Documents (GP §5(8)b) ----------------------------------------------------------------------------------

_MAGIC = (
    (b"%PDF-", "application/pdf", ".pdf"),
    (b"\xff\xd8\xff", "image/jpeg", ".jpg"),
    (b"\x89PNG\r\n\x1a\n", "image/png", ".png"),
)


def sniff_type(head: bytes) -> tuple[str, str] | None:
    for magic, ctype, ext in _MAGIC:
        if head.startswith(magic):
            return ctype, ext
    return None


def method_document_upload(*, method: PaymentMethod, name: str, content: bytes, actor: Actor) -> MethodDocument:
    """The player uploads a document proving ownership (account contract, statement): PDF/JPEG/PNG checked by
    content, at most ``WALLET_DOCUMENT_MAX_BYTES``."""
    max_bytes = settings.WALLET_DOCUMENT_MAX_BYTES
    if len(content) > max_bytes:
        raise errors.DOCUMENT_TOO_LARGE(max_bytes=max_bytes, size=len(content))
    if not content:
        raise errors.DOCUMENT_TYPE(reason="empty file")
    sniffed = sniff_type(content[:16])
    if sniffed is None:
        raise errors.DOCUMENT_TYPE(allowed=["application/pdf", "image/jpeg", "image/png"])
    ctype, ext = sniffed
    with transaction.atomic():
        wallet_lock(player=method.player)
        method = _lock_method(method)
        if method.status not in (MethodStatus.PENDING, MethodStatus.DOUBTFUL):
            raise errors.METHOD_NOT_USABLE(state=method.status, reason="documents are for methods not yet verified")
        digest = hashlib.sha256(content).hexdigest()
        doc = MethodDocument(
            method=method,
            original_name=(name or "document")[:200],
            content_type=ctype,
            size=len(content),
            sha256=digest,
            uploaded_at=clock.now(),
        )
        doc.file.save(f"m{method.pk}-{digest[:16]}{ext}", ContentFile(content), save=False)
        doc.save()
        audit_record(
            actor=actor,
            action="wallet.method_document_uploaded",
            obj=doc,
            method_id=method.pk,
            content_type=ctype,
            size=len(content),
            sha256=digest,
            player_id=method.player_id,
        )
        return doc


def method_document_review(*, document: MethodDocument, approve: bool, note: str, actor: Actor) -> MethodDocument:
    """Staff approve (the method is verified, GP §5(8)b) or reject a document."""
    with transaction.atomic():
        wallet_lock(player=document.method.player)
        doc = MethodDocument.objects.select_for_update(no_key=True).get(pk=document.pk)
        if doc.status != MethodDocument.Status.PENDING:
            raise errors.DOCUMENT_STATE(state=doc.status)
        doc.status = MethodDocument.Status.APPROVED if approve else MethodDocument.Status.REJECTED
        doc.reviewed_at, doc.reviewed_by, doc.review_note = clock.now(), actor.label, (note or "")[:255]
        doc.save(update_fields=["status", "reviewed_at", "reviewed_by", "review_note"])
        audit_record(
            actor=actor,
            action="wallet.method_document_reviewed",
            obj=doc,
            approved=approve,
            note=note,
            player_id=doc.method.player_id,
        )
        if approve:
            payment_method_verify(
                method=doc.method,
                by=PaymentMethod.VerifiedBy.DOCUMENTS,
                actor=actor,
                evidence=f"document {doc.pk} approved",
            )
        else:
            payment_method_mark_doubtful(method=doc.method, reason=f"document {doc.pk} rejected: {note}", actor=actor)
        return doc
