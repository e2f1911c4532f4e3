"""Periodic jobs of the jackpots app (merged by config.schedules)."""

from django.conf import settings

BEAT_SCHEDULE = {
    # Kobushi's rules refresh the shown value every 3 s; folding every JACKPOTS_FOLD_SECONDS keeps the pending
    # rows a spin sums small. A spin does not depend on it: it reads the pending rows itself.
    "jackpots.fold": {"task": "jackpots.fold", "schedule": settings.JACKPOTS_FOLD_SECONDS},
}
