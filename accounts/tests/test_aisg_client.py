"""The AISG interface version 1.0 client (accounts.aisg.v1) against the local server built from the Ministry's
WSDL: signed requests, signed answers verified, faults, slow answers, bad signatures, the playground persons."""

import datetime as dt
import json
import uuid

import pytest
from lxml import etree

from accounts.aisg import client, v1
from accounts.aisg import types as t
from tests.kit.aisg import key_pair, playground_hids, playground_persons, spec_dir

pytestmark = pytest.mark.django_db


def spec():
    folder = spec_dir()
    if not (folder / "requests").is_dir():
        pytest.skip(f"the Ministry's AISG files are not at {folder} (../shared/spec/rvo-data)")
    return folder


def test_every_playground_person_is_sent_as_the_ministry_s_schema_wants_and_answered(aisg):
    persons = playground_persons(spec())
    assert len(persons) > 60 and aisg.schema is not None
    for person in persons.values():
        aisg.add_person(person)
    cfg = client.config()
    for name, person in persons.items():
        answer = v1.verify_person(cfg, reason=t.REGISTRATION, person=person)
        assert (answer.rob, answer.rvo) == (t.ROB_FOUND, t.RVO_NOT_LISTED), name
        assert answer.hid == aisg.persons[aisg.key(person.given_names, person.surname, person.date_of_birth)].hid
    assert len(aisg.requests) == len(persons) and not aisg.schema_errors


def test_the_request_is_the_wsdl_s_message_signed_over_the_body_with_rsa_sha256(aisg):
    person = playground_persons(spec())["overeni_NovakD"]
    aisg.add_person(person)
    env, request_id = v1.build_verify(client.config(), reason=t.REGISTRATION, person=person)
    data = v1.wsse.sign_envelope(env, key_pem=aisg.operator_key_pem, cert_pem=aisg.operator_cert_pem)
    root = etree.fromstring(data)
    ns = {"ds": v1.wsse.DS_NS, "r": v1.NS, "s": v1.SOAP, "wsse": v1.wsse.WSSE_NS}
    assert root.xpath("string(//ds:SignatureMethod/@Algorithm)", namespaces=ns).endswith("#rsa-sha256")
    assert root.xpath("string(//ds:DigestMethod/@Algorithm)", namespaces=ns).endswith("#sha256")
    assert root.xpath("//s:Body/r:OveritOsobuRequest/r:Duvod/text()", namespaces=ns) == ["Registrace"]
    assert root.xpath("//s:Body/r:OveritOsobuRequest/r:ICO_VCP/text()", namespaces=ns) == ["01234567"]
    cr = root.xpath("//r:TrvalyPobytCR", namespaces=ns)[0]
    assert [etree.QName(e).localname for e in cr] == [
        "Ulice",
        "CisloPopisneEvidencni",
        "CisloOrientacni",
        "CisloObvodMestaPrahy",
        "Obec",
        "PSC",
    ]
    assert root.xpath("//wsse:SecurityTokenReference/wsse:Reference/@URI", namespaces=ns)[0].startswith("#X509-")
    assert v1.wsse.verify_envelope(data, cert_pem=aisg.operator_cert_pem).tag == f"{{{v1.SOAP}}}Body"
    other_key, _ = key_pair("not the operator")
    forged = v1.wsse.sign_envelope(
        v1.build_verify(client.config(), reason=t.REGISTRATION, person=person)[0],
        key_pem=other_key,
        cert_pem=aisg.operator_cert_pem,
    )
    status, answer = aisg.handle("OveritOsobu", forged)
    assert status == 500 and b"WS-Security" in answer  # the Ministry refuses a request not signed by the operator


def test_login_by_the_stored_hid_of_a_playground_person(aisg):
    hids = playground_hids(spec())
    hid = hids["overeni_prihlaseni_hid_NovakA"]
    aisg.add("Adam", "Novák", dt.date(1990, 1, 1), hid=hid, rvo=t.RVO_LISTED)
    answer = v1.verify_person(client.config(), reason=t.LOGIN, hid=hid)
    assert (answer.hid, answer.rvo, answer.adult) == (hid, t.RVO_LISTED, t.ADULT_YES)
    sent = aisg.requests[-1][1]
    assert sent.findtext(v1.q("HID")) == hid and sent.find(v1.q("Osoba")) is None


