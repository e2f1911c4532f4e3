"""The wallet's seams: a function-level import says which cycle it breaks, and the sandbox provider never pretends
to send a callback it cannot. (That reads and the provider adapters never reach up into services or tasks is an
import-linter contract in pyproject.toml.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from core.money import Money
from wallet.adapters import PayoutResult, SandboxProvider

WALLET = Path(__file__).resolve().parent.parent


def test_every_function_level_import_in_the_wallet_says_why_it_is_not_at_the_top():
    offenders = []
    for path in WALLET.rglob("*.py"):
        if {"tests", "migrations"} & set(path.parts):
            continue
        lines = path.read_text().splitlines()
        for func in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    above = lines[max(0, node.lineno - 4) : node.lineno - 1]
                    if not any(line.strip().startswith("#") for line in above):
                        offenders.append(f"{path.relative_to(WALLET)}:{node.lineno}")
    assert offenders == []


def test_the_sandbox_without_an_outbox_refuses_to_promise_a_payout_callback(settings):
    settings.WALLET_SANDBOX_PAYOUT_OUTCOME = "succeeded"
    with pytest.raises(RuntimeError, match="outbox"):
        SandboxProvider().send_payout(reference="p-1", method=None, amount=Money(100))
    sent: list[tuple[bytes, str]] = []
    result = SandboxProvider(outbox=lambda body, sig: sent.append((body, sig))).send_payout(
        reference="p-1", method=None, amount=Money(100)
    )
    assert result.accepted and len(sent) == 1 and SandboxProvider().verify_signature(*sent[0])
    settings.WALLET_SANDBOX_PAYOUT_OUTCOME = "refused"
    assert SandboxProvider().send_payout(reference="p-2", method=None, amount=Money(100)) == PayoutResult(
        False, "", "sandbox refuses payouts (WALLET_SANDBOX_PAYOUT_OUTCOME=refused)"
    )
