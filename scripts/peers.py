#!/usr/bin/env python3
"""Times the ragged benchmark cases of `benches/ragged.rs` in NumPy and
Awkward Array, so the notes can put dynd, hand-written Rust, ndarray, NumPy
and Awkward side by side from one sitting.

    python3 scripts/peers.py            # installs the peers on first use
    cargo bench --bench ragged          # the Rust side, in the same sitting

The peers are installed from PyPI into `.venv-peers/` (git-ignored) on the
first run; nothing here runs in CI. The data are the benchmark's: 1e6 rows
whose lengths 0..=20 come from the same seeded xorshift, the same values,
two separate arrays with equal rows. Times are medians of repeated runs,
printed in ms and ns per value.
"""

import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".venv-peers")
PEERS = ["numpy", "awkward", "numexpr"]
ROWS = 1_000_000


def in_venv():
    """Re-runs this script in the peers' virtual environment, making it
    (and installing the peers) on first use."""
    python = os.path.join(VENV, "bin", "python")
    if os.path.abspath(sys.prefix) == os.path.abspath(VENV):
        return
    if not os.path.exists(python):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
        subprocess.check_call([python, "-m", "pip", "install", "--quiet", *PEERS])
    os.execv(python, [python, *sys.argv])


def lengths(rows):
    """The benchmark's row lengths: a 64-bit xorshift, `s % 21`."""
    mask = (1 << 64) - 1
    s = 0x9E3779B97F4A7C15
    out = []
    for _ in range(rows):
        s ^= (s << 13) & mask
        s ^= s >> 7
        s ^= (s << 17) & mask
        out.append(s % 21)
    return out


def median_ms(f, repeat=15):
    f()  # warm up
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    return times[len(times) // 2]


def main():
    in_venv()
    import awkward as ak
    import numexpr as ne
    import numpy as np

    ne.set_num_threads(1)
    lens = np.array(lengths(ROWS), dtype=np.int64)
    offsets = np.zeros(ROWS + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    total = int(offsets[-1])
    # Values as the benchmark makes them: seed + (row % 7) + position.
    row = np.repeat(np.arange(ROWS), lens)
    pos = np.arange(total) - np.repeat(offsets[:-1], lens)
    xv = (0.0 + row % 7 + pos).astype(np.float64)
    yv = (0.5 + row % 7 + pos).astype(np.float64)
    per_row = np.arange(ROWS, dtype=np.float64)
    x = ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(offsets), ak.contents.NumpyArray(xv)))
    y = ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(offsets.copy()), ak.contents.NumpyArray(yv)))
    starts = offsets[:-1]
    nonempty = lens > 0

    def reduceat_sum():
        out = np.zeros(ROWS)
        out[nonempty] = np.add.reduceat(xv, starts[nonempty])
        return out

    cases = [
        ("add: flat x + y (NumPy)", lambda: xv + yv),
        ("add: flat x + y (numexpr, 1 thread)", lambda: ne.evaluate("xv + yv", local_dict={"xv": xv, "yv": yv})),
        ("add: ragged x + y, separate arrays (Awkward)", lambda: x + y),
        ("add: per-row value + ragged (Awkward)", lambda: per_row + x),
        ("add: per-row value + ragged (NumPy repeat)", lambda: np.repeat(per_row, lens) + xv),
        ("sum per row (Awkward)", lambda: ak.sum(x, axis=1)),
        ("sum per row (NumPy reduceat)", reduceat_sum),
        ("mean per row (Awkward)", lambda: ak.mean(x, axis=1)),
        ("max per row (Awkward)", lambda: ak.max(x, axis=1)),
        ("sum across rows, axis 0 (Awkward)", lambda: ak.sum(x, axis=0)),
    ]
    print(f"{ROWS} rows, {total} values; NumPy {np.__version__}, Awkward {ak.__version__}, numexpr {ne.__version__}")
    for name, f in cases:
        ms = median_ms(f)
        print(f"{name:48s} {ms:9.2f} ms {ms * 1e6 / total:6.2f} ns/value")


if __name__ == "__main__":
    main()
