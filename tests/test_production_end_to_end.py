"""Production runs end to end, with no sandbox anywhere.

The platform is started the way an operator starts it: ``DJANGO_ENV=production`` (every production refusal in force:
real registers, a real SMS gateway, SMTP e-mail, Bank iD, the imported screening lists, the bank provider for bank
accounts, staff 2FA, TLS), ``manage.py migrate``, gunicorn with ``config/gunicorn.conf.py`` serving HTTPS, and a
Celery worker on a real broker. Around it run the outside systems, each a local server speaking the real protocol:
an OpenID provider over TLS (``tests.kit.oidc``: discovery, JWKS, signed ID tokens, Bank iD's profile claims),
the population register, the register of excluded persons and the SMS gateway (the HTTP contracts of
``accounts.adapters``), and an SMTP server. The sanctions lists are imported from files in the EU, UN and Czech
formats with ``manage.py aml_list_import``; bank statements come as camt.053 files, payment orders leave as pain.001.

A staff member (game-manager role, signed in to the admin with a password and a TOTP one-time password) publishes
the first version of the game plan and terms and records the game's approval. A player then goes the whole way
through the public API: registration (the register finds her), the e-mail link (read from the SMTP server), the
first password (read from the SMS gateway), its change, the PEP declaration, Bank iD identification, screening
against the imported lists (clear), self-limits, a bank account, a deposit paid by bank transfer and matched from
the camt.053 statement (which verifies the account, GP §5(8)a), the completed registration (GP §4(8)), a round of
European roulette, and a withdrawal that leaves in the pain.001 payment-order file. A second applicant who is on the
EU list is stopped by the screening. ``ledger_check`` is clean at the end.

Run alone: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/x .venv/bin/python -m pytest -q
tests/test_production_end_to_end.py -s`` (``-s`` prints each step).

The broker (:func:`broker_url`): ``E2E_BROKER_URL`` when set; else the environment's ``CELERY_BROKER_URL`` when it
is a real broker (``amqp://`` / ``redis://``, as CI's RabbitMQ); else Redis at ``redis://127.0.0.1:6379/12``. When
the chosen broker does not answer, the test is skipped with the reason on a developer's machine and FAILS under CI
(``CI`` set), like the browser tests.
"""

from __future__ import annotations

import base64
import email
import json
import os
import re
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import psycopg
import pytest
import requests
from django_otp.oath import totp

from accounts.aisg.v1 import q as aisg_q
from accounts.errors import TERMS_NOT_ACCEPTED, TERMS_NOTICE_TOO_SHORT
from core import clock
from tests.kit.accounts import applicant_data, birth_number_for
from tests.kit.aisg import LocalAisg, spec_dir
from tests.kit.aisg import key_pair as aisg_key_pair
from tests.kit.oidc import LocalOpenIDProvider, _self_signed_certificate, bankid_idcard, bankid_profile
from tests.kit.production import PRODUCTION_ENV
from tests.kit.servers import free_port
from wallet.methods import czech_account_iban
from wallet.tests.bankfiles import OPERATOR_IBAN, OPERATOR_NAME, Tx, camt, pain_header, pain_transfers

pytestmark = [pytest.mark.slow, pytest.mark.process]

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
LISTS = ROOT / "aml" / "tests" / "lists"
BANKID_APP = "https://hraj.example.cz/bankid"
GATEWAY_TOKEN = "t" * 40
PLAYER_ACCOUNT = "19-2000145399/0800"  # the player's account at Česká spořitelna
STAFF_PASSWORD = "Game-manager-e2e-2026"
NEW_PASSWORD = "Moje-produkcni-heslo-2026"
ROULETTE = "european_roulette"


def step(text: str) -> None:
    print(f"[production e2e] {text}", flush=True)


DEFAULT_BROKER = "redis://127.0.0.1:6379/12"
BROKER_PORTS = {"amqp": 5672, "amqps": 5671, "pyamqp": 5672, "redis": 6379, "rediss": 6379}


def _answers(url: str) -> bool:
    """Whether something listens at the broker URL's host and port (a TCP connection within 2 s)."""
    parts = urlsplit(url)
    try:
        with socket.create_connection(
            (parts.hostname or "127.0.0.1", parts.port or BROKER_PORTS[parts.scheme]), timeout=2
        ):
            return True
    except OSError:
        return False


