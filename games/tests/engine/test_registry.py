"""The game registry under threads: a fresh web worker's threads all see the whole catalogue.

A gthread worker restarted under load (tests/faults/test_web_kill.py) once refused a round with game.not_found:
one thread was importing the games (each module registers itself in turn), a second saw the registry non-empty,
skipped the import and looked up a game not yet registered. These run in a fresh interpreter, where no game is
imported yet, with the import of one game slowed so the second thread asks while the first is mid-catalogue.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.process  # each test runs a fresh interpreter (no game imported yet)

ROOT = Path(__file__).resolve().parents[3]

SLOWED_IMPORT = r"""
import importlib.abc, sys, threading, time

entered = threading.Event()

class Slow(importlib.abc.MetaPathFinder):
    # Holds the import of kobushi for a moment, after the games before it (crystal_grid, fruit_king ...) registered.
    def find_spec(self, name, path, target=None):
        if name == "games.engine.games.kobushi":
            entered.set()
            time.sleep(0.5)
        return None

sys.meta_path.insert(0, Slow())

from games.engine import registry

results = {}

def ask(name, code):
    try:
        results[name] = registry.get_game(code).code
    except KeyError as exc:
        results[name] = f"KeyError {exc}"

first = threading.Thread(target=ask, args=("first", "european_roulette"))
first.start()
assert entered.wait(30), "the first thread never reached kobushi's import"
assert registry._GAMES, "the games before kobushi registered"
second = threading.Thread(target=ask, args=("second", "kobushi"))
second.start()
first.join(); second.join()
print(results["first"], results["second"])
"""

PARTIAL_BEFORE_FIRST_USE = r"""
from types import SimpleNamespace
from games.engine import registry
registry.register(SimpleNamespace(code="a_test_game", version=1))  # registered before the registry's first use
print(registry.get_game("kobushi").code, len(registry.list_games()) > 10)
"""


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


def test_a_thread_asking_while_another_imports_the_catalogue_waits_for_the_whole_of_it() -> None:
    assert _run(SLOWED_IMPORT) == "european_roulette kobushi"


def test_a_game_registered_before_the_first_lookup_does_not_hide_the_others() -> None:
    assert _run(PARTIAL_BEFORE_FIRST_USE) == "kobushi True"
