"""Money: an exact double-entry ledger in integer minor units, and the workflows around it.

* :class:`Wallet` - one per player; the row every money and limit decision of that player locks
  (``wallet.services.wallet_lock``).
* :class:`LedgerAccount` - player accounts (temporary, full, held) and operator accounts (house, jackpot,
  fees, refunds payable, adjustments, branch cash, provider clearing). Player accounts keep their balance on
  the row (updated under the wallet lock); operator accounts do not (their balance is the sum of entries),
  so no operator row serialises the spins of all players. ``manage.py ledger_check`` proves the rows right.
* :class:`LedgerTransaction` + :class:`Entry` - append-only; the entries of a transaction sum to zero
  (deferred constraint trigger, migration 0002); a player account never goes below zero except by its
  recorded debt (CHECK ``balance + debt >= 0``).
* Payment methods (GP §5(6)-(11)) with ownership verification and documents; deposits and withdrawals with
  their provider events (unique ``(provider, provider_txn_id)``); payouts of refunds and closures
  (GP §5(2)e, §5(13), §5(15)); branch cash (GP §5(12)); win holds (GP §10(3)); win deductions and debts
  (GP §7(7), §10(4)).

Sign convention: an entry's ``amount`` is credit-positive from the operator's books: money the operator owes
a player is a positive player balance; asset accounts (provider clearing, branch cash) show a negative balance
while they hold money.
"""

from __future__ import annotations

from datetime import datetime

from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy

from core.masking import mask
from core.money import Money


class Wallet(models.Model):
    """The player's wallet: the lock row, the account mode and the flags of the money workflows."""

    class Mode(models.TextChoices):
        TEMPORARY = "temporary", "temporary account (GP §5(1)-(2))"
        FULL = "full", "player account"

    player = models.OneToOneField("accounts.Player", on_delete=models.PROTECT, related_name="wallet")
    mode = models.CharField(max_length=10, choices=Mode.choices, default=Mode.TEMPORARY)
    created_at = models.DateTimeField()
    converted_at = models.DateTimeField(null=True, blank=True)
    # GP §5(11): the last registered method was refused or cancelled at this instant (None = not missing).
    method_missing_since = models.DateTimeField(null=True, blank=True)
    # GP §7(7): an unpaid debt is flagged for staff (who may cancel the account).
    debt_flagged_at = models.DateTimeField(null=True, blank=True)
    # GP §5(11): a full account still without a registered method 30 days after losing its last one is flagged
    # for staff (deposits are refused from the deadline on; stakes stay allowed, docs/wallet.md).
    method_term_flagged_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"wallet of player {self.player_id} ({self.mode})"


class LedgerAccount(models.Model):
    class Kind(models.TextChoices):
        # player accounts (balance kept on the row)
        PLAYER_TEMPORARY = "player_temporary", "player: temporary account"
        PLAYER_MAIN = "player_main", "player: player account"
        PLAYER_HELD = "player_held", "player: held funds (pending withdrawals, win holds)"
        # operator accounts (balance = sum of entries)
        HOUSE = "house", "operator: house / games"
        JACKPOT = "jackpot", "operator: jackpot liabilities"
        FEES = "fees", "operator: fees"
        REFUNDS_PAYABLE = "refunds_payable", "operator: refunds and payouts owed outside player accounts"
        ADJUSTMENTS = "adjustments", "operator: corrections and complaint remedies"
        BRANCH_CASH = "branch_cash", "operator: cash at branches"
        CLEARING = "clearing", "operator: payment-provider clearing"
        BANK_UNMATCHED = "bank_unmatched", "operator: bank credits not matched to a deposit (the staff queue)"

    PLAYER_KINDS = (Kind.PLAYER_TEMPORARY, Kind.PLAYER_MAIN, Kind.PLAYER_HELD)

    code = models.CharField(max_length=80, unique=True)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    player = models.ForeignKey(
        "accounts.Player", on_delete=models.PROTECT, null=True, blank=True, related_name="ledger_accounts"
    )
    currency = models.CharField(max_length=3, default="CZK")
    tracks_balance = models.BooleanField(default=False)
    balance = models.BigIntegerField(default=0)
    debt = models.BigIntegerField(default=0, help_text="recorded debt (GP §7(7)): the balance may go this far below 0")
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(debt__gte=0), name="wallet_account_debt_not_negative"),
            # GP §7(7): a player balance is below zero only by a recorded debt.
            models.CheckConstraint(
                condition=Q(player__isnull=True) | Q(balance__gte=-models.F("debt")),
                name="wallet_account_player_balance_covered",
            ),
            models.CheckConstraint(
                condition=Q(player__isnull=True, tracks_balance=False) | Q(player__isnull=False, tracks_balance=True),
                name="wallet_account_player_rows_track_balance",
            ),
            models.UniqueConstraint(
                fields=["player", "kind"], condition=Q(player__isnull=False), name="wallet_account_one_per_player_kind"
            ),
        ]

    def __str__(self) -> str:
        return self.code

    @property
    def money(self) -> Money:
        return Money(self.balance, self.currency)


