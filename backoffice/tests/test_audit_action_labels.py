"""Every audit action code the platform writes has a label staff read in their language (``core.audit_actions``):
a source scan finds the codes (an ``action=`` argument or an ``action`` variable holding a dotted code, each branch
of a conditional, and each f-string's pattern, which some label must fit), and the demo's own audit trail is checked
too; a new code written without a label fails here. The player's page, the audit search, the complaint's page and
the audit list show the label with the code beside it."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import translation

from core.audit_actions import ACTION_LABELS, action_label

ROOT = Path(settings.BASE_DIR)
_CODE = re.compile(r"[a-z_]+(\.[a-z_]+)+")


def _codes(node: ast.AST) -> tuple[set[str], set[str]]:
    """The dotted codes ``node`` may evaluate to, and the regular expressions of its f-strings."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and _CODE.fullmatch(node.value):
        return {node.value}, set()
    if isinstance(node, ast.IfExp):
        a, b = _codes(node.body), _codes(node.orelse)
        return a[0] | b[0], a[1] | b[1]
    if isinstance(node, ast.JoinedStr):
        parts = [re.escape(str(v.value)) if isinstance(v, ast.Constant) else "[a-z_]+" for v in node.values]
        pattern = "".join(parts)
        first = node.values[0]
        dotted = isinstance(first, ast.Constant) and re.match(r"[a-z_]+\.", str(first.value))
        return (set(), {pattern}) if dotted else (set(), set())
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.left, ast.Constant):
        right = node.right
        tails = _codes(right)[0] if not isinstance(right, ast.IfExp) else set()
        if isinstance(right, ast.IfExp):
            tails = {str(v.value) for v in (right.body, right.orelse) if isinstance(v, ast.Constant)}
        return {f"{node.left.value!s}{t}" for t in tails}, set()
    return set(), set()


def written_codes(source: str) -> tuple[set[str], set[str]]:
    """The audit action codes ``source`` writes: the values of ``action=`` arguments and of ``action``
    variables."""
    codes: set[str] = set()
    patterns: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        values: list[ast.AST] = []
        if isinstance(node, ast.Call):
            values = [k.value for k in node.keywords if k.arg == "action"]
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "action" for t in node.targets):
            values = [node.value]
        for value in values:
            c, p = _codes(value)
            codes |= c
            patterns |= p
    return codes, patterns


def _sources() -> list[Path]:
    return [
        p
        for p in ROOT.rglob("*.py")
        if not {".venv", "tests", "migrations", "scripts"} & set(p.relative_to(ROOT).parts)
    ]


def test_the_scan_finds_each_written_code() -> None:
    source = """
audit_record(actor=a, action="wallet.deposit_confirmed", obj=d)
audit_record(actor=a, action="games.round_voided" if v else "games.round_refunded")
action = "limits.self_limit_tightened"
audit_record(actor=a, action=f"wallet.withdrawal_{status}")
audit_record(actor=a, action="core.staff_role." + ("revoked" if r else "granted"))
parser.add_argument("--x", action="store_true")
"""
    codes, patterns = written_codes(source)
    assert codes == {
        "wallet.deposit_confirmed",
        "games.round_voided",
        "games.round_refunded",
        "limits.self_limit_tightened",
        "core.staff_role.revoked",
        "core.staff_role.granted",
    }
    assert patterns == {r"wallet\.withdrawal_[a-z_]+"}


def test_every_code_the_source_writes_has_a_label() -> None:
    codes: set[str] = set()
    patterns: set[str] = set()
    for path in _sources():
        c, p = written_codes(path.read_text())
        codes |= c
        patterns |= p
    assert len(codes) >= 150 and len(patterns) >= 4, (len(codes), len(patterns))
    missing = sorted(codes - set(ACTION_LABELS))
    assert not missing, f"{len(missing)} audit actions without a label in core/audit_actions.py: {missing}"
    unfit = sorted(p for p in patterns if not any(re.fullmatch(p, code) for code in ACTION_LABELS))
    assert not unfit, f"f-string audit actions no label fits: {unfit}"
    with translation.override("en"):
        in_english = {code: str(label) for code, label in ACTION_LABELS.items()}
    with translation.override("cs"):
        english = sorted(code for code, label in ACTION_LABELS.items() if str(label) == in_english[code])
    assert not english, f"labels without Czech: {english}"


@pytest.mark.django_db
def test_the_demos_audit_trail_is_labelled_on_every_page(settings: Any, tmp_path: Any) -> None:
    from backoffice.tests.test_no_raw_codes import _seed_demo
    from core.models import AuditEvent
    from tests.kit.accounts import make_staff

    _seed_demo(settings, tmp_path)
    actions = set(AuditEvent.objects.values_list("action", flat=True))
    assert len(actions) >= 20, actions
    missing = sorted(actions - set(ACTION_LABELS))
    assert not missing, f"the demo wrote audit actions without a label: {missing}"
    client = Client(headers={"accept-language": "cs"})
    client.force_login(make_staff(superuser=True))
    event = AuditEvent.objects.filter(action="wallet.deposit_confirmed").order_by("-pk").first()
    assert event is not None
    with translation.override("cs"):
        label = str(action_label("wallet.deposit_confirmed"))
    assert label == "vklad potvrzen"
    shown = f'{label} <code class="action-code">wallet.deposit_confirmed</code>'
    for url in (
        "/admin/core/auditevent/?action=wallet.deposit_confirmed",
        "/admin/core/auditevent/search/?action=wallet.deposit_confirmed",
    ):
        page = client.get(url).content.decode()
        assert shown in page, url
    # the player's page: its timeline and its audit section
    event = AuditEvent.objects.filter(object_type="accounts.player").order_by("-pk").first()
    assert event is not None
    with translation.override("cs"):
        shown = f'{action_label(event.action)} <code class="action-code">{event.action}</code>'
    page = client.get(f"/admin/accounts/player/{event.object_id}/change/").content.decode()
    assert shown in page
