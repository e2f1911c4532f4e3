"""``manage.py regulator_sandbox_answer``: the sandbox Ministry answers every package it has not answered yet (issued
or downloaded), and the operator records each answer as any (development only: ``make run`` configures the sandbox's
certificates, ``regulator.sandbox``). Packages sealed with the development seal are confirmed; one sealed with a seal
the sandbox Ministry does not know is rejected with its error notice. The set is the configured seal's, else the one
``make run`` made (``.data/regulator-sandbox``: the command then works from another shell beside ``make run``).
Refused with ``DJANGO_ENV=production``, and with a seal configured that is not a sandbox set's."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import CommandError

from core.management.development import DevelopmentOnlyCommand
from regulator.sandbox import SandboxMinistry
from regulator.sandbox_pki import MARKER, SandboxPki, sandbox_pki_of_seal


class Command(DevelopmentOnlyCommand):
    help = "The sandbox Ministry answers every package waiting for it (development)."

    def handle(self, *args: Any, **opts: Any) -> None:
        if settings.REGULATOR_SEAL_P12:
            pki = sandbox_pki_of_seal(settings.REGULATOR_SEAL_P12)
        else:  # make run hands the set to its own processes only: the set it made
            made = SandboxPki.at(settings.BASE_DIR / ".data" / "regulator-sandbox")
            pki = made if (made.folder / MARKER).is_file() else None
        if pki is None:
            raise CommandError("REGULATOR_SEAL_P12 is not the seal of a Ministry sandbox set (regulator.sandbox_pki)")
        notices = SandboxMinistry(pki).answer_waiting()
        for notice in notices:
            self.stdout.write(f"{notice.package_name}: {notice.kind} {notice.error_code}".strip())
        self.stdout.write(f"{len(notices)} package(s) answered by the sandbox Ministry")
