"""Adapters: sandbox registers and SMS, and the HTTP implementations against a local HTTP server."""

import json
import threading
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from django.test import override_settings

from accounts import errors, services
from accounts.adapters import (
    HttpExclusionRegister,
    HttpPopulationRegister,
    Identity,
    RegisterUnavailable,
    SandboxExclusionRegister,
    SandboxPopulationRegister,
    get_exclusion_register,
    get_population_register,
    get_sms_gateway,
)
from accounts.models import Player, SandboxExclusionEntry, SandboxSms
from core import clock
from core.errors import DomainError
from tests.kit.accounts import applicant_data, make_player, make_register_record, registration_payload

pytestmark = pytest.mark.django_db


def identity(data):
    return Identity(
        given_names=data["given_names"],
        surname=data["surname"],
        date_of_birth=date.fromisoformat(data["date_of_birth"]),
        birth_number=data["birth_number"],
        sex=data["sex"],
        citizenship=data["citizenship"],
    )


def test_the_sandbox_population_register_answers_found_not_found_mismatch_and_unavailable():
    reg = SandboxPopulationRegister()
    found, unknown, mismatch, down = (applicant_data() for _ in range(4))
    make_register_record(found)
    make_register_record(mismatch, surname="Jiný", sex="F" if mismatch["sex"] == "M" else "M")
    make_register_record(down, simulate_unavailable=True)
    assert reg.verify(identity(found)).found and reg.verify(identity(found)).mismatches == []
    assert not reg.verify(identity(unknown)).found
    assert reg.verify(identity(mismatch)).mismatches == ["surname", "sex"]
    with pytest.raises(RegisterUnavailable):
        reg.verify(identity(down))


def test_the_sandbox_exclusion_register_honours_the_listing_end_and_self_listing():
    reg = SandboxExclusionRegister()
    data = applicant_data()
    ident = identity(data)
    assert reg.is_listed(ident) is False
    reg.request_self_listing(ident, clock.now() + timedelta(days=365))
    assert reg.is_listed(ident) is True
    assert SandboxExclusionEntry.objects.get().source == "self_request"
    SandboxExclusionEntry.objects.update(listed_until=clock.now())
    assert reg.is_listed(ident) is False


def test_the_exclusion_register_accepts_a_player_as_the_identity():
    player = make_player()
    get_exclusion_register().request_self_listing(player, None)
    assert get_exclusion_register().is_listed(player) is True


def test_the_sandbox_sms_gateway_stores_the_message():
    get_sms_gateway().send(to="+420731000001", text="ahoj", purpose="test")
    assert SandboxSms.objects.get().text == "ahoj"


class _Gateway(BaseHTTPRequestHandler):
    answers: dict = {}
    seen: list = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.seen.append((self.path, body, self.headers.get("Authorization")))
        status, payload = self.answers.get(self.path, (404, {}))
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps(payload).encode())

    def log_message(self, *args):
        pass


@pytest.fixture
def gateway():
    server = HTTPServer(("127.0.0.1", 0), _Gateway)
    _Gateway.answers, _Gateway.seen = {}, []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}"
    with override_settings(
        ACCOUNTS_POPULATION_REGISTER="http",
        ACCOUNTS_POPULATION_REGISTER_URL=url,
        ACCOUNTS_EXCLUSION_REGISTER="http",
        ACCOUNTS_EXCLUSION_REGISTER_URL=url,
        ACCOUNTS_SMS_GATEWAY="http",
        ACCOUNTS_SMS_GATEWAY_URL=url,
        ACCOUNTS_GATEWAY_TOKEN="secret-token",
        ACCOUNTS_GATEWAY_TIMEOUT_SECONDS=2,
    ):
        yield _Gateway
    server.shutdown()
    server.server_close()


def test_the_http_registers_are_chosen_by_setting_and_send_the_token(gateway):
    data = applicant_data()
    gateway.answers = {
        "/verify": (200, {"found": True, "mismatches": [], "date_of_birth": data["date_of_birth"]}),
        "/check": (200, {"listed": False}),
        "/self-listing": (201, {}),
    }
    assert isinstance(get_population_register(), HttpPopulationRegister)
    assert isinstance(get_exclusion_register(), HttpExclusionRegister)
    answer = get_population_register().verify(identity(data))
    assert answer.found and answer.date_of_birth == date.fromisoformat(data["date_of_birth"])
    assert get_exclusion_register().is_listed(identity(data)) is False
    get_exclusion_register().request_self_listing(identity(data), None)
    assert [p for p, _, _ in gateway.seen] == ["/verify", "/check", "/self-listing"]
    assert all(auth == "Bearer secret-token" for _, _, auth in gateway.seen)
    assert gateway.seen[0][1]["birth_number"] == data["birth_number"]


def test_an_http_register_error_or_a_malformed_answer_is_register_unavailable(gateway):
    data = applicant_data()
    gateway.answers = {"/verify": (500, {}), "/check": (200, {"listed": "maybe"})}
    with pytest.raises(RegisterUnavailable):
        get_population_register().verify(identity(data))
    with pytest.raises(RegisterUnavailable):
        get_exclusion_register().is_listed(identity(data))


@override_settings(ACCOUNTS_POPULATION_REGISTER="http", ACCOUNTS_POPULATION_REGISTER_URL="http://127.0.0.1:9")
def test_an_unreachable_http_register_is_register_unavailable():
    with pytest.raises(RegisterUnavailable):
        get_population_register().verify(identity(applicant_data()))


def test_registration_refuses_a_person_the_register_says_is_under_18(gateway):
    body = registration_payload()
    today = clock.business_date()
    minor = today.replace(year=today.year - 17).isoformat()
    gateway.answers = {
        "/verify": (200, {"found": True, "mismatches": [], "date_of_birth": minor}),
        "/check": (200, {"listed": False}),
    }
    with pytest.raises(DomainError) as exc:
        services.registration_submit(
            data={k: v for k, v in body.items() if k not in ("username", "consents")},
            consents=body["consents"],
            username=body["username"],
        )
    assert exc.value.code == errors.UNDERAGE.code
    assert Player.objects.count() == 0


def test_the_http_sms_gateway_posts_the_message(gateway):
    gateway.answers = {"/send": (202, {})}
    get_sms_gateway().send(to="+420731000001", text="heslo", purpose="first_password")
    assert gateway.seen[0][:2] == ("/send", {"to": "+420731000001", "text": "heslo"})
    assert SandboxSms.objects.count() == 0
