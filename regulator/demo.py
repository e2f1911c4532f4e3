"""Demo data of the regulator app (``manage.py seed_demo``): the package of the last closed period is issued as every
package is (``services.package_issue``), the sandbox Ministry checks it and answers with its confirmation package, and
the operator records that answer as any (``services.confirmation_record``). The sandbox Ministry accepts the packages
sealed with the development operator's seal (registered with it, ``regulator.sandbox``); this one package is sealed
with the set's other seal, a renewed seal before its registration (``SandboxPki.unregistered_seal_p12``), so the answer
is an error (``ERR_PKG_SIG_CERT_UNTRUSTED``): the package is rejected and the Ministry's error notice opens a staff
task, one item in each of compliance's two regulator queues ("packages rejected by the Ministry", re-issued as the
next version with the registered seal; "Ministry error notices to handle").

Only with the sandbox's seal configured (``make run`` configures it: ``regulator.sandbox``); idempotent: nothing is
done once the Ministry has answered anything."""

from __future__ import annotations

from typing import TextIO

from django.conf import settings

from core import clock
from core.audit import Actor
from regulator import crypto, services, wire
from regulator.models import MinistryNotice
from regulator.sandbox import SandboxMinistry
from regulator.sandbox_pki import sandbox_pki_of_seal


def seed(stdout: TextIO) -> None:
    if not settings.REGULATOR_ENABLED:
        stdout.write("regulator demo: REGULATOR_ENABLED is off: no package")
        return
    pki = sandbox_pki_of_seal(settings.REGULATOR_SEAL_P12)
    if pki is None:
        stdout.write("regulator demo: no Ministry sandbox seal configured (regulator.sandbox_pki): no package")
        return
    if MinistryNotice.objects.exists():
        return
    period = wire.Period.containing(clock.now()).previous()  # the last closed period
    unregistered = crypto.load_seal(pki.unregistered_seal_p12, pki.seal_password)
    package = services.package_issue(period=period, actor=Actor.system("regulator.demo"), seal=unregistered)
    notice = SandboxMinistry(pki).answer_and_record(package)
    package.refresh_from_db()
    stdout.write(
        f"regulator demo: package {package.name} issued with a seal not registered with the Ministry; the sandbox "
        f"Ministry answered ({notice.error_code or 'OK'}): the package is {package.state}, the notice's task "
        f"{'open' if notice.staff_task_open else 'closed'}"
    )