class LedgerTransaction(models.Model):
    """One balanced posting. Idempotent on ``(kind, reference)``."""

    class Kind(models.TextChoices):
        DEPOSIT = "deposit", "deposit"
        DEPOSIT_RETURN = "deposit_return", "deposit returned (not credited)"
        DEPOSIT_REVERSAL = "deposit_reversal", "credited deposit reversed by the bank: taken back"
        WITHDRAWAL_HOLD = "withdrawal_hold", "withdrawal requested (funds held)"
        WITHDRAWAL_RELEASE = "withdrawal_release", "withdrawal cancelled/failed (funds released)"
        WITHDRAWAL_SEND = "withdrawal_send", "withdrawal sent"
        WITHDRAWAL_RETURN = "withdrawal_return", "withdrawal returned by the provider"
        STAKE = "stake", "stake"
        WIN = "win", "win"
        WIN_HOLD = "win_hold", "win held (GP §10(3))"
        WIN_RELEASE = "win_release", "held win released"
        WIN_FORFEIT = "win_forfeit", "held win forfeited"
        WIN_DEDUCTION = "win_deduction", "win credited in error deducted (GP §7(7), §10(4))"
        REFUND = "refund", "stake refund"
        FEE = "fee", "fee (GP §8(6))"
        ADJUSTMENT = "adjustment", "correction / complaint remedy"
        CONVERSION = "conversion", "temporary -> player account (GP §5(2)d, §5(5))"
        PAYOUT_START = "payout_start", "balance moved to a payout (refund, closure)"
        PAYOUT_SEND = "payout_send", "payout sent to a payment method"
        PAYOUT_RETURN = "payout_return", "payout returned by the provider"
        PAYOUT_CASH = "payout_cash", "payout collected in cash at a branch"
        PAYOUT_POST = "payout_post", "payout sent by post (postage deducted)"
        BRANCH_CASH_IN = "branch_cash_in", "cash deposit at a branch"
        BRANCH_CASH_OUT = "branch_cash_out", "cash withdrawal at a branch"
        OPERATOR = "operator", "operator-internal transfer"
        BANK_UNMATCHED = "bank_unmatched", "bank credit not matched: held for staff"
        BANK_UNMATCHED_OUT = "bank_unmatched_out", "unmatched bank credit assigned by staff or returned"

    kind = models.CharField(max_length=24, choices=Kind.choices)
    reference = models.CharField(max_length=160)
    # no index of its own: the index (player, created_at) leads with it (one index fewer to write per posting)
    player = models.ForeignKey(
        "accounts.Player",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="ledger_transactions",
        db_index=False,
    )
    amount = models.BigIntegerField(help_text="the headline amount (minor units), for statements")
    currency = models.CharField(max_length=3, default="CZK")
    memo = models.CharField(max_length=255, blank=True, default="")
    created_at = models.DateTimeField(db_index=True)
    actor_label = models.CharField(max_length=160, blank=True, default="")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["kind", "reference"], name="wallet_txn_unique_kind_reference")]
        indexes = [
            models.Index(fields=["player", "created_at"]),
            # lookups by (kind, reference): on the partitioned table the unique constraint lives in a claim
            # table (core.partitioning), so the table itself needs this plain index
            models.Index(fields=["kind", "reference"], name="wallet_txn_kind_reference"),
        ]

    def __str__(self) -> str:
        return f"{self.kind}:{self.reference}"

    @property
    def money(self) -> Money:
        return Money(self.amount, self.currency)


class Entry(models.Model):
    """One leg of a transaction; append-only (a trigger refuses UPDATE and DELETE)."""

    # the database's key is declared per month (wallet/partitions.py: each month of entries references the same
    # month of transactions, a check that reads one month; migration 0017), not on the partitioned tables
    transaction = models.ForeignKey(
        LedgerTransaction, on_delete=models.PROTECT, related_name="entries", db_constraint=False
    )
    # no index of its own: the index (account, created_at) leads with it (one index fewer to write per entry)
    account = models.ForeignKey(LedgerAccount, on_delete=models.PROTECT, related_name="entries", db_index=False)
    amount = models.BigIntegerField()
    balance_after = models.BigIntegerField(null=True, blank=True, help_text="for accounts that track a balance")
    created_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "entries"
        indexes = [models.Index(fields=["account", "created_at"])]
        constraints = [models.CheckConstraint(condition=~Q(amount=0), name="wallet_entry_not_zero")]


# Payment methods ----------------------------------------------------------------------------------


def mask_identifier(pk: int | None, identifier: str) -> str:
    """``#<id> ****<last 4 of the number>`` (a Czech account's bank code kept: ``#7 ****6789/0800``); a value masked
    already is returned as it is. Unique per method (the id), so the "in use once" constraint holds."""
    if identifier.startswith("#"):
        return identifier
    number, sep, bank = identifier.rpartition("/")
    if not sep:
        number, bank = identifier, ""
    tail = number[-4:] if len(number) > 4 else ""
    return f"#{pk} ****{tail}{sep}{bank}"


class PaymentMethod(models.Model):
    """A player's payment method (GP §5(6)-(11)); ownership verified by first payment or documents."""

    class Kind(models.TextChoices):
        BANK_ACCOUNT = "bank_account", "bank account (at a bank seated in CZ, GP §5(7))"
        CARD = "card", "payment card"
        SKRILL = "skrill", "Skrill"
        PAYU = "payu", "PayU"
        PAYSAFECARD = "paysafecard", "paysafecard"

    class Status(models.TextChoices):
        PENDING = "pending", "registered, ownership not verified"
        VERIFIED = "verified", "verified (registered payment method, GP §5(10))"
        DOUBTFUL = "doubtful", "ownership doubtful: documents requested"
        REFUSED = "refused", "refused (ownership not proven, GP §5(11))"
        CANCELLED = "cancelled", "cancelled (suspected misuse, GP §5(11))"
        REMOVED = "removed", "removed by the player"

    ACTIVE_STATUSES = (Status.PENDING, Status.VERIFIED, Status.DOUBTFUL)

    class VerifiedBy(models.TextChoices):
        FIRST_PAYMENT = "first_payment", "first payment (GP §5(8)a)"
        DOCUMENTS = "documents", "documents (GP §5(8)b)"
        STAFF = "staff", "staff decision after a refused deposit (GP §5(6), §5(8)b)"

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="payment_methods")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    identifier = models.CharField(max_length=64, help_text="normalised: account number, IBAN, masked card, e-wallet id")
    bank_code = models.CharField(max_length=4, blank=True, default="")
    iban = models.CharField(max_length=34, blank=True, default="")
    holder_name = models.CharField(max_length=200, blank=True, default="")
    card_token = models.CharField(max_length=128, blank=True, default="", help_text="provider token only")
    card_masked = models.CharField(max_length=19, blank=True, default="")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    verified_by = models.CharField(max_length=16, choices=VerifiedBy.choices, blank=True, default="")
    verified_at = models.DateTimeField(null=True, blank=True)
    verify_by = models.DateTimeField(null=True, blank=True, help_text="GP §5(9)/(11) deadline for verification")
    status_reason = models.CharField(max_length=255, blank=True, default="")
    status_changed_at = models.DateTimeField(null=True, blank=True)
    # GP §5(6): a deposit paid by another person was refused; no deposit from this method until staff decide
    # (``payment_method_owner_confirm`` or ``payment_method_refuse``).
    deposits_blocked_at = models.DateTimeField(null=True, blank=True, db_index=True)
    deposits_blocked_reason = models.CharField(max_length=255, blank=True, default="")
    accepted_payers = models.JSONField(
        default=list, blank=True, help_text="payer names staff confirmed as the player's own (folded name keys)"
    )
    created_at = models.DateTimeField()

    class Meta:
        permissions = [
            ("review_method_document", "Reviews payment-method ownership documents (GP §5(8)b)"),
            ("decide_payment_method", "Confirms, refuses or cancels a payment method (GP §5(6), §5(11))"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "identifier"],
                condition=Q(status__in=["pending", "verified", "doubtful"]),
                name="wallet_method_identifier_in_use_once",
            ),
        ]

    def __str__(self) -> str:
        """Masked: the method's name appears in lists, titles and links that every staff role reads; the account
        number itself is a field only the roles that may see it read unmasked (core.admin.PlatformAdminMixin)."""
        return f"{self.get_kind_display()} {mask(self.display)}"

    @property
    def display(self) -> str:
        return self.card_masked or self.identifier

    @property
    def masked(self) -> str:
        """The method without its full number (the ledger memo, the export of an erased method): kind + last 4."""
        return self.card_masked or mask_identifier(self.pk, self.identifier)

    @property
    def usable(self) -> bool:
        return self.status in self.ACTIVE_STATUSES


