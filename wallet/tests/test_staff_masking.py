"""Account numbers reach support masked wherever they go: a refused deposit's reason (a text composed from two
account numbers), its return's ledger memo, the deposit list and its search, the player's page and statement; the
bank's entries are not support's to read at all, and are masked for any reader without the unmask permission."""

import pytest
from django.test import Client

from core.masking import mask_accounts_in
from tests.kit.accounts import make_player, make_staff
from tests.kit.money import czk
from tests.kit.wallet import bank, bank_number
from wallet.methods import czech_account_iban
from wallet.models import Wallet
from wallet.tests.bankfiles import camt
from wallet.tests.test_bank_statements import STRANGER, imported, operator_bank, paid, start  # noqa: F401

pytestmark = pytest.mark.django_db


def _signed_in(**kw) -> Client:
    c = Client(raise_request_exception=False)
    c.force_login(make_staff(**kw))
    return c


def test_a_strangers_account_in_a_refused_deposits_reason_is_masked_for_support(django_capture_on_commit_callbacks):
    p = make_player()
    method = bank(p)
    d = start(p, method, czk(800))
    stranger = czech_account_iban(bank_number("0100"))
    imported(camt([paid(d, method, iban=stranger, name=STRANGER)]), django_capture_on_commit_callbacks)
    d.refresh_from_db()
    assert stranger in d.status_reason  # the record keeps the fact; what support reads is masked
    own = method.display
    support, finance = _signed_in(role="support"), _signed_in(role="finance")
    wallet = Wallet.objects.get(player=p)
    pages = {
        "deposit list": f"/admin/wallet/deposit/?q={d.payment_reference}",
        "deposit page": f"/admin/wallet/deposit/{d.pk}/change/",
        "player page": f"/admin/accounts/player/{p.pk}/change/",
        "statement": f"/admin/wallet/wallet/{wallet.pk}/statement/",
    }
    for name, url in pages.items():
        r = support.get(url)
        assert r.status_code == 200, (name, r.status_code)
        page = r.content.decode()
        assert stranger not in page, name
        assert own not in page and method.iban not in page, name
    assert stranger[-3:] in support.get(pages["deposit list"]).content.decode()
    assert stranger in finance.get(pages["deposit list"]).content.decode()  # finance may see it
    # the bank's entries: not support's to read; masked for compliance-like readers without the unmask permission
    assert support.get("/admin/wallet/bankentry/").status_code == 403
    assert stranger in finance.get("/admin/wallet/bankentry/").content.decode()


def test_account_numbers_in_a_free_text_are_masked():
    text = "paid from account CZ6508000000192000145399, not from the registered payment method 000019-2000145399/0800"
    shown = mask_accounts_in(text)
    assert "192000145399" not in shown and "2000145399" not in shown
    assert shown.endswith("399/0800") and "•••399," in shown
    assert mask_accounts_in("round R-2026-1 of 12,50 Kč") == "round R-2026-1 of 12,50 Kč"
