"""Issuing remote-access packages and recording what the Ministry did with them (docs/regulator.md)."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, connection, transaction

from core import clock
from core.audit import Actor, audit_record, integrity_alarm
from regulator import crypto, schema, sources
from regulator.errors import NOT_REJECTED, PERIOD_OPEN, UNKNOWN_PACKAGE
from regulator.models import MinistryNotice, RegulatorPackage
from regulator.wire import FileWriter, Period, package_name

SYSTEM = Actor.system("regulator")


@dataclass(frozen=True)
class Written:
    name: str
    folder: Path
    counts: dict[str, int]


def write_files(period: Period, version: int, folder: Path, *, created: datetime | None = None) -> Written:
    """The 16 data files of ``period`` into ``folder`` (created), streamed from the database in one snapshot."""
    name = package_name(period, version)
    created = created or clock.now()
    folder.mkdir(parents=True, exist_ok=True)
    handles = {f: open(folder / f, "wb") for f in schema.FILE_NAMES}
    try:
        w = {f: FileWriter(h, package=name, data_file=schema.FILES[f], created=created) for f, h in handles.items()}
        with transaction.atomic():
            if len(connection.atomic_blocks) == 1:  # the outermost block: every file reads one snapshot
                with connection.cursor() as cur:
                    cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            for rec in sources.operator():
                w["provozovatel.csv"].write(rec)
            for rec in sources.games(period):
                w["evidence_her.csv"].write(rec)
            for rec in sources.accounts(period):
                w["konto.csv"].write(rec)
            for rec in sources.account_changes(period):
                w["konto_zmeny.csv"].write(rec)
            for rec in sources.logins(period):
                w["prihlaseni.csv"].write(rec)
            for rec in sources.participation(period):
                w["doba_ucasti.csv"].write(rec)
            for rec in sources.account_moves(period):
                w["ucet.csv"].write(rec)
            for bet, link in sources.bets(period):
                w["hra_toky.csv"].write(bet)
                w["vazba_hra_sazka.csv"].write(link)
            for rec in sources.bet_corrections(period):
                w["hra_toky_oprava.csv"].write(rec)
            for rec in sources.other_payments(period):
                w["ostatni_plneni.csv"].write(rec)
            for rec in sources.other_payment_corrections(period):
                w["ostatni_plneni_oprava.csv"].write(rec)
            for limit, kind in sources.self_limits(period):
                w["sebeomezeni.csv"].write(limit)
                w["sebeomezeni_hra_druh.csv"].write(kind)
    finally:
        for h in handles.values():
            h.close()
    return Written(name, folder, {f: w[f].count for f in schema.FILE_NAMES})


def seal_package(written: Written, out_dir: Path, seal: crypto.Seal | None = None) -> Path:
    """ZIP, encrypt for the Ministry, seal (with ``seal``, by default the configured one):
    ``out_dir/<name>.zip.p7e.p7s``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    seal = seal or crypto.configured_seal()
    recipients = crypto.recipient_certificates()
    with tempfile.TemporaryDirectory() as tmp:
        z, e = Path(tmp, f"{written.name}.zip"), Path(tmp, f"{written.name}.zip.p7e")
        crypto.zip_files(written.folder, schema.FILE_NAMES, z)
        crypto.encrypt(z, e, recipients)
        out = out_dir / f"{written.name}.zip.p7e.p7s"
        crypto.sign(e, out, seal)
    return out


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def package_dir() -> Path:
    return settings.REGULATOR_PACKAGE_DIR


def _latest(period: Period) -> RegulatorPackage | None:
    return (
        RegulatorPackage.objects.filter(period_start=period.start, game_type=schema.GAME_TYPE)
        .order_by("-version")
        .first()
    )