class MethodDocument(models.Model):
    """A document proving ownership of a method (GP §5(8)b), reviewed by staff."""

    class Status(models.TextChoices):
        PENDING = "pending", "waiting for review"
        APPROVED = "approved", "approved"
        REJECTED = "rejected", "rejected"

    method = models.ForeignKey(PaymentMethod, on_delete=models.PROTECT, related_name="documents")
    file = models.FileField(upload_to="wallet/method-documents/%Y/%m/")
    original_name = models.CharField(max_length=200)
    content_type = models.CharField(max_length=60)
    size = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING, db_index=True)
    uploaded_at = models.DateTimeField()
    reviewed_at = models.DateTimeField(null=True, blank=True)
    reviewed_by = models.CharField(max_length=150, blank=True, default="")
    review_note = models.CharField(max_length=255, blank=True, default="")


# Deposits, withdrawals, provider events ---------------------------------------------------------------


class Deposit(models.Model):
    class Status(models.TextChoices):
        INITIATED = "initiated", "waiting for the provider"
        CONFIRMED = "confirmed", "confirmed and credited"
        FAILED = "failed", "failed at the provider"
        EXPIRED = "expired", "expired (no confirmation in time)"
        RETURNED = "returned", "received but returned (not credited)"
        REFUSED = "refused", "paid by another person: refused, returned to its source (GP §5(6))"
        REVERSED = "reversed", "credited, then reversed by the bank: taken back from the player"

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="deposits")
    method = models.ForeignKey(PaymentMethod, on_delete=models.PROTECT, related_name="deposits")
    provider = models.CharField(max_length=30)
    amount = models.BigIntegerField(help_text="gross amount paid by the player")
    fee = models.BigIntegerField(default=0)
    currency = models.CharField(max_length=3, default="CZK")
    into_temporary = models.BooleanField(help_text="made into a temporary account (counts to its cap, GP §5(2)b)")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.INITIATED, db_index=True)
    payment_reference = models.CharField(max_length=40, unique=True)
    provider_payment_id = models.CharField(max_length=80, blank=True, default="")
    redirect_url = models.CharField(max_length=300, blank=True, default="")
    instructions = models.JSONField(default=dict, blank=True, help_text="payment instructions (bank transfer)")
    idempotency_reference = models.CharField(max_length=160, unique=True)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    status_reason = models.CharField(max_length=255, blank=True, default="")
    payer = models.JSONField(null=True, blank=True, help_text="the payer the provider reported (GP §5(6), §5(8)a)")
    transaction = models.ForeignKey(
        LedgerTransaction, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0) & Q(fee__gte=0), name="wallet_deposit_amounts")]