def broker_url() -> str:
    """The broker the worker uses: ``E2E_BROKER_URL`` if set; else ``CELERY_BROKER_URL`` if it names a real broker
    (amqp / redis; not the development filesystem transport); else Redis at :data:`DEFAULT_BROKER`. Skips (fails
    under CI) when it does not answer."""
    chosen, source = os.environ.get("E2E_BROKER_URL", ""), "E2E_BROKER_URL"
    if not chosen:
        env = os.environ.get("CELERY_BROKER_URL", "")
        real = urlsplit(env).scheme in BROKER_PORTS
        chosen, source = (env, "CELERY_BROKER_URL") if real else (DEFAULT_BROKER, "the default")
    if urlsplit(chosen).scheme not in BROKER_PORTS:
        why = f"the broker {source} names ({urlsplit(chosen).scheme}://) is not RabbitMQ or Redis"
    elif _answers(chosen):
        return chosen
    else:
        parts = urlsplit(chosen)
        why = (
            f"no broker answers at {parts.scheme}://{parts.hostname}:{parts.port or BROKER_PORTS[parts.scheme]} "
            f"({source}); start RabbitMQ or Redis, or set E2E_BROKER_URL (docs/core.md)"
        )
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


# The outside systems --------------------------------------------------------------------------------------------------


class Registers:
    """The population register, the register of excluded persons and the SMS gateway, over HTTP with the
    operator's token (``accounts.adapters.Http*``). Every call is kept, so the test reads what was sent."""

    def __init__(self, *, listed: set[str] | None = None) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.sms: list[dict[str, Any]] = []
        self.listed = listed or set()
        registers = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                if self.headers.get("Authorization") != f"Bearer {GATEWAY_TOKEN}":
                    return self._send(401, {"error": "token"})
                registers.calls.append((self.path, body))
                if self.path == "/population/verify":
                    return self._send(
                        200,
                        {
                            "found": True,
                            "mismatches": [],
                            "date_of_birth": body["date_of_birth"],
                            "resident_in_cz": True,
                        },
                    )
                if self.path == "/exclusion/check":
                    return self._send(200, {"listed": body.get("birth_number") in registers.listed})
                if self.path == "/exclusion/panic":
                    return self._send(200, {"reference": f"REJ-{body['reference'][:20]}"})
                if self.path == "/exclusion/self-listing":
                    return self._send(201, {})
                if self.path == "/sms/send":
                    registers.sms.append(body)
                    return self._send(202, {"id": str(uuid.uuid4())})
                return self._send(404, {"error": "path"})

            def _send(self, status: int, data: dict[str, Any]) -> None:
                raw = json.dumps(data).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Smtp:
    """A small SMTP server (RFC 5321: EHLO/HELO, MAIL, RCPT, DATA, RSET, NOOP, QUIT) keeping each message."""

    def __init__(self) -> None:
        self.messages: list[email.message.Message] = []
        smtp = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                self.say("220 smtp.test ESMTP")
                while line := self.rfile.readline():
                    verb = line.decode("ascii", "replace").strip().split(" ", 1)[0].upper()
                    if verb == "EHLO":
                        self.say("250-smtp.test", "250 8BITMIME")
                    elif verb in ("HELO", "MAIL", "RCPT", "RSET", "NOOP"):
                        self.say("250 OK")
                    elif verb == "DATA":
                        self.say("354 end with <CRLF>.<CRLF>")
                        data = b""
                        while (chunk := self.rfile.readline()) not in (b".\r\n", b""):
                            data += chunk[1:] if chunk.startswith(b"..") else chunk
                        smtp.messages.append(email.message_from_bytes(data))
                        self.say("250 queued")
                    elif verb == "QUIT":
                        self.say("221 bye")
                        return
                    else:
                        self.say("502 not implemented")

            def say(self, *lines: str) -> None:
                self.wfile.write("".join(f"{x}\r\n" for x in lines).encode())

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.port = self.server.server_address[1]

    def texts(self, to: str) -> list[str]:
        out = []
        for msg in self.messages:
            if to not in (msg.get("To") or ""):
                continue
            for part in msg.walk():
                payload = part.get_payload(decode=True)
                if part.get_content_type() == "text/plain" and isinstance(payload, bytes):
                    out.append(payload.decode(part.get_content_charset() or "utf-8"))
        return out

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def wait_for(what: str, check: Any, seconds: float = 60) -> Any:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if value := check():
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


