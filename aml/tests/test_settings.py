"""Production refuses the sandbox AML provider and list (like the sandbox payment provider)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.kit.production import PRODUCTION_ENV as PROD
from tests.kit.production import settings_started

ROOT = Path(__file__).resolve().parents[2]


def _start(extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AML_")}
    env.update({**PROD, **extra})
    return settings_started(env, "settings.AML_SANDBOX_ENABLED")  # read in this process (tests.kit.production)


def test_production_turns_the_aml_sandbox_off_and_refuses_it_switched_on():
    r = _start({})
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr[-500:]
    r = _start({"AML_SANDBOX_ENABLED": "true"})
    assert r.returncode != 0 and "AML_SANDBOX_ENABLED" in r.stderr


def test_production_refuses_the_sandbox_identification_provider_and_screening_list():
    """Production used to start with both at their sandbox default and fail only at use."""
    r = _start({"AML_IDENTIFICATION_PROVIDER": "sandbox"})
    assert r.returncode != 0 and "AML_IDENTIFICATION_PROVIDER=sandbox" in r.stderr, r.stderr[-500:]
    r = _start({"AML_SCREENING_LIST": "sandbox"})
    assert r.returncode != 0 and "AML_SCREENING_LIST=sandbox" in r.stderr, r.stderr[-500:]
    r = _start({"AML_IDENTIFICATION_PROVIDER": "none", "AML_BANKID_ENABLED": "false"})
    assert r.returncode != 0 and "no online identification" in r.stderr, r.stderr[-500:]


BANKID = {
    "AML_BANKID_ENABLED": "true",
    "AML_BANKID_ISSUER": "https://oidc.bankid.cz/",
    "AML_BANKID_CLIENT_ID": "client",
    "AML_BANKID_CLIENT_SECRET": "secret",
    "AML_BANKID_REDIRECT_URLS": "https://hraj.example.cz/bankid",
}


def test_bank_id_switched_on_needs_its_issuer_client_and_redirect_urls_and_production_needs_https():
    r = _start(BANKID)
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr[-500:]
    for name in ("AML_BANKID_ISSUER", "AML_BANKID_CLIENT_ID", "AML_BANKID_CLIENT_SECRET", "AML_BANKID_REDIRECT_URLS"):
        r = _start({**BANKID, name: ""})
        assert r.returncode != 0 and name in r.stderr, name
    r = _start({**BANKID, "AML_BANKID_TOKEN_AUTH_METHOD": "private_key_jwt"})
    assert r.returncode != 0 and "AML_BANKID_CLIENT_PRIVATE_KEY" in r.stderr
    r = _start({**BANKID, "AML_BANKID_TOKEN_AUTH_METHOD": "tls_client_auth"})
    assert r.returncode != 0 and "AML_BANKID_TOKEN_AUTH_METHOD" in r.stderr
    for name, url in (
        ("AML_BANKID_ISSUER", "http://127.0.0.1:8080/"),
        ("AML_BANKID_REDIRECT_URLS", "https://hraj.example.cz/bankid,http://hraj.example.cz/b"),
    ):
        r = _start({**BANKID, name: url})
        assert r.returncode != 0 and f"https for {name}" in r.stderr, name


def test_production_starts_with_the_local_openid_provider_over_tls_for_an_end_to_end_test():
    """The integrator's end-to-end production test points the platform at tests.kit.oidc over https."""
    from tests.kit.oidc import LocalOpenIDProvider

    with LocalOpenIDProvider(redirect_uris=["https://hraj.example.cz/bankid"], tls=True) as op:
        env = op.environment()
        assert env["AML_BANKID_ISSUER"].startswith("https://127.0.0.1:") and env["AML_BANKID_CA_BUNDLE"]
        r = _start(env)
        assert r.returncode == 0, r.stderr[-500:]
        plain = LocalOpenIDProvider(redirect_uris=["https://hraj.example.cz/bankid"]).start()
        try:
            r = _start(plain.environment())
            assert r.returncode != 0 and "https for AML_BANKID_ISSUER" in r.stderr
        finally:
            plain.stop()


def _list_setting(extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AML_")}
    env.update({**PROD, **extra})
    r = settings_started(
        env,
        "settings.AML_SCREENING_LIST, settings.AML_SCREENING_MATCH_THRESHOLD, settings.AML_SCREENING_REQUIRED_SOURCES",
    )
    if r.returncode == 0:  # the sources printed joined by commas
        listed, threshold, sources = r.stdout.split(" ", 2)
        r.stdout = f"{listed} {threshold} {','.join(eval(sources))}\n"
    return r


def test_production_screens_against_the_imported_lists_and_refuses_the_sandbox_list():
    r = _list_setting({})
    assert r.returncode == 0 and r.stdout.split() == ["imported", "85", "eu,un,cz"], r.stderr[-500:]
    r = _list_setting({"AML_SCREENING_LIST": "sandbox"})
    assert r.returncode != 0 and "AML_SCREENING_LIST=sandbox" in r.stderr
    r = _list_setting({"AML_SCREENING_MATCH_THRESHOLD": "101"})
    assert r.returncode != 0 and "AML_SCREENING_MATCH_THRESHOLD" in r.stderr
    r = _list_setting({"AML_SCREENING_MATCH_THRESHOLD": "100", "AML_SCREENING_REQUIRED_SOURCES": "eu,un,cz,pep"})
    assert r.returncode == 0 and r.stdout.split() == ["imported", "100", "eu,un,cz,pep"], r.stderr[-500:]
    # the sanctions lists are always required in production (a PEP list alone would answer "clear")
    r = _list_setting({"AML_SCREENING_REQUIRED_SOURCES": "eu,pep"})
    assert r.returncode != 0 and "AML_SCREENING_REQUIRED_SOURCES lacks un, cz" in r.stderr
    r = _list_setting({"AML_SCREENING_REQUIRED_SOURCES": "eu,ofac"})
    assert r.returncode != 0 and "AML_SCREENING_REQUIRED_SOURCES" in r.stderr
