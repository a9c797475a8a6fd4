# `make train` and `make test` create .venv themselves on a fresh machine.
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python

.PHONY: train play web test test-slow bench compare lint format clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,compare,web,export,notebooks]'
	touch $@

# The main job: a Hex 7x7 agent in five minutes (outputs in runs/hex7).
train: $(VENV)/.installed
	$(PY) experiments/train.py --board 7

# Play the shipped Hex 7x7 model in the terminal, or in the browser (http://127.0.0.1:8000).
play: $(VENV)/.installed
	$(PY) experiments/play.py

web: $(VENV)/.installed
	$(PY) experiments/play.py --web

bench: $(VENV)/.installed
	$(PY) experiments/bench.py

# AlphaZero, DQN and PPO, 5 minutes each on Hex 7x7 and Othello 8x8, then the table (~1 hour).
compare: $(VENV)/.installed
	$(PY) experiments/compare.py

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# pytest exits 5 when it collects nothing; that must not pass as success. The tests run in
# TEST_WORKERS processes (pytest-xdist): most of their time is XLA compiling, one core each.
# One worker takes a whole file (--dist loadfile), so a file's module fixtures and in-process
# caches (a tiny run, an engine's compiled searches, the 4-device script) are built once.
# The 25 slowest are listed at the end: CI must stay under 30 minutes on 2 cores.
TEST_WORKERS ?= 2
test: lint
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --durations 25; status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests" >&2; exit 1; fi; exit $$status

test-slow: $(VENV)/.installed
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile -m slow; status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest collected no slow tests" >&2; exit 1; fi; exit $$status

format: $(VENV)/.installed
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
