"""Bank transfers in: the operator's camt.053 / camt.054 statements, written for these tests in the real formats.

GP §5(6): a deposit is credited only when it came from the player's registered payment method, identified by its
number: the statement's payer account must be the method's; money from another account, or of another person, is
not credited and goes back to the account it came from. GP §5(8)a: the first payment from the registered account,
in the player's name, verifies it. Each entry is handled once, whatever file brings it again."""

from __future__ import annotations

import pytest

from accounts.models import Message
from core.audit import Actor
from core.errors import STAFF_PERMISSION_REQUIRED, DomainError
from core.money import Money
from tests.kit.accounts import make_player
from tests.kit.clients import staff_api_client
from tests.kit.money import czk
from tests.kit.wallet import SYSTEM, bank, bank_number, ledger_clean, ref
from wallet import errors, iso20022, selectors
from wallet.ledger import operator_balance
from wallet.methods import czech_account_iban
from wallet.models import BankEntry, BankStatement, Deposit, LedgerTransaction, PaymentMethod, Payout
from wallet.services import (
    bank_credit_assign,
    bank_credit_return,
    bank_payment_order_export,
    bank_statement_import,
    deposit_start,
    provider_callback_handle,
)
from wallet.tests.bankfiles import OPERATOR_IBAN, OPERATOR_NAME, Tx, camt, pain_transfers

pytestmark = pytest.mark.django_db
API = "/api/v1/wallet"
STRANGER = "Petr Svoboda"


@pytest.fixture(autouse=True)
def operator_bank(settings):
    settings.WALLET_PROVIDER_BY_KIND = {"bank_account": "bank"}
    settings.WALLET_BANK_IBAN = OPERATOR_IBAN
    settings.WALLET_BANK_BIC = ""
    settings.WALLET_BANK_ACCOUNT_NAME = OPERATOR_NAME


def name_of(player) -> str:
    identity = selectors.player_identity(player)
    assert identity is not None
    return f"{identity.given_names} {identity.surname}"


def start(player, method, amount) -> Deposit:
    return deposit_start(player=player, method=method, amount=amount, reference=ref("dep"), actor=Actor.player(player))


def imported(raw: bytes, capture) -> dict:
    with capture(execute=True):
        _stmt, summary = bank_statement_import(raw=raw, name="statement.xml", actor=SYSTEM)
    return summary


def paid(d: Deposit, method: PaymentMethod, **kw) -> Tx:
    """The player's transfer for deposit ``d`` from the account of ``method``."""
    kw.setdefault("name", name_of(d.player))
    kw.setdefault("iban", method.iban)
    return Tx(f"{d.amount // 100}.{d.amount % 100:02d}", vs=d.payment_reference, **kw)


def test_bank_deposit_instructions_name_the_operators_account_and_the_variable_symbol():
    p = make_player()
    d = start(p, bank(p), czk("1500.50"))
    assert d.provider == "bank"
    i = d.instructions
    assert i["iban"] == OPERATOR_IBAN and i["account_number"] == "2900123451/2010" and i["bic"] == "FIOBCZPP"
    assert i["variable_symbol"] == d.payment_reference and i["message"] == f"VS:{d.payment_reference}"
    assert i["qr_payment"] == (
        f"SPD*1.0*ACC:{OPERATOR_IBAN}+FIOBCZPP*AM:1500.50*CC:CZK*X-VS:{d.payment_reference}"
        f"*MSG:VS {d.payment_reference}"
    )


@pytest.mark.parametrize(
    ("kind", "version", "vs_in"),
    [("053", "02", "strd"), ("053", "08", "ustrd"), ("054", "02", "e2e"), ("054", "08", "ustrd_slash")],
)
def test_a_credit_with_the_variable_symbol_from_the_players_registered_account_is_credited_and_verifies_it(
    django_capture_on_commit_callbacks, kind, version, vs_in
):
    """GP §5(6), §5(8)a: the account and the name the bank reports are the player's."""
    p = make_player()
    method = bank(p)
    d = start(p, method, czk("1500.50"))
    summary = imported(
        camt([paid(d, method, vs_in=vs_in)], kind=kind, version=version), django_capture_on_commit_callbacks
    )
    assert summary["by_status"] == {"confirmed": 1} and summary["credits"] == 1
    d.refresh_from_db()
    method.refresh_from_db()
    assert d.status == Deposit.Status.CONFIRMED and selectors.balance(p) == czk("1500.50")
    assert method.status == PaymentMethod.Status.VERIFIED and method.verified_by == "first_payment"
    entry = BankEntry.objects.get()
    assert entry.deposit == d and entry.player == p and entry.counterparty_iban == method.iban
    assert d.payer is not None and d.payer["iban"] == method.iban
    assert operator_balance("clearing:bank") == czk("-1500.50")  # the money is at the bank
    ledger_clean()


