"""Payment methods: Czech banks only (GP §5(7)), ownership verification (GP §5(8)-(10)), refusal (GP §5(11))."""

from datetime import timedelta

import pytest

from core.audit import Actor
from tests.kit.accounts import make_player
from tests.kit.money import czk
from tests.kit.refusals import refused
from tests.kit.wallet import SYSTEM, bank, bank_number, deposit, fund, ledger_clean, verified_bank
from wallet import errors, selectors
from wallet.models import MethodDocument, PaymentMethod, Withdrawal
from wallet.services import (
    method_document_review,
    method_document_upload,
    payment_method_cancel,
    payment_method_refuse,
    payment_method_register,
    withdrawal_request,
)

pytestmark = pytest.mark.django_db
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def register(player, kind="bank_account", **data):
    return payment_method_register(player=player, kind=kind, data=data, actor=Actor.player(player))


def test_a_czech_account_number_is_normalised_with_its_iban_and_the_iban_form_is_the_same_account():
    p = make_player()
    m = register(p, account_number="19-2000145399/0800")
    assert (m.identifier, m.bank_code, m.iban) == ("000019-2000145399/0800", "0800", "CZ6508000000192000145399")
    assert m.status == "pending" and register(p, iban="CZ65 0800 0000 1920 0014 5399").pk == m.pk


def test_account_numbers_with_wrong_check_digits_are_refused():
    p = make_player()
    refused(lambda: register(p, account_number="19-2000145398/0800"), errors.METHOD_INVALID.code)
    refused(lambda: register(p, iban="CZ6608000000192000145399"), errors.METHOD_INVALID.code)
    refused(lambda: register(p, account_number="garbage"), errors.METHOD_INVALID.code)
    assert not PaymentMethod.objects.exists()


def test_only_a_bank_seated_in_the_czech_republic_is_accepted():
    p = make_player()
    refused(lambda: register(p, account_number="1234567004/3500"), errors.BANK_NOT_CZECH.code)  # ING Bank N.V. branch
    refused(lambda: register(p, account_number="1234567004/2060"), errors.BANK_NOT_CZECH.code)  # credit union
    refused(lambda: register(p, account_number="1234567004/9999"), errors.BANK_NOT_CZECH.code)  # no such bank
    refused(lambda: register(p, iban="DE89370400440532013000"), errors.BANK_NOT_CZECH.code)
    assert register(p, account_number="1234567004/0100").bank_code == "0100"


def test_a_card_is_stored_only_as_the_provider_token_and_a_masked_number():
    p = make_player()
    refused(
        lambda: register(p, "card", card_token="tok_abcdefgh", card_masked="4111 1111 1111 1111"),
        errors.METHOD_INVALID.code,
    )
    m = register(p, "card", card_token="tok_abcdefgh123", card_masked="411111******1234")
    assert m.card_masked == "**** **** **** 1234" and m.card_token == "tok_abcdefgh123" and "4111" not in m.identifier


def test_e_wallets_of_the_plan_are_registered_by_their_account_id():
    p = make_player()
    for kind in ("skrill", "payu", "paysafecard"):
        assert register(p, kind, account_id=" Jan.Novak@Example.CZ ").identifier == "jan.novak@example.cz"
    refused(lambda: register(p, "skrill", account_id="not an id!"), errors.METHOD_INVALID.code)
    refused(lambda: register(p, "bitcoin", account_id="x"), errors.METHOD_INVALID.code)


def test_a_method_registered_by_another_player_is_refused():
    a, b = make_player(), make_player()
    number = bank_number()
    register(a, account_number=number)
    refused(lambda: register(b, account_number=number), errors.METHOD_TAKEN.code)
    assert PaymentMethod.objects.filter(player=b).count() == 0


# GP §5(8)a: the first payment -----------------------------------------------------------------------------------


def test_the_first_payment_verifies_the_method_when_the_payer_is_the_player():
    p = make_player(status="temporary")
    m = bank(p)
    assert not selectors.player_has_verified_payment_method(p)
    deposit(p, m, czk(100))  # the sandbox reports the player's name and birth date
    m.refresh_from_db()
    assert m.status == "verified" and m.verified_by == "first_payment"
    assert selectors.player_has_verified_payment_method(p) and selectors.payment_method_deadline(p) is None


def test_a_first_payment_from_someone_else_is_refused_not_credited_and_the_ownership_is_doubtful():
    """GP §5(6) ("výhradně"): the payment of another person is not credited (it goes back to its source, see
    test_refused_deposits.py); the method is doubtful and blocked for deposits until staff decide."""
    p = make_player(status="temporary")
    m = bank(p)
    d = deposit(p, m, czk(100), payer={"name": "Petr Svoboda"})
    m.refresh_from_db()
    assert d.status == "refused" and "differs" in d.status_reason
    assert m.status == "doubtful" and "differs" in m.status_reason and m.deposits_blocked_at is not None
    assert selectors.balance(p) == czk(0)
    birth = p.personal.date_of_birth
    m2 = bank(p)
    d2 = deposit(
        p,
        m2,
        czk(10),
        payer={
            "name": f"{p.personal.surname} {p.personal.given_names}",
            "birth_date": (birth - timedelta(days=1)).isoformat(),
        },
    )
    m2.refresh_from_db()
    assert d2.status == "refused" and m2.status == "doubtful" and selectors.balance(p) == czk(0)


