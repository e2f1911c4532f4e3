"""``python -m provider_simulator --port 8300 --platform http://127.0.0.1:8000 --provider simstudio --secret ...``

Serves the launch URL (``/play``) and the provider's endpoints (``/api/round-cancelled``, ``/api/round-report``)
until Ctrl-C. The secret defaults to ``PROVIDER_SIM_SECRET``, else ``PROVIDERS_DEV_SECRET`` (the platform's
development secret of the demo provider); the mode to ``PROVIDER_SIM_MODE`` (``normal``).
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sys
from types import FrameType

from .journal import Journal
from .server import SimulatorApp, make
from .slot import Slot
from .studio import MODES

DEV_SECRET = "simstudio-development-secret-not-for-production"  # the development default of PROVIDERS_DEV_SECRET


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m provider_simulator", description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=int(os.environ.get("PROVIDER_SIM_PORT", "8300")))
    p.add_argument(
        "--platform",
        default=os.environ.get("PROVIDER_SIM_PLATFORM", "http://127.0.0.1:8000"),
        help="the platform's base address (its wallet API is under /api/v1/providers/<provider>/)",
    )
    p.add_argument(
        "--lobby",
        default=os.environ.get("PROVIDER_SIM_LOBBY"),
        help="where the page's 'back to the casino' link leads (default: <platform>/play#/games)",
    )
    p.add_argument("--provider", default=os.environ.get("PROVIDER_SIM_PROVIDER", "simstudio"))
    p.add_argument(
        "--secret",
        default=os.environ.get("PROVIDER_SIM_SECRET") or os.environ.get("PROVIDERS_DEV_SECRET") or DEV_SECRET,
    )
    p.add_argument(
        "--mode",
        choices=MODES,
        default=os.environ.get("PROVIDER_SIM_MODE", "normal"),
        help="the misbehaviour of every session that does not ask for one (?mode= on the launch URL)",
    )
    p.add_argument(
        "--journal",
        default=os.environ.get("PROVIDER_SIM_JOURNAL", ".data/provider-sim.sqlite3"),
        help="SQLite file of the calls sent and answered (:memory: keeps it in memory)",
    )
    p.add_argument("--late-seconds", type=float, default=2.0, help="the delay of late_round_end's round-end")
    p.add_argument("--seed", type=int, default=None, help="a seeded RNG (repeatable spins; never for real money)")
    p.add_argument("--verbose", action="store_true", help="log every request")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    slot = Slot(random.Random(args.seed) if args.seed is not None else None)
    app = SimulatorApp(
        platform=args.platform,
        provider=args.provider,
        secret=args.secret,
        mode=args.mode,
        journal=Journal(args.journal),
        slot=slot,
        late_seconds=args.late_seconds,
        lobby=args.lobby,
    )
    server = make(app, args.host, args.port, verbose=args.verbose)

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    print(
        f"provider simulator on http://{args.host}:{server.server_address[1]} (provider {args.provider}, platform "
        f"{args.platform}, mode {args.mode}, journal {args.journal})",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
