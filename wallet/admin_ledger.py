"""Staff screens of the ledger (read-only): the accounts and the transactions with their entries. Registered from
``wallet/admin.py``. A page of either list runs the same few statements whatever its rows
(tests/test_admin_list_queries.py): the player and their user are joined (``core.admin.list_joins``), and the
operator accounts' balances (the sum of their entries, as ``wallet.ledger.account_sum``) are read for the whole
page at once."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Sum
from django.db.models.query import QuerySet
from django.http import HttpRequest

from core.admin import LargeTableAdmin, ReadOnlyAdmin, ReadOnlyInline
from wallet.admin import AmountColumn, money_text
from wallet.archived_totals import carried_by_account
from wallet.ledger import account_sum
from wallet.models import Entry, LedgerAccount, LedgerTransaction


def account_sums(account_ids: list[int]) -> dict[int, int]:
    """{account id: the sum of its entries, the archived months' carried totals plus the live entries} for
    ``account_ids`` in two statements (``account_sum`` for several accounts; an account without entries is 0)."""
    if not account_ids:
        return {}
    live = Entry.objects.filter(account_id__in=account_ids).values("account_id").annotate(s=Sum("amount")).order_by()
    sums = dict.fromkeys(account_ids, 0)
    for row in live:
        sums[row["account_id"]] += int(row["s"] or 0)
    for account_id, carried in carried_by_account(account_ids).items():
        sums[account_id] += carried
    return sums


@admin.register(LedgerAccount)
class LedgerAccountAdmin(ReadOnlyAdmin):
    list_display = ("code", "kind", "player", "shown_balance", "shown_debt")
    list_filter = ("kind",)
    search_fields = ("code", "player__user__username")

    def prepare_page(self, request: HttpRequest, rows: QuerySet[LedgerAccount]) -> None:
        """The sums of the page's accounts that keep no balance on their row (the operator's), in two statements."""
        summed = [a for a in rows if not a.tracks_balance]
        sums = account_sums([a.pk for a in summed])
        for account in summed:
            account.page_sum = sums[account.pk]  # type: ignore[attr-defined]  # read by shown_balance

    @admin.display(description="balance")
    def shown_balance(self, obj: LedgerAccount) -> str:
        if obj.tracks_balance:
            return money_text(obj.balance)
        summed = getattr(obj, "page_sum", None)  # the list's page read it (prepare_page); a record's page reads it now
        return money_text(account_sum(obj.pk) if summed is None else summed)

    @admin.display(description="debt")
    def shown_debt(self, obj: LedgerAccount) -> str:
        return money_text(obj.debt)


class EntryInline(ReadOnlyInline):
    model = Entry
    fields = ("account", "shown_amount", "shown_balance_after", "created_at")
    readonly_fields = fields

    @admin.display(description="amount")
    def shown_amount(self, obj: Entry) -> str:
        return money_text(obj.amount)

    @admin.display(description="balance after")
    def shown_balance_after(self, obj: Entry) -> str:
        return "-" if obj.balance_after is None else money_text(obj.balance_after)


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(AmountColumn, LargeTableAdmin):
    list_display = ("created_at", "kind", "reference", "player", "shown_amount", "actor_label", "memo")
    masked_text_fields = ("memo",)
    list_filter = ("kind",)
    search_fields = ("reference", "player__user__username", "memo")
    date_hierarchy = "created_at"
    inlines = [EntryInline]
