"""``manage.py simulate GAME --rounds N --seed S [--bet JSON] [--generic] [--json]``: run a simulation.

Shows a text progress bar on stderr (per batch) and prints rounds, RTP with confidence intervals, hit frequency,
max win and rounds per second. Thin: calls games.engine.par.simulate; a generic (start/act) simulation draws from
``core.rng.SeededRNG(seed)``. Needs no database."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from core.rng import SeededRNG
from games.engine import par


class Command(BaseCommand):
    help = "Simulate rounds of a game and print RTP, confidence intervals, hit frequency, max win, speed."
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("game", help="game code, optionally code@version")
        parser.add_argument("--rounds", type=int, default=1_000_000)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--bet", default=None, help="bet parameters as JSON (default: the game's representative bet)"
        )
        parser.add_argument("--generic", action="store_true", help="use the generic start/act loop, not simulate_fast")
        parser.add_argument("--json", action="store_true", help="print the statistics as JSON")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **opts):
        try:
            game = par.resolve_game(opts["game"])
            bet = par.parse_bet_json(opts["bet"])
        except (KeyError, ValueError) as exc:
            raise CommandError(str(exc.args[0] if exc.args else exc)) from exc
        if opts["rounds"] <= 0:
            raise CommandError("--rounds must be positive")
        progress = None if opts["no_progress"] else par.ProgressBar(getattr(self.stderr, "_out", self.stderr))
        try:
            res = par.simulate(
                game,
                bet,
                opts["rounds"],
                opts["seed"],
                progress=progress,
                fast=not opts["generic"],
                rng_factory=SeededRNG,
            )
        except Exception as exc:
            code = getattr(exc, "code", type(exc).__name__)
            raise CommandError(f"{code}: {getattr(exc, 'message_en', exc)}") from exc
        if opts["json"]:
            self.stdout.write(json.dumps(res, indent=2, ensure_ascii=False, default=str))
            return
        s = res["summary"]
        out = [
            f"game              {game.code}@{game.version} ({res['engine']})",
            f"bet               {json.dumps(res['bet'], separators=(',', ':'))}  stake {par.czk(res['stake'])}",
            f"rounds            {res['rounds']:,}  (seed {res['seed']})",
            f"RTP               {s['rtp_percent']:.4f} %  (declared {game.declared.rtp} %)",
            f"95 % CI           [{s['ci95'][0]:.4f} %, {s['ci95'][1]:.4f} %]",
            f"99 % CI           [{s['ci99'][0]:.4f} %, {s['ci99'][1]:.4f} %]",
            f"hit frequency     {100 * s['hit_frequency']:.4f} %",
            f"volatility        {s['volatility']:.4f}",
            f"max win           {par.czk(res['max_win'])}  (declared max {par.czk(game.declared.max_win)})",
            f"rounds per second {res['rounds_per_second']:,.0f}  ({res['elapsed_seconds']:.2f} s)",
        ]
        self.stdout.write("\n".join(out))