def test_the_payers_domestic_account_number_with_the_bank_code_in_the_agent_is_the_registered_account(
    django_capture_on_commit_callbacks,
):
    p = make_player()
    number = bank_number("0800")
    method = bank(p, number)
    d = start(p, method, czk(250))
    raw = camt([paid(d, method, iban="", other_id=number.split("/")[0], bank_code="0800")])
    assert imported(raw, django_capture_on_commit_callbacks)["by_status"] == {"confirmed": 1}
    assert BankEntry.objects.get().counterparty_iban == czech_account_iban(number) == method.iban


@pytest.mark.parametrize(
    ("written", "minor"), [("1500.5", 150050), ("3.01", 301), ("1000000", 100000000), ("12.30", 1230)]
)
def test_amounts_with_decimals_are_read_exactly_in_halere(django_capture_on_commit_callbacks, written, minor):
    p = make_player()
    method = bank(p)
    d = start(p, method, Money(minor))
    assert d.amount == minor
    tx = paid(d, method)
    tx.amount = written
    imported(camt([tx]), django_capture_on_commit_callbacks)
    assert selectors.balance(p).amount == minor


@pytest.mark.parametrize("written", ["12.345", "-5.00", "0.00", "1 500", "abc"])
def test_an_amount_that_is_not_a_positive_sum_in_halere_refuses_the_whole_file(written):
    raw = camt([Tx("100.00", vs="1234567890", name="Jan"), Tx(written, vs="1234567891")])
    with pytest.raises(DomainError) as exc:
        bank_statement_import(raw=raw, name="x.xml", actor=SYSTEM)
    assert exc.value.code == errors.BANK_FILE_INVALID.code
    assert not BankStatement.objects.exists() and not BankEntry.objects.exists()


def test_a_credit_from_another_account_is_refused_and_paid_back_to_that_account_never_to_the_player(
    django_capture_on_commit_callbacks,
):
    """GP §5(6): money from an account that is not the registered method is not credited; it goes back to the
    account it came from, by the next payment-order file, and the statement's debit completes the return."""
    p = make_player()
    method = bank(p)
    d = start(p, method, czk(800))
    stranger_iban = czech_account_iban(bank_number("0100"))
    summary = imported(camt([paid(d, method, iban=stranger_iban, name=STRANGER)]), django_capture_on_commit_callbacks)
    assert summary["by_status"] == {"refused": 1}
    d.refresh_from_db()
    method.refresh_from_db()
    assert d.status == Deposit.Status.REFUSED and "not from the registered payment method" in d.status_reason
    assert selectors.balance(p) == czk(0)
    assert method.deposits_blocked_at is None and method.status == PaymentMethod.Status.PENDING  # not in doubt
    payout = Payout.objects.get(kind=Payout.Kind.DEPOSIT_REFUSED)
    assert payout.provider == "bank" and payout.status == Payout.Status.SENT  # accepted into the order outbox
    assert BankEntry.objects.get().payout == payout
    assert Message.objects.filter(player=p, reference=f"wallet.deposit_refused:{d.pk}").exists()
    batch = bank_payment_order_export(actor=SYSTEM)
    assert batch is not None
    [order] = pain_transfers(batch.xml)
    assert order["iban"] == stranger_iban and order["name"] == STRANGER and order["amount"] == "800.00"
    assert order["iban"] != method.iban
    imported(
        camt([Tx("800.00", direction="DBIT", e2e=order["end_to_end_id"], name=STRANGER, iban=stranger_iban)]),
        django_capture_on_commit_callbacks,
    )
    payout.refresh_from_db()
    assert payout.status == Payout.Status.COMPLETED and operator_balance("refunds_payable") == czk(0)
    assert operator_balance("clearing:bank") == czk(0)  # in and out again
    ledger_clean()


