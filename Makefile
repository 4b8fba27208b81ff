# The two commands a newcomer needs: `make demo` and `make test`. Each works alone on a fresh clone.
PY := .venv/bin/python
PIP := .venv/bin/pip
STAMP := .venv/.installed
TRAIN_STAMP := .venv/.installed-train

.PHONY: demo test lint bench venv clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(PY) || python3 -m venv .venv
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -c constraints.txt -e '.[test]'
	touch $(STAMP)

# PyTorch, for the test that trains the patch reader (vision/train_patches.py); the demo does without it
$(TRAIN_STAMP): $(STAMP)
	$(PIP) install -q -c constraints.txt -e '.[test,train]'
	touch $(TRAIN_STAMP)

venv: $(STAMP)

demo: $(STAMP)
	.venv/bin/dama demo

test: $(TRAIN_STAMP)
	bash scripts/system-deps.sh
	.venv/bin/ruff check .
	.venv/bin/python -m pytest -q -ra

lint: $(STAMP)
	.venv/bin/ruff check .

bench: $(STAMP)
	.venv/bin/dama bench rules
	.venv/bin/dama bench referee
	.venv/bin/dama bench vision

clean:
	rm -rf .venv build *.egg-info
