# The README's two commands: `make run` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup run test bench demo package clean

setup: $(STAMP)

$(STAMP): pyproject.toml packaging/system-deps.sh
	bash packaging/system-deps.sh
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Opens the window on the bundled demo; with no display, on a virtual one.
run: setup
	@if [ -z "$$DISPLAY$$WAYLAND_DISPLAY" ] && command -v xvfb-run >/dev/null; then \
	  echo "No display: running on a virtual screen (xvfb-run). Set DISPLAY to see the window."; \
	  xvfb-run -a -s "-screen 0 1920x1200x24" $(BIN)/gst-viewer $(ARGS); \
	else $(BIN)/gst-viewer $(ARGS); fi

test: setup
	$(BIN)/ruff check viewer tests benchmarks tools
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q $(PYTEST_ARGS)

bench: setup
	for b in benchmarks/bench_*.py; do $(BIN)/python $$b || exit 1; done

demo: setup
	$(BIN)/gst-viewer make-demo assets/demo --scenes 3 --seed 0

# PyInstaller one-folder build + AppDir in build/, then the built binary's --selftest, headless.
package: setup
	bash packaging/package.sh $(BIN)/python

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache
