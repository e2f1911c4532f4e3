"""Write docs/settings.md, the table of every environment variable the platform reads, from the typed readers of
config/settings/ (config/env.py) and the process variables of config/process_env.py.

    python scripts/settings_doc.py          # (re)write docs/settings.md
    python scripts/settings_doc.py --check  # fail when docs/settings.md is not what the code says

The settings are imported in a fresh process with a clean environment, so that the defaults shown are the code's,
whatever this shell or a .env sets.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "settings.md"
DUMP = (
    "import json, dataclasses, config.settings as s; from config.process_env import PROCESS_VARIABLES as p; "
    "print(json.dumps([dataclasses.asdict(v) for v in [*s.env.registry.values(), *p]]))"
)
HEADER = """# Settings

Every environment variable the platform reads: the Django settings (config/settings/, one module per area, each
variable read once and typed by config/env.py) and the processes around them. **Generated** by
`scripts/settings_doc.py` from the code: do not edit; `scripts/settings_doc.py --check` (CI and `make lint`) and
`tests/test_settings_doc.py` fail when this page is stale or a variable the code reads is missing.

- *Default*: the value outside production. *In production*: **required** (production refuses to start without it),
  or the default with `DJANGO_ENV=production` when it differs. Production also refuses unsafe values of many of
  these at start (docs/core.md "Production refusals", config/refusals.py).
- Amounts are haléře (integer minor units); a *comma-separated list* is `a,b,c`; *true/false* also takes 1/0,
  yes/no, on/off.
- A development `.env` file at the project root fills variables the environment does not set.
- `DATABASE_URL` and the other database URLs: `postgres://USER:PASSWORD@HOST:PORT/NAME?key=value`, libpq's
  multi-host form included (`postgres://u:pw@h1:5432,h2:5432/db?target_session_attrs=read-write`); the query
  parameters go to libpq (config/database_url.py).
"""


def variables() -> list[dict]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "HOME": os.environ.get("HOME", "/tmp"),
    }
    out = subprocess.run([sys.executable, "-c", DUMP], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render(rows: list[dict]) -> str:
    parts = [HEADER]
    areas: dict[str, list[dict]] = {}
    for row in rows:
        areas.setdefault(row["area"], []).append(row)
    parts.append("\n## Contents\n")
    parts += [f"- {area} ({len(items)})" for area, items in areas.items()]
    for area, items in areas.items():
        parts.append(f"\n## {area}\n")
        parts.append("| Variable | Type | Default | In production | Meaning |")
        parts.append("|---|---|---|---|---|")
        for v in items:
            production = "**required**" if v["required"] else v["production"]
            meaning = v["meaning"] + (f" (formerly {', '.join(v['old'])})" if v["old"] else "")
            parts.append(
                f"| `{v['name']}` | {v['type']} | {_cell(v['default'])} | {_cell(production)} | {_cell(meaning)} |"
            )
    parts.append(f"\n{len(rows)} variables.\n")
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    text = render(variables())
    if "--check" in argv:
        if not DOC.exists() or DOC.read_text(encoding="utf-8") != text:
            print("docs/settings.md is stale: run python scripts/settings_doc.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
