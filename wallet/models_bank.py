"""Bank transfers (GP §5(6)-(9)): the operator's statements in (camt.053 / camt.054) and its payment orders out
(pain.001); defined apart, loaded with the app's models (``wallet.models`` imports them).

* :class:`BankStatement` - one imported statement file (unique SHA-256), and :class:`BankEntry` - each booked entry
  of it, handled exactly once (unique account + bank reference); an unmatched credit waits in the staff queue.
* :class:`PaymentOrderBatch` - one pain.001 file, and :class:`PaymentOrder` - each payment in it (a withdrawal, a
  payout or the return of an unmatched credit), in exactly one file.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from core.money import Money
from wallet.models import Deposit, Payout, Withdrawal

# Bank transfers: statements in (camt.053 / camt.054), payment orders out (pain.001), GP §5(6)-(9) ---------------------


class BankStatement(models.Model):
    """One imported bank statement file of the operator's account (``WALLET_BANK_IBAN``): a camt.053 end-of-day
    statement or a camt.054 intraday notification. The same file twice is the same row (unique SHA-256); its entries
    are handled once each (:class:`BankEntry`), so a re-import, or a camt.054 followed by the camt.053 that repeats
    its entries, changes nothing."""

    class Kind(models.TextChoices):
        CAMT053 = "camt.053", "camt.053 bank-to-customer statement (end of day)"
        CAMT054 = "camt.054", "camt.054 debit/credit notification (intraday)"

    class Status(models.TextChoices):
        QUEUED = "queued", "stored, waiting to be processed"
        PROCESSED = "processed", "every entry handled"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    schema = models.CharField(max_length=60, help_text="the file's ISO 20022 namespace (message version)")
    message_id = models.CharField(max_length=35, help_text="GrpHdr/MsgId")
    statement_ids = models.JSONField(default=list, help_text="Stmt/Id or Ntfctn/Id of each statement in the file")
    account_iban = models.CharField(max_length=34)
    created_at_bank = models.DateTimeField(null=True, blank=True, help_text="GrpHdr/CreDtTm")
    file = models.FileField(upload_to="wallet/bank-statements/%Y/%m/")
    original_name = models.CharField(max_length=200, blank=True, default="")
    size = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64, unique=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    imported_at = models.DateTimeField()
    imported_by = models.CharField(max_length=160)
    processed_at = models.DateTimeField(null=True, blank=True)
    summary = models.JSONField(default=dict, blank=True, help_text="what the import did, by outcome")

    class Meta:
        permissions = [("import_bank_statement", "Imports the operator's bank statements (camt.053 / camt.054)")]

    def __str__(self) -> str:
        return f"{self.kind} {self.message_id} ({self.account_iban})"


class BankEntry(models.Model):
    """One booked movement of the operator's bank account, handled exactly once: unique on the account and the
    bank's own reference of the entry (``AcctSvcrRef``, else ``NtryRef``; a batch entry adds its transaction's).

    Credits are deposits matched by the variable symbol (GP §5(6): the payer's account must be the registered
    method), or wait in the staff queue (``unmatched``) until staff assign or return them; a credit that returns one
    of our payments (``RtrInf`` / reversal) fails that payment. Debits confirm our payment orders (EndToEndId)."""

    class Direction(models.TextChoices):
        CREDIT = "credit", "credit (CRDT)"
        DEBIT = "debit", "debit (DBIT)"

    class Status(models.TextChoices):
        CONFIRMED = "confirmed", "deposit credited"
        REFUSED = "refused", "deposit refused: paid by another person or not from the registered method (GP §5(6))"
        RETURNED = "returned", "deposit received but not credited: returned to the payer"
        UNMATCHED = "unmatched", "credit not matched: in the staff queue"
        RETURNING = "returning", "unmatched credit: to be returned to the payer (next payment-order file)"
        RETURNED_TO_PAYER = "returned_to_payer", "unmatched credit returned to the payer (debit seen)"
        SETTLED = "settled", "debit confirming one of our payment orders"
        PAYMENT_RETURNED = "payment_returned", "credit returning one of our payment orders (payment failed)"
        OTHER = "other", "a movement the platform does not act on (fees, interest, unknown debits)"
        IGNORED = "ignored", "not in CZK: recorded, not posted"
        REVERSED = "reversed", "debit reversing a credited deposit: taken back from the player (or a debt)"
        REVERSAL_UNMATCHED = "reversal_unmatched", "debit reversing a credit the platform cannot match: staff check"
        INVALID = "invalid", "not bookable (an amount beyond the bookable maximum): recorded, nothing moved"

    QUEUE = (Status.UNMATCHED,)

    statement = models.ForeignKey(BankStatement, on_delete=models.PROTECT, related_name="entries")
    account_iban = models.CharField(max_length=34)
    bank_reference = models.CharField(max_length=120)
    direction = models.CharField(max_length=6, choices=Direction.choices)
    reversal = models.BooleanField(default=False, help_text="RvslInd: the entry reverses an earlier one")
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    booked_on = models.DateField(null=True, blank=True)
    value_on = models.DateField(null=True, blank=True)
    end_to_end_id = models.CharField(max_length=35, blank=True, default="")
    references = models.JSONField(default=list, blank=True, help_text="variable symbols read from the entry")
    remittance = models.CharField(max_length=500, blank=True, default="", help_text="RmtInf as the bank gave it")
    counterparty_name = models.CharField(max_length=140, blank=True, default="")
    counterparty_iban = models.CharField(max_length=34, blank=True, default="")
    counterparty_account = models.CharField(
        max_length=60, blank=True, default="", help_text="the account as the bank gave it (IBAN or other id)"
    )
    counterparty_bic = models.CharField(max_length=11, blank=True, default="")
    return_reason = models.CharField(max_length=140, blank=True, default="", help_text="RtrInf/Rsn, AddtlInf")
    status = models.CharField(max_length=20, choices=Status.choices, db_index=True)
    status_reason = models.CharField(max_length=255, blank=True, default="")
    deposit = models.ForeignKey(Deposit, on_delete=models.PROTECT, null=True, blank=True, related_name="bank_entries")
    payout = models.ForeignKey(
        Payout,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="bank_entries",
        help_text="the return of a refused or returned deposit (paid to this entry's payer)",
    )
    player = models.ForeignKey(
        "accounts.Player", on_delete=models.PROTECT, null=True, blank=True, related_name="bank_entries"
    )
    order = models.ForeignKey(
        "PaymentOrder",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="bank_entries",
        help_text="our payment order this entry settles or returns",
    )
    return_attempts = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=160, blank=True, default="")

    class Meta:
        verbose_name_plural = "bank entries"
        permissions = [("match_bank_credit", "Assigns an unmatched bank credit to a deposit or player, or returns it")]
        constraints = [
            models.UniqueConstraint(fields=["account_iban", "bank_reference"], name="wallet_bank_entry_once"),
            # an invalid line (an amount no posting can hold) is recorded with 0 and its amount in status_reason
            models.CheckConstraint(
                condition=Q(amount__gt=0) | Q(status="invalid", amount=0), name="wallet_bank_entry_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.direction} {self.bank_reference} {Money(self.amount, self.currency)}"

    @property
    def payer(self) -> dict[str, str]:
        """The payer as the bank reports it (GP §5(6), §5(8)a): name and account."""
        return {
            k: v
            for k, v in (
                ("name", self.counterparty_name),
                ("account", self.counterparty_account),
                ("iban", self.counterparty_iban),
            )
            if v
        }


class PaymentOrderBatch(models.Model):
    """One pain.001 payment-order file for the bank: every withdrawal, payout and return made since the last one,
    each in exactly one file."""

    class Status(models.TextChoices):
        EXPORTED = "exported", "exported, waiting for the bank statement"
        SETTLED = "settled", "every order settled or returned"

    message_id = models.CharField(max_length=35, unique=True)
    schema = models.CharField(max_length=60)
    created_at = models.DateTimeField()
    created_by = models.CharField(max_length=160)
    execution_date = models.DateField()
    count = models.PositiveIntegerField()
    control_sum = models.BigIntegerField()
    xml = models.TextField()
    sha256 = models.CharField(max_length=64)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.EXPORTED, db_index=True)
    settled_count = models.PositiveIntegerField(default=0)
    returned_count = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name_plural = "payment order batches"
        permissions = [("export_payment_orders", "Exports withdrawals and returns as a pain.001 payment-order file")]

    def __str__(self) -> str:
        return f"{self.message_id} ({self.count}, {Money(self.control_sum)})"


class PaymentOrder(models.Model):
    """One credit transfer of a :class:`PaymentOrderBatch`: a withdrawal, a payout (one send of it) or the return of
    an unmatched credit. Its ``end_to_end_id`` comes back on the bank statement's debit (settled) or return."""

    class Kind(models.TextChoices):
        WITHDRAWAL = "withdrawal", "withdrawal"
        PAYOUT = "payout", "payout (refund, settlement, returned or refused deposit)"
        CREDIT_RETURN = "credit_return", "return of an unmatched credit"

    class Status(models.TextChoices):
        EXPORTED = "exported", "in a file, waiting for the statement"
        SETTLED = "settled", "debited: paid"
        RETURNED = "returned", "returned by the bank"

    batch = models.ForeignKey(PaymentOrderBatch, on_delete=models.PROTECT, related_name="orders")
    kind = models.CharField(max_length=14, choices=Kind.choices)
    end_to_end_id = models.CharField(max_length=35, unique=True, null=True, blank=True)
    withdrawal = models.OneToOneField(
        Withdrawal, on_delete=models.PROTECT, null=True, blank=True, related_name="payment_order"
    )
    payout = models.ForeignKey(Payout, on_delete=models.PROTECT, null=True, blank=True, related_name="payment_orders")
    payout_attempt = models.PositiveSmallIntegerField(null=True, blank=True)
    credit = models.ForeignKey(BankEntry, on_delete=models.PROTECT, null=True, blank=True, related_name="return_orders")
    credit_attempt = models.PositiveSmallIntegerField(null=True, blank=True)
    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="CZK")
    creditor_name = models.CharField(max_length=70)
    creditor_iban = models.CharField(max_length=34, blank=True, default="")
    creditor_account = models.CharField(max_length=34, blank=True, default="", help_text="when there is no IBAN")
    creditor_bic = models.CharField(max_length=11, blank=True, default="")
    remittance = models.CharField(max_length=140, blank=True, default="")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.EXPORTED, db_index=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="wallet_payment_order_positive"),
            models.UniqueConstraint(
                fields=["payout", "payout_attempt"],
                condition=Q(payout__isnull=False),
                name="wallet_payment_order_payout_send_once",
            ),
            models.UniqueConstraint(
                fields=["credit", "credit_attempt"],
                condition=Q(credit__isnull=False),
                name="wallet_payment_order_credit_return_once",
            ),
            models.CheckConstraint(
                condition=(
                    Q(kind="withdrawal", withdrawal__isnull=False, payout__isnull=True, credit__isnull=True)
                    | Q(kind="payout", withdrawal__isnull=True, payout__isnull=False, credit__isnull=True)
                    | Q(kind="credit_return", withdrawal__isnull=True, payout__isnull=True, credit__isnull=False)
                ),
                name="wallet_payment_order_one_subject",
            ),
            models.CheckConstraint(
                condition=~Q(creditor_iban="", creditor_account=""), name="wallet_payment_order_has_account"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.end_to_end_id} {Money(self.amount, self.currency)}"
