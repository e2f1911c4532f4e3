"""Staff screens: every wallet admin page renders; staff actions go through the services (audited)."""

import pytest

from core.models import AuditEvent
from tests.kit.accounts import make_player
from tests.kit.money import czk
from tests.kit.wallet import SYSTEM, bank, fund, verified_bank
from wallet import selectors
from wallet.models import BranchCash, MethodDocument, PaymentMethod, WinDeduction, WinHold, Withdrawal
from wallet.services import method_document_upload, win_credit, withdrawal_request

pytestmark = pytest.mark.django_db


def test_every_wallet_admin_page_renders_including_the_statement_per_player(staff_client):
    p = make_player()
    m = verified_bank(p)
    fund(p, czk(20000))
    withdrawal_request(player=p, method=m, amount=czk(15000), reference="adm-w", actor=SYSTEM)
    win_credit(player=p, amount=czk(5), reference="adm-h", actor=SYSTEM, hold_reason="aml")
    for model in (
        "ledgeraccount",
        "ledgertransaction",
        "wallet",
        "paymentmethod",
        "methoddocument",
        "deposit",
        "withdrawal",
        "providerevent",
        "payout",
        "branchcash",
        "winhold",
        "windeduction",
        "debt",
    ):
        assert staff_client.get(f"/admin/wallet/{model}/").status_code == 200, model
    assert staff_client.get("/admin/wallet/branchcash/add/").status_code == 200
    assert staff_client.get(f"/admin/wallet/paymentmethod/{m.pk}/change/").status_code == 200
    r = staff_client.get(f"/admin/wallet/wallet/{p.wallet.pk}/statement/")
    assert r.status_code == 200 and "adm-w" in r.content.decode()


def test_staff_approve_documents_and_withdrawals_through_admin_actions(staff_client):
    p = make_player()
    m = bank(p)
    doc = method_document_upload(method=m, name="s.pdf", content=b"%PDF-1.4 x", actor=SYSTEM)
    r = staff_client.post("/admin/wallet/methoddocument/", {"action": "approve", "_selected_action": [doc.pk]})
    assert r.status_code == 302
    assert MethodDocument.objects.get(pk=doc.pk).status == "approved"
    assert PaymentMethod.objects.get(pk=m.pk).status == "verified"
    fund(p, czk(20000))
    w = withdrawal_request(player=p, method=m, amount=czk(15000), reference="adm-w2", actor=SYSTEM)
    r = staff_client.post("/admin/wallet/withdrawal/", {"action": "reject", "_selected_action": [w.pk]})
    assert r.status_code == 200 and "15\xa0000,00\xa0Kč" in r.content.decode() and p.staff_label in r.content.decode()
    assert Withdrawal.objects.get(pk=w.pk).status == "requested"  # the confirmation page first: nothing done
    staff_client.post("/admin/wallet/withdrawal/", {"action": "reject", "_selected_action": [w.pk], "confirmed": "1"})
    assert Withdrawal.objects.get(pk=w.pk).status == "rejected" and selectors.balance(p) == czk(20000)
    assert AuditEvent.objects.filter(action="wallet.withdrawal_rejected", actor_type="staff").exists()


def test_staff_record_branch_cash_and_deductions_in_the_admin_forms(staff_client):
    p = make_player()
    form = {"player": p.pk, "direction": "in", "amount_czk": "1 000", "branch": "Praha", "reference": "rc-1"}
    r = staff_client.post("/admin/wallet/branchcash/add/", form)
    html = r.content.decode()
    assert r.status_code == 200 and 'id="confirm-amount">1\xa0000,00\xa0Kč<' in html and str(p) in html
    assert not BranchCash.objects.filter(reference="rc-1").exists()  # nothing before the confirmation
    r = staff_client.post("/admin/wallet/branchcash/add/", {**form, "confirmed": "1"})
    assert r.status_code == 302, r.content.decode()[:2000]
    assert BranchCash.objects.get(reference="rc-1").amount == 100000 and selectors.balance(p) == czk(1000)
    r = staff_client.post(
        "/admin/wallet/branchcash/add/",
        {
            "player": p.pk,
            "direction": "in",
            "amount_czk": "4 500",
            "branch": "Praha",
            "reference": "rc-2",
            "confirmed": "1",
        },
        follow=True,
    )
    assert "branch_cash_24h_limit" in r.content.decode() and selectors.balance(p) == czk(1000)
    r = staff_client.post(
        "/admin/wallet/windeduction/add/",
        {
            "player": p.pk,
            "amount_czk": "1500",
            "reference": "ded-1",
            "reason": "win credited in error",
            "notice_text": "Výhra připsaná omylem byla odečtena (HP §7 odst. 7).",
            "confirmed": "1",
        },
    )
    assert r.status_code == 302
    assert WinDeduction.objects.get(reference="ded-1").amount == 150000
    assert selectors.balance(p) == czk(-500) and selectors.debt(p) == czk(500)


def test_a_refusal_by_the_service_behind_an_admin_form_is_shown_to_staff_and_changes_nothing(staff_client, monkeypatch):
    import wallet.services
    from wallet import errors

    p = make_player()

    def refuse(**kw):
        raise errors.INVALID_AMOUNT(reason="refused by the service")

    monkeypatch.setattr(wallet.services, "win_deduct", refuse)  # the admin calls services.win_deduct
    r = staff_client.post(
        "/admin/wallet/windeduction/add/",
        {
            "player": p.pk,
            "amount_czk": "99",
            "reference": "ded-x",
            "reason": "r",
            "notice_text": "Výhra připsaná omylem byla odečtena.",
            "confirmed": "1",
        },
        follow=True,
    )
    assert r.status_code == 200 and r.redirect_chain == [("/admin/wallet/windeduction/add/", 302)]
    assert any(errors.INVALID_AMOUNT.code in str(m) for m in r.context["messages"])
    assert not WinDeduction.objects.filter(reference="ded-x").exists() and selectors.balance(p) == czk(0)


def test_staff_release_a_held_win(staff_client):
    p = make_player()
    win_credit(player=p, amount=czk(70), reference="h", actor=SYSTEM, hold_reason="regularity")
    hold = WinHold.objects.get(reference="h")
    staff_client.post("/admin/wallet/winhold/", {"action": "release", "_selected_action": [hold.pk], "confirmed": "1"})
    assert WinHold.objects.get(pk=hold.pk).status == "released" and selectors.balance(p) == czk(70)
