"""Production refuses to start the remote access without a valid seal, the Ministry's certificates and client
identities, and the operator's own id."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from config.refusals import regulator_seal_problem
from core.tests.test_health_and_settings import _django_check_expr
from tests.kit.production import PRODUCTION_ENV
from tests.kit.regulator import make_pki


def test_the_seal_is_refused_missing_unreadable_or_expired(tmp_path, pki):
    assert regulator_seal_problem("", "") == "is missing or not a file"
    assert "cannot be read" in regulator_seal_problem(str(pki.seal_p12), "wrong")
    assert regulator_seal_problem(str(pki.seal_p12), pki.seal_password) == ""
    old = make_pki(tmp_path / "old", seal_days=30, seal_not_before=datetime.now(UTC) - timedelta(days=60))
    assert "not valid now" in regulator_seal_problem(str(old.seal_p12), old.seal_password)


def test_production_starts_with_the_regulator_configured_and_refuses_each_missing_part(pki):
    good = {
        **PRODUCTION_ENV,
        "REGULATOR_ENABLED": "true",
        "REGULATOR_OPERATOR_ID": "27182818",
        "REGULATOR_SEAL_P12": str(pki.seal_p12),
        "REGULATOR_SEAL_P12_PASSWORD": pki.seal_password,
        "REGULATOR_MINISTRY_ENCRYPTION_CERTS": str(pki.ministry_cert),
        "REGULATOR_MINISTRY_CLIENTS": "CN=SPCSS Playground AM AISG Autentizacni CGI",
    }
    r = _django_check_expr(good, "settings.REGULATOR_OPERATOR_ID")
    assert r.returncode == 0 and r.stdout.strip() == "27182818", r.stderr[-800:]
    for change, named in (
        ({"REGULATOR_SEAL_P12": ""}, "REGULATOR_SEAL_P12 is missing"),
        ({"REGULATOR_MINISTRY_ENCRYPTION_CERTS": ""}, "REGULATOR_MINISTRY_ENCRYPTION_CERTS"),
        ({"REGULATOR_MINISTRY_CLIENTS": ""}, "REGULATOR_MINISTRY_CLIENTS"),
        ({"REGULATOR_OPERATOR_ID": "12345678"}, "REGULATOR_OPERATOR_ID"),
    ):
        r = _django_check_expr({**good, **change}, "settings.DEBUG")
        assert r.returncode != 0 and named in r.stderr, r.stderr[-800:]
