"""Notices the operator can prove (GP §7(7), §10(4)): what the wallet tells a player about a win deducted, a debt, a
win held, a payment method refused or cancelled and a payout to collect or posted, through
``accounts.services.message_send`` (the in-app inbox at
once, the e-mail after commit, each delivery recorded).

Each notice is sent inside the service's transaction (a rolled-back action notifies nobody), takes no lock (the
callers hold the wallet lock) and is idempotent on its reference (``wallet.<what>:<id>``), so a retried service
never notifies twice. Texts are factual, in Czech and English, with the amounts in the house format
(``Money.format``), times in Prague time, and the rule cited.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from accounts.models import Message
from accounts.services import message_send
from core import clock
from core.money import Money
from wallet.models import Debt, Deposit, PaymentMethod, Payout, WinDeduction, WinHold, Withdrawal


def _when_cs(dt: datetime) -> str:
    t = clock.local(dt)
    return f"{t.day}. {t.month}. {t.year} {t:%H:%M}"


def _when_en(dt: datetime) -> str:
    return f"{clock.local(dt):%Y-%m-%d %H:%M} (Prague time)"


def _cs(amount: int) -> str:
    return Money(amount).format("cs")


def _en(amount: int) -> str:
    return Money(amount).format("en")


def _stopped_cs(stopped: Sequence[Withdrawal]) -> str:
    if not stopped:
        return ""
    listed = ", ".join(f"č. {w.pk} ({_cs(w.amount)})" for w in stopped)
    return (
        f" Dosud neodeslané výběry {listed} jsme zastavili a jejich částky vrátili na konto; o výběr toho, co "
        f"zadrženo není, můžete požádat znovu."
    )


def _stopped_en(stopped: Sequence[Withdrawal]) -> str:
    if not stopped:
        return ""
    listed = ", ".join(f"no. {w.pk} ({_en(w.amount)})" for w in stopped)
    return (
        f" The withdrawals {listed}, not yet sent, were stopped and their amounts returned to your account; you "
        f"may request again what is not held."
    )


def hold_notice(*, hold: WinHold, win_amount: int, win_reference: str, stopped: Sequence[Withdrawal] = ()) -> Message:
    """A win held (GP §10(3)): what is held and what happens next, in one wording whatever the reason. A hold for
    doubts about a bet's regularity and a hold under the AML law read exactly the same (same text, no reason, no
    term that differs by reason): the AML law (253/2008 Sb., §38) forbids telling a customer of a suspicion or of
    a suspicious-transaction report, and a notice that differed would tell it. Staff see the reason and the term."""
    part_cs = part_en = ""
    if hold.amount < win_amount:
        part_cs = f" Z výhry {_cs(win_amount)} zadržujeme {_cs(hold.amount)}, tedy to, co z ní na kontě zbývá."
        part_en = f" Of the win of {_en(win_amount)} we hold {_en(hold.amount)}, what is left of it in the account."
    why_cs = (
        "Výplatu pozdržujeme podle HP §10 odst. 3, dokud neověříme okolnosti sázky, ze které výhra pochází. "
        "O výsledku vám dáme vědět zprávou do schránky a e-mailem."
    )
    why_en = (
        "The payout is held under GP §10(3) while we check the circumstances of the bet the win comes from. "
        "We will tell you the outcome by a message in your inbox and by e-mail."
    )
    return message_send(
        player=hold.player,
        kind=Message.Kind.HOLD,
        reference=f"wallet.hold:{hold.pk}",
        subject_cs="Výhra zadržena",
        subject_en="Win held",
        body_cs=(
            f"Výhru {_cs(win_amount)} (transakce {win_reference}) jsme zadrželi: {_cs(hold.amount)} je mezi "
            f"zadrženými prostředky vašeho konta a do rozhodnutí ji nelze vsadit ani vybrat.{part_cs} {why_cs}"
            f"{_stopped_cs(stopped)}"
        ),
        body_en=(
            f"Your win of {_en(win_amount)} (transaction {win_reference}) is held: {_en(hold.amount)} is among the "
            f"held funds of your account and can be neither staked nor withdrawn until we decide.{part_en} "
            f"{why_en}{_stopped_en(stopped)}"
        ),
    )


def deduction_notice(*, deduction: WinDeduction, balance_after: int) -> Message:
    """A credited win deducted (GP §7(7), §10(4)), with the operator's own notice text (``notice_text``)."""
    return message_send(
        player=deduction.player,
        kind=Message.Kind.WIN_DEDUCTION,
        reference=f"wallet.deduction:{deduction.pk}",
        subject_cs="Odečtení výhry",
        subject_en="Win deducted",
        body_cs=(
            f"Z vašeho konta jsme odečetli výhru {_cs(deduction.amount)} (operace {deduction.reference}). Výhru "
            f"připsanou omylem nebo v rozporu se zákonem či herním plánem lze odečíst i bez vašeho souhlasu "
            f"(HP §7 odst. 7, §10 odst. 4). Zůstatek konta po odečtení: {_cs(balance_after)}.\n\n"
            f"{deduction.notice_text}"
        ),
        body_en=(
            f"We deducted a win of {_en(deduction.amount)} from your account (operation {deduction.reference}). A "
            f"win credited in error or in breach of the law or the game plan may be deducted without your "
            f"consent (GP §7(7), §10(4)). Account balance after the deduction: {_en(balance_after)}.\n\n"
            f"{deduction.notice_text}"
        ),
    )