def test_a_credit_from_the_registered_account_in_another_persons_name_is_refused_and_blocks_the_method(
    django_capture_on_commit_callbacks,
):
    """GP §5(6), §5(8): the bank says the registered account is someone else's: its ownership is in doubt."""
    p = make_player()
    method = bank(p)
    d = start(p, method, czk(500))
    assert imported(camt([paid(d, method, name=STRANGER)]), django_capture_on_commit_callbacks)["by_status"] == {
        "refused": 1
    }
    method.refresh_from_db()
    assert method.deposits_blocked_at is not None and method.status == PaymentMethod.Status.DOUBTFUL
    assert selectors.balance(p) == czk(0)
    ledger_clean()


def test_a_credit_whose_statement_names_no_payer_account_is_credited_but_verifies_nothing(
    django_capture_on_commit_callbacks,
):
    """GP §5(8)a: a payment proves the method only when the bank shows it came from it."""
    p = make_player()
    method = bank(p)
    d = start(p, method, czk(300))
    imported(camt([paid(d, method, iban="")]), django_capture_on_commit_callbacks)
    method.refresh_from_db()
    assert selectors.balance(p) == czk(300) and method.status == PaymentMethod.Status.PENDING


def test_an_unmatched_credit_waits_in_the_staff_queue_and_staff_with_the_permission_assign_it_to_the_player(
    django_capture_on_commit_callbacks,
):
    p = make_player()
    method = bank(p)
    raw = camt([Tx("420.00", vs="9999999999", name=name_of(p), iban=method.iban, message="vklad")])
    assert imported(raw, django_capture_on_commit_callbacks)["by_status"] == {"unmatched": 1}
    entry = BankEntry.objects.get()
    assert entry.status == BankEntry.Status.UNMATCHED and entry.status_reason == "no deposit with this variable symbol"
    assert operator_balance("bank_unmatched") == czk(420) and selectors.balance(p) == czk(0)
    ledger_clean()
    no_perm = staff_api_client()
    assert no_perm.get(f"{API}/staff/bank/entries").status_code == 403
    assert no_perm.get(f"{API}/staff/bank/entries").json()["error"]["code"] == STAFF_PERMISSION_REQUIRED.code
    finance = staff_api_client(
        "wallet.match_bank_credit", "wallet.view_bankentry"
    )  # the list is a read: view_bankentry
    listing = finance.get(f"{API}/staff/bank/entries").json()
    assert [e["id"] for e in listing["results"]] == [entry.pk]
    assert listing["results"][0]["amount"]["amount"] == 42000
    r = finance.post(
        f"{API}/staff/bank/entries/{entry.pk}/assign", {"player_id": p.pk}, format="json", HTTP_IDEMPOTENCY_KEY="a1"
    )
    assert r.status_code == 200, r.json()
    assert r.json()["status"] == "confirmed" and r.json()["decided_by"]
    assert selectors.balance(p) == czk(420) and operator_balance("bank_unmatched") == czk(0)
    method.refresh_from_db()
    assert method.status == PaymentMethod.Status.VERIFIED  # the bank showed the player paid from it
    assert finance.get(f"{API}/staff/bank/entries").json()["count"] == 0
    again = finance.post(
        f"{API}/staff/bank/entries/{entry.pk}/assign", {"player_id": p.pk}, format="json", HTTP_IDEMPOTENCY_KEY="a2"
    )
    assert again.status_code == 409 and again.json()["error"]["code"] == errors.BANK_ENTRY_STATE.code
    ledger_clean()


