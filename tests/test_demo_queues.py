"""``make run``'s demo seeds work for each role to practise on: every work queue on the back office's home page that
a role sees holds an item after ``seed_demo`` (among them a new complaint asking for money, a duplicate case, a
withdrawal above the approval threshold, a payment-method document, a reconciliation difference, a doubtful
identification, an unmatched bank credit imported from a bank statement, a screening hit on the sandbox PEP list, a
register outage and two registrations AISG refused ("not found", "under 18") through the AISG sandbox, a package the
sandbox Ministry rejected with its error notice and a refund the sandbox provider refused); a second run adds
nothing."""

import io

import pytest
from django.core.management import call_command

from accounts.aisg.sandbox_keys import aisg_sandbox_keys, sandbox_settings
from accounts.models import RegisterReview
from aml.models import ScreeningRun
from backoffice.queues import QUEUES
from core.roles import ROLES
from regulator.models import RegulatorPackage
from regulator.sandbox_pki import operator_settings, sandbox_pki
from tests.kit.accounts import make_staff
from wallet.models import Payout

#: the queues the demo leaves empty, each with the reason
NOT_SEEDED = {
    "Rounds past their game's deadline": "a fault to notice, not work to practise: the sweeper ends every such round",
    "Regulator packages whose stored file is damaged": "a fault (a file changed on disk), restored from the backup",
}


@pytest.mark.django_db
def test_every_queue_of_every_role_has_an_item_after_the_demo(settings, tmp_path):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.WALLET_BANK_IBAN = "CZ2720100000002900123451"
    settings.WALLET_BANK_ACCOUNT_NAME = "Herní Provozovatel s.r.o."
    # what `make run` configures: the Ministry sandbox's certificates (scripts/run.py, regulator.sandbox)
    settings.REGULATOR_PACKAGE_DIR = tmp_path / "packages"
    for name, value in operator_settings(sandbox_pki(tmp_path / "regulator-sandbox")).items():
        setattr(settings, name, [value] if name == "REGULATOR_MINISTRY_ENCRYPTION_CERTS" else value)
    # and both registers through the AISG sandbox (scripts/run.py ``aisg_sandbox``, accounts.aisg.sandbox)
    for name, value in sandbox_settings(aisg_sandbox_keys(tmp_path / "aisg-sandbox")).items():
        setattr(settings, name, value)
    call_command("seed_demo", stdout=io.StringIO())
    queues = {link.label: link for link in QUEUES.links if link.queue is not None}
    count_of = {link.label: link.queue for link in QUEUES.links if link.queue is not None}
    counts = {label: queue().count for label, queue in count_of.items()}
    empty: dict[str, list[str]] = {}
    for role in ROLES:
        user = make_staff(role=role)
        for label, link in queues.items():
            if user.has_perm(link.permission) and not counts[label] and label not in NOT_SEEDED:
                empty.setdefault(label, []).append(role)
    assert not empty, "\n".join(f"{k}: {v}" for k, v in empty.items())
    assert counts["Identifications to review (doubtful)"] == 1 and counts["Unmatched bank credits"] == 1
    assert counts["Bank lines to look at (unmatched reversals, unbookable lines)"] == 1
    # each through the outside party's sandbox: the list's hit, the register's silence, the Ministry's error answer
    # (one rejects the package and opens the notice's task), a refund the payment provider refused
    for label in (
        "Screening hits (sanctions, PEP lists)",
        "Regulator packages rejected by the Ministry",
        "Ministry error notices to handle",
        "Refunds and payouts due (stopped or past their term)",
    ):
        assert counts[label] == 1, label
    # AISG's answers through its sandbox: the register outage of demo_suspended (NEOVERENO), and two registrations
    # refused, one "not found" and one "under 18", each a manual review with the application
    assert counts["Register answers to review (AISG: not found, under 18, outage)"] == 3
    reviews = {(r.kind, r.context, r.reason) for r in RegisterReview.objects.all()}
    assert reviews == {
        ("outage", "staff", "NalezenaRVO=NEOVERENO"),
        ("manual_review", "registration", "NalezenaROB=NENALEZENA"),
        ("manual_review", "registration", "Plnoleta=NE"),
    }, reviews
    package = RegulatorPackage.objects.get(state=RegulatorPackage.State.REJECTED)
    assert package.error_code == "ERR_PKG_SIG_CERT_UNTRUSTED" and package.notices.get().staff_task_open
    assert ScreeningRun.objects.get(player__user__username="demo_pep").result == ScreeningRun.Result.HIT
    assert Payout.objects.get(kind=Payout.Kind.DEPOSIT_REFUSED).status == Payout.Status.STOPPED
    assert set(NOT_SEEDED) <= set(queues)  # each name is a queue's
    call_command("seed_demo", stdout=io.StringIO())
    assert {label: queue().count for label, queue in count_of.items()} == counts  # idempotent
