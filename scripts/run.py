"""`make run`: migrate, load demo data, then run the web server (gunicorn), one Celery worker, ONE beat scheduler and
the provider simulator (a remote studio's game server) together; Ctrl-C stops them all (and the embedded
PostgreSQL we started)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PY = sys.executable
HOST, PORT = os.environ.get("HOST", "127.0.0.1"), os.environ.get("PORT", "8000")
BASE = f"http://{HOST}:{PORT}"
SIM_PORT = os.environ.get("PROVIDER_SIM_PORT", "8300")
SIM_PROVIDER = "simstudio"  # the demo provider's code (seed_demo creates it, pointing at the simulator)


def public_base_url(environ: dict[str, str] | os._Environ[str]) -> str:
    """The address every link the platform sends starts with (the e-mail confirmation, the sandbox payment URL,
    notices; settings.PUBLIC_BASE_URL): ``PUBLIC_BASE_URL`` when set, else the address ``make run`` serves on,
    ``http://HOST:PORT`` (a listen-on-all address, 0.0.0.0 or ::, is not one a browser can open: 127.0.0.1 then)."""
    explicit = environ.get("PUBLIC_BASE_URL", "").strip()
    if explicit:
        return explicit.rstrip("/")
    host = environ.get("HOST", "127.0.0.1") or "127.0.0.1"
    if host in ("0.0.0.0", "::", "[::]", ""):
        host = "127.0.0.1"
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 address in a URL
    return f"http://{host}:{environ.get('PORT', '8000') or '8000'}"


def dotenv(path: Path) -> dict[str, str]:
    """The ``NAME=value`` lines of the project's ``.env`` (the settings read it too), for what ``make run`` decides."""
    if not path.is_file():
        return {}
    found = {}
    for line in path.read_text().splitlines():
        name, sep, value = line.strip().removeprefix("export ").partition("=")
        if sep and name and not name.startswith("#"):
            found[name.strip()] = value.strip().strip("'\"")
    return found


def qa_forced_outcomes(environ: dict[str, str] | os._Environ[str], dotenv_values: dict[str, str]) -> str | None:
    """``GAMES_QA_FORCED_OUTCOMES`` for the development demo: ``"true"`` unless set (in the environment or ``.env``:
    then None, the settings read it as set) or production (``DJANGO_ENV=production``: None, and the settings refuse
    it on). It lets the client's QA presets play a Kobushi free-spin round at once in play money, where one comes
    about once in 294 rounds; a real-money round refuses forced draws whatever this says."""
    if "GAMES_QA_FORCED_OUTCOMES" in environ or "GAMES_QA_FORCED_OUTCOMES" in dotenv_values:
        return None
    if environ.get("DJANGO_ENV", dotenv_values.get("DJANGO_ENV", "development")) == "production":
        return None
    return "true"


#: the development demo's operator bank account (a valid Czech IBAN no bank holds for us): statements of it are
#: imported by the demo (finance's bank queues) and bank-transfer deposits work
DEMO_BANK = {"WALLET_BANK_IBAN": "CZ2720100000002900123451", "WALLET_BANK_ACCOUNT_NAME": "Demo Provozovatel s.r.o."}


def demo_bank_account(environ: dict[str, str] | os._Environ[str], dotenv_values: dict[str, str]) -> dict[str, str]:
    """The operator's bank account for the development demo (``WALLET_BANK_IBAN`` and its name) unless either is set
    (in the environment or ``.env``) or this is production (``DJANGO_ENV=production``): then nothing."""
    if any(name in environ or name in dotenv_values for name in DEMO_BANK):
        return {}
    if environ.get("DJANGO_ENV", dotenv_values.get("DJANGO_ENV", "development")) == "production":
        return {}
    return dict(DEMO_BANK)


def regulator_sandbox(
    environ: dict[str, str] | os._Environ[str],
    dotenv_values: dict[str, str],
    folder: Path = ROOT / ".data" / "regulator-sandbox",
) -> dict[str, str]:
    """The Ministry sandbox's certificates for the development demo (``regulator.sandbox_pki``, made once in
    ``folder``, by default ``.data/regulator-sandbox``) as the regulator's settings, so packages are sealed and
    encrypted in development and the demo's package gets the sandbox Ministry's answer; nothing when a seal or the
    Ministry's certificates are set (in the environment or ``.env``) or in production."""
    from regulator.sandbox_pki import SandboxPki, operator_settings, sandbox_pki  # only cryptography, no Django

    if environ.get("DJANGO_ENV", dotenv_values.get("DJANGO_ENV", "development")) == "production":
        return {}
    if any(name in environ or name in dotenv_values for name in operator_settings(SandboxPki.at(folder))):
        return {}
    return operator_settings(sandbox_pki(folder))


