"""The Ministry's sandbox for development (never production): a set of certificates for both sides of the remote
access, and the Ministry's answer to a package.

In production the operator seals with its qualified seal, registered with the Ministry, and encrypts for the
Ministry's certificates (docs/regulator.md "Encryption and seal"); a development machine has none of these, so no
package could be issued. ``regulator.sandbox_pki.sandbox_pki(folder)`` makes a set once (and reuses it): the
operator's seal and its own encryption certificate, issued by a development operator CA, and the Ministry's
encryption certificate and seal, issued by a sandbox Ministry CA; ``operator_settings`` gives the operator's side as
the usual settings (``make run`` hands them to every process unless a seal is configured or this is production, so
the periodic job issues packages in development as in production).

``SandboxMinistry.answer`` does what the Ministry does with a package (``regulator.ministry.MinistrySide.process``
without the network): reads the stored sealed file (the download), checks it with the Ministry's validator in the
Ministry's order (``regulator.validator.validate_sealed``: the seal against the seals registered with the Ministry,
decryption with the Ministry's key, every file) and writes the Ministry's confirmation package
(``regulator.ministry.confirmation_package``: ``<name>.Ok...`` or ``<name>.Err...``, the report sealed by the
Ministry and encrypted for the operator), which the operator records as any (``services.confirmation_record``,
``manage.py regulator_confirmation``). The sandbox Ministry knows the development operator's seal as registered (it
trusts the operator CA the set made, ``REGISTERED_SEALS``), so a package sealed as ``make run`` seals it is accepted
(``<name>.Ok...``); a package sealed with a seal nobody registered (the set's ``unregistered_seal_p12``, a renewed seal
before its registration: the demo's one rejected package) gets ``ERR_PKG_SIG_CERT_UNTRUSTED``, the answer an operator
gets before its seal is registered (the demo's rejected package and error notice)."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from regulator import crypto, services
from regulator.ministry import confirmation_package
from regulator.models import MinistryNotice, RegulatorPackage
from regulator.sandbox_pki import SandboxPki
from regulator.validator import Report, validate_sealed


@dataclass(frozen=True)
class SandboxMinistry:
    pki: SandboxPki

    @property
    def registered_seals(self) -> Path:
        """The seals registered with the sandbox Ministry: those the development operator CA issued (the operator
        registers its seal before its first package, docs/regulator.md "Encryption and seal")."""
        return self.pki.operator_ca

    def answer(self, package: RegulatorPackage, out_dir: Path) -> tuple[Path, Report]:
        """Fetch the stored package (marked downloaded, as the Ministry's download does), check it as the Ministry
        does and write its confirmation package into ``out_dir``; the confirmation's path and the report."""
        path = services.package_file(package)
        services.package_downloaded(package=package)
        report = validate_sealed(
            path,
            trusted_seal=self.registered_seals,
            decrypt_cert=self.pki.ministry_cert,
            decrypt_key=self.pki.ministry_key,
        )
        seal = crypto.load_seal(self.pki.ministry_seal_p12, self.pki.seal_password)
        answer = confirmation_package(
            package=package.name, report=report, out_dir=out_dir, seal=seal, recipient=self.pki.own_cert
        )
        return answer, report

    def answer_and_record(self, package: RegulatorPackage) -> MinistryNotice:
        """The Ministry's answer to ``package``, recorded by the operator as any answer is (``confirmation_record``
        with the operator's side of the set, the trust and keys ``operator_settings`` configures): the package is then
        confirmed, or rejected with its notice."""
        with tempfile.TemporaryDirectory() as tmp:
            answer, _report = self.answer(package, Path(tmp))
            return services.confirmation_record(
                path=answer, ministry_seal_ca=self.pki.ministry_ca, own_cert=self.pki.own_cert, own_key=self.pki.own_key
            )

    def answer_waiting(self) -> list[MinistryNotice]:
        """Every package the Ministry has not answered yet (issued or downloaded), oldest first, answered and
        recorded (``manage.py regulator_sandbox_answer``: in development nobody else plays the Ministry)."""
        waiting = RegulatorPackage.objects.filter(
            state__in=(RegulatorPackage.State.ISSUED, RegulatorPackage.State.DOWNLOADED)
        ).order_by("issued_at", "id")
        return [self.answer_and_record(package) for package in waiting]