def test_staff_assign_an_unmatched_credit_to_the_players_open_deposit(django_capture_on_commit_callbacks):
    p = make_player()
    method = bank(p)
    d = start(p, method, czk(150))
    imported(
        camt([Tx("150.00", name=name_of(p), iban=method.iban, message="za hru")]), django_capture_on_commit_callbacks
    )
    entry = BankEntry.objects.get()
    assert entry.status == BankEntry.Status.UNMATCHED and entry.status_reason == "no variable symbol"
    assigned = bank_credit_assign(entry=entry, deposit=d, actor=SYSTEM)
    d.refresh_from_db()
    assert assigned.status == BankEntry.Status.CONFIRMED and assigned.deposit == d
    assert d.status == Deposit.Status.CONFIRMED and selectors.balance(p) == czk(150)
    ledger_clean()


def test_a_third_partys_credit_cannot_be_assigned_to_a_player_and_is_returned_to_its_account(
    django_capture_on_commit_callbacks,
):
    """GP §5(6): staff cannot credit a player with money from an account that is not the player's method."""
    p = make_player()
    bank(p)
    stranger_iban = czech_account_iban(bank_number("0300"))
    imported(
        camt([Tx("1000.00", vs="5555555555", name=STRANGER, iban=stranger_iban)]), django_capture_on_commit_callbacks
    )
    entry = BankEntry.objects.get()
    with pytest.raises(DomainError) as exc:
        bank_credit_assign(entry=entry, player=p, actor=SYSTEM)
    assert exc.value.code == errors.BANK_CREDIT_NOT_FROM_METHOD.code
    finance = staff_api_client("wallet.match_bank_credit", "wallet.view_bankentry")
    r = finance.post(
        f"{API}/staff/bank/entries/{entry.pk}/return",
        {"reason": "unknown payer"},
        format="json",
        HTTP_IDEMPOTENCY_KEY="r1",
    )
    assert r.status_code == 200 and r.json()["status"] == "returning"
    assert operator_balance("bank_unmatched") == czk(0)
    batch = bank_payment_order_export(actor=SYSTEM)
    assert batch is not None
    [order] = pain_transfers(batch.xml)
    assert (order["iban"], order["amount"], order["name"]) == (stranger_iban, "1000.00", STRANGER)
    assert bank_payment_order_export(actor=SYSTEM) is None  # in exactly one file
    imported(
        camt([Tx("1000.00", direction="DBIT", e2e=order["end_to_end_id"], iban=stranger_iban)]),
        django_capture_on_commit_callbacks,
    )
    entry.refresh_from_db()
    assert entry.status == BankEntry.Status.RETURNED_TO_PAYER and selectors.balance(p) == czk(0)
    assert operator_balance("clearing:bank") == czk(0)
    ledger_clean()


def test_a_second_payment_with_the_variable_symbol_of_a_settled_deposit_goes_to_the_queue(
    django_capture_on_commit_callbacks,
):
    p = make_player()
    method = bank(p)
    d = start(p, method, czk(200))
    first = paid(d, method)
    second = paid(d, method)
    assert imported(camt([first, second]), django_capture_on_commit_callbacks)["by_status"] == {
        "confirmed": 1,
        "unmatched": 1,
    }
    queued = BankEntry.objects.get(status=BankEntry.Status.UNMATCHED)
    assert queued.status_reason.startswith(f"deposit {d.payment_reference} is already confirmed")
    assert selectors.balance(p) == czk(200) and operator_balance("bank_unmatched") == czk(200)
    ledger_clean()


def test_reimporting_the_same_statement_changes_nothing(django_capture_on_commit_callbacks):
    p = make_player()
    method = bank(p)
    d = start(p, method, czk(700))
    raw = camt([paid(d, method), Tx("50.00", vs="1111111111", name=STRANGER, iban=czech_account_iban(bank_number()))])
    imported(raw, django_capture_on_commit_callbacks)
    before = (LedgerTransaction.objects.count(), BankEntry.objects.count(), BankStatement.objects.count())
    summary = imported(raw, django_capture_on_commit_callbacks)
    assert summary["this_run"] == {"duplicate": 2}
    assert (LedgerTransaction.objects.count(), BankEntry.objects.count(), BankStatement.objects.count()) == before
    assert selectors.balance(p) == czk(700) and operator_balance("bank_unmatched") == czk(50)
    ledger_clean()


