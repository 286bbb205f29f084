#!/usr/bin/env bash
# The scaling figures (docs/scaling.md) on a machine with no network and nothing of this
# project installed: a cluster's compute node, a borrowed benchmark machine. It needs
# Python 3.12 with numpy, pyarrow, scipy, statsmodels and Cython, and a C compiler; the
# other packages travel as wheels. Two steps, from the repository's root:
#
#   benchmarks/bare_machine.sh fetch [BASE]   here, where PyPI is reachable: the wheels into
#       .whl/ (this environment's versions, for CPython 3.12 on x86-64 Linux) and BASE's
#       source tree (a commit; default e185691, last measured at 16 cores: 17.7-18.0 s for
#       a million ladder games) into .bench/base. Both folders are kept out of git.
#   benchmarks/bare_machine.sh run [GAMES]    there, with .whl and .bench copied along:
#       installs the wheels into /tmp/site, builds the native core of this tree and of BASE,
#       then plays GAMES ladder games (default 1,000,000) on every core: this tree on local
#       processes twice and on Dask once, BASE on local processes once, alternating; then a
#       worker alone against BASE's. JSON lines on stdout (and in $OUT/scaling.log if OUT is
#       set).
set -euo pipefail
cd "$(dirname "$0")/.."

# what a bare Python 3.12 may lack: the runner's and the report's pure-Python needs
WHEELS=(simpy dask distributed plotly tqdm pandas tzdata partd locket tblib tornado zict
  narwhals)
BUILD=("setuptools>=77" "Cython>=3")  # pyproject.toml's build requirements

fetch() {
  local base="${1:-e185691}"
  for path in .whl .bench; do
    grep -qx "/$path/" .git/info/exclude 2>/dev/null || echo "/$path/" >>.git/info/exclude
  done
  rm -rf .whl .bench/base
  mkdir -p .whl .bench/base
  local specs=()
  for name in "${WHEELS[@]}"; do
    specs+=("$name==$(python -c "import importlib.metadata as m; print(m.version('$name'))")")
  done
  python -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d .whl "${specs[@]}" "${BUILD[@]}"
  git archive "$base" | tar -x -C .bench/base
  echo "$base" >.bench/base/COMMIT
  du -sh .whl .bench/base
}

build() {  # the native core in place (setup.py: the extension is optional, so check it)
  (cd "$1" && python3 setup.py -q build_ext --inplace -j "$(nproc)" >/dev/null 2>&1 || true)
  (cd "$1" && python3 -c "from cardgame import _native; assert _native.BUILT, 'no native core'")
}

run() {
  local games="${1:-1000000}" cores log=/dev/null
  cores="$(nproc)"
  [ -n "${OUT:-}" ] && log="$OUT/scaling.log"
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl
  export PYTHONPATH="/tmp/site:$PWD" PYTHONUNBUFFERED=1
  build .
  build .bench/base
  local here="$PWD" base="$PWD/.bench/base"
  {
    echo "{\"this\": \"$(git rev-parse --short HEAD 2>/dev/null || echo tree)\", \"base\": \"$(cat "$base/COMMIT")\", \"cores\": $cores}"
    for round in 1 2; do
      python3 benchmarks/scaling.py --games "$games" --workers "$cores" --no-report
      if [ "$round" = 1 ]; then  # the older code, from its own tree and path
        (cd "$base" && PYTHONPATH="/tmp/site:$base" python3 "$here/benchmarks/scaling.py" \
          --games "$games" --workers "$cores" --no-report | sed 's/^{/{"code": "base", /')
      fi
    done
    python3 benchmarks/scaling.py --games "$games" --workers "$cores" --backends dask --no-report
    python3 benchmarks/sims.py --worker-vs "$base" --rounds 3
  } 2>&1 | tee "$log"
}

case "${1:-}" in
  fetch) shift; fetch "$@" ;;
  run) shift; run "$@" ;;
  *) echo "usage: $0 fetch [BASE] | run [GAMES]" >&2; exit 2 ;;
esac
