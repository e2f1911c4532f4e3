"""scripts/bench_http_cpu.py (docs/bench.md, "What gunicorn adds to a round"): gunicorn with the project's config
and one worker, driven over one keep-alive connection; its app draws from the seeded generator the in-process run
uses, so both play the same rounds."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.process  # gunicorn and its worker
def test_the_stub_is_served_by_one_gunicorn_worker_over_one_connection(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "TESTING"}
    out = subprocess.run(
        [sys.executable, "scripts/bench_http_cpu.py", "--app", "stub", "--rounds", "20", "--warmup", "2",
         "--access-log", str(tmp_path / "access.log")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    assert "20 rounds {'201': 20}" in out.stdout
    assert re.search(r"per round: worker CPU [\d.]+ ms \(user [\d.]+, system [\d.]+\)", out.stdout)
    lines = (tmp_path / "access.log").read_text().splitlines()
    assert len(lines) == 22  # the warm-up's and the counted requests, each one JSON line
    assert len({json.loads(line)["pid"] for line in lines}) == 1  # one worker


@pytest.mark.process  # imports the app module in a fresh interpreter (it installs the generator process-wide)
def test_the_served_app_draws_from_the_seeded_generator():
    script = """
import os, sys
sys.path.insert(0, "scripts")
os.environ.update(BENCH_HTTP_SEED="7", BENCH_HTTP_APP="stub")
import bench_http_app
from core.rng import SeededRNG, get_rng
expected = SeededRNG(7)
print(bench_http_app.application is bench_http_app.stub,
      [get_rng().randbelow(37) for _ in range(20)] == [expected.randbelow(37) for _ in range(20)])
"""
    out = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["True", "True"]
