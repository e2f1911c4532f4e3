# The two commands: `make run` and `make test`. Python 3.11 is all a fresh machine needs.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: run test install lint schema ledger-check clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	touch $@

install: $(VENV)/.installed

run: install
	$(BIN)/python scripts/run.py

test: install
	$(BIN)/python -m pytest -q -p no:cacheprovider --create-db $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .

schema: install
	$(BIN)/python manage.py spectacular --validate --fail-on-warn --file .data/openapi.yaml

clean:
	rm -rf $(VENV) .data