def test_a_camt054_notification_then_the_camt053_repeating_its_entries_changes_nothing(
    django_capture_on_commit_callbacks,
):
    p = make_player()
    method = bank(p)
    d1, d2 = start(p, method, czk(100)), start(p, method, czk(200))
    t1, t2 = paid(d1, method), paid(d2, method)
    intraday = imported(camt([t1], kind="054", version="08"), django_capture_on_commit_callbacks)
    assert intraday["by_status"] == {"confirmed": 1}
    end_of_day = imported(camt([t1, t2], kind="053", version="02"), django_capture_on_commit_callbacks)
    assert end_of_day["this_run"] == {"duplicate": 1, "confirmed": 1}
    assert end_of_day["brought_by_earlier_file"] == 1
    assert selectors.balance(p) == czk(300) and BankEntry.objects.count() == 2
    assert LedgerTransaction.objects.filter(kind="deposit").count() == 2
    ledger_clean()


def test_a_statement_of_another_account_is_refused_and_nothing_is_stored():
    other = czech_account_iban(bank_number("2010"))
    raw = camt([Tx("100.00", vs="1234567890", name="Jan")], iban=other)
    with pytest.raises(DomainError) as exc:
        bank_statement_import(raw=raw, name="x.xml", actor=SYSTEM)
    assert exc.value.code == errors.BANK_STATEMENT_WRONG_ACCOUNT.code and exc.value.details["account"] == other
    assert not BankStatement.objects.exists() and not BankEntry.objects.exists()
    from django.core.files.uploadedfile import SimpleUploadedFile

    c = staff_api_client("wallet.import_bank_statement")
    r = c.post(
        f"{API}/staff/bank/statements",
        {"file": SimpleUploadedFile("s.xml", raw, "application/xml")},
        format="multipart",
    )
    assert r.status_code == 409 and r.json()["error"]["code"] == errors.BANK_STATEMENT_WRONG_ACCOUNT.code
    assert not BankStatement.objects.exists()


def test_staff_upload_a_statement_through_the_api_it_is_processed_after_commit(django_capture_on_commit_callbacks):
    from django.core.files.uploadedfile import SimpleUploadedFile

    p = make_player()
    method = bank(p)
    d = start(p, method, czk(99))
    raw = camt([paid(d, method)])
    assert staff_api_client().post(f"{API}/staff/bank/statements", {}, format="multipart").status_code == 403
    c = staff_api_client("wallet.import_bank_statement", "wallet.view_bankstatement")
    with django_capture_on_commit_callbacks(execute=True):
        r = c.post(f"{API}/staff/bank/statements", {"file": SimpleUploadedFile("s.xml", raw)}, format="multipart")
    assert r.status_code == 202, r.json()
    stmt = BankStatement.objects.get()
    assert stmt.status == BankStatement.Status.PROCESSED and stmt.summary["by_status"] == {"confirmed": 1}
    assert selectors.balance(p) == czk(99)
    again = c.post(f"{API}/staff/bank/statements", {"file": SimpleUploadedFile("s.xml", raw)}, format="multipart")
    assert again.status_code == 200 and again.json()["id"] == stmt.pk
    assert c.get(f"{API}/staff/bank/statements/{stmt.pk}").json()["summary"]["credits"] == 1


@pytest.mark.parametrize(
    "raw",
    [
        b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x "boom">]><Document '
        b'xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>&x;</BkToCstmrStmt></Document>',
        b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><Document '
        b'xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>&x;</BkToCstmrStmt></Document>',
        b"not xml at all",
    ],
)
def test_a_file_with_a_doctype_or_that_is_not_xml_is_refused(raw):
    with pytest.raises(DomainError) as exc:
        iso20022.statement_parse(raw)
    assert exc.value.code == errors.BANK_FILE_INVALID.code


def test_another_iso20022_message_or_version_is_refused_as_unsupported():
    raw = camt([Tx("1.00", vs="1")]).replace(b"camt.053.001.02", b"camt.053.001.04")
    with pytest.raises(DomainError) as exc:
        iso20022.statement_parse(raw)
    assert exc.value.code == errors.BANK_FILE_UNSUPPORTED.code


def test_an_entry_without_the_banks_reference_is_refused_it_could_not_be_imported_once():
    raw = camt([Tx("1.00", vs="1", ref="")])
    with pytest.raises(DomainError) as exc:
        iso20022.statement_parse(raw.replace(b"<NtryRef>1</NtryRef>", b""))
    assert exc.value.code == errors.BANK_FILE_INVALID.code and "no bank reference" in exc.value.message_en


