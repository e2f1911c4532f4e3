"""``make run``'s demo seeds work for each role to practise on: a new complaint asking for money (support, finance,
the complaint supervisor), a duplicate case (compliance), a withdrawal above the approval threshold and a
payment-method document and a reconciliation difference (finance); a second run adds nothing."""
import io

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_the_demo_puts_an_item_in_each_roles_queues(settings):
    from accounts.selectors import duplicate_cases_queue
    from backoffice.queues import reconciliation_differences_queue
    from complaints.selectors import complaints_money_queue, complaints_new_queue
    from wallet.selectors import method_documents_queue, withdrawals_queue

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    call_command("seed_demo", stdout=io.StringIO())
    queues = {"new complaints": complaints_new_queue, "complaints asking for money": complaints_money_queue,
              "duplicate cases": duplicate_cases_queue, "withdrawals to approve": withdrawals_queue,
              "documents to review": method_documents_queue,
              "reconciliation differences": reconciliation_differences_queue}
    counts = {name: q().count for name, q in queues.items()}
    assert all(n >= 1 for n in counts.values()), counts
    call_command("seed_demo", stdout=io.StringIO())
    assert {name: q().count for name, q in queues.items()} == counts  # idempotent