def test_the_payer_name_is_compared_without_diacritics_titles_or_word_order():
    p = make_player(status="temporary", personal_data={"given_names": "Jiří", "surname": "Dvořák"})
    m = bank(p)
    deposit(p, m, czk(100), payer={"name": "ING. DVORAK JIRI"})
    m.refresh_from_db()
    assert m.status == "verified"


def test_without_personal_data_no_payer_matches_not_even_the_users_name():
    """GP §5(8)a fails closed: with no identity to compare, the first payment never verifies the method."""
    p = make_player(status="temporary", personal=False)
    p.user.first_name, p.user.last_name = "Jiří", "Dvořák"
    p.user.save()
    m = bank(p)
    deposit(p, m, czk(100), payer={"name": "Jiří Dvořák"})
    m.refresh_from_db()
    assert m.status == "doubtful" and "no personal data" in m.status_reason
    assert selectors.payer_matches(p, {"name": "Jiří Dvořák"}) == (False, "no personal data to compare")


# GP §5(8)b: documents ---------------------------------------------------------------------------------------------


def test_documents_are_checked_for_size_and_type_and_approval_verifies_the_method(settings):
    settings.WALLET_DOCUMENT_MAX_BYTES = 1000
    p = make_player(status="temporary")
    m = bank(p)
    refused(
        lambda: method_document_upload(method=m, name="x.pdf", content=b"%PDF" + b"0" * 1000, actor=SYSTEM),
        errors.DOCUMENT_TOO_LARGE.code,
    )
    refused(
        lambda: method_document_upload(method=m, name="x.pdf", content=b"just text, named .pdf", actor=SYSTEM),
        errors.DOCUMENT_TYPE.code,
    )
    assert not MethodDocument.objects.exists()
    doc = method_document_upload(method=m, name="statement.png", content=PNG, actor=SYSTEM)
    assert doc.content_type == "image/png" and doc.size == len(PNG)
    method_document_review(document=doc, approve=True, note="ok", actor=SYSTEM)
    m.refresh_from_db()
    assert m.status == "verified" and m.verified_by == "documents"
    refused(
        lambda: method_document_review(document=doc, approve=False, note="", actor=SYSTEM), errors.DOCUMENT_STATE.code
    )
    refused(
        lambda: method_document_upload(method=m, name="y.pdf", content=PDF, actor=SYSTEM), errors.METHOD_NOT_USABLE.code
    )


def test_a_rejected_document_leaves_the_ownership_doubtful():
    p = make_player(status="temporary")
    m = bank(p)
    doc = method_document_upload(method=m, name="s.pdf", content=PDF, actor=SYSTEM)
    method_document_review(document=doc, approve=False, note="not the holder", actor=SYSTEM)
    m.refresh_from_db()
    assert m.status == "doubtful"


# GP §5(9), §5(11): deadlines, refusal, cancellation -----------------------------------------------------------------


def test_the_method_must_be_verified_within_30_days_from_the_start_of_registration():
    p = make_player(status="temporary")
    activated = p.temporary_activated_at
    assert activated is not None
    assert selectors.payment_method_deadline(p) == min(p.created_at, activated) + timedelta(days=30)
    m = bank(p)
    assert m.verify_by == selectors.payment_method_deadline(p)


def test_refusing_the_last_registered_method_gives_30_days_to_register_another():
    from core import clock

    p = make_player()
    m = verified_bank(p)
    assert selectors.payment_method_deadline(p) is None
    payment_method_refuse(method=m, reason="ownership doubtful after request", actor=SYSTEM)
    now = clock.now()
    deadline = selectors.payment_method_deadline(p)
    assert deadline is not None
    assert now <= deadline + timedelta(seconds=1) - timedelta(days=30) <= now + timedelta(seconds=1)
    refused(lambda: register(p, account_number=m.identifier), errors.METHOD_NOT_USABLE.code)
    verified_bank(p)
    assert selectors.payment_method_deadline(p) is None


def test_cancelling_a_method_for_misuse_stops_open_withdrawals_and_returns_the_money():
    p = make_player()
    m = verified_bank(p)
    fund(p, czk(20000))
    w = withdrawal_request(player=p, method=m, amount=czk(15000), reference="big-w", actor=SYSTEM)
    assert w.status == "requested" and selectors.balance(p) == czk(5000)
    payment_method_cancel(method=m, reason="suspected misuse", actor=SYSTEM)
    assert Withdrawal.objects.get(pk=w.pk).status == "rejected"
    assert selectors.balance(p) == czk(20000) and selectors.held_balance(p) == czk(0)
    refused(
        lambda: withdrawal_request(player=p, method=m, amount=czk(100), reference="w2", actor=SYSTEM),
        errors.METHOD_NOT_USABLE.code,
    )
    ledger_clean()
