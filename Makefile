# The two commands: `make run` and `make test`. Python 3.11 is all a fresh machine needs.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: run test test-fast install lock lint schema bench clean fuzz

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# requirements*.txt hold the direct pins; requirements-dev.lock (pip-compile --generate-hashes) pins every
# package with its hashes, and the install refuses anything whose hash differs. After changing a pin:
#   make lock
$(VENV)/.installed: requirements.txt requirements-dev.txt requirements-dev.lock | $(BIN)/python
	$(BIN)/python -m pip install -q --disable-pip-version-check --require-hashes -r requirements-dev.lock
	touch $@

lock: | $(BIN)/python
	$(BIN)/python -m pip install -q pip-tools
	PIP_FIND_LINKS= $(BIN)/pip-compile -q --generate-hashes --allow-unsafe --strip-extras --no-emit-index-url \
		--no-emit-find-links -o requirements-dev.lock requirements-dev.txt

install: $(VENV)/.installed

# The headless Chromium of the admin's browser tests (jackpots/tests/test_admin_browser.py), from Debian's packages,
# installed only when it is missing (as root, like CI).
.PHONY: browser-deps
browser-deps:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver; \
	fi

# PgBouncer for the connection-pooling test (tests/test_pgbouncer.py) and `make bench BENCH_ARGS=--pgbouncer`, from
# Debian's packages, installed only when it is missing (as root, like CI).
.PHONY: pgbouncer-deps
pgbouncer-deps:
	@if ! command -v pgbouncer >/dev/null 2>&1 && [ ! -x /usr/sbin/pgbouncer ]; then \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q pgbouncer; \
	fi

# Patroni and etcd for the failover test (tests/faults/test_failover.py) and `scripts/ha_cluster.py`, from Debian's
# packages, installed only when missing (as root, like CI). Debian's etcd-server starts no daemon in a container
# without an init; the test and the launcher run their own etcd on loopback ports either way.
.PHONY: ha-deps
ha-deps:
	@if ! command -v patroni >/dev/null 2>&1 || ! command -v etcd >/dev/null 2>&1 || ! command -v etcdctl >/dev/null 2>&1; then \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			patroni etcd-server etcd-client; \
	fi

# What the browser tests (headless Chromium), the pooling test (PgBouncer) and the failover test (Patroni, etcd) need, installed by `make test` where the
# machine allows it (root with apt-get: CI, a fresh Debian machine or container); elsewhere, or when the install
# fails, those tests skip with their reason on a developer's machine (and fail under CI, which installs them first).
.PHONY: test-deps
test-deps:
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		$(MAKE) -s browser-deps pgbouncer-deps ha-deps \
			|| echo "make test: Chromium/PgBouncer/Patroni could not be installed: their tests skip"; \
	else echo "make test: not root with apt-get: the Chromium, PgBouncer and failover tests skip where those are missing"; fi

run: install
	$(BIN)/python scripts/run.py

# The test databases are reused between runs (pytest --reuse-db) and rebuilt when a migration changes
# (a hash of the migrations is kept in .data/test-db.hash). The run is parallel (pytest-xdist): each worker has its own
# database (test_<name>_gw0, _gw1...) and folders; TEST_WORKERS=0 runs in one process. Tests of one xdist_group run
# on one worker (conftest.py). Default: 2 workers, one per core of the 2-core reference machine.
TEST_WORKERS ?= 2
XDIST = $(if $(filter 0,$(TEST_WORKERS)),,-n $(TEST_WORKERS) --dist loadgroup)
MIGRATIONS_HASH = $(shell cat */migrations/*.py 2>/dev/null | sha256sum | cut -c1-16)
CREATE_DB = $(shell [ "$$(cat .data/test-db.hash 2>/dev/null)" = "$(MIGRATIONS_HASH)-$${DATABASE_URL}-$(TEST_WORKERS)" ] || echo --create-db)

# everything: unit/integration and the browser, process and slow tiers
test: install test-deps
	@mkdir -p .data
	$(BIN)/python -m pytest -q -p no:cacheprovider $(XDIST) $(CREATE_DB) --durations=10 $(PYTEST_ARGS)
	@echo "$(MIGRATIONS_HASH)-$${DATABASE_URL}-$(TEST_WORKERS)" > .data/test-db.hash

# the unit/integration tier only (no headless browser, no processes or servers, no simulations): between edits
test-fast: install
	@mkdir -p .data
	$(BIN)/python -m pytest -q -p no:cacheprovider $(XDIST) $(CREATE_DB) --durations=10 \
		-m "not browser and not process and not slow" $(PYTEST_ARGS)
	@echo "$(MIGRATIONS_HASH)-$${DATABASE_URL}-$(TEST_WORKERS)" > .data/test-db.hash

# the hostile-input suite's long run (tests/test_hostile_input.py): FUZZ_EXAMPLES generated cases per operation
# (default 500) and a new seed each run (printed; FUZZ_SEED=<seed> repeats a run); `make test` runs the short one
fuzz: install
	@mkdir -p .data
	FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-500} $(BIN)/python -m pytest -q -p no:cacheprovider $(XDIST) $(CREATE_DB) \
		tests/test_hostile_input.py $(PYTEST_ARGS)
	@echo "$(MIGRATIONS_HASH)-$${DATABASE_URL}-$(TEST_WORKERS)" > .data/test-db.hash

# the guard rails CI runs: ruff, the layering contracts, mypy, migrations in sync with the models
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports
	$(BIN)/mypy .
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/python scripts/game_plan_doc.py --check
	$(BIN)/python scripts/settings_doc.py --check

# `make bench`: gunicorn (production config) + 2,000 funded players with limits + 32 keep-alive connections for 60 s,
# pgbench before/after on the same PostgreSQL, then 1,000,000 rounds of history and the same again (scripts/bench.py)
bench: install
	$(BIN)/python scripts/bench.py $(BENCH_ARGS)

schema: install
	$(BIN)/python manage.py spectacular --validate --fail-on-warn --file .data/openapi.yaml

clean:
	rm -rf $(VENV) .data