class Withdrawal(models.Model):
    """Requested -> approved -> sending -> sent -> confirmed; or rejected/cancelled/failed/returned."""

    class Status(models.TextChoices):
        REQUESTED = "requested", "requested (waiting for staff approval)"
        APPROVED = "approved", "approved (to be sent)"
        SENDING = "sending", "being sent to the provider"
        SENT = "sent", "sent"
        CONFIRMED = "confirmed", "confirmed by the provider"
        REJECTED = "rejected", "rejected by staff"
        CANCELLED = "cancelled", "cancelled by the player"
        FAILED = "failed", "refused by the provider"
        RETURNED = "returned", "returned by the provider"

    OPEN = (Status.REQUESTED, Status.APPROVED, Status.SENDING)

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="withdrawals")
    method = models.ForeignKey(PaymentMethod, on_delete=models.PROTECT, related_name="withdrawals")
    provider = models.CharField(max_length=30)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="CZK")
    status = models.CharField(max_length=10, choices=Status.choices, db_index=True)
    needs_approval = models.BooleanField(default=False)
    approval_reasons = models.JSONField(default=list, blank=True)
    reference = models.CharField(max_length=160, unique=True)
    provider_payout_id = models.CharField(max_length=80, blank=True, default="")
    requested_at = models.DateTimeField()
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=150, blank=True, default="")
    sending_since = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    status_reason = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        permissions = [
            ("approve_withdrawal", "Approves or rejects withdrawals"),
        ]
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="wallet_withdrawal_positive")]

    @property
    def send_reference(self) -> str:
        """Our reference at the provider (sent once: a withdrawal is never sent again)."""
        return self.reference

    AMOUNT_AT_OR_ABOVE_THRESHOLD = "amount_at_or_above_threshold"
    WIN_HELD_UNDER_DOUBT = "win_held_under_doubt"
    #: why a withdrawal waits for finance (``approval_reasons`` stores the codes, as records do; staff read these)
    APPROVAL_REASON_LABELS = {
        AMOUNT_AT_OR_ABOVE_THRESHOLD: gettext_lazy("the amount is at or above the approval threshold"),
        WIN_HELD_UNDER_DOUBT: gettext_lazy("a win is held under doubt"),
    }

    @property
    def approval_reasons_text(self) -> str:
        """The reasons in the reader's language ("" when none); a code without a label is shown as it is."""
        return ", ".join(str(self.APPROVAL_REASON_LABELS.get(r, r)) for r in self.approval_reasons or [])


class ProviderEvent(models.Model):
    """A provider callback, handled exactly once (unique ``(provider, provider_txn_id)``)."""

    provider = models.CharField(max_length=30)
    provider_txn_id = models.CharField(max_length=120)
    event_type = models.CharField(max_length=40)
    # whose deposit, withdrawal or payout the event is about (None: an unknown reference); its raw body holds the
    # payer's data, so it is anonymised with the player's payments (wallet/privacy.py)
    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    raw_body = models.TextField()
    received_at = models.DateTimeField()
    result = models.CharField(max_length=40)
    detail = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["provider", "provider_txn_id"], name="wallet_provider_event_once")
        ]


# Payouts outside the player account: refunds (GP §5(2)e), misuse (GP §5(13)), closure (GP §5(15)) ----------