def deposit_reversed_notice(*, deposit: Deposit, debt: Debt | None) -> Message:
    """The bank took back a credited deposit (a reversal on the statement): the player is told it left the account."""
    more_cs = " Zůstatek konta je nyní záporný; o dluhu vám posíláme zvláštní zprávu." if debt is not None else ""
    more_en = " Your balance is now negative; a separate notice tells you about the debt." if debt is not None else ""
    return message_send(
        player=deposit.player,
        kind=Message.Kind.NOTICE,
        reference=f"wallet.deposit_reversed:{deposit.pk}",
        subject_cs="Vklad vrácen bankou",
        subject_en="Deposit reversed by the bank",
        body_cs=(
            f"Banka vzala zpět platbu vašeho vkladu {deposit.payment_reference} ve výši {_cs(deposit.amount)}; "
            f"částku jsme proto odečetli z vašeho konta.{more_cs} S dotazy se obraťte na zákaznickou podporu."
        ),
        body_en=(
            f"The bank reversed the payment of your deposit {deposit.payment_reference} of {_en(deposit.amount)};"
            f" the amount was therefore taken from your account.{more_en} Please contact customer support with "
            f"any questions."
        ),
    )


def debt_notice(*, debt: Debt) -> Message:
    """A negative balance recorded as a debt payable within 10 days (GP §7(7)): after a win deducted, or after the
    bank reversed a credited deposit."""
    why_cs = "Po odečtení výhry" if debt.deduction_id is not None else "Po vrácení vkladu bankou"
    why_en = "After a win was deducted" if debt.deduction_id is not None else "After the bank reversed a deposit"
    return message_send(
        player=debt.player,
        kind=Message.Kind.DEBT,
        reference=f"wallet.debt:{debt.pk}",
        subject_cs="Dluh na kontě",
        subject_en="Debt on your account",
        body_cs=(
            f"{why_cs} je zůstatek vašeho konta záporný: dlužíte {_cs(debt.amount)}. Dluh uhraďte do "
            f"{_when_cs(debt.due_at)} (10 dnů, HP §7 odst. 7), například vkladem; každé připsání na konto jej "
            f"nejprve umoří. Do úhrady nelze sázet ani vybírat. Neuhrazený dluh může vést ke zrušení konta."
        ),
        body_en=(
            f"{why_en} your account balance is negative: you owe {_en(debt.amount)}. Please pay "
            f"it by {_when_en(debt.due_at)} (10 days, GP §7(7)), for example by a deposit; every credit to the "
            f"account pays it first. Until it is paid, bets and withdrawals are refused. An unpaid debt may lead "
            f"to the cancellation of the account."
        ),
    )