def test_a_fault_is_an_aisg_fault_with_the_ministry_s_code(aisg):
    aisg.fault = (9050, "Interní chyba")
    with pytest.raises(t.AisgFault) as exc:
        client.ping()
    assert exc.value.code == 9050 and exc.value.description == "Interní chyba"


def test_a_slow_answer_is_a_timeout(aisg, settings):
    settings.ACCOUNTS_AISG_TIMEOUT_SECONDS = 0.3
    aisg.delay = 1.0
    with pytest.raises(t.AisgTimeout):
        client.ping()


@pytest.mark.parametrize("how", ["other", "none", "tamper"])
def test_an_answer_not_signed_by_the_ministry_is_refused(aisg, how):
    person = playground_persons(spec())["overeni_MatulovaZ"]
    aisg.add_person(person, rvo=t.RVO_LISTED)
    aisg.sign_with = how
    with pytest.raises(t.AisgBadSignature):
        v1.verify_person(client.config(), reason=t.REGISTRATION, person=person)


def test_an_answer_to_another_request_is_refused(aisg):
    aisg.echo = False
    with pytest.raises(t.AisgMalformed):
        client.ping()


def test_nobody_listening_is_an_aisg_error(aisg, settings):
    settings.ACCOUNTS_AISG_URL = "http://127.0.0.1:9/rovo/v1"
    with pytest.raises(t.AisgError):
        client.ping()


def test_batch_submitted_then_collected_once_processed(aisg):
    persons = playground_persons(spec())
    batch = [(k.split("/")[-1], p) for k, p in persons.items() if k.startswith("hromadneOvereni/")]
    assert [k for k, _ in batch] == ["o1", "o2", "o3", "o4", "o5"]
    for _, p in batch[:4]:
        aisg.add_person(p)
    aisg.batch_polls = 1
    batch_id = client.submit_batch(batch)
    assert uuid.UUID(batch_id)
    first = client.batch_results(batch_id)
    assert (first.state, first.results) == (t.BATCH_ACCEPTED, {})
    done = client.batch_results(batch_id)
    assert done.state == t.BATCH_DONE
    assert {k: (v.rob, v.rvo) for k, v in done.results.items()} == {
        "o1": (t.ROB_FOUND, t.RVO_NOT_LISTED),
        "o2": (t.ROB_FOUND, t.RVO_NOT_LISTED),
        "o3": (t.ROB_FOUND, t.RVO_NOT_LISTED),
        "o4": (t.ROB_FOUND, t.RVO_NOT_LISTED),
        "o5": (t.ROB_NOT_FOUND, t.RVO_UNVERIFIED),
    }


def test_a_batch_holds_one_to_a_thousand_persons(aisg):
    person = playground_persons(spec())["overeni_NovakD"]
    with pytest.raises(ValueError):
        v1.build_batch(client.config(), [])
    with pytest.raises(ValueError):
        v1.build_batch(client.config(), [(str(i), person) for i in range(1001)])
    v1.build_batch(client.config(), [(str(i), person) for i in range(1000)])


def test_change_of_personal_data_by_hid_as_the_playground_request(aisg):
    data = json.loads((spec() / "requests" / "zmenaUdaju_KnapV.json").read_text(encoding="utf-8"))
    from tests.kit.aisg import person_from_reference_json

    person = person_from_reference_json(data["osoba"])
    aisg.add("Valdemar", "Knap", dt.date(1984, 8, 23), hid=data["hid"])
    assert client.interface().change_person(client.config(), hid=data["hid"], person=person).startswith("LOCAL-")
    hid, request = aisg.changes[-1]
    assert hid == data["hid"] and request.findtext(f"{v1.q('Osoba')}/{v1.q('Prijmeni')}") == "KNAP"


def test_addresses_are_split_into_the_schema_s_numbers():
    a = client.address_of("Karlovo náměstí 285/19a", "Praha 2", "120 00", "CZ")
    assert a is not None
    assert (
        a.street,
        a.house_number,
        a.orientation_number,
        a.orientation_suffix,
        a.municipality,
        a.prague_district,
        a.postal_code,
    ) == ("Karlovo náměstí", 285, 19, "a", "Praha", 2, "120 00")
    b = client.address_of("Hlavní 12", "Stod", "33301", "CZ")
    assert b is not None
    assert (b.street, b.house_number, b.orientation_number) == ("Hlavní", 12, None)
    c = client.address_of("Angerweg 50", "Bad Kohlgrub", "82433", "DE")
    assert c is not None
    assert (c.country, c.prague_district) == ("DE", None)
