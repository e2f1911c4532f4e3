from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings

from core import clock
from core.tasks import platform_task
from regulator import services
from regulator.wire import Period

logger = logging.getLogger("platform.regulator")


@platform_task(name="regulator.issue_closed_periods", time_limit=1800, soft_time_limit=1700)
def issue_closed_periods() -> list[str]:
    """The packages of the periods that closed at least REGULATOR_BUILD_DELAY_MINUTES ago (late postings of the
    period's last seconds are in) and have none yet: the last day's three periods, each issued once (safe to run
    twice, or on two workers: the package's unique version refuses the second). A period of a million rounds takes
    about two and a half minutes (docs/regulator.md), hence the longer time limit. Outside production, without a
    seal configured, nothing is issued (production refuses to start without one)."""
    if not settings.REGULATOR_ENABLED:
        return []
    if not settings.REGULATOR_SEAL_P12 and not settings.PRODUCTION:
        logger.warning("regulator: no seal configured (REGULATOR_SEAL_P12): no package issued")
        return []
    ready = clock.now() - timedelta(minutes=settings.REGULATOR_BUILD_DELAY_MINUTES)
    period = Period.containing(ready).previous()
    names = []
    for _ in range(3):
        names.append(services.package_issue(period=period).name)
        period = period.previous()
    return names


@platform_task(name="regulator.packages_keep", time_limit=3600, soft_time_limit=3500)
def packages_keep() -> dict[str, object]:
    """Daily: every issued package's stored file checked against its recorded hash; files past the retention period
    deleted (their rows stay). See :func:`regulator.services.packages_keep`."""
    result = services.packages_keep()
    if result.damaged:
        logger.error("regulator: damaged packages %s", ", ".join(result.damaged))
    return {"checked": result.checked, "damaged": result.damaged, "purged": result.purged}
