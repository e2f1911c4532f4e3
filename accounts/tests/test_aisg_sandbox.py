"""The AISG sandbox (``accounts.aisg.sandbox``, ``ACCOUNTS_AISG_URL=sandbox:<folder>``) answers as the Ministry's
interface does, by its documented rules (docs/accounts.md "AISG sandbox"), and the platform's real client and decision
table act on its answers: a registration through the API for each documented surname gives the decision table's
refusal and staff case; anybody else registers with a HID that the login then asks by; a listing in the sandbox
exclusion register reaches the login; a batch and a change of data are answered; a request the operator did not sign
is a fault."""

from __future__ import annotations

import datetime as dt

import pytest

from accounts import errors, services
from accounts.aisg import client, sandbox, wsse
from accounts.aisg import types as t
from accounts.aisg.sandbox_keys import aisg_sandbox_keys, key_pair, sandbox_settings
from accounts.models import Player, RegisterReview
from core.errors import DomainError
from tests.kit.accounts import make_excluded, registration_payload

pytestmark = pytest.mark.django_db


@pytest.fixture
def keys(settings, tmp_path):
    """What ``make run`` configures (scripts/run.py ``aisg_sandbox``): both registers through the sandbox."""
    made = aisg_sandbox_keys(tmp_path / "aisg-sandbox")
    for name, value in sandbox_settings(made).items():
        setattr(settings, name, value)
    return made


def code(r):
    return r.json()["error"]["code"]


@pytest.mark.parametrize(
    "surname, status, error, review",
    [
        ("Nenalezená", 422, errors.REGISTER_NOT_FOUND, ("manual_review", "NalezenaROB=NENALEZENA")),
        ("Zemřelý", 422, errors.REGISTER_NOT_FOUND, ("manual_review", "NalezenaROB=MRTVA")),
        ("Duplicitní", 422, errors.REGISTER_NOT_FOUND, ("manual_review", "NalezenaROB=DUPLICITA")),
        ("Nezletilý", 403, errors.UNDERAGE, ("manual_review", "Plnoleta=NE")),
        ("Vyloučená", 403, errors.EXCLUDED_PERSON, None),
    ],
)
def test_each_documented_surname_gets_the_decision_tables_refusal_and_staff_case(
    keys, register, surname, status, error, review
):
    body = registration_payload(surname=surname)
    r = register(body)
    assert r.status_code == status and code(r) == error.code, r.json()
    assert not Player.objects.exists()
    assert list(RegisterReview.objects.values_list("kind", "reason")) == ([review] if review else [])


@pytest.mark.parametrize("surname, reason", [("Neověřený", "NalezenaRVO=NEOVERENO"), ("Nedostupná", None)])
def test_no_usable_answer_keeps_the_applicant_waiting_with_an_outage_alert(keys, register, surname, reason):
    r = register(registration_payload(surname=surname))
    assert r.status_code == 202 and r.json()["checks_pending"], r.json()
    player = Player.objects.get()
    assert player.status == Player.Status.APPLICANT
    alert = RegisterReview.objects.get()
    assert alert.kind == "outage" and alert.reason == (reason or "NalezenaROB=NEODPOVEZENO")


def test_anybody_else_registers_and_logs_in_by_the_hid_until_listed_in_the_sandbox_exclusion_register(keys, register):
    body = registration_payload()
    r = register(body)
    assert r.status_code == 201, r.json()
    player = Player.objects.get()
    hid = str(player.personal.aisg_hid)
    assert player.status == Player.Status.TEMPORARY
    assert hid == sandbox.AisgSandbox.hid_of(body["given_names"], body["surname"], player.personal.date_of_birth)
    assert services.session_start(player=player)[0].pk  # asked by the HID: the sandbox remembers the person
    make_excluded(player)
    with pytest.raises(DomainError) as exc:
        services.session_start(player=player)
    assert exc.value.code == errors.EXCLUDED_PERSON.code
    player.refresh_from_db()
    assert player.exclusion_listed


def test_an_unavailable_entry_of_the_sandbox_exclusion_register_is_neovereno(keys, register):
    body = registration_payload()
    make_excluded(body, outcome="unavailable")
    assert register(body).status_code == 202
    assert RegisterReview.objects.get().reason == "NalezenaRVO=NEOVERENO"


def test_a_batch_is_answered_row_by_row_by_the_same_rules_and_a_change_by_a_known_hid(keys):
    born = dt.date(1980, 1, 2)
    persons = [
        ("1", t.Person("Jana", "Dvořáková", born, "CZ")),
        ("2", t.Person("Jan", "Nenalezený", born, "CZ")),
        ("3", t.Person("Petr", "Nezletilý", born, "CZ")),
    ]
    result = client.batch_results(client.submit_batch(persons))
    assert result.state == t.BATCH_DONE
    answers = {key: (v.rob, v.adult, v.rvo, v.hid is not None) for key, v in result.results.items()}
    assert answers == {
        "1": (t.ROB_FOUND, t.ADULT_YES, t.RVO_NOT_LISTED, True),
        "2": (t.ROB_NOT_FOUND, t.ADULT_YES, t.RVO_UNVERIFIED, False),
        "3": (t.ROB_FOUND, t.ADULT_NO, t.RVO_NOT_LISTED, True),
    }
    hid = result.results["1"].hid
    assert hid is not None
    changed = t.Person("Jana", "Nováková", born, "CZ")
    assert client.interface().change_person(client.config(), hid=hid, person=changed).startswith("SANDBOX-")
    with pytest.raises(t.AisgFault):  # a HID the Ministry never gave
        client.interface().change_person(client.config(), hid="00000000-0000-4000-8000-000000000000", person=changed)


def test_a_request_not_signed_by_the_operators_key_is_a_fault(keys):
    other_key, other_cert = key_pair("somebody else")
    config = client.config()
    forged = client.interface().build_test(config)[0]
    data = wsse.sign_envelope(forged, key_pem=other_key, cert_pem=other_cert)
    status, answer = sandbox.transport(keys)("Test", data)
    assert status == 500 and b"9001" in answer
    assert client.ping().startswith("SANDBOX-")  # signed by the operator's key: answered
