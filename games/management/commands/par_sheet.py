"""``manage.py par_sheet GAME [--rounds N] [--seed S] [--bet JSON] [--generic] [--json]``: print a PAR sheet.

Thin: parses arguments and calls games.engine.par; a generic (start/act) simulation draws from
``core.rng.SeededRNG(seed)``. Needs no database."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from core.rng import SeededRNG
from games.engine import par


class Command(BaseCommand):
    help = "Print the PAR sheet of a game: exact RTP parts, simulation with confidence intervals, breakdown."
    requires_system_checks = []  # engine only: no database, no checks

    def add_arguments(self, parser):
        parser.add_argument("game", help="game code, optionally code@version")
        parser.add_argument(
            "--rounds",
            type=int,
            default=None,
            help=f"simulated rounds (default {par.DEFAULT_ROUNDS_FAST:,} with a fast simulator, "
            f"else {par.DEFAULT_ROUNDS_GENERIC:,})",
        )
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--bet", default=None, help="bet parameters as JSON (default: the game's representative bet)"
        )
        parser.add_argument("--generic", action="store_true", help="use the generic start/act loop, not simulate_fast")
        parser.add_argument("--json", action="store_true", help="print the sheet as JSON")
        parser.add_argument("--progress", action="store_true", help="progress bar on stderr")

    def handle(self, *args, **opts):
        try:
            game = par.resolve_game(opts["game"])
            bet = par.parse_bet_json(opts["bet"])
        except (KeyError, ValueError) as exc:
            raise CommandError(str(exc.args[0] if exc.args else exc)) from exc
        if opts["rounds"] is not None and opts["rounds"] <= 0:
            raise CommandError("--rounds must be positive")
        progress = par.ProgressBar(getattr(self.stderr, "_out", self.stderr)) if opts["progress"] else None
        try:
            sheet = par.par_sheet(
                game,
                bet,
                rounds=opts["rounds"],
                seed=opts["seed"],
                progress=progress,
                fast=not opts["generic"],
                rng_factory=SeededRNG,
            )
        except Exception as exc:  # BetError and friends carry a stable code
            code = getattr(exc, "code", type(exc).__name__)
            raise CommandError(f"{code}: {getattr(exc, 'message_en', exc)}") from exc
        if opts["json"]:
            self.stdout.write(json.dumps(sheet, indent=2, ensure_ascii=False))
        else:
            self.stdout.write(par.format_par_sheet(sheet), ending="")
