import pytest
from django.core.cache import cache
from rest_framework.test import APIClient


@pytest.fixture(autouse=True)
def _fresh_throttles():
    """DRF throttles count in the cache: every test starts with none."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def api():
    return APIClient(raise_request_exception=False)


@pytest.fixture
def commit(django_capture_on_commit_callbacks):
    """Run on-commit callbacks (e-mails, SMS) of what happens inside ``with commit():``."""

    def run():
        return django_capture_on_commit_callbacks(execute=True)

    return run


REG = "/api/v1/accounts/registration"


@pytest.fixture
def register(api, commit):
    """POST a registration (on-commit e-mails run); returns the response."""

    def post(payload, client=None):
        with commit():
            return (client or api).post(REG, payload, format="json")

    return post


@pytest.fixture(autouse=True)
def _fresh_terms_snapshot():
    """The per-process snapshot of the published game plan and terms (accounts.terms) starts empty in every test and
    is forgotten after it, so that no version a test published reaches another test."""
    from accounts.terms import snapshot_clear

    snapshot_clear()
    yield
    snapshot_clear()


@pytest.fixture
def aisg(settings, tmp_path):
    """The local AISG server (``tests.kit.aisg.LocalAisg``, the Ministry's XSD validating each request when the
    specification is at hand) configured as both registers: the operator's key and certificate and "the
    Ministry's" certificate written to files as in production."""
    from tests.kit.aisg import LocalAisg, key_pair, spec_dir

    key, cert = key_pair("Provozovatel s.r.o. - test seal")
    (tmp_path / "op-key.pem").write_bytes(key)
    (tmp_path / "op-cert.pem").write_bytes(cert)
    folder = spec_dir()
    with LocalAisg(operator_cert_pem=cert, schema_dir=folder if folder.is_dir() else None) as server:
        (tmp_path / "mf.pem").write_bytes(server.ministry_cert_pem)
        settings.ACCOUNTS_POPULATION_REGISTER = settings.ACCOUNTS_EXCLUSION_REGISTER = "aisg"
        settings.ACCOUNTS_AISG_URL = server.url
        settings.ACCOUNTS_AISG_KEY_FILE = str(tmp_path / "op-key.pem")
        settings.ACCOUNTS_AISG_CERT_FILE = str(tmp_path / "op-cert.pem")
        settings.ACCOUNTS_AISG_MINISTRY_CERT_FILE = str(tmp_path / "mf.pem")
        settings.ACCOUNTS_AISG_ICO_VCP = "01234567"
        settings.ACCOUNTS_AISG_TIMEOUT_SECONDS = 2.0
        server.operator_key_pem = key
        yield server
        assert not server.schema_errors, server.schema_errors
