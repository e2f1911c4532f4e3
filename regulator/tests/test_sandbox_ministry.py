"""The development setup is consistent: the sandbox Ministry knows the seal ``make run`` configures (its certificates
are made by ``scripts/run.py``'s ``regulator_sandbox``), so a package sealed with it is confirmed, and only a package
sealed with the set's unregistered seal (the demo's) is rejected with ``ERR_PKG_SIG_CERT_UNTRUSTED``."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from core import clock
from regulator import crypto, services, wire
from regulator.models import RegulatorPackage
from regulator.sandbox import SandboxMinistry
from regulator.sandbox_pki import sandbox_pki, sandbox_pki_of_seal

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import run  # scripts/ is a folder of scripts, not a package

pytestmark = pytest.mark.django_db


def _make_run_settings(settings, folder: Path) -> SandboxMinistry:
    for name, value in run.regulator_sandbox({}, {}, folder).items():
        setattr(settings, name, [value] if name == "REGULATOR_MINISTRY_ENCRYPTION_CERTS" else value)
    pki = sandbox_pki_of_seal(settings.REGULATOR_SEAL_P12)
    assert pki is not None
    return SandboxMinistry(pki)


def _answer(ministry: SandboxMinistry, package: RegulatorPackage, out: Path, settings) -> RegulatorPackage:
    """The sandbox Ministry's answer to ``package``, recorded by the operator as any."""
    out.mkdir(parents=True)
    answer, report = ministry.answer(package, out)
    assert (".Ok" in answer.name) is report.ok
    services.confirmation_record(
        path=answer,
        ministry_seal_ca=Path(settings.REGULATOR_MINISTRY_SEAL_TRUST),
        own_cert=Path(settings.REGULATOR_OWN_ENCRYPTION_CERT),
        own_key=Path(settings.REGULATOR_OWN_ENCRYPTION_KEY),
    )
    package.refresh_from_db()
    return package


def test_a_package_sealed_with_make_runs_certificates_is_confirmed_by_the_sandbox_ministry(settings, tmp_path):
    ministry = _make_run_settings(settings, tmp_path / "regulator-sandbox")
    period = wire.Period.containing(clock.now()).previous()
    package = _answer(ministry, services.package_issue(period=period), tmp_path / "answers", settings)
    assert package.state == RegulatorPackage.State.CONFIRMED and not package.error_code


def test_only_a_package_sealed_with_the_unregistered_seal_is_rejected_as_untrusted(settings, tmp_path):
    ministry = _make_run_settings(settings, tmp_path / "regulator-sandbox")
    period = wire.Period.containing(clock.now()).previous().previous()
    unregistered = crypto.load_seal(ministry.pki.unregistered_seal_p12, ministry.pki.seal_password)
    package = _answer(
        ministry, services.package_issue(period=period, seal=unregistered), tmp_path / "answers", settings
    )
    assert package.state == RegulatorPackage.State.REJECTED and package.error_code == "ERR_PKG_SIG_CERT_UNTRUSTED"
    # the staff's re-issue seals with the registered seal: the next version is confirmed
    again = _answer(ministry, services.package_reissue(package=package), tmp_path / "reissued", settings)
    assert again.version == 2 and again.state == RegulatorPackage.State.CONFIRMED


def test_a_set_made_before_the_unregistered_seal_existed_gets_it_and_keeps_its_other_files(tmp_path):
    pki = sandbox_pki(tmp_path / "set")
    seal = pki.seal_p12.read_bytes()
    pki.unregistered_seal_p12.unlink()
    again = sandbox_pki(tmp_path / "set")
    assert again.unregistered_seal_p12.is_file() and again.seal_p12.read_bytes() == seal


def test_the_command_answers_every_waiting_package_and_refuses_production_and_other_seals(settings, tmp_path):
    ministry = _make_run_settings(settings, tmp_path / "regulator-sandbox")
    period = wire.Period.containing(clock.now()).previous()
    unregistered = crypto.load_seal(ministry.pki.unregistered_seal_p12, ministry.pki.seal_password)
    sealed = [
        services.package_issue(period=period),
        services.package_issue(period=period.previous(), seal=unregistered),
    ]
    out = io.StringIO()
    call_command("regulator_sandbox_answer", stdout=out)
    states = {p.name: (p.state, p.error_code) for p in RegulatorPackage.objects.filter(pk__in=[s.pk for s in sealed])}
    assert states == {
        sealed[0].name: (RegulatorPackage.State.CONFIRMED, ""),
        sealed[1].name: (RegulatorPackage.State.REJECTED, "ERR_PKG_SIG_CERT_UNTRUSTED"),
    }
    assert "2 package(s) answered" in out.getvalue()
    call_command("regulator_sandbox_answer", stdout=out)  # nothing waits any more
    assert out.getvalue().endswith("0 package(s) answered by the sandbox Ministry\n")
    settings.REGULATOR_SEAL_P12 = str(tmp_path / "elsewhere" / "seal.p12")
    with pytest.raises(CommandError, match="not the seal of a Ministry sandbox set"):
        call_command("regulator_sandbox_answer")
    # no seal configured (another shell beside make run): the set make run made under BASE_DIR/.data
    settings.REGULATOR_SEAL_P12, settings.BASE_DIR = "", tmp_path / "checkout"
    with pytest.raises(CommandError, match="not the seal of a Ministry sandbox set"):
        call_command("regulator_sandbox_answer")
    sandbox_pki(tmp_path / "checkout" / ".data" / "regulator-sandbox")
    call_command("regulator_sandbox_answer", stdout=out)
    assert out.getvalue().endswith("0 package(s) answered by the sandbox Ministry\n")
    settings.PRODUCTION = True
    with pytest.raises(CommandError, match="DJANGO_ENV=production"):
        call_command("regulator_sandbox_answer")