def package_issue(*, period: Period, actor: Actor = SYSTEM, seal: crypto.Seal | None = None) -> RegulatorPackage:
    """Write, seal and store the package of a closed ``period`` (version 01, or the next after a rejected one).
    Safe to run twice: a period with a package in force returns it. ``seal``: another seal than the configured one
    (the sandbox demo's unregistered seal); production always seals with the configured seal."""
    if period.end > clock.now():
        raise PERIOD_OPEN(period=period.code)
    latest = _latest(period)
    if latest is not None and latest.state != RegulatorPackage.State.REJECTED:
        return latest
    version = 1 if latest is None else latest.version + 1
    rel = Path(period.start.strftime("%Y/%m"))
    with tempfile.TemporaryDirectory() as tmp:
        written = write_files(period, version, Path(tmp, "csv"))
        sealed = seal_package(written, Path(tmp, "out"), seal)
        digest = _sha256(sealed)
        # stored under its hash too: a second worker building the same version at the same moment never overwrites
        # the file the first one recorded (its insert then fails on the unique version and its file is removed)
        target = package_dir() / rel / f"{written.name}.{digest[:16]}.zip.p7e.p7s"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(sealed), target)
    target.chmod(0o444)
    now = clock.now()
    try:
        with transaction.atomic():
            pkg = RegulatorPackage.objects.create(
                name=written.name,
                period_start=period.start,
                period_end=period.end,
                game_type=schema.GAME_TYPE,
                version=version,
                sha256=digest,
                path=str(rel / target.name),
                size=target.stat().st_size,
                files=written.counts,
                issued_at=now,
                state_changed_at=now,
                previous=latest,
            )
            if latest is not None:
                RegulatorPackage.objects.filter(pk=latest.pk).update(
                    state=RegulatorPackage.State.REISSUED, state_changed_at=now
                )
            audit_record(
                actor=actor,
                action="regulator.package_issued",
                obj=pkg,
                new={"name": pkg.name, "sha256": pkg.sha256, "files": pkg.files},
            )
    except IntegrityError:
        target.unlink(missing_ok=True)
        winner = _latest(period)
        assert winner is not None
        return winner
    return pkg


def package_reissue(*, package: RegulatorPackage, actor: Actor = SYSTEM) -> RegulatorPackage:
    """A package the Ministry rejected for a formal error is issued again as the next version."""
    if package.state != RegulatorPackage.State.REJECTED:
        raise NOT_REJECTED(name=package.name, state=package.state)
    return package_issue(period=Period.containing(package.period_start), actor=actor)


def package_file(package: RegulatorPackage) -> Path:
    return package_dir() / package.path


def package_downloaded(*, package: RegulatorPackage) -> None:
    now = clock.now()
    RegulatorPackage.objects.filter(pk=package.pk, state=RegulatorPackage.State.ISSUED).update(
        state=RegulatorPackage.State.DOWNLOADED, downloaded_at=now, state_changed_at=now
    )


def notice_record(*, kind: str, package_name_: str, body: str, error_code: str, client: str) -> MinistryNotice:
    """A success or error notification from the Ministry: recorded against its package; an error rejects the package
    (with the Ministry's code) and opens a staff task."""
    base = package_name_.split(".")[0]
    pkg = RegulatorPackage.objects.filter(name=base).first()
    if pkg is None:
        raise UNKNOWN_PACKAGE(name=package_name_)
    now = clock.now()
    error = kind == MinistryNotice.Kind.ERROR
    with transaction.atomic():
        notice = MinistryNotice.objects.create(
            kind=kind,
            package=pkg,
            package_name=package_name_[:120],
            error_code=error_code[:60],
            body=body[:100_000],
            client_identity=client[:500],
            received_at=now,
            staff_task_open=error,
        )
        state = RegulatorPackage.State.REJECTED if error else RegulatorPackage.State.CONFIRMED
        RegulatorPackage.objects.filter(pk=pkg.pk).update(
            state=state,
            error_code=error_code[:60] if error else "",
            error_detail=body[:10_000] if error else "",
            answered_at=now,
            state_changed_at=now,
        )
        audit_record(
            actor=Actor.system("ministry"),
            action=f"regulator.package_{state}",
            obj=pkg,
            new={"error_code": error_code, "client": client},
        )
    return notice


def confirmation_record(*, path: Path, ministry_seal_ca: Path, own_cert: Path, own_key: Path) -> MinistryNotice:
    """A confirmation package from the Ministry (``<name>.Ok.zip.p7e.p7s`` or the error variant): its seal is verified
    against the Ministry's sealing CA, it is decrypted with the operator's own key and unzipped, and its report is
    recorded against the package (``OK: ...`` confirms it; ``ERR_...`` lines reject it with the first code and open a
    staff task). A seal or decryption failure raises ``crypto.SealError`` and records nothing."""
    base = path.name.split(".")[0]
    with tempfile.TemporaryDirectory() as tmp:
        p7e, z = Path(tmp, "c.p7e"), Path(tmp, "c.zip")
        crypto.verify(path, p7e, ministry_seal_ca)
        crypto.decrypt(p7e, z, own_cert, own_key)
        with zipfile.ZipFile(z) as zf:
            text = "\n".join(zf.read(n).decode("utf-8", errors="replace") for n in sorted(zf.namelist()))
    ok = text.lstrip().startswith("OK:")
    code = ""
    if not ok:
        found = [w for w in text.replace(":", " ").split() if w.startswith("ERR_")]
        code = found[0] if found else "ERR_UNSPECIFIED"
    return notice_record(
        kind=MinistryNotice.Kind.SUCCESS if ok else MinistryNotice.Kind.ERROR,
        package_name_=base,
        body=text,
        error_code=code,
        client=f"confirmation package {path.name}",
    )


def notice_handle(*, notice: MinistryNotice, actor: Actor) -> MinistryNotice:
    """Staff close the task an error notice opened (after re-issuing the package or answering the Ministry)."""
    if not notice.staff_task_open:
        return notice
    with transaction.atomic():
        MinistryNotice.objects.filter(pk=notice.pk).update(
            staff_task_open=False, handled_at=clock.now(), handled_by=actor.label[:150]
        )
        audit_record(
            actor=actor,
            action="regulator.notice_handled",
            obj=notice,
            new={"package": notice.package_name, "error_code": notice.error_code},
        )
    notice.refresh_from_db()
    return notice


# --- keeping the issued packages (docs/regulator.md "Keeping the packages") ------------------------------------------


def retention_cutoff(now: datetime) -> datetime:
    """Packages whose period ended before this instant are past their retention period. A package holds the records
    of money movements and of the players' accounts, which the AML Act 253/2008 Sb. §16(1) keeps for 10 years: the
    packages are kept as long as the audit trail's AML events (``AUDIT_RETENTION_AML_YEARS``, refused below the
    legal 10 years when the settings load). A year is counted as 366 days, so a leap day never shortens it."""
    return now - timedelta(days=366 * int(settings.AUDIT_RETENTION_AML_YEARS))


@dataclass(frozen=True)
class KeepingResult:
    checked: int
    damaged: list[str]
    purged: list[str]


def packages_keep(*, now: datetime | None = None, actor: Actor = SYSTEM) -> KeepingResult:
    """The daily keeping of the issued packages: every stored sealed file is hashed again and compared with the hash
    recorded when it was issued (a missing or changed file is marked damaged, alarmed and audited; it is never
    rebuilt from live data, which may have changed since); a package past its retention period has its file deleted
    and keeps its row (name, hash, delivery states) with ``purged_at``. Safe to run twice."""
    now = now or clock.now()
    cutoff = retention_cutoff(now)
    checked, damaged, purged = 0, [], []
    for pkg in RegulatorPackage.objects.filter(purged_at__isnull=True).order_by("pk").iterator():
        path = package_file(pkg)
        if pkg.period_end < cutoff:
            path.unlink(missing_ok=True)
            with transaction.atomic():
                RegulatorPackage.objects.filter(pk=pkg.pk).update(purged_at=now)
                audit_record(
                    actor=actor,
                    action="regulator.package_purged",
                    obj=pkg,
                    new={"name": pkg.name, "sha256": pkg.sha256, "retention_cutoff": cutoff.isoformat()},
                )
            purged.append(pkg.name)
            continue
        checked += 1
        found = _sha256(path) if path.is_file() else "missing"
        if found == pkg.sha256:
            with transaction.atomic():
                RegulatorPackage.objects.filter(pk=pkg.pk).update(checked_at=now, damaged_at=None)
                if pkg.damaged_at is not None:  # staff restored the file from the backup: it matches again
                    audit_record(
                        actor=actor,
                        action="regulator.package_restored",
                        obj=pkg,
                        new={"name": pkg.name, "sha256": pkg.sha256},
                    )
            continue
        damaged.append(pkg.name)
        if pkg.damaged_at is None:
            with transaction.atomic():
                RegulatorPackage.objects.filter(pk=pkg.pk).update(damaged_at=now)
                audit_record(
                    actor=actor,
                    action="regulator.package_damaged",
                    obj=pkg,
                    new={"name": pkg.name, "recorded_sha256": pkg.sha256, "found": found},
                )
            integrity_alarm(
                PackageDamaged(f"{pkg.name}: stored file {found} != recorded {pkg.sha256}"),
                source="regulator.packages_keep",
                package=pkg.name,
            )
    return KeepingResult(checked=checked, damaged=damaged, purged=purged)


class PackageDamaged(Exception):
    """An issued package's stored file is missing or differs from the hash recorded when it was issued."""
