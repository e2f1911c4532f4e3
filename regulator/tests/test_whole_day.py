"""A whole operating day played through the platform's services, then its three packages: registrations (temporary
becoming permanent), logins, card and bank deposits and branch cash, a withdrawal, rounds of three engine games and a
studio game, a round across a period boundary, a void, a win deduction, a complaint remedy, a self-limit set and one
refused. Each package validates with no error after the seal is verified and it is decrypted; the stakes and wins
reconcile with the ledger (the day report's tax base) to the haléř; a correction the next day is a correction record
in a later package; a rejected package is issued again as version 02."""

from __future__ import annotations

import zipfile
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pytest
import time_machine
from rest_framework.test import APIClient

from accounts.models import Player
from core.audit import Actor
from core.money import Money
from core.rng import use_rng
from games.services import round_void_settled
from games.tests.platform.testgames import FixedRNG
from regulator import crypto, schema, services, wire
from regulator.tests.ministry_tables import ministry_files
from regulator.validator import validate_sealed
from reports.services import reports_compute_day
from tests.kit.accounts import login_session_for, make_player
from tests.kit.clients import client_for
from tests.kit.money import api_money
from tests.kit.platform import act, start
from tests.kit.providers import CODE, SECRET, SignedClient, make_game, make_provider, open_session
from tests.kit.wallet import bank_number, pay_deposit
from wallet.models import PaymentMethod
from wallet.services import (
    adjustment_credit,
    branch_cash_record,
    deposit_start,
    payment_method_register,
    payment_method_verify,
    win_deduct,
    withdrawal_request,
)
from wallet.services.sandbox import default_sandbox_payer

pytestmark = pytest.mark.django_db(transaction=False)
SYSTEM = Actor.system("tests")
DAY = date(2026, 3, 2)  # CET: Prague = UTC + 1
PERIODS = [wire.Period.parse(p) for p in ("2026030200", "2026030208", "2026030216")]


def at(h, m=0, s=0, day=2):
    return datetime(2026, 3, day, h, m, s, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _wallet(settings):
    from config.celery import app

    old = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    settings.WALLET_SANDBOX_ENABLED = True
    settings.WALLET_WITHDRAWAL_APPROVAL_THRESHOLD = 10_000_000
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = old


def _deposit(player, method, amount):
    d = deposit_start(
        player=player,
        method=method,
        amount=Money(amount),
        reference=f"dep-{player.pk}-{amount}",
        actor=Actor.player(player),
    )
    pay_deposit(d, payer=default_sandbox_payer(player))
    d.refresh_from_db()
    assert d.status == "confirmed", d.status_reason
    return d


def _complete(player):
    """The registration completes: the temporary account becomes a player account (wallet conversion included)."""
    from django.db import transaction

    from core import clock
    from wallet.services import wallet_lock
    from wallet.services.conversion import convert_locked

    with transaction.atomic():
        Player.objects.filter(pk=player.pk).update(status=Player.Status.ACTIVE, completed_at=clock.now())
        player.refresh_from_db()
        convert_locked(wallet=wallet_lock(player=player), player=player, actor=SYSTEM)


def _play_the_day(t, django_capture_on_commit_callbacks):
    from limits.kinds import TECHNICAL
    from limits.services import self_limits_decide

    # -- period 00-08 Prague: a temporary account opened online, a card deposit, limits decided, two rounds
    t.move_to(at(5, 0))
    anna = make_player(status="temporary")
    session, key = login_session_for(anna, at=at(5, 0))
    self_limits_decide(
        player=anna,
        kind=TECHNICAL,
        actor=Actor.player(anna),
        decisions={"daily_stake": Money(100_000), "monthly_logins": None},
    )  # one set, one refused
    card = payment_method_register(
        player=anna,
        kind="card",
        actor=Actor.player(anna),
        data={"card_token": "tok_987654321", "card_masked": "**** **** **** 4321"},
    )
    _deposit(anna, card, 50_000)
    ca = APIClient(raise_request_exception=False)
    ca.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    for _ in range(2):
        t.shift(5)
        assert start(ca).status_code == 201
    t.move_to(at(5, 40))
    session.ended_at, session.end_reason = at(5, 40), "logout"
    session.save(update_fields=["ended_at", "end_reason"])

    # -- period 08-16: anna's account becomes permanent; bruno (branch registration) deposits by bank and at the
    # branch, plays three engine games and a studio game, withdraws; a deduction and a complaint remedy
    t.move_to(at(8, 0))
    _complete(anna)
    bruno = make_player(status="active", channel=Player.Channel.BRANCH)
    login_session_for(bruno, at=at(8, 0))
    bank = payment_method_register(
        player=bruno, kind="bank_account", actor=Actor.player(bruno), data={"account_number": bank_number()}
    )
    bank = payment_method_verify(method=bank, by=PaymentMethod.VerifiedBy.DOCUMENTS, actor=SYSTEM)
    _deposit(bruno, bank, 200_000)
    branch_cash_record(
        player=bruno, direction="in", amount=Money(100_000), reference="branch-1", branch="Praha 1", actor=SYSTEM
    )
    cb = client_for(bruno)
    rounds = []
    for _ in range(3):
        t.shift(5)
        with use_rng(FixedRNG(1)):  # pocket 1 is red: the red bet wins 200
            r = start(cb)
        assert r.status_code == 201
        rounds.append(r.json()["id"])
    t.shift(5)
    with use_rng(FixedRNG(3, 2)):
        rid = start(cb, game="test_pick", bet={"stake": 500}).json()["id"]
        act(cb, rid, {"pick": 0})
        assert act(cb, rid, {"pick": 1}).json()["status"] == "finished"
    t.shift(5)
    r = start(cb, game="crystal_grid", bet={"stake": 100})
    assert r.status_code == 201 and r.json()["status"] == "finished", r.content
    # the studio's round: a bet and a win through the seamless wallet
    t.shift(5)
    make_provider()
    make_game()
    signed = SignedClient(APIClient(raise_request_exception=False), CODE, SECRET)
    studio = open_session(bruno, signed)
    assert (
        signed.call(
            "bet",
            {
                "session": studio,
                "transaction_id": "b1",
                "round_id": "s1",
                "game": "wild",
                "amount": api_money(1_000),
                "round_closed": False,
            },
        ).status_code
        == 200
    )
    t.shift(5)
    assert (
        signed.call(
            "win",
            {
                "session": studio,
                "transaction_id": "w1",
                "bet_transaction_id": "b1",
                "round_id": "s1",
                "amount": api_money(2_500),
                "round_closed": True,
                "round_detail": {"outcome": {"stops": [1, 2, 3]}},
            },
        ).status_code
        == 200
    )
    t.shift(5)
    with django_capture_on_commit_callbacks(execute=True):
        withdrawal_request(player=bruno, method=bank, amount=Money(30_000), reference="wd-1", actor=SYSTEM)
    win_deduct(
        player=bruno,
        amount=Money(50),
        reference=f"games:round:{rounds[0]}:deduction",
        reason="error",
        notice_text="Výhra připsaná omylem.",
        actor=SYSTEM,
        win_references=[f"games:round:{rounds[0]}:win"],
    )
    adjustment_credit(
        player=bruno, amount=Money(2_000), reference="complaint:1", reason="complaint remedy", actor=SYSTEM
    )
    # a round across the period boundary: started at 15:59:58 Prague, finished in the next period
    t.move_to(at(14, 59, 58))
    with use_rng(FixedRNG(3, 2)):
        across = start(cb, game="test_pick", bet={"stake": 500}).json()["id"]
        t.move_to(at(15, 0, 30))
        act(cb, across, {"pick": 0})
        assert act(cb, across, {"pick": 1}).json()["status"] == "finished"

    # -- period 16-24: a settled bet declared void (proxy), a login in the evening
    t.move_to(at(18, 0))
    round_void_settled(round_id=rounds[1], reason="placed by proxy", actor=SYSTEM)
    login_session_for(anna, at=at(22, 30))
    return {"anna": anna, "bruno": bruno, "rounds": rounds, "across": across}


def _files(pkg, pki) -> dict[str, list[dict[str, str]]]:
    path = services.package_file(pkg)
    tmp = path.parent / "open"
    tmp.mkdir(exist_ok=True)
    crypto.verify(path, tmp / "p.p7e", pki.ca)
    crypto.decrypt(tmp / "p.p7e", tmp / "p.zip", pki.ministry_cert, pki.ministry_key)
    out = {}
    with zipfile.ZipFile(tmp / "p.zip") as zf:
        for name in zf.namelist():
            lines = zf.read(name).decode().split("\r\n")[1:-1]
            header = lines[0].split(";")
            out[name] = [dict(zip(header, ln.split(";"), strict=True)) for ln in lines[1:]]
    return out


def _validate_with_the_ministrys_tables(pkgs, pki) -> None:
    """Each package once more, with the item definitions and code lists read from the Ministry's own tables."""
    from django.conf import settings

    data = Path(settings.BASE_DIR).parent / "shared" / "spec" / "regulator-data"
    if not (data / "fields_structure.csv").is_file():
        print(f"SKIPPED: the Ministry's tables are not at {data}")
        return
    files, codes = ministry_files(data)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(schema, "FILES", files)
        mp.setattr(schema, "FILE_NAMES", tuple(files))
        mp.setattr(schema, "CODE_LISTS", codes)
        for pkg in pkgs:
            check = validate_sealed(
                services.package_file(pkg),
                trusted_seal=pki.ca,
                decrypt_cert=pki.ministry_cert,
                decrypt_key=pki.ministry_key,
            )
            assert check.errors == [], (pkg.name, check.errors)
            assert sum(check.counts.values()) == sum(pkg.files.values())


def _kc(text: str) -> int:
    return int(Decimal(text.replace(",", ".")) * 100) if text else 0


def test_a_whole_day_gives_three_valid_packages_that_reconcile_with_the_ledger(
    pki, django_capture_on_commit_callbacks, capsys
):
    with time_machine.travel(at(4, 0), tick=False) as t:
        played = _play_the_day(t, django_capture_on_commit_callbacks)
        t.move_to(at(23, 20))
        pkgs = [services.package_issue(period=p) for p in PERIODS]
        report = reports_compute_day(day=DAY)  # the day is over: the day-end balances are written
    files = []
    for pkg in pkgs:
        check = validate_sealed(
            services.package_file(pkg),
            trusted_seal=pki.ca,
            decrypt_cert=pki.ministry_cert,
            decrypt_key=pki.ministry_key,
        )
        assert check.errors == [], (pkg.name, check.errors)
        assert check.counts == pkg.files
        files.append(_files(pkg, pki))
        print(pkg.name, pkg.files)
    p1, p2, p3 = files
    _validate_with_the_ministrys_tables(pkgs, pki)
    # accounts: anna temporary in period 1, permanent in period 2; bruno (branch) opened and permanent in period 2
    assert [r["DocasneTrvale"] for r in p1["konto_zmeny.csv"]] == ["D"]
    assert sorted(r["DocasneTrvale"] for r in p2["konto_zmeny.csv"]) == ["D", "T", "T"]
    assert len(p1["konto.csv"]) == 1 and len(p2["konto.csv"]) == 1
    assert len(p1["prihlaseni.csv"]) == 1 and p1["prihlaseni.csv"][0]["OdhlaseniCas"] == "2026-03-02T06:40:00.0+01:00"
    # money in and out: card, bank, branch cash (cash), the withdrawal
    ucet = p1["ucet.csv"] + p2["ucet.csv"]
    assert {(_kc(r["TransakceVyse"]), r["TransakceZpusob"]) for r in ucet} >= {
        (50_000, "1"),
        (200_000, "1"),
        (100_000, "0"),
        (-30_000, "1"),
    }
    assert any("platební karta" in r["TransakceZpusobUpresneni"] for r in p1["ucet.csv"])
    # self-limits: a daily stake limit set (a), monthly logins refused (e)
    limits = {r["TypSO"]: r for r in p1["sebeomezeni.csv"]}
    assert (limits["a"]["HodnotaVyse"], limits["a"]["SOOdmitnuti"]) == ("1000,00", "0")
    assert limits["e"]["SOOdmitnuti"] == "1" and len(p1["sebeomezeni_hra_druh.csv"]) == 2
    # rounds: 2 + 3 roulette, pick, crystal grid, the studio, the round across the boundary = 9 stakes, each linked
    bets = p1["hra_toky.csv"] + p2["hra_toky.csv"] + p3["hra_toky.csv"]
    assert len(bets) == 9 and len(p3["hra_toky.csv"]) == 0
    assert {r["IDHraToky"] for r in bets} == {r["IDHraToky"] for f in files for r in f["vazba_hra_sazka.csv"]}
    # every reference resolves to a record of the same or an earlier package
    seen: dict[str, set[str]] = {"konto": set(), "bets": set()}
    for f in files:
        games = {r["IDHraPopis"] for r in f["evidence_her.csv"]}
        assert {r["IDHraPopis"] for r in f["vazba_hra_sazka.csv"]} <= games
        seen["konto"] |= {r["IDUzivKonto"] for r in f["konto.csv"]}
        seen["bets"] |= {r["IDHraToky"] for r in f["hra_toky.csv"]}
        for name in ("hra_toky.csv", "ucet.csv", "prihlaseni.csv", "sebeomezeni.csv", "ostatni_plneni.csv"):
            assert {r["IDUzivKonto"] for r in f[name]} <= seen["konto"], name
        assert {r["IDHraToky"] for r in f["hra_toky_oprava.csv"]} <= seen["bets"]
    across = f"12345678-HT{played['across']}"
    assert [r for r in bets if r["IDHraToky"] == across][0]["VyhraVysePuvodni"] == ""
    fixes = {
        (r["IDHraToky"], r["TypTokyOprava"], _kc(r["TokyOpravaVyse"])) for f in files for r in f["hra_toky_oprava.csv"]
    }
    void = f"12345678-HT{played['rounds'][1]}"
    assert fixes == {
        (across, "B", 3_500),
        (f"12345678-HT{played['rounds'][0]}", "B", -50),
        (void, "G", 100),
        (void, "B", -200),
    }
    assert [_kc(r["OstatniPlneniVysePuvodni"]) for r in p2["ostatni_plneni.csv"]] == [2_000]
    # the tax base: hra_toky and its corrections equal the ledger's figures of the day, to the haléř
    stakes = sum(_kc(r["SazkaVysePuvodni"]) for r in bets)
    wins = sum(_kc(r["VyhraVysePuvodni"]) for r in bets) + sum(a for _, k, a in fixes if k == "B" and a > 0)
    returned = sum(a for _, k, a in fixes if k in "GJ")
    reclaimed = -sum(a for _, k, a in fixes if k == "B" and a < 0)
    assert (stakes, wins, returned, reclaimed) == (
        report.stakes,
        report.wins,
        report.stakes_returned,
        report.wins_reclaimed,
    )
    assert report.ggr == stakes - returned - wins + reclaimed
    assert report.ledger_agrees and report.ledger_stakes == stakes and report.ledger_wins == wins
    # every haléř the day moved on the players' accounts is in the packages: the day-end balances minus the day-start
    # ones (none: both players opened this day) equal the sum of the money records of the day's three packages
    moved = (
        sum(
            _kc(r[k])
            for f in files
            for name, k in (
                ("ucet.csv", "TransakceVyse"),
                ("hra_toky.csv", "VyhraVysePuvodni"),
                ("hra_toky_oprava.csv", "TokyOpravaVyse"),
                ("ostatni_plneni.csv", "OstatniPlneniVysePuvodni"),
            )
            for r in f[name]
        )
        - stakes
    )
    assert report.player_balances["player_main"]["accounts"] == 2
    assert moved == sum(b["total"] for b in report.player_balances.values()) > 0

    # the next day: a correction of a day-2 round is a correction record in the package of that day's period
    with time_machine.travel(at(10, 0, day=3), tick=False) as t:
        win_deduct(
            player=played["bruno"],
            amount=Money(100),
            reference=f"games:round:{played['rounds'][2]}:deduction",
            reason="error",
            notice_text="x",
            actor=SYSTEM,
            win_references=[f"games:round:{played['rounds'][2]}:win"],
        )
        t.move_to(at(15, 30, day=3))
        late = services.package_issue(period=wire.Period.parse("2026030308"))
    fixes_late = _files(late, pki)["hra_toky_oprava.csv"]
    assert [(r["IDHraToky"], r["TypTokyOprava"], r["TokyOpravaVyse"]) for r in fixes_late] == [
        (f"12345678-HT{played['rounds'][2]}", "B", "-1,00")
    ]
    # the packages already issued are untouched
    for pkg in pkgs:
        pkg.refresh_from_db()
        assert services.package_file(pkg).stat().st_size == pkg.size

    # a rejected package is issued again as version 02, which validates
    with time_machine.travel(at(16, 0, day=3), tick=False):
        services.notice_record(
            kind="error",
            package_name_=pkgs[0].name,
            body="ERR_PKG_SIG_CERT_UNKNOWN",
            error_code="ERR_PKG_SIG_CERT_UNKNOWN",
            client="CN=test",
        )
        pkgs[0].refresh_from_db()
        again = services.package_reissue(package=pkgs[0])
    assert again.name == "12345678-V-2026030200-T-02" and again.files == pkgs[0].files
    assert validate_sealed(
        services.package_file(again), trusted_seal=pki.ca, decrypt_cert=pki.ministry_cert, decrypt_key=pki.ministry_key
    ).ok
    assert set(pkgs[0].files) == set(schema.FILE_NAMES)


def test_the_headers_of_the_written_files_are_the_ministrys_empty_package_when_present(tmp_path, settings):
    empty = Path(settings.BASE_DIR).parent / "shared" / "spec" / "regulator-data" / "empty-package-V-T"
    if not empty.is_dir():
        pytest.skip(f"the Ministry's empty package is not at {empty}")
    written = services.write_files(PERIODS[0], 1, tmp_path / "p")
    for name in schema.FILE_NAMES:
        assert (written.folder / name).read_bytes().split(b"\r\n")[1] == (empty / name).read_bytes().split(b"\r\n")[
            1
        ], name
