"""The regulator tests play real rounds through the games platform (its test games and approved catalogue) and seal
packages with test certificates made for the session."""

from __future__ import annotations

import pytest

from tests.kit.platform import test_games  # noqa: F401  (autouse fixture)
from tests.kit.regulator import TestPki, make_pki


@pytest.fixture(scope="session")
def pki(tmp_path_factory) -> TestPki:
    return make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(autouse=True)
def regulator_settings(settings, pki, tmp_path):
    settings.REGULATOR_OPERATOR_ID = "12345678"
    settings.REGULATOR_OPERATOR_NAME = "Testovací provozovatel a.s."
    settings.REGULATOR_PACKAGE_DIR = tmp_path / "packages"
    settings.REGULATOR_SEAL_P12 = str(pki.seal_p12)
    settings.REGULATOR_SEAL_P12_PASSWORD = pki.seal_password
    settings.REGULATOR_MINISTRY_ENCRYPTION_CERTS = [str(pki.ministry_cert)]
    settings.REGULATOR_OWN_ENCRYPTION_CERT = str(pki.operator_cert)
    return settings
