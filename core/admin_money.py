"""Money in the back office: the fields that hold haléře (integer minor units), shown to staff in Kč with two
decimals ("5,50 Kč"), a play-money record's in points, wherever the admin shows them read-only: list columns,
read-only record pages and read-only fields (``PlatformAdminMixin``). Editable money inputs have their own Kč
form fields in their admins. Micro-haléře (the jackpots' folded pots) are shown by the jackpots' admin itself."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.contrib import admin
from django.db import models

from core.money import Money, points_text

#: haléře fields by model (``app_label.model_name``)
MONEY_FIELDS: dict[str, frozenset[str]] = {
    label: frozenset(names)
    for label, names in {
        "accounts.termsversion": ("min_stake", "stake_step"),
        "wallet.ledgeraccount": ("balance", "debt"),
        "wallet.ledgertransaction": ("amount",),
        "wallet.deposit": ("amount", "fee"),
        "wallet.withdrawal": ("amount",),
        "wallet.payout": ("amount", "paid", "postage"),
        "wallet.branchcash": ("amount",),
        "wallet.winhold": ("amount",),
        "wallet.windeduction": ("amount",),
        "wallet.debt": ("amount", "outstanding"),
        "wallet.bankentry": ("amount",),
        "wallet.paymentorderbatch": ("control_sum",),
        "limits.stakerefusal": ("stake",),
        "limits.settledbet": ("stake", "win"),
        "limits.periodtotal": ("stakes_placed", "stakes_decided", "wins_decided"),
        "limits.openbet": ("stake",),
        "games.game": ("min_bet", "max_bet", "max_win", "avg_hourly_loss"),
        "games.round": ("stake", "win_engine", "win", "jackpot_win", "balance_before", "balance_after"),
        "jackpots.jackpot": ("reset_value", "win_from", "win_to", "ledger_balance", "seeded", "awarded", "returned"),
        "jackpots.award": ("amount", "paid", "returned", "pool_value"),
        "jackpots.fold": ("posted",),
        "jackpots.contribution": ("basis_amount",),
        "aml.sourceoffundsdeclaration": ("deposits_total",),
        "aml.sourceoffundsrequirement": ("deposits_total", "threshold"),
        "complaints.complaint": ("remedy_amount_requested", "remedy_amount"),
        "providers.providertransaction": ("amount", "credited"),
        "reports.dayreport": (
            "stakes",
            "stakes_returned",
            "wins",
            "jackpot_wins",
            "wins_reclaimed",
            "ggr",
            "ledger_stakes",
            "ledger_wins",
            "jackpot_awarded",
            "jackpot_awards_paid",
            "jackpot_liability",
        ),
    }.items()
}


def money_fields(model: type[models.Model]) -> frozenset[str]:
    return MONEY_FIELDS.get(model._meta.label_lower, frozenset())


def czk_text(obj: Any, minor: int | None) -> str:
    """``minor`` haléře as staff read them: "1 500,00 Kč", points for a play-money record, "-" for none."""
    if minor is None:
        return "-"
    return points_text(int(minor)) if getattr(obj, "play_money", False) else str(Money(int(minor)))


@functools.cache
def money_column(model: type[models.Model], name: str) -> Callable[[Any], str]:
    """The read-only column of the haléře field ``name``: labelled by the field (translated with it), sorted by it,
    its value in Kč."""
    field = model._meta.get_field(name)
    assert isinstance(field, models.Field)

    @admin.display(description=field.verbose_name, ordering=name)
    def shown(obj: Any) -> str:
        return czk_text(obj, getattr(obj, name))

    shown.__name__ = f"{name}_czk"
    return shown
