"""``make run`` derives PUBLIC_BASE_URL from HOST/PORT when it is not set, and every link the platform sends
(the e-mail confirmation, the sandbox payment URL, the notices to staff) starts with it."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from django.core import mail
from rest_framework.test import APIClient

from tests.kit.accounts import make_player, make_register_record, registration_payload, token_for

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import run  # noqa: E402  (scripts/ is a folder of scripts, not a package)

SERVED = "http://127.0.0.1:8200"


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "http://127.0.0.1:8000"),
        ({"PORT": "8200"}, "http://127.0.0.1:8200"),
        ({"HOST": "192.168.1.20", "PORT": "8200"}, "http://192.168.1.20:8200"),
        ({"HOST": "0.0.0.0", "PORT": "8200"}, "http://127.0.0.1:8200"),  # listen on all: a browser opens 127.0.0.1
        ({"HOST": "::1", "PORT": "8200"}, "http://[::1]:8200"),
        ({"HOST": "0.0.0.0", "PORT": "8200", "PUBLIC_BASE_URL": "https://casino.example/"}, "https://casino.example"),
    ],
)
def test_make_run_derives_the_public_base_url_from_host_and_port_unless_it_is_set(environ, expected):
    assert run.public_base_url(environ) == expected


def test_make_run_hands_the_derived_address_to_every_process_it_starts():
    source = (ROOT / "scripts" / "run.py").read_text()
    main = source[source.index("def main()") :]
    assert main.index('os.environ["PUBLIC_BASE_URL"] = public_base_url(os.environ)') < main.index('manage("migrate"')


@pytest.mark.django_db
def test_the_confirmation_link_and_the_sandbox_payment_url_start_with_the_public_base_url(
    settings, django_capture_on_commit_callbacks
):
    settings.PUBLIC_BASE_URL = SERVED
    payload = registration_payload()
    make_register_record(payload)
    with django_capture_on_commit_callbacks(execute=True):
        r = APIClient().post("/api/v1/accounts/registration", payload, format="json")
    assert r.status_code == 201, r.content
    links = re.findall(r"https?://\S+", str(mail.outbox[0].body))
    assert links and all(
        link.startswith(f"{SERVED}/api/v1/accounts/registration/confirm-email?token=") for link in links
    ), links

    from tests.kit.wallet import verified_bank

    player = make_player()
    method = verified_bank(player)
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(player.user)}")
    deposit = c.post(
        "/api/v1/wallet/deposits",
        {"method_id": method.pk, "amount": {"amount": 10000, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="link-deposit",
    ).json()
    assert deposit["instructions"]["sandbox_pay_url"] == f"{SERVED}/api/v1/wallet/sandbox/deposits/{deposit['id']}/pay"


def test_the_staff_notice_of_a_complaint_links_through_the_public_base_url(settings):
    from complaints.texts import _staff_link

    settings.PUBLIC_BASE_URL = SERVED + "/"

    class Complaint:
        pk = 7

    assert _staff_link(Complaint()) == f"{SERVED}/admin/complaints/complaint/7/change/"


@pytest.mark.parametrize(
    ("environ", "dotenv", "expected"),
    [
        ({}, {}, "true"),
        ({"PORT": "8200"}, {}, "true"),
        ({"GAMES_QA_FORCED_OUTCOMES": "false"}, {}, None),  # set: left as it is
        ({}, {"GAMES_QA_FORCED_OUTCOMES": "false"}, None),
        ({"DJANGO_ENV": "production"}, {}, None),  # never in production (the settings refuse it on)
        ({}, {"DJANGO_ENV": "production"}, None),
    ],
)
def test_make_run_turns_qa_forced_outcomes_on_for_the_development_demo_unless_set_or_in_production(
    environ, dotenv, expected
):
    assert run.qa_forced_outcomes(environ, dotenv) == expected


def test_make_run_reads_the_projects_env_file_as_the_settings_do(tmp_path):
    env = tmp_path / ".env"
    env.write_text("# a comment\nDJANGO_ENV=production\nexport GAMES_QA_FORCED_OUTCOMES='false'\n")
    assert run.dotenv(env) == {"DJANGO_ENV": "production", "GAMES_QA_FORCED_OUTCOMES": "false"}
    assert run.dotenv(tmp_path / "missing") == {}


@pytest.mark.parametrize(
    ("environ", "dotenv", "expected"),
    [
        ({}, {}, run.DEMO_BANK),  # the development demo: finance's bank queues get a statement of this account
        ({"WALLET_BANK_IBAN": "CZ9408000000001234567100"}, {}, {}),  # set: kept as set, the name too
        ({}, {"WALLET_BANK_ACCOUNT_NAME": "Herní s.r.o."}, {}),
        ({"DJANGO_ENV": "production"}, {}, {}),  # never in production
    ],
)
def test_make_run_gives_the_demo_an_operator_bank_account_unless_set_or_in_production(environ, dotenv, expected):
    assert run.demo_bank_account(environ, dotenv) == expected


def test_make_run_gives_the_regulator_the_ministry_sandboxs_certificates_unless_set_or_in_production(tmp_path):
    folder = tmp_path / "regulator-sandbox"
    made = run.regulator_sandbox({}, {}, folder)
    assert made["REGULATOR_SEAL_P12"] == str(folder / "operator-seal.p12")
    assert all(Path(v).is_file() for k, v in made.items() if k != "REGULATOR_SEAL_P12_PASSWORD")
    seal = Path(made["REGULATOR_SEAL_P12"]).read_bytes()
    assert run.regulator_sandbox({}, {}, folder) == made and Path(made["REGULATOR_SEAL_P12"]).read_bytes() == seal
    assert run.regulator_sandbox({"REGULATOR_SEAL_P12": "/etc/seal.p12"}, {}, tmp_path / "other") == {}
    assert run.regulator_sandbox({}, {"REGULATOR_MINISTRY_ENCRYPTION_CERTS": "/etc/mf.pem"}, tmp_path / "other") == {}
    assert run.regulator_sandbox({"DJANGO_ENV": "production"}, {}, tmp_path / "other") == {}
    assert not (tmp_path / "other").exists()  # nothing made when not used


def test_make_run_asks_both_registers_through_the_aisg_sandbox_unless_configured_or_in_production(tmp_path):
    folder = tmp_path / "aisg-sandbox"
    made = run.aisg_sandbox({}, {}, folder)
    assert made["ACCOUNTS_POPULATION_REGISTER"] == made["ACCOUNTS_EXCLUSION_REGISTER"] == "aisg"
    assert made["ACCOUNTS_AISG_URL"] == f"sandbox:{folder}"
    assert all(Path(v).is_file() for k, v in made.items() if k.endswith("_FILE"))
    key = Path(made["ACCOUNTS_AISG_KEY_FILE"]).read_bytes()
    assert run.aisg_sandbox({}, {}, folder) == made and Path(made["ACCOUNTS_AISG_KEY_FILE"]).read_bytes() == key
    assert run.aisg_sandbox({"ACCOUNTS_POPULATION_REGISTER": "http"}, {}, tmp_path / "other") == {}
    assert run.aisg_sandbox({}, {"ACCOUNTS_AISG_URL": "https://aisg.example"}, tmp_path / "other") == {}
    assert run.aisg_sandbox({"DJANGO_ENV": "production"}, {}, tmp_path / "other") == {}
    assert not (tmp_path / "other").exists()  # nothing made when not used
