"""``scripts/par_sheets.py --only``: only the named games' sheets of docs/par-sheets.md (their rows of the summary
table and their sections) and their pages' figures blocks are computed afresh, every other byte stays; ``--check
--only`` checks just those. European Roulette is the cheapest sheet (its 10^7 rounds take a tenth of a CPU second),
so it runs at its full rounds here. In this process (``--workers 1``), on copies in a temporary folder: no database."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import par_sheets as ps  # noqa: E402  (scripts/ is a folder of scripts, not a package)

PAR = ROOT / "docs" / "par-sheets.md"
GAME = "european_roulette@1"
NAME = "European Roulette"


def _entry_lines(text: str, name: str) -> set[int]:
    """The line numbers of ``name``'s row and section in a file ``par_sheets`` wrote."""
    lines = text.split("\n")
    row = {i for i, line in enumerate(lines) if line.startswith(f"| {name} (`")}
    start = lines.index(f"## {name}")
    end = next((k for k in range(start + 1, len(lines)) if lines[k].startswith("## ")), len(lines))
    return row | set(range(start, end))


def _without(text: str, name: str) -> str:
    drop = _entry_lines(text, name)
    return "\n".join(line for i, line in enumerate(text.split("\n")) if i not in drop)


@pytest.fixture
def copies(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of docs/par-sheets.md and of docs/games/ to write to."""
    par = tmp_path / "par-sheets.md"
    shutil.copyfile(PAR, par)
    pages = tmp_path / "games"
    shutil.copytree(ps.PAGES, pages)
    return par, pages


def _run(par: Path, pages: Path, *args: str) -> int:
    return ps.main(["--out", str(par), "--pages-dir", str(pages), "--workers", "1", *args])


def test_the_file_comes_apart_into_one_entry_per_sheet_and_back_unchanged():
    from games.engine import list_games

    text = PAR.read_text(encoding="utf-8")
    header, entries, note = ps.parse(text)
    assert header == ps.HEADER and note == ps.NOTE
    assert [name for name, _, _ in entries] == [f"{g.name}{label}" for g, label, _ in ps.jobs_of(list_games())]
    assert all(sec and sec[0] == f"## {name}" for name, _, sec in entries)
    assert ps.assemble(header, entries, note) == text


def test_check_only_passes_on_the_committed_file_and_its_page(copies):
    par, pages = copies
    assert _run(par, pages, "--check", "--only", GAME) == 0


def test_only_recomputes_one_sheet_and_leaves_every_other_line_as_it_was(copies):
    par, pages = copies
    before = par.read_text(encoding="utf-8")
    assert _run(par, pages, "--only", GAME, "--rounds-fast", "1000") == 0
    after = par.read_text(encoding="utf-8")
    mine_before, mine_after = _entry_lines(before, NAME), _entry_lines(after, NAME)
    assert mine_before == mine_after  # the sheet's layout has the same number of lines at any rounds
    old, new = before.split("\n"), after.split("\n")
    assert [x for i, x in enumerate(old) if i not in mine_before] == [
        x for i, x in enumerate(new) if i not in mine_after
    ]
    changed = [new[i] for i in sorted(mine_after) if new[i] != old[i]]
    assert changed and any("| 1,000 | simulate_fast |" in line for line in changed)
    assert f"`manage.py par_sheet {GAME} --rounds 1000 --seed {ps.SEED}`" in changed
    # checked at the rounds it was made with it is up to date; at the file's rounds it is not
    assert _run(par, pages, "--check", "--only", GAME, "--rounds-fast", "1000") == 0
    assert _run(par, pages, "--check", "--only", GAME) == 1


def test_only_puts_a_missing_sheet_back_at_its_place(copies):
    """A game the file does not hold yet (here: its entry taken out) comes in at its place in the registry's order:
    at the file's rounds the result is the committed file byte for byte."""
    par, pages = copies
    par.write_text(_without(PAR.read_text(encoding="utf-8"), NAME), encoding="utf-8")
    assert _run(par, pages, "--check", "--only", GAME) == 1
    assert _run(par, pages, "--only", GAME) == 0
    assert par.read_text(encoding="utf-8") == PAR.read_text(encoding="utf-8")


def test_only_refuses_when_another_game_has_no_sheet_in_the_file(copies, capsys):
    par, pages = copies
    par.write_text(_without(PAR.read_text(encoding="utf-8"), "Triple Charm"), encoding="utf-8")
    assert _run(par, pages, "--only", GAME) == 1
    assert "not in the file: Triple Charm" in capsys.readouterr().err


def test_only_rewrites_the_named_games_page_block_and_no_other(copies):
    from games.engine.figures import BLOCK_START

    par, pages = copies
    roulette, triple = pages / "roulette.md", pages / "triple_charm.md"
    for page in (roulette, triple):
        page.write_text(
            page.read_text(encoding="utf-8").replace(BLOCK_START, BLOCK_START + "\nstale"), encoding="utf-8"
        )
    assert _run(par, pages, "--only", GAME, "--pages-only") == 0
    assert roulette.read_text(encoding="utf-8") == (ps.PAGES / "roulette.md").read_text(encoding="utf-8")
    assert "\nstale" in triple.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "spec, message",
    [
        ("no_such_game", "no game 'no_such_game'"),
        ("european_roulette@9", "the file holds the current version only, european_roulette@1"),
        (",", "no game named"),
    ],
)
def test_only_refuses_a_game_it_cannot_regenerate(copies, capsys, spec, message):
    par, pages = copies
    with pytest.raises(SystemExit) as exc:
        _run(par, pages, "--only", spec)
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_only_accepts_a_code_without_its_version_and_names_each_game_once():
    games = ps.select("european_roulette, european_roulette@1,triple_charm")
    assert [f"{g.code}@{g.version}" for g in games] == [GAME, "triple_charm@2"]