class Payout(models.Model):
    """Money owed to a person outside the player account, paid by method, branch cash or post.

    Steps (each with its timestamp): pending -> sending -> sent -> completed (method);
    invited -> collected (branch) or -> posted (post, postage deducted) -> completed.
    Deadlines are row fields the sweeper acts on.
    """

    class Kind(models.TextChoices):
        TEMPORARY_REFUND = "temporary_refund", "unused deposit of a cancelled temporary account (GP §5(2)e)"
        MISUSE = "misuse", "balance of an account closed for misuse (GP §5(13))"
        CLOSURE = "closure", "balance at account cancellation (GP §5(15))"
        DEPOSIT_RETURN = "deposit_return", "deposit received but not credited"
        DEPOSIT_REFUSED = "deposit_refused", "deposit paid by another person, returned to its source only (GP §5(6))"

    # Money of another person: it goes back to where it came from, never to the player (no branch, no post).
    SOURCE_ONLY_KINDS = (Kind.DEPOSIT_REFUSED,)

    class Status(models.TextChoices):
        PENDING = "pending", "to be sent to the payment method"
        SENDING = "sending", "being sent"
        SENT = "sent", "sent, waiting for the provider"
        INVITED = "invited", "invited to collect at a branch"
        STOPPED = "stopped", "the source did not take the money back: waiting for staff"
        COMPLETED = "completed", "completed"

    class Channel(models.TextChoices):
        METHOD = "method", "payment method"
        BRANCH = "branch", "cash at a branch"
        POST = "post", "by post"

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="payouts")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    reference = models.CharField(max_length=160, unique=True)
    amount = models.BigIntegerField(help_text="owed when the payout started")
    paid = models.BigIntegerField(default=0, help_text="paid so far (cash collections, transfer, post net)")
    postage = models.BigIntegerField(default=0)
    currency = models.CharField(max_length=3, default="CZK")
    method = models.ForeignKey(PaymentMethod, on_delete=models.PROTECT, null=True, blank=True, related_name="payouts")
    channel = models.CharField(max_length=10, choices=Channel.choices)
    status = models.CharField(max_length=10, choices=Status.choices, db_index=True)
    provider = models.CharField(max_length=30, blank=True, default="")
    provider_payout_id = models.CharField(max_length=80, blank=True, default="")
    started_at = models.DateTimeField()
    due_at = models.DateTimeField(null=True, blank=True, help_text="the legal term for the payout as a whole")
    collect_by = models.DateTimeField(null=True, blank=True, help_text="end of the branch collection term")
    next_action_at = models.DateTimeField(null=True, blank=True, db_index=True)
    sending_since = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    invited_at = models.DateTimeField(null=True, blank=True)
    posted_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    attempt = models.PositiveSmallIntegerField(default=0, help_text="sends after a stop (staff: send again)")
    history = models.JSONField(default=list, blank=True)

    class Meta:
        permissions = [
            ("resend_payout", "Sends a stopped payout again"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount__gte=0) & Q(paid__gte=0) & Q(postage__gte=0) & Q(paid__lte=models.F("amount")),
                name="wallet_payout_amounts",
            ),
            # GP §5(6): another person's money goes back to its source only, never in cash or by post.
            models.CheckConstraint(
                condition=~Q(kind="deposit_refused") | Q(channel="method"), name="wallet_payout_source_only"
            ),
        ]

    @property
    def outstanding(self) -> int:
        return self.amount - self.paid - self.postage

    @property
    def send_reference(self) -> str:
        """Our reference at the provider (it de-duplicates on it): each send again after a stop is a new one."""
        return self.reference if self.attempt == 0 else f"{self.reference}/a{self.attempt}"


class BranchCash(models.Model):
    """Cash paid in or out at a branch, recorded by staff (GP §5(12): 5,000 CZK per rolling 24 h each way)."""

    class Direction(models.TextChoices):
        IN = "in", "deposit"
        OUT = "out", "withdrawal / collection"

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="branch_cash")
    direction = models.CharField(max_length=3, choices=Direction.choices)
    amount = models.BigIntegerField()
    branch = models.CharField(max_length=100, blank=True, default="")
    reference = models.CharField(max_length=160, unique=True)
    at = models.DateTimeField(db_index=True)
    staff = models.CharField(max_length=150)
    payout = models.ForeignKey(Payout, on_delete=models.PROTECT, null=True, blank=True, related_name="cash")
    transaction = models.ForeignKey(LedgerTransaction, on_delete=models.PROTECT, related_name="+")

    class Meta:
        permissions = [
            ("record_branch_cash", "Records cash paid in or out at a branch (GP §5(12))"),
        ]
        verbose_name_plural = "branch cash"
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="wallet_branch_cash_positive")]


# Holds, deductions, debts ---------------------------------------------------------------------------


