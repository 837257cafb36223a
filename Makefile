# Two commands do everything on a fresh machine: `make demo` and `make test`.
# Both create or reuse .venv and install what they need (torch first: the
# pinned CPU build, so sentence-transformers does not pull CUDA wheels).
PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test test-unit test-core install bench lint clean docs wheel-smoke dist

$(PY):
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(PY) -m pip install --upgrade pip

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install torch==2.13.0
	# The distribution was once called pytest-llmeval, like an unrelated PyPI plugin that also
	# ships a module pytest_llmeval: neither may stay beside this one in the venv.
	$(PY) -m pip uninstall -y -q pytest-llmeval 2>/dev/null || true
	rm -rf pytest_llmeval.egg-info  # the old name's editable metadata, found on sys.path from here
	$(PY) -m pip install -e '.[all,dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m pytest example_suites -p no:cacheprovider --llm-report=llmeval-report.json --junitxml=llmeval-junit.xml; \
	status=$$?; echo "pytest exit code: $$status (1 = a sample failed or the pass-rate gate was missed)"; \
	if [ $$status -gt 1 ]; then exit $$status; fi

test: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m pytest tests -n 2 -q

# The unit half alone (plain calls, no inner pytest runs): seconds, for the edit-test loop.
test-unit: $(STAMP)
	HF_HUB_OFFLINE=1 $(PY) -m pytest tests/unit -n 2 -q

# The suite in a venv of the core alone plus the test tools (the `test` extra, no other extra):
# each test of an extra skips, naming the module it lacks.
CORE_VENV := .venv-core
CORE_STAMP := $(CORE_VENV)/.installed

$(CORE_STAMP): pyproject.toml
	$(PYTHON) -m venv $(CORE_VENV) || python3 -m venv $(CORE_VENV)
	$(CORE_VENV)/bin/python -m pip install --upgrade pip
	$(CORE_VENV)/bin/python -m pip install -e '.[test]'
	touch $(CORE_STAMP)

test-core: $(CORE_STAMP)
	HF_HUB_OFFLINE=1 $(CORE_VENV)/bin/python -m pytest tests -n 2 -q

# Build sdist + wheel, install the wheel (core + [html], no torch) into a fresh venv, run
# .ci/wheel_smoke/ against the installed package (about 20 s with a warm pip cache).
wheel-smoke: $(STAMP)
	$(PY) .ci/wheel_smoke.py

# What a release uploads: the sdist and the wheel (pure Python), in dist/.
dist: $(STAMP)
	$(PY) -m build -o dist .

bench: $(STAMP)
	for f in benchmarks/bench_*.py; do echo "== $$f"; $(PY) $$f; done

# Every Python file of the project: lint rules, then the formatter's check (it rewrites nothing here).
LINTED := pytest_llmeval tests benchmarks example_suites scripts conftest.py .ci/wheel_smoke.py

lint: $(STAMP)
	$(VENV)/bin/ruff check $(LINTED)
	$(VENV)/bin/ruff format --check $(LINTED)
	$(VENV)/bin/mypy --strict pytest_llmeval

# The docs site: MkDocs + Material from the `docs` extra, installed into .venv on first use
# (with the package's core, which the reference generator imports; no torch needed).
# --strict turns every warning (a broken link, a page left out of the nav) into a failed build.
# NO_MKDOCS_2_WARNING silences Material's end-of-life banner (printed on every build, not a docs problem).
DOCS_STAMP := $(VENV)/.docs-installed

$(DOCS_STAMP): $(PY) pyproject.toml
	$(PY) -m pip install -e '.[docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(PY) scripts/gen_docs_reference.py
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

clean:
	rm -rf $(VENV) $(CORE_VENV) llmeval-report.json llmeval-junit.xml site
