"""`scripts/bench_simulators.py` (docs/bench.md "The fast simulators"): it prints each game's CPU per 10^7 rounds and
names the games it cannot measure; it asserts no speed, and this test reads only the table's shape."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import bench_simulators  # noqa: E402  (scripts/ is a folder of scripts, not a package)


def test_it_prints_a_row_for_each_named_game_and_says_which_have_no_fast_simulator(capsys):
    assert bench_simulators.main(["--only", "triple_charm@2,fruit_king", "--rounds", "2000", "--runs", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("simulate_fast, 2,000 rounds, least of 2 run(s), seed 20240601")
    rows = {line.split()[0]: line.split() for line in out[2:-1]}
    assert set(rows) == {"triple_charm@2", "fruit_king@1"}
    charm = rows["triple_charm@2"]
    # 2,000 rounds projected to 10^7 (the CPU printed to 0.01 s)
    assert float(charm[2]) == pytest.approx(float(charm[1]) * 5_000, abs=0.005 * 5_000 + 0.05)
    assert len(charm[4:]) == 2  # both runs' times
    assert "no simulate_fast" in " ".join(rows["fruit_king@1"])
    assert out[-1].endswith("every game within the minute") or "over the minute:" in out[-1]


def test_it_refuses_an_unknown_game_and_zero_rounds():
    with pytest.raises(SystemExit):
        bench_simulators.main(["--only", "no_such_game"])
    with pytest.raises(SystemExit):
        bench_simulators.main(["--rounds", "0"])
