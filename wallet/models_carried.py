"""The ledger's months archived by ``core.partitions_archive`` and their totals carried forward (docs/scaling.md
"Retention"), written by ``wallet.archived_totals`` in the transaction that detaches the month.

* :class:`CarriedEntries` - one account's entries of one archived month of ``wallet_entry``: their sum and count.
  An account's balance from its entries is the sum of these rows plus its live entries (``wallet.ledger.
  account_sum``, ``ledger_check``), so archiving a month changes no balance.
* :class:`ArchivedLedgerMonth` - each archived month of ``wallet_entry`` and of ``wallet_ledgertransaction``
  (even an empty one), with its id range and row count: ``ledger_check`` does not ask a live transaction of a month
  whose entries are archived for live entries.

Both are written once per month (a unique key on the month) and never changed.
"""

from __future__ import annotations

from django.db import models


class CarriedEntries(models.Model):
    account = models.ForeignKey("wallet.LedgerAccount", on_delete=models.PROTECT, related_name="+")
    month = models.DateField(help_text="the archived month (UTC), its first day")
    ids_from = models.BigIntegerField(help_text="the month's ids: [ids_from, ids_to)")
    ids_to = models.BigIntegerField()
    amount = models.BigIntegerField(help_text="the sum of the account's entries of the month (minor units)")
    entries = models.BigIntegerField(help_text="how many entries")
    archived_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "carried entries"
        constraints = [models.UniqueConstraint(fields=["account", "month"], name="wallet_carried_account_month")]

    def __str__(self) -> str:
        return f"account {self.account_id} {self.month:%Y-%m}: {self.amount} ({self.entries} entries)"


class ArchivedLedgerMonth(models.Model):
    class Table(models.TextChoices):
        ENTRIES = "wallet_entry", "entries"
        TRANSACTIONS = "wallet_ledgertransaction", "transactions"

    table_name = models.CharField(max_length=32, choices=Table.choices)
    month = models.DateField(help_text="the archived month (UTC), its first day")
    ids_from = models.BigIntegerField(help_text="the month's ids: [ids_from, ids_to)")
    ids_to = models.BigIntegerField()
    row_count = models.BigIntegerField(help_text="the rows archived")
    archived_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["table_name", "month"], name="wallet_archived_table_month")]

    def __str__(self) -> str:
        return f"{self.table_name} {self.month:%Y-%m} ({self.row_count} rows)"
