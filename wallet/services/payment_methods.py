"""Payment methods: registration, ownership verification (GP §5(8)), refusal and cancellation (GP §5(11))."""
from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction

from accounts.models import Player
from core import clock
from core.audit import Actor, audit_record
from wallet import errors, methods
from wallet.ledger import wallet_lock
from wallet.models import MethodDocument, PaymentMethod, Wallet, Withdrawal
from wallet.selectors import payer_matches, payment_method_deadline, player_status_fresh
from wallet.services.withdrawals import withdrawal_release_locked

MethodStatus = PaymentMethod.Status
REGISTER_STATUSES = ("applicant", "temporary", "active", "suspended")


def _has_verified(player_id: int, exclude_pk: int | None = None) -> bool:
    qs = PaymentMethod.objects.filter(player_id=player_id, status=MethodStatus.VERIFIED)
    if exclude_pk:
        qs = qs.exclude(pk=exclude_pk)
    return qs.exists()


def payment_method_register(*, player: Player, kind: str, data: dict[str, Any], actor: Actor,
                            holder_name: str = "") -> PaymentMethod:
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
                    player_id=player.pk, kind=kind, identifier=norm.identifier, bank_code=norm.bank_code,
                    iban=norm.iban, card_token=norm.card_token, card_masked=norm.card_masked,
                    holder_name=(holder_name or data.get("holder_name", "") or "")[:200],
                    verify_by=None if _has_verified(player.pk) else payment_method_deadline(player, wallet=wallet),
                    created_at=now, status_changed_at=now)
        except IntegrityError:
            raise errors.METHOD_TAKEN(kind=kind)
        audit_record(actor=actor, action="wallet.method_registered", obj=method, kind=kind,
                     identifier=method.display, player_id=player.pk)
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
    audit_record(actor=actor, action=action, obj=method, old=old, new={"status": status}, reason=reason,
                 player_id=method.player_id)


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
        _set_status(method, MethodStatus.VERIFIED, evidence or by, actor, "wallet.method_verified",
                    verified_by=by, verified_at=clock.now())
        if wallet.method_missing_since is not None:
            Wallet.objects.filter(pk=wallet.pk).update(method_missing_since=None)
        return method


def payment_method_mark_doubtful(*, method: PaymentMethod, reason: str, actor: Actor) -> PaymentMethod:
    """Ownership doubtful: the player is asked for documents (GP §5(8)b, §5(11))."""
    with transaction.atomic():
        wallet_lock(player=method.player)
        method = _lock_method(method)
        if method.status == MethodStatus.PENDING:
            _set_status(method, MethodStatus.DOUBTFUL, reason, actor, "wallet.method_doubtful")
        return method


def verify_by_first_payment(*, method: PaymentMethod, payer: dict[str, Any] | None, actor: Actor) -> str:
    """Called with the wallet locked when a payment from ``method`` succeeded (GP §5(8)a)."""
    if method.status not in (MethodStatus.PENDING, MethodStatus.DOUBTFUL) or not payer:
        return "no_change"
    ok, why = payer_matches(method.player, payer)
    if ok:
        payment_method_verify(method=method, by=PaymentMethod.VerifiedBy.FIRST_PAYMENT, actor=actor,
                              evidence=f"first payment: {why}")
        return "verified"
    payment_method_mark_doubtful(method=method, reason=f"first payment: {why}", actor=actor)
    return "doubtful"


def _after_method_lost(wallet: Wallet, player_id: int) -> None:
    """GP §5(11): with no registered method left the player has 30 days to register another."""
    if not _has_verified(player_id) and wallet.method_missing_since is None:
        wallet.method_missing_since = clock.now()
        Wallet.objects.filter(pk=wallet.pk).update(method_missing_since=wallet.method_missing_since)


def _cancel_open_withdrawals(method: PaymentMethod, actor: Actor, reason: str) -> None:
    open_ = Withdrawal.objects.select_for_update(no_key=True).filter(
        method=method, status__in=[Withdrawal.Status.REQUESTED, Withdrawal.Status.APPROVED])
    for w in open_:
        withdrawal_release_locked(withdrawal=w, status=Withdrawal.Status.REJECTED, reason=reason, actor=actor)


def payment_method_refuse(*, method: PaymentMethod, reason: str, actor: Actor) -> PaymentMethod:
    """Staff: ownership stayed doubtful after a request (GP §5(11)): the method is refused."""
    if not reason:
        raise errors.METHOD_INVALID(reason="a refusal needs a reason")
    with transaction.atomic():
        wallet = wallet_lock(player=method.player)
        method = _lock_method(method)
        if method.status not in PaymentMethod.ACTIVE_STATUSES:
            raise errors.METHOD_NOT_USABLE(state=method.status)
        _set_status(method, MethodStatus.REFUSED, reason, actor, "wallet.method_refused")
        _cancel_open_withdrawals(method, actor, f"payment method refused: {reason}")
        _after_method_lost(wallet, method.player_id)
        return method


def payment_method_cancel(*, method: PaymentMethod, reason: str, actor: Actor) -> PaymentMethod:
    """Staff: a method suspected of misuse is cancelled (GP §5(11)); open withdrawals to it are stopped."""
    if not reason:
        raise errors.METHOD_INVALID(reason="a cancellation needs a reason")
    with transaction.atomic():
        wallet = wallet_lock(player=method.player)
        method = _lock_method(method)
        if method.status not in PaymentMethod.ACTIVE_STATUSES:
            raise errors.METHOD_NOT_USABLE(state=method.status)
        _set_status(method, MethodStatus.CANCELLED, reason, actor, "wallet.method_cancelled")
        _cancel_open_withdrawals(method, actor, f"payment method cancelled: {reason}")
        _after_method_lost(wallet, method.player_id)
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
    max_bytes = int(settings.WALLET_DOCUMENT_MAX_BYTES)
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
        doc = MethodDocument(method=method, original_name=(name or "document")[:200], content_type=ctype,
                             size=len(content), sha256=digest, uploaded_at=clock.now())
        doc.file.save(f"m{method.pk}-{digest[:16]}{ext}", ContentFile(content), save=False)
        doc.save()
        audit_record(actor=actor, action="wallet.method_document_uploaded", obj=doc, method_id=method.pk,
                     content_type=ctype, size=len(content), sha256=digest, player_id=method.player_id)
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
        audit_record(actor=actor, action="wallet.method_document_reviewed", obj=doc, approved=approve, note=note,
                     player_id=doc.method.player_id)
        if approve:
            payment_method_verify(method=doc.method, by=PaymentMethod.VerifiedBy.DOCUMENTS, actor=actor,
                                  evidence=f"document {doc.pk} approved")
        else:
            payment_method_mark_doubtful(method=doc.method, reason=f"document {doc.pk} rejected: {note}", actor=actor)
        return doc
