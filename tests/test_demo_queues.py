"""``make run``'s demo seeds work for each role to practise on: every work queue on the back office's home page that
a role sees holds an item after ``seed_demo`` (among them a new complaint asking for money, a duplicate case, a
withdrawal above the approval threshold, a payment-method document, a reconciliation difference, a doubtful
identification and an unmatched bank credit imported from a bank statement); a second run adds nothing."""

import io

import pytest
from django.core.management import call_command

from backoffice.queues import QUEUES
from core.roles import ROLES
from tests.kit.accounts import make_staff

#: the queues the demo leaves empty, each with the reason
NOT_SEEDED = {
    "Rounds past their game's deadline": "a fault to notice, not work to practise: the sweeper ends every such round",
    "Regulator packages whose stored file is damaged": "a fault (a file changed on disk), restored from the backup",
    "Screening hits (sanctions, PEP lists)": "not yet: needs a demo player on the sandbox sanctions list",
    "Register answers to review (AISG: person not identified, outage)": "not yet: needs the register sandbox's "
    "outage during a demo login",
    "Regulator packages rejected by the Ministry": "not yet: needs the Ministry sandbox's rejection of a package",
    "Ministry error notices to handle": "not yet: needs the Ministry sandbox's error notice",
    "Refunds and payouts due (stopped or past their term)": "not yet: needs a payout stopped at its provider",
}


@pytest.mark.django_db
def test_every_queue_of_every_role_has_an_item_after_the_demo(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.WALLET_BANK_IBAN = "CZ2720100000002900123451"
    settings.WALLET_BANK_ACCOUNT_NAME = "Herní Provozovatel s.r.o."
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
    assert set(NOT_SEEDED) <= set(queues)  # each name is a queue's
    call_command("seed_demo", stdout=io.StringIO())
    assert {label: queue().count for label, queue in count_of.items()} == counts  # idempotent
