"""What every area reads first: where the project is, the environment reader (config/env.py) and which environment
this is. ``.env`` at the project root, when present, fills variables the environment does not set."""

from __future__ import annotations

import os
from pathlib import Path

import environ

from config.env import Env

BASE_DIR = Path(__file__).resolve().parent.parent.parent
if (BASE_DIR / ".env").exists():
    environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

env = Env(os.environ, base_dir=BASE_DIR)
env.area("Core")
DJANGO_ENV = env.str(
    "DJANGO_ENV",
    "development",
    "production turns on the production defaults and refuses unsafe settings at start "
    '(docs/core.md "Production refusals"); anything else is development',
)
PRODUCTION = env.production = DJANGO_ENV == "production"
TESTING = env.bool(
    "TESTING",
    False,
    "set by the test runner (config/pytest_env.py): a fast password hasher, the "
    "anonymous, user and callback throttles off",
)