def test_pending_entries_are_skipped_and_counted(django_capture_on_commit_callbacks):
    p = make_player()
    method = bank(p)
    d = start(p, method, czk(100))
    summary = imported(camt([paid(d, method, status="PDNG")]), django_capture_on_commit_callbacks)
    assert summary["not_booked"] == 1 and summary["entries"] == 0 and selectors.balance(p) == czk(0)


def test_variable_symbols_are_read_where_czech_banks_put_them():
    vs = iso20022.variable_symbols
    assert vs(structured=["0001234567"], unstructured=[], end_to_end_id="") == ("1234567",)
    assert vs(structured=["VS:1234567890"], unstructured=[], end_to_end_id="") == ("1234567890",)
    assert vs(structured=[], unstructured=["Vklad VS: 1234567890 dekuji"], end_to_end_id="") == ("1234567890",)
    assert vs(structured=[], unstructured=["/VS/1234567890/SS/123/KS/0308"], end_to_end_id="") == ("1234567890",)
    assert vs(structured=[], unstructured=["1234567890"], end_to_end_id="") == ("1234567890",)
    assert vs(structured=[], unstructured=[], end_to_end_id="VS1234567890/SS/KS0308") == ("1234567890",)
    assert vs(structured=[], unstructured=[], end_to_end_id="1234567890") == ("1234567890",)
    # a number in a text without "VS" is not taken for the symbol, nor an 11-digit number
    assert vs(structured=[], unstructured=["faktura 1234567890"], end_to_end_id="") == ()
    assert vs(structured=["12345678901"], unstructured=[], end_to_end_id="") == ()
    assert vs(structured=["111"], unstructured=["VS 222"], end_to_end_id="333") == ("111", "333", "222")


def test_callbacks_to_the_bank_provider_are_refused():
    with pytest.raises(DomainError) as exc:
        provider_callback_handle(provider="bank", raw_body=b"{}", signature="sha256=" + "0" * 64)
    assert exc.value.code == errors.BAD_SIGNATURE.code


def test_a_credit_in_another_currency_is_recorded_and_not_posted(django_capture_on_commit_callbacks):
    raw = camt([Tx("10.00", vs="1234567890", name="Jan")]).replace(b'<Amt Ccy="CZK">10.00', b'<Amt Ccy="EUR">10.00')
    assert imported(raw, django_capture_on_commit_callbacks)["by_status"] == {"ignored": 1}
    assert not LedgerTransaction.objects.exists()


def test_bank_credit_return_needs_a_payer_account(django_capture_on_commit_callbacks):
    imported(camt([Tx("10.00", vs="1234567890")]), django_capture_on_commit_callbacks)
    with pytest.raises(DomainError) as exc:
        bank_credit_return(entry=BankEntry.objects.get(), reason="who?", actor=SYSTEM)
    assert exc.value.code == errors.BANK_CREDIT_NO_ACCOUNT.code


def test_without_the_operators_account_bank_deposits_are_refused_before_anything_is_written(settings):
    settings.WALLET_BANK_IBAN = ""
    p = make_player()
    method = bank(p)
    with pytest.raises(DomainError) as exc:
        start(p, method, czk(100))
    assert exc.value.code == errors.BANK_NOT_CONFIGURED.code and not Deposit.objects.exists()
    with pytest.raises(DomainError):
        bank_payment_order_export(actor=SYSTEM)


def test_the_system_check_names_a_missing_or_invalid_operator_account(settings):
    from wallet.system_checks import bank_account_check

    assert bank_account_check() == []
    settings.WALLET_BANK_IBAN = "CZ0000000000000000000000"
    assert [m.id for m in bank_account_check()] == ["wallet.E001"]
    settings.WALLET_BANK_IBAN, settings.WALLET_BANK_ACCOUNT_NAME = OPERATOR_IBAN, ""
    assert [m.id for m in bank_account_check()] == ["wallet.E001"]
    settings.WALLET_PROVIDER_BY_KIND = {}
    assert bank_account_check() == []