# The platform, started as in production -------------------------------------------------------------------------------


class Platform:
    def __init__(self, env: dict[str, str], folder: Path) -> None:
        self.env = env
        self.folder = folder
        self.procs: list[subprocess.Popen[bytes]] = []

    def manage(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        r = subprocess.run(
            [PY, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True, timeout=600
        )
        if check and r.returncode != 0:
            raise AssertionError(f"manage.py {' '.join(args)} failed:\n{r.stdout}\n{r.stderr}")
        return r

    def shell(self, code: str) -> str:
        return self.manage("shell", "-c", code).stdout

    def start(self, name: str, argv: list[str]) -> subprocess.Popen[bytes]:
        log = open(self.folder / f"{name}.log", "wb")
        proc = subprocess.Popen(
            argv, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.procs.append(proc)
        return proc

    def log(self, name: str) -> str:
        return (self.folder / f"{name}.log").read_text(errors="replace")

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


def _database(name: str, *, create: bool = True) -> str:
    """A database of its own on the server of ``DATABASE_URL`` (made afresh; ``create=False`` drops it), and its URL:
    the same server, a host and port or a Unix socket's directory (the embedded server's ``?host=<directory>``)."""
    parts = urlsplit(os.environ["DATABASE_URL"])  # config/pytest_env.py sets it (the embedded server's when unset)
    admin_url = parts._replace(scheme="postgresql", path="/postgres").geturl()  # libpq reads the URL
    with psycopg.connect(admin_url, autocommit=True) as admin, admin.cursor() as cur:  # closed at the block's end
        cur.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if create:
            cur.execute(f'CREATE DATABASE "{name}"')
    return parts._replace(path=f"/{name}").geturl()


@pytest.fixture(scope="module")
def production() -> Iterator[dict[str, Any]]:
    broker = broker_url()
    folder = Path(tempfile.mkdtemp(prefix="prod-e2e-"))
    op = LocalOpenIDProvider(client_id="hraj-production", redirect_uris=[BANKID_APP], tls=True).start()
    registers = Registers()
    operator_key, operator_cert = aisg_key_pair("Provozovatel, a.s. - AISG")
    aisg = LocalAisg(
        operator_cert_pem=operator_cert, tls_folder=folder, schema_dir=spec_dir() if spec_dir().is_dir() else None
    ).start()
    smtp = Smtp()
    cert, key = _self_signed_certificate(folder)
    port = free_port()
    base = f"https://127.0.0.1:{port}"
    db = f"prod_e2e_{os.getpid()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "ACCOUNTS_", "AML_", "WALLET_"))}
    env.update(PRODUCTION_ENV)
    env.update(op.environment())
    env.update(
        {
            "DATABASE_URL": _database(db),
            "CELERY_BROKER_URL": broker,
            "ALLOWED_HOSTS": "127.0.0.1",
            "PUBLIC_BASE_URL": base,
            **aisg.environment(folder, operator_key),  # both registers: the Ministry's AISG interface (signed SOAP)
            "ACCOUNTS_SMS_GATEWAY_URL": f"{registers.url}/sms",
            "ACCOUNTS_GATEWAY_TOKEN": GATEWAY_TOKEN,
            "ACCOUNTS_TERMS_SNAPSHOT_SECONDS": "1",
            "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "EMAIL_HOST": "127.0.0.1",
            "EMAIL_PORT": str(smtp.port),
            "WALLET_BANK_IBAN": OPERATOR_IBAN,
            "WALLET_BANK_ACCOUNT_NAME": OPERATOR_NAME,
            "BIND": f"127.0.0.1:{port}",
            "WEB_CONCURRENCY": "2",
            "GUNICORN_ACCESS_LOG": str(folder / "access.log"),
            "PYTHONUNBUFFERED": "1",
        }
    )
    env["CACHE_URL"] = "dbcache://platform_cache"  # a cache every worker shares, in the database (no Redis needed)
    platform = Platform(env, folder)
    try:
        parts = urlsplit(broker)
        step(
            f"database {db}; broker {parts.scheme}://{parts.hostname}:{parts.port or BROKER_PORTS[parts.scheme]}; "
            f"migrate with DJANGO_ENV=production"
        )
        migrate = platform.manage("migrate", "--noinput")
        platform.manage("createcachetable")
        check = platform.manage("check", "--deploy", check=False)
        assert check.returncode == 0, check.stderr
        step("gunicorn (TLS) and a Celery worker")
        platform.start(
            "gunicorn",
            [
                PY,
                "-m",
                "gunicorn",
                "-c",
                "config/gunicorn.conf.py",
                "--certfile",
                str(cert),
                "--keyfile",
                str(key),
                "config.wsgi:application",
            ],
        )
        platform.start(
            "worker",
            [
                PY,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "-P",
                "solo",
                "-c",
                "1",
                "--without-gossip",
                "--without-mingle",
                "-l",
                "info",
            ],
        )

        def up() -> bool:
            try:
                return requests.get(f"{base}/health", timeout=2, verify=str(cert)).status_code in (200, 503)
            except requests.RequestException:
                return False

        wait_for("gunicorn to answer", up, 90)
        yield {
            "startup": migrate.stdout + migrate.stderr,
            "base": base,
            "platform": platform,
            "op": op,
            "registers": registers,
            "smtp": smtp,
            "ca": str(cert),
            "aisg": aisg,
            "folder": folder,
        }
    finally:
        platform.stop()
        op.stop()
        registers.stop()
        aisg.stop()
        smtp.stop()
        if not os.environ.get("E2E_KEEP_DATABASE"):
            _database(db, create=False)


# The clients ----------------------------------------------------------------------------------------------------------


class Client:
    """HTTPS trusting only the test's certificate. (``verify`` is given with each request: requests lets
    ``REQUESTS_CA_BUNDLE`` from the environment override a session's own ``verify``.)"""

    def __init__(self, base: str, ca: str) -> None:
        self.base = base
        self.ca = ca
        self.http = requests.Session()

    def request(self, method: str, url: str, **kw: Any) -> requests.Response:
        return self.http.request(method, url, verify=self.ca, timeout=60, **kw)


class Api(Client):
    """A player app: JSON over HTTPS, the player's token, an Idempotency-Key on every write."""

    def __init__(self, base: str, ca: str) -> None:
        super().__init__(base, ca)
        self.http.headers["Accept-Language"] = "en"

    def auth(self, token: str) -> None:
        self.http.headers["Authorization"] = f"Token {token}"

    def call(self, method: str, path: str, body: Any = None, **params: Any) -> requests.Response:
        headers = {"Idempotency-Key": str(uuid.uuid4())} if method != "GET" else {}
        return self.request(method, f"{self.base}/api/v1{path}", json=body, params=params or None, headers=headers)


def ok(r: requests.Response, status: int = 200) -> Any:
    assert r.status_code == status, f"{r.request.method} {r.url}: {r.status_code} {r.text[:2000]}"
    return r.json() if r.content else None


def money(minor: int) -> dict[str, Any]:
    """A request amount in the API's money convention: a Money object of integer haléře (docs/player-api.md)."""
    return {"amount": minor, "currency": "CZK"}


class Admin(Client):
    """A staff member in the admin: password and TOTP (ADMIN_REQUIRE_2FA), CSRF with the Referer HTTPS needs."""

    def _csrf(self, html: str) -> str:
        match = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
        assert match, html[:2000]
        return match.group(1)

    def get(self, path: str) -> str:
        r = self.request("GET", f"{self.base}{path}")
        assert r.status_code == 200, f"GET {path}: {r.status_code} {r.text[:1000]}"
        return r.text

    def post(self, path: str, form: dict[str, Any], *, page: str | None = None) -> requests.Response:
        html = self.get(page or path)
        data = {"csrfmiddlewaretoken": self._csrf(html), **form}
        return self.request(
            "POST",
            f"{self.base}{path}",
            data=data,
            headers={"Referer": f"{self.base}{page or path}"},
            allow_redirects=False,
        )

    def sign_in(self, username: str, password: str, otpauth: str, device: str) -> None:
        query = parse_qs(urlsplit(otpauth).query)
        secret = query["secret"][0]
        key = base64.b32decode(secret + "=" * (-len(secret) % 8))
        html = self.get("/admin/login/")
        form = {
            "csrfmiddlewaretoken": self._csrf(html),
            "username": username,
            "password": password,
            "otp_device": device,
            "otp_token": f"{totp(key, step=int(query.get('period', ['30'])[0])):06d}",
            "next": "/admin/",
        }
        r = self.request(
            "POST",
            f"{self.base}/admin/login/?next=/admin/",
            data=form,
            headers={"Referer": f"{self.base}/admin/login/"},
            allow_redirects=False,
        )
        errors = re.findall(r'class="(?:errornote|errorlist)[^"]*">(.*?)</', r.text, re.S)
        assert r.status_code == 302, (r.status_code, errors or r.text[:3000])


def bank_profile(body: dict[str, Any]) -> dict[str, Any]:
    """What the player's bank verified about her: the registration's person, as Bank iD's profile claims."""
    street, number = body["residence_street"].rsplit(" ", 1)
    return bankid_profile(
        given_name=body["given_names"],
        family_name=body["surname"],
        birthdate=body["date_of_birth"],
        birthnumber=body["birth_number"].replace("/", ""),
        gender="female" if body["sex"] == "F" else "male",
        nationality=body["citizenship"],
        idcards=[
            bankid_idcard(
                number=body["document_number"],
                valid_to=body["document_valid_until"],
                issuer=body["document_issuing_authority"],
            )
        ],
        addresses=[
            {
                "type": "PERMANENT_RESIDENCE",
                "street": street,
                "streetnumber": number,
                "city": body["residence_city"],
                "zipcode": body["residence_postal_code"].replace(" ", ""),
                "country": body["residence_country"],
            }
        ],
    )


def register(anon: Api, username: str, aisg: LocalAisg, **data: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Register through the API; the AISG interface knows the person (found, adult, not excluded)."""
    docs = ok(anon.call("GET", "/accounts/registration/documents"))
    applicant = applicant_data(**data)
    aisg.add(applicant["given_names"], applicant["surname"], date.fromisoformat(applicant["date_of_birth"]))
    body = {
        **applicant,
        "username": username,
        "consents": {
            "terms": docs["terms"],
            "data_processing": docs["data_processing"],
            "game_plan": docs["game_plan"],
            "marketing": False,
        },
    }
    return body, ok(anon.call("POST", "/accounts/registration", body), 201)


# The journey ----------------------------------------------------------------------------------------------------------


def test_production_takes_a_player_from_registration_through_bank_id_a_bank_deposit_and_a_round_to_a_pain001_payout(
    production: dict[str, Any],
) -> None:
    base, ca, platform = production["base"], production["ca"], production["platform"]
    op, registers, smtp = production["op"], production["registers"], production["smtp"]
    folder: Path = production["folder"]

    # 0. The production start-up refused nothing and logged the real implementation of each outside system.
    startup = re.search(r"external systems: ([^\"]+)", production["startup"])
    assert startup and "sandbox" not in startup.group(1), production["startup"][-2000:]
    step(f"external systems: {startup.group(1)}")

    # 1. The operator imports the published sanctions lists (EU, UN, the Czech national list) and the PEP list.
    for source, name in (("eu", "eu_fsf.xml"), ("un", "un_consolidated.xml"), ("cz", "cz_national.csv")):
        out = platform.manage("aml_list_import", "--source", source, str(LISTS / name)).stdout
        step(f"list {source}: {' / '.join(out.strip().splitlines())}")
    platform.manage("aml_list_import", "--source", "pep", "--published", "2026-11-01", str(LISTS / "pep.csv"))

    # 2. A staff member of the game-manager role, signed in with a one-time password, publishes the first version of
    #    the game plan and terms (GP §3(5)) and records European roulette's approval in the plan (GP §13(6)).
    platform.shell(
        "from django.contrib.auth import get_user_model as m; User = m(); "
        f"User.objects.create_user('gm.prod', password='{STAFF_PASSWORD}', is_staff=True)"
    )
    platform.manage("staff_role_grant", "gm.prod", "game_manager")
    otpauth = re.search(r"otpauth://\S+", platform.manage("staff_totp_enrol", "gm.prod").stdout)
    assert otpauth, "staff_totp_enrol printed no otpauth URL"
    staff = Admin(base, ca)
    r = staff.request("GET", f"{base}/admin/", allow_redirects=False)
    assert r.status_code == 302 and "/admin/login/" in r.headers["Location"]
    device = (
        platform.shell(
            "from django_otp.plugins.otp_totp.models import TOTPDevice as D; "
            "print(D.objects.get(user__username='gm.prod').persistent_id)"
        )
        .strip()
        .splitlines()[-1]
    )
    staff.sign_in("gm.prod", STAFF_PASSWORD, otpauth.group(0), device)
    publish = "/admin/accounts/termsversion/publish/"
    r = staff.post(
        publish,
        {
            "title": "Herní plán a podmínky 2027",
            "summary_cs": "První verze.",
            "summary_en": "The first version.",
            "text_cs": "Podmínky ...",
            "text_en": "Terms ...",
            "effective_at": "2000-01-01 00:00",
            "min_stake": "",
            "stake_step": "",
        },
    )
    assert r.status_code == 200 and TERMS_NOTICE_TOO_SHORT.code in r.text  # the past is refused ...
    when = clock.local(clock.now() + timedelta(seconds=3)).strftime("%Y-%m-%d %H:%M:%S")  # Prague time
    r = staff.post(
        publish,
        {
            "title": "Herní plán a podmínky 2027",
            "summary_cs": "První verze.",
            "summary_en": "The first version.",
            "text_cs": "Podmínky ...",
            "text_en": "Terms ...",
            "effective_at": when,
            "min_stake": "",
            "stake_step": "",
        },
    )
    assert r.status_code == 302, r.text[:3000]  # ... a version in force within seconds is published
    html = staff.get(f"/admin/games/game/?q={ROULETTE}")
    game_pk = re.search(r'name="_selected_action" value="(\d+)"', html)
    assert game_pk, html[:2000]
    r = staff.post(
        "/admin/games/game/",
        {
            "action": "approve_games",
            "_selected_action": game_pk.group(1),
            "apply": "1",
            "plan_version": "HP-2027-1",
            "reference": "MF-12345/2026",
        },
        page=f"/admin/games/game/?q={ROULETTE}",
    )
    assert r.status_code == 302, r.text[:3000]
    step("staff (2FA) published the terms and approved European roulette")

    # 3. A player registers; the population register finds her and the exclusion register does not list her.
    anon = Api(base, ca)
    aisg: LocalAisg = production["aisg"]
    body, reg = register(anon, "prod.hracka", aisg, n=4711)
    assert reg["status"] == "temporary"
    assert not [c for c, _ in registers.calls if not c.startswith("/sms")]  # no development register gateway
    action, request = aisg.requests[-1]  # one signed OveritOsobu, reason Registrace, over TLS
    assert (action, request.findtext(aisg_q("Duvod"))) == ("OveritOsobu", "Registrace")
    assert request.findtext(f"{aisg_q('Osoba')}/{aisg_q('Prijmeni')}") == body["surname"]

    # 4. The e-mail link arrives by SMTP, the first password by the SMS gateway.
    mail_text = wait_for("the e-mail", lambda: smtp.texts(body["email"]))[0]
    link = re.search(r"https://\S+/registration/confirm-email/?\?token=([^\s&]+)", mail_text)
    assert link and link.group(0).startswith(base), mail_text
    assert (
        ok(anon.call("GET", "/accounts/registration/confirm-email", token=link.group(1)))["status"] == "password_sent"
    )
    sms = wait_for("the SMS", lambda: [m for m in registers.sms if m["to"] == body["phone"]])[0]
    first_password = re.search(r"first password: (\S+) -", sms["text"]).group(1)  # type: ignore[union-attr]
    login = ok(anon.call("POST", "/accounts/auth/login", {"username": "prod.hracka", "password": first_password}))
    action, request = aisg.requests[-1]  # the login asked with Prihlaseni and the HID kept at registration
    assert (action, request.findtext(aisg_q("Duvod"))) == ("OveritOsobu", "Prihlaseni")
    assert request.findtext(aisg_q("HID")) and request.find(aisg_q("Osoba")) is None
    assert not aisg.schema_errors, aisg.schema_errors
    me = Api(base, ca)
    me.auth(login["token"])
    ok(me.call("POST", "/accounts/auth/password", {"old_password": first_password, "new_password": NEW_PASSWORD}))
    step("registered; e-mail confirmed over SMTP; first password by the SMS gateway, changed")

    # 5. Not a PEP; identified by her bank with Bank iD (OpenID Connect over TLS; the signed ID token checked).
    assert ok(me.call("POST", "/aml/pep-declaration", {"relation": "none"}), 201)["relation"] == "none"
    op.login(bank_profile(body))
    started = ok(me.call("POST", "/aml/identifications/bankid", {"redirect_url": BANKID_APP}), 201)
    answer = op.authorize(started["authorization_url"])
    identified = ok(
        me.call("POST", "/aml/identifications/bankid/callback", {"state": answer["state"], "code": answer["code"]})
    )
    assert identified["status"] == "approved", identified
    assert ("POST", "/token") in [(m, urlsplit(p).path) for m, p in op.requests]
    step("Bank iD: identified (code exchanged, ID token verified, profile claims matched)")

    # 6. Screening against the imported lists: clear; the limits; a bank account at a Czech bank.
    status = wait_for("the screening", lambda: (s := ok(me.call("GET", "/aml/status")))["screened"] and s)
    assert status["identified"] and status["pep_declared"], status
    assert not any(status["refusals"].values()), status  # screened clear against the imported lists
    step(f"screened clear against the imported lists; refusals {status['refusals']}")
    for limit_type, value in {
        "daily_stake": 500_000,
        "monthly_stake": 5_000_000,
        "daily_loss": None,
        "monthly_loss": None,
        "monthly_logins": None,
        "daily_time": None,
        "pause_after_logout": None,
    }.items():
        ok(
            me.call(
                "PUT",
                f"/limits/self-limits/technical/{limit_type}",
                {"value": money(value) if value is not None else None},
            )
        )
    method = ok(
        me.call("POST", "/wallet/payment-methods", {"kind": "bank_account", "account_number": PLAYER_ACCOUNT}), 201
    )
    assert method["status"] == "pending"
    steps = ok(me.call("GET", "/accounts/registration/steps"))
    assert steps["missing"] == ["payment_method"], steps

    # 7. A deposit by bank transfer: the instructions name the operator's account and the variable symbol; the money
    #    is seen in the end-of-day camt.053 statement the operator imports.
    deposit = ok(me.call("POST", "/wallet/deposits", {"method_id": method["id"], "amount": money(250_000)}), 201)
    instructions = deposit["instructions"] if "instructions" in deposit else deposit
    symbol = instructions.get("variable_symbol") or deposit["payment_reference"]
    assert OPERATOR_IBAN in json.dumps(deposit), deposit
    statement_file = folder / "camt053.xml"
    statement_file.write_bytes(
        camt(
            [
                Tx(
                    amount="2500.00",
                    vs=str(symbol),
                    name=f"{body['surname']} {body['given_names']}",
                    iban=czech_account_iban(PLAYER_ACCOUNT),
                    booked=clock.business_date().isoformat(),
                )
            ]
        )
    )
    out = platform.manage("bank_statement_import", "--json", str(statement_file)).stdout
    summary = json.loads(out.strip().splitlines()[-1])
    step(f"camt.053 imported: {summary}")
    assert ok(me.call("GET", f"/wallet/deposits/{deposit['id']}"))["status"] == "confirmed"
    method = ok(me.call("GET", f"/wallet/payment-methods/{method['id']}"))
    assert method["status"] == "verified" and method["verified_by"] == "first_payment"  # GP §5(8)a

    # 8. The registration is complete (GP §4(8)): the balance is on the full account.
    steps = ok(me.call("GET", "/accounts/registration/steps"))
    assert steps["missing"] == [] and steps["can_complete"] is True, steps
    assert ok(me.call("POST", "/accounts/registration/complete"))["status"] in ("active", "full")
    overview = ok(me.call("GET", "/wallet/overview"))
    assert overview["account"] == "full" and overview["balance"]["amount"] == 250_000
    step("registration complete; 2,500 CZK on the full account")

    # 9. A round of European roulette. The terms took effect after she registered (3 s after their publication: on a
    #    fast machine the steps above take less, so the instant is awaited): the stake is refused until she accepts
    #    the version in force (GP §3(5)), as the player app shows it.
    current = wait_for("the terms to take effect", lambda: ok(me.call("GET", "/accounts/terms"))["current"], 30)
    bet = {"bets": [{"type": "red", "amount": money(1000)}, {"type": "black", "amount": money(1000)}]}
    r = me.call("POST", "/games/rounds", {"game": ROULETTE, "bet": bet})
    assert r.status_code == 403 and r.json()["error"]["code"] == TERMS_NOT_ACCEPTED.code, r.text
    ok(me.call("POST", "/accounts/me/terms/accept", {"version": current["version"]}))
    rnd = ok(me.call("POST", "/games/rounds", {"game": ROULETTE, "bet": bet}), 201)
    assert rnd["status"] == "finished"
    after_round = ok(me.call("GET", "/wallet/overview"))["balance"]["amount"]
    assert after_round == 250_000 - 2_000 + rnd["win"]["amount"]
    verified = ok(me.call("GET", f"/games/rounds/{rnd['id']}/verify"))
    assert verified["verified"] is True and verified["outcome"] == "match"  # GP §11(5)
    step(f"roulette round {rnd['id']}: stake 20 CZK, win {rnd['win']['amount'] / 100} CZK, replay verified")

    # 10. A withdrawal to the verified account leaves in the pain.001 payment-order file.
    withdrawal = ok(me.call("POST", "/wallet/withdrawals", {"method_id": method["id"], "amount": money(100_000)}), 201)
    assert ok(me.call("GET", "/wallet/overview"))["balance"]["amount"] == after_round - 100_000
    wait_for(
        "the withdrawal to be handed to the bank provider",
        lambda: (
            ok(me.call("GET", f"/wallet/withdrawals/{withdrawal['id']}"))["status"]
            in ("sent", "exported", "processing")
        ),
    )
    pain = folder / "pain001.xml"
    platform.manage("bank_payment_order_export", "--output", str(pain))
    transfers = pain_transfers(pain.read_bytes())
    header = pain_header(pain.read_bytes())
    step(f"pain.001: {header} {transfers}")
    [transfer] = transfers
    assert transfer["iban"] == czech_account_iban(PLAYER_ACCOUNT) and transfer["amount"] == "1000.00"
    assert header["debtor_iban"] == OPERATOR_IBAN and header["sum"] == "1000.00"
    # The bank pays it: the next statement's debit with the order's EndToEndId settles the withdrawal.
    settlement = folder / "camt053-2.xml"
    settlement.write_bytes(
        camt(
            [
                Tx(
                    amount="1000.00",
                    direction="DBIT",
                    e2e=transfer["end_to_end_id"],
                    name=transfer["name"],
                    iban=transfer["iban"],
                    booked=clock.business_date().isoformat(),
                )
            ]
        )
    )
    platform.manage("bank_statement_import", "--json", str(settlement))
    assert ok(me.call("GET", f"/wallet/withdrawals/{withdrawal['id']}"))["status"] == "confirmed"
    step("the next statement's debit settled the withdrawal (confirmed)")

    # 11. A second applicant is on the EU sanctions list: the screening stops her (no completion, no deposit).
    listed_dob = date(1971, 3, 14)
    # its own n: the process-wide counter of applicant_data reaches 4711 when the whole suite runs first
    _, reg2 = register(
        anon,
        "prod.sankce",
        aisg,
        n=4712,
        given_names="Ivan Petrovič",
        surname="Sankcionovaný",
        date_of_birth=listed_dob.isoformat(),
        sex="M",
        birth_number=birth_number_for(listed_dob, sex="M", serial=321),
    )
    assert reg2["status"] == "temporary"  # the registers know him; the screening runs after the registration commits

    def screened() -> dict[str, Any] | None:
        out = platform.shell(
            "import json; from accounts.models import Player; from aml.selectors import aml_status; "
            "from aml.models import ComplianceCase; p = Player.objects.get(user__username='prod.sankce'); "
            "s = aml_status(p); print(json.dumps({'screened': s['screened'], 'refusals': s['refusals'], "
            "'cases': [(c.kind, c.status) for c in ComplianceCase.objects.filter(player=p)]}))"
        )
        data = json.loads(out.strip().splitlines()[-1])
        return data if data["screened"] else None

    hit = wait_for("the listed applicant's screening", screened)
    step(f"listed applicant: {hit}")
    assert hit["cases"] and all(hit["refusals"][op] for op in ("deposit", "completion", "stake")), hit

    # 12. The books balance.
    check = platform.manage("ledger_check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "Traceback" not in platform.log("gunicorn")
    answered = [json.loads(line)["status"] for line in (folder / "access.log").read_text().splitlines() if line]
    assert answered and 500 not in answered, answered  # one JSON object a line (config/gunicorn.conf.py)