class WinHold(models.Model):
    """A win held under doubt (GP §10(3)): regularity at most 60 days, AML for the AML-law period."""

    class Reason(models.TextChoices):
        REGULARITY = "regularity", "doubt about the bet's regularity (max 60 days)"
        AML = "aml", "suspicious transaction under the AML law"

    class Status(models.TextChoices):
        HELD = "held", "held"
        RELEASED = "released", "released to the player"
        FORFEITED = "forfeited", "forfeited (bet irregular)"
        ESCALATED = "escalated", "due; waiting for a compliance decision"

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="win_holds")
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="CZK")
    reference = models.CharField(max_length=160, unique=True)
    reason = models.CharField(max_length=12, choices=Reason.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.HELD, db_index=True)
    held_at = models.DateTimeField()
    release_due_at = models.DateTimeField(db_index=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.CharField(max_length=150, blank=True, default="")
    note = models.CharField(max_length=255, blank=True, default="")
    # the posting that moved the money into the held account: ``house|jackpot -> held`` for a win held when
    # credited (``win_credit(hold_reason=...)``), ``live -> held`` for a win held after it was credited
    transaction = models.ForeignKey(LedgerTransaction, on_delete=models.PROTECT, related_name="+")
    # the credited win a hold placed afterwards (``win_hold_place``) holds: its credit time starts the 60-day term
    # (GP §10(3)) and its operator account takes a forfeited hold back; None for a win held when credited
    win_transaction = models.ForeignKey(
        LedgerTransaction, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        permissions = [
            ("decide_win_hold", "Releases or forfeits held wins (GP §10(3))"),
            ("deduct_win", "Deducts a win credited in error (GP §7(7), §10(4))"),
        ]
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="wallet_winhold_positive")]

    @property
    def credited_at(self) -> datetime:
        """When the held win was credited (the start of GP §10(3)'s 60-day payout term)."""
        return self.win_transaction.created_at if self.win_transaction is not None else self.held_at


class WinDeduction(models.Model):
    """A win credited in error, deducted with a recorded notice (GP §7(7), §10(4))."""

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="win_deductions")
    amount = models.BigIntegerField()
    reference = models.CharField(max_length=160, unique=True)
    reason = models.CharField(max_length=255)
    notice_text = models.TextField()
    # the notice is an ``accounts.Message`` (reference ``wallet.deduction:<id>``): in the inbox at ``notice_sent_at``
    # (the message's creation) and e-mailed after commit, each delivery recorded (``accounts.Delivery``)
    notice_sent_at = models.DateTimeField()
    notice_channel = models.CharField(max_length=30, default="inbox+email")
    created_by = models.CharField(max_length=150)
    transaction = models.ForeignKey(LedgerTransaction, on_delete=models.PROTECT, related_name="+")


class Debt(models.Model):
    """A negative balance after a deduction: payable within 10 days (GP §7(7))."""

    class Status(models.TextChoices):
        OPEN = "open", "open"
        OVERDUE = "overdue", "overdue: flagged for staff"
        PAID = "paid", "paid"

    player = models.ForeignKey("accounts.Player", on_delete=models.PROTECT, related_name="debts")
    account = models.ForeignKey(LedgerAccount, on_delete=models.PROTECT, related_name="debts")
    deduction = models.OneToOneField(WinDeduction, on_delete=models.PROTECT, related_name="debt", null=True, blank=True)
    # or the bank's reversal of a credited deposit that the balance could not cover (BankEntry.Status.REVERSED)
    bank_entry = models.OneToOneField(
        "wallet.BankEntry", on_delete=models.PROTECT, related_name="debt", null=True, blank=True
    )
    amount = models.BigIntegerField()
    outstanding = models.BigIntegerField()
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN, db_index=True)
    created_at = models.DateTimeField()
    due_at = models.DateTimeField(db_index=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    flagged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(outstanding__gte=0) & Q(outstanding__lte=models.F("amount")),
                name="wallet_debt_outstanding_range",
            )
        ]


# the bank transfers' statements and payment orders, and the archived months' totals (core.partitions_archive):
# defined apart, loaded with the app's models
from wallet.models_bank import BankEntry as BankEntry  # noqa: E402
from wallet.models_bank import BankStatement as BankStatement  # noqa: E402
from wallet.models_bank import PaymentOrder as PaymentOrder  # noqa: E402
from wallet.models_bank import PaymentOrderBatch as PaymentOrderBatch  # noqa: E402
from wallet.models_carried import ArchivedLedgerMonth, CarriedEntries  # noqa: E402, F401