def aisg_sandbox(
    environ: dict[str, str] | os._Environ[str],
    dotenv_values: dict[str, str],
    folder: Path = ROOT / ".data" / "aisg-sandbox",
) -> dict[str, str]:
    """Both registers (population, excluded persons) through the Ministry's AISG interface as production asks them,
    answered by the AISG sandbox (``accounts.aisg.sandbox``: its keys made once in ``folder``, by default
    ``.data/aisg-sandbox``), so the demo shows AISG's answers to staff; nothing when a register or the AISG interface
    is configured (in the environment or ``.env``) or in production."""
    from accounts.aisg.sandbox_keys import aisg_sandbox_keys, sandbox_settings  # only cryptography, no Django

    if environ.get("DJANGO_ENV", dotenv_values.get("DJANGO_ENV", "development")) == "production":
        return {}
    if any(name in environ or name in dotenv_values for name in AISG_SETTINGS):
        return {}
    return sandbox_settings(aisg_sandbox_keys(folder))


#: the settings that mean the registers are configured by hand (then ``make run`` leaves them alone)
AISG_SETTINGS = (
    "ACCOUNTS_POPULATION_REGISTER",
    "ACCOUNTS_EXCLUSION_REGISTER",
    "ACCOUNTS_AISG_URL",
    "ACCOUNTS_AISG_KEY_FILE",
    "ACCOUNTS_AISG_CERT_FILE",
    "ACCOUNTS_AISG_MINISTRY_CERT_FILE",
)


def local_address(environ: dict[str, str] | os._Environ[str], port: str) -> str:
    """``http://HOST:port`` as this machine reaches it (a listen-on-all HOST is reached on 127.0.0.1)."""
    host = environ.get("HOST", "127.0.0.1") or "127.0.0.1"
    if host in ("0.0.0.0", "::", "[::]"):
        host = "127.0.0.1"
    elif ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"http://{host}:{port}"