def method_refused_notice(
    *, method: PaymentMethod, reason: str, stopped: Sequence[Withdrawal], new_method_by: datetime | None
) -> Message:
    """A payment method refused (ownership not proven) or cancelled (suspected misuse), GP §5(11)."""
    cancelled = method.status == PaymentMethod.Status.CANCELLED
    what_cs = (
        "zrušili pro podezření, že je používán v rozporu s herním plánem nebo zákonem"
        if cancelled
        else "odmítli, protože pochybnosti o jeho vlastníkovi nebyly ani po výzvě odstraněny"
    )
    what_en = (
        "cancelled on suspicion that it is used in breach of the game plan or the law"
        if cancelled
        else "refused because the doubts about its owner were not cleared after our request"
    )
    stopped_cs = stopped_en = term_cs = term_en = ""
    if stopped:
        stopped_cs = (
            " Otevřené výběry na něj ("
            + ", ".join(f"č. {w.pk}, {_cs(w.amount)}" for w in stopped)
            + ") jsme zastavili a částky vrátili na konto."
        )
        stopped_en = (
            " Open withdrawals to it ("
            + ", ".join(f"no. {w.pk}, {_en(w.amount)}" for w in stopped)
            + ") were stopped and the amounts returned to your account."
        )
    if new_method_by is not None:
        term_cs = (
            f" Nemáte jiný registrovaný platební prostředek: zaregistrujte jej do {_when_cs(new_method_by)} "
            f"(30 dnů, HP §5 odst. 11)."
        )
        term_en = (
            f" You have no other registered payment method: register one by {_when_en(new_method_by)} "
            f"(30 days, GP §5(11))."
        )
    return message_send(
        player=method.player,
        kind=Message.Kind.PAYMENT_METHOD_REFUSED,
        reference=f"wallet.method_refused:{method.pk}",
        subject_cs="Platební prostředek zrušen" if cancelled else "Platební prostředek odmítnut",
        subject_en="Payment method cancelled" if cancelled else "Payment method refused",
        body_cs=(
            f"Platební prostředek {method.display} jsme {what_cs} (HP §5 odst. 11). Důvod: {reason}. Vklady z něj "
            f"ani výběry na něj již nejsou možné.{stopped_cs}{term_cs}"
        ),
        body_en=(
            f"Your payment method {method.display} was {what_en} (GP §5(11)). Reason: {reason}. Deposits from it "
            f"and withdrawals to it are no longer possible.{stopped_en}{term_en}"
        ),
    )


def payout_invited_notice(*, payout: Payout, amount: int, collect_by: datetime) -> Message:
    """A payout that could not go to a payment method (GP §5(2)e, §5(13), §5(15)): the person is invited to collect
    it in cash at a branch until ``collect_by``; after that it is sent by post, the postage deducted."""
    return message_send(
        player=payout.player,
        kind=Message.Kind.NOTICE,
        reference=f"wallet.payout_invited:{payout.pk}",
        subject_cs="Výzva k vyzvednutí výplaty",
        subject_en="Invitation to collect a payout",
        body_cs=(
            f"Částku {_cs(amount)} si můžete vyzvednout v hotovosti na pobočce do {_when_cs(collect_by)}. Poté "
            "ji zašleme poštou se srážkou poštovného."
        ),
        body_en=(
            f"You may collect {_en(amount)} in cash at a branch until {_when_en(collect_by)}; then it is sent "
            "by post with the postage deducted."
        ),
    )


def payout_posted_notice(*, payout: Payout, net: int, postage: int) -> Message:
    """A payout sent by post (GP §5(2)e, §5(13)), the postage deducted."""
    return message_send(
        player=payout.player,
        kind=Message.Kind.NOTICE,
        reference=f"wallet.payout_posted:{payout.pk}",
        subject_cs="Výplata odeslána poštou",
        subject_en="Payout sent by post",
        body_cs=f"Částku {_cs(net)} jsme odeslali poštou (poštovné {_cs(postage)} odečteno).",
        body_en=f"We sent {_en(net)} by post (postage {_en(postage)} deducted).",
    )
