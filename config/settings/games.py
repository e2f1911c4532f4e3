"""Games, jackpots, complaints and the outside studios' games (docs/games-platform.md, docs/jackpots.md,
docs/complaints.md, docs/providers.md)."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import PRODUCTION, env

env.area("Games and jackpots")
GAMES_QA_FORCED_OUTCOMES = env.bool(
    "GAMES_QA_FORCED_OUTCOMES",
    False,
    "QA only: forced outcomes in play-money rounds (docs/games-platform.md); refused in production",
)
if PRODUCTION and GAMES_QA_FORCED_OUTCOMES:
    raise ImproperlyConfigured("GAMES_QA_FORCED_OUTCOMES must be off in production")
# Part one of the game plan has no jackpot provision, so an operator may need a plan amendment before offering them:
# production must say JACKPOTS_ENABLED explicitly. Off: nothing is contributed, nothing is won, and the catalogue
# shows each game's RTP without jackpots.
JACKPOTS_ENABLED = env.bool(
    "JACKPOTS_ENABLED",
    True,
    "jackpots are contributed to and won; production must set it (true only with an approved game plan)",
    required=True,
)
if PRODUCTION and not env.is_set("JACKPOTS_ENABLED"):
    raise ImproperlyConfigured("DJANGO_ENV=production requires JACKPOTS_ENABLED (true only with an approved plan)")
DEV_JACKPOTS_SEAL_KEY = "dev-jackpot-seal-key-do-not-use-in-production"
JACKPOTS_SEAL_KEY = env.str(
    "JACKPOTS_SEAL_KEY",
    DEV_JACKPOTS_SEAL_KEY,
    "seals each must-hit value so that staff "
    "reading the database cannot learn it before it hits; production with jackpots requires "
    "its own (at least 32 bytes)",
)
if PRODUCTION and JACKPOTS_ENABLED and not env.is_set("JACKPOTS_SEAL_KEY"):
    raise ImproperlyConfigured("DJANGO_ENV=production with jackpots requires JACKPOTS_SEAL_KEY")
JACKPOTS_CONFIG_TTL_SECONDS = env.float(
    "JACKPOTS_CONFIG_TTL_SECONDS", 1.0, "seconds a process keeps the jackpots' configuration before reading it again"
)
JACKPOTS_FOLD_SECONDS = env.float(
    "JACKPOTS_FOLD_SECONDS", 1.0, "seconds between folding the contributions into the pools"
)

env.area("Complaints")
COMPLAINTS_ATTACHMENT_MAX_BYTES = env.int(
    "COMPLAINTS_ATTACHMENT_MAX_BYTES", 5 * 1024 * 1024, "bytes: the largest attachment of a complaint"
)
COMPLAINTS_ATTACHMENTS_MAX = env.int("COMPLAINTS_ATTACHMENTS_MAX", 10, "attachments one complaint may have")
COMPLAINTS_SUPERVISOR_EMAILS = env.list("COMPLAINTS_SUPERVISOR_EMAILS", [], "who is e-mailed of overdue complaints")

env.area("Game providers")
# Remote games of outside studios. The development secret is the demo provider's (its simulator's); production refuses
# a provider using it or any secret shorter than MIN_SECRET_BYTES, and refuses PROVIDERS_ALLOW_ANY_SOURCE.
PROVIDERS_DEMO_URL = env.str(
    "PROVIDER_SIM_URL",
    "http://127.0.0.1:8300",
    "the demo studio's simulator (`make run` "
    "starts it, provider_simulator/): where the demo provider's launch and API URLs point",
)
# production refuses PROVIDERS_DEV_SECRET set to anything but this public default (the check that refuses a provider
# row with the public development secret compares with this value: changing it would turn that check off)
PROVIDERS_DEV_SECRET_DEFAULT = "simstudio-development-secret-not-for-production"
PROVIDERS_DEV_SECRET = env.str(
    "PROVIDERS_DEV_SECRET",
    PROVIDERS_DEV_SECRET_DEFAULT,
    "development only: the demo provider's secret; production refuses it set",
)
PROVIDERS_ALLOW_ANY_SOURCE = env.bool(
    "PROVIDERS_ALLOW_ANY_SOURCE", False, "accept a provider's calls from any address; refused in production"
)
PROVIDERS_LAUNCH_TOKEN_SECONDS = env.int("PROVIDERS_LAUNCH_TOKEN_SECONDS", 300, "seconds a game launch token is valid")
PROVIDERS_SESSION_SECONDS = env.int("PROVIDERS_SESSION_SECONDS", 12 * 3600, "seconds a provider game session lives")
PROVIDERS_SIGNATURE_WINDOW_SECONDS = env.int(
    "PROVIDERS_SIGNATURE_WINDOW_SECONDS", 300, "seconds a signed call's time may differ from ours (production: 30-900)"
)
PROVIDERS_HTTP_TIMEOUT_SECONDS = env.int("PROVIDERS_HTTP_TIMEOUT_SECONDS", 10, "the timeout of our calls to a provider")
