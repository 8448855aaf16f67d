#!/usr/bin/env bash
# The Python package (`crates/dynd-python`) and the example extension that
# exports Rust fns as NumPy ufuncs, built once each (release, as users
# install them) into a git-ignored virtual environment with maturin,
# pytest, NumPy, pyarrow, Awkward and Polars from PyPI, then its pytest suite.
# `.ci/run` runs this right after the README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-python
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
# maturin's build hooks run the `maturin` program of the environment.
export PATH="$PWD/$venv/bin:$PATH"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q "maturin>=1.9.4,<2" "pytest>=8" numpy pyarrow awkward polars
# Both packages build in the dynd-python workspace's own target directory,
# so the library is compiled once for the two.
"$venv/bin/python" -m pip install -q --no-build-isolation --force-reinstall --no-deps \
  ./crates/dynd-python ./crates/dynd-python/examples/python-ufunc
cd crates/dynd-python
../../"$venv"/bin/python -m pytest -q tests