def provider_sim_secret() -> str:
    """The secret the demo provider shares with the platform: the platform's own setting PROVIDERS_DEV_SECRET
    (config/settings/: the environment variable, else its development default), so both sides sign alike."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.conf import settings

    secret = getattr(settings, "PROVIDERS_DEV_SECRET", None) or os.environ.get("PROVIDERS_DEV_SECRET")
    if not secret:
        from provider_simulator.__main__ import DEV_SECRET

        secret = DEV_SECRET
    return str(secret)


def manage(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "manage.py", *args], cwd=ROOT, check=True, **kw)


def wait_health(timeout: float = 60) -> dict:
    deadline = time.monotonic() + timeout
    last: dict = {}
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{BASE}/health", timeout=3) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:  # 503 = something not green yet
            last = json.load(e)
        except OSError:
            pass
        time.sleep(0.5)
    return last


def main() -> int:
    os.chdir(ROOT)
    # every child (web, worker, beat, seed_demo) builds its links on the address we serve on
    os.environ["PUBLIC_BASE_URL"] = public_base_url(os.environ)
    qa = qa_forced_outcomes(os.environ, dotenv(ROOT / ".env"))
    if qa is not None:
        os.environ["GAMES_QA_FORCED_OUTCOMES"] = qa
    os.environ.update(demo_bank_account(os.environ, dotenv(ROOT / ".env")))
    os.environ.update(regulator_sandbox(os.environ, dotenv(ROOT / ".env")))
    os.environ.update(aisg_sandbox(os.environ, dotenv(ROOT / ".env")))
    # the provider simulator's address, for the demo provider's launch and API URLs (seed_demo)
    os.environ.setdefault("PROVIDER_SIM_URL", local_address(os.environ, SIM_PORT))
    embedded = not os.environ.get("DATABASE_URL")
    if embedded:
        # start the embedded PostgreSQL here and hand its URL to every child (settings never start it)
        from config.embedded_db import embedded_url

        print("== starting the embedded PostgreSQL (.data/pg)", flush=True)
        os.environ["DATABASE_URL"] = embedded_url()
    (ROOT / ".data").mkdir(exist_ok=True)
    print("== migrating and loading demo data", flush=True)
    manage("migrate", "--noinput", stdout=subprocess.DEVNULL)
    manage("collectstatic", "--noinput", stdout=subprocess.DEVNULL)  # the admin's CSS/JS, served by WhiteNoise
    # The demo's own notification e-mails stay out of the printout (the web process prints them on the console).
    demo = manage(
        "seed_demo",
        capture_output=True,
        text=True,
        env={**os.environ, "EMAIL_BACKEND": "django.core.mail.backends.locmem.EmailBackend"},
    ).stdout
    procs: list[subprocess.Popen] = []

    def start(name: str, *cmd: str, env: dict[str, str] | None = None) -> None:
        log = open(ROOT / ".data" / f"{name}.log", "ab")
        procs.append(
            subprocess.Popen(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        )
        print(f"   started {name} (pid {procs[-1].pid}, log .data/{name}.log)", flush=True)

    def stop(*_):
        print("\n== stopping", flush=True)
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        if embedded:
            from config.embedded_db import embedded_stop

            embedded_stop()
            print("   embedded PostgreSQL stopped", flush=True)
        sys.exit(0)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    # The production web server, as production runs it (config/gunicorn.conf.py); a development machine needs
    # no more than two workers.
    os.environ.setdefault("WEB_CONCURRENCY", "2")
    start(
        "web",
        PY,
        "-m",
        "gunicorn",
        "-c",
        "config/gunicorn.conf.py",
        "--bind",
        f"{HOST}:{PORT}",
        "config.wsgi:application",
    )
    start("worker", PY, "-m", "celery", "-A", "config", "worker", "-l", "info", "--concurrency", "2", "-n", "worker@%h")
    pidfile = ROOT / ".data" / "beat.pid"
    pidfile.unlink(missing_ok=True)
    start(
        "beat",
        PY,
        "-m",
        "celery",
        "-A",
        "config",
        "beat",
        "-l",
        "info",
        "--pidfile",
        str(pidfile),
        "-s",
        str(ROOT / ".data" / "beat-schedule"),
    )
    # The provider simulator: a remote studio's game server playing with this platform's wallet
    # (docs/providers.md); the secret goes through the environment, not the command line (ps shows that).
    start(
        "provider-sim",
        PY,
        "-m",
        "provider_simulator",
        "--host",
        HOST,
        "--port",
        SIM_PORT,
        "--platform",
        local_address(os.environ, PORT),
        "--provider",
        SIM_PROVIDER,
        "--lobby",
        f"{os.environ['PUBLIC_BASE_URL']}/play#/games",
        env={**os.environ, "PROVIDER_SIM_SECRET": provider_sim_secret()},
    )
    health = wait_health()
    print(f"== /health: {health.get('status')} {json.dumps(health.get('checks', {}))}", flush=True)
    # Prove the worker is alive: a task sent from another process must be executed by the worker.
    hb = subprocess.run([PY, "manage.py", "heartbeat", "--wait", "60"], cwd=ROOT, capture_output=True, text=True)
    print(f"== worker: {(hb.stdout or hb.stderr).strip()}", flush=True)
    registers = ", ".join(
        f"{name}={os.environ.get(name, '(default)')}" for name in ("ACCOUNTS_POPULATION_REGISTER", "ACCOUNTS_AISG_URL")
    )
    print(
        f"""
Platform running:
   Player app {BASE}/play (the reference web client: register, deposit, play, limits, complaints)
   API docs   {BASE}/api/docs
   Admin      {BASE}/admin/
   Health     {BASE}/health
   Schema     {BASE}/api/schema
   Mailbox    {BASE}/dev/mailbox (the e-mails and SMS the sandbox would have sent; development only)
   Provider   {os.environ["PROVIDER_SIM_URL"]} (the provider simulator "{SIM_PROVIDER}":
              its games launch from the lobby; what it sent the wallet: {os.environ["PROVIDER_SIM_URL"]}/journal;
              log .data/provider-sim.log)
   Links in e-mails and payment instructions start with PUBLIC_BASE_URL={os.environ["PUBLIC_BASE_URL"]}
   Registers  {registers}
              (the AISG sandbox answers by surname, e.g. Nenalezená: not found, Nezletilý: under 18; docs/accounts.md)
   Ministry   `.venv/bin/python manage.py regulator_sandbox_answer`: the sandbox Ministry answers the regulator
              packages waiting for it (docs/regulator.md)
   QA forced outcomes (play money only): GAMES_QA_FORCED_OUTCOMES={os.environ.get("GAMES_QA_FORCED_OUTCOMES", "false")}
      a game's "QA" box in the player app offers presets: a Kobushi free-spin round at once (docs/playclient.md)
Demo data:
{demo}
Ctrl-C stops everything.""",
        flush=True,
    )
    while True:
        for p in procs:
            if p.poll() is not None:
                print(f"!! a process exited (pid {p.pid}, code {p.returncode}); stopping", flush=True)
                stop()
        time.sleep(1)


if __name__ == "__main__":
    raise SystemExit(main())
