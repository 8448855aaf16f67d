#!/usr/bin/env python3
"""Times the ragged benchmark cases of `benches/ragged.rs` in NumPy and
Awkward Array, and the expression cases of `benches/expr.rs` in NumPy and
numexpr, so the notes can put dynd, hand-written Rust, ndarray and the
Python peers side by side from one sitting.

    python3 scripts/peers.py            # the ragged cases (Awkward, NumPy, Polars); installs the peers on first use
    python3 scripts/peers.py expr       # the expression cases
    python3 scripts/peers.py ufuncs     # `benches/ufuncs.rs` and `benches/array_fns.rs`
    python3 scripts/peers.py ragged_fns # `benches/ragged_fns.rs`: Awkward and Polars
    python3 scripts/peers.py math       # `benches/math.rs`: NumPy, numexpr
    python3 scripts/peers.py plain      # `benches/elwise.rs` add and `benches/reduce.rs` sum
    python3 scripts/peers.py text       # `benches/text.rs`: NumPy 2 `np.strings`, pyarrow, Polars
    python3 scripts/peers.py records    # `benches/records.rs`: NumPy structured arrays, Polars structs, pyarrow
    python3 scripts/peers.py time       # `benches/time.rs`: pyarrow.compute, Polars `dt`, NumPy datetime64
    python3 scripts/peers.py groups     # `benches/groups.rs`: Polars group_by, pyarrow group_by, NumPy bincount
    python3 scripts/peers.py python     # the Python package itself against NumPy, Awkward, numexpr, Numba
    cargo bench --bench ragged          # the Rust side, in the same sitting
    cargo bench --bench expr

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
PEERS = ["numpy", "awkward", "numexpr", "polars", "pyarrow"]
ROWS = 1_000_000


def in_venv():
    """Re-runs this script in the peers' virtual environment, making it
    (and installing the peers) on first use."""
    python = os.path.join(VENV, "bin", "python")
    if os.path.abspath(sys.prefix) == os.path.abspath(VENV):
        return
    if not os.path.exists(python):
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
    # A peer added since the environment was made is installed too.
    probe = subprocess.run([python, "-c", "import " + ", ".join(PEERS)], capture_output=True)
    if probe.returncode != 0:
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


def values(n, k):
    """The expression benchmark's values: ((i * (2k + 7) + k) % 1000) / 250 - 2."""
    import numpy as np

    i = np.arange(n, dtype=np.uint64)
    return ((i * np.uint64(2 * k + 7) + np.uint64(k)) % np.uint64(1000)).astype(np.float64) / 250.0 - 2.0


def expr_main():
    in_venv()
    import awkward as ak
    import numexpr as ne
    import numpy as np

    print(f"NumPy {np.__version__}, numexpr {ne.__version__}, Awkward {ak.__version__}")
    for n in [1_000, 100_000, 10_000_000]:
        a, b, c, d, e = (values(n, k) for k in range(5))
        x, y = values(n, 1), values(n, 2)
        env = {"a": a, "b": b, "c": c, "d": d, "e": e, "x": x, "y": y}
        repeat = 15 if n >= 10_000_000 else 200
        cases = [
            ("a*b + c*d - e (NumPy)", lambda: a * b + c * d - e),
            ("sqrt(x*x + y*y) (NumPy)", lambda: np.sqrt(x * x + y * y)),
        ]
        for threads in (1, 2):
            cases += [
                (f"a*b + c*d - e (numexpr, {threads} thread(s))", (threads, "a*b + c*d - e")),
                (f"sqrt(x*x + y*y) (numexpr, {threads} thread(s))", (threads, "sqrt(x*x + y*y)")),
            ]
        if n == 100_000:
            cases.append(("(a*b + 1) * (a*b + 2) (NumPy)", lambda: (a * b + 1) * (a * b + 2)))
            cases.append(("(a*b + 1) * (a*b + 2) (numexpr, 1 thread)", (1, "(a*b + 1) * (a*b + 2)")))
        if n == 10_000_000:
            cases.append(("sum(a*b) (NumPy (a*b).sum())", lambda: (a * b).sum()))
            cases.append(("sum(a*b) (NumPy dot)", lambda: np.dot(a, b)))
            cases.append(("sum(a*b) (numexpr sum, 1 thread)", (1, "sum(a*b)")))
        for name, f in cases:
            if isinstance(f, tuple):
                threads, text = f
                ne.set_num_threads(threads)
                f = lambda text=text: ne.evaluate(text, local_dict=env)
            ms = median_ms(f, repeat)
            print(f"n={n:<9} {name:48s} {ms * 1e3:11.1f} us {ms * 1e6 / n:6.2f} ns/element")
    # The ragged (x - m) / s with a mean and scale per row.
    lens = np.array(lengths(ROWS), dtype=np.int64)
    offsets = np.zeros(ROWS + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    total = int(offsets[-1])
    xv = values(total, 3)
    m, s_ = values(ROWS, 4), values(ROWS, 5) + 3.0
    xr = ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(offsets), ak.contents.NumpyArray(xv)))
    ms = median_ms(lambda: (xr - m) / s_)
    print(f"ragged (x - m) / s, 1e6 rows (Awkward)              {ms:9.2f} ms {ms * 1e6 / total:6.2f} ns/value")
    ms = median_ms(lambda: (xv - np.repeat(m, lens)) / np.repeat(s_, lens))
    print(f"ragged (x - m) / s, 1e6 rows (NumPy repeat)         {ms:9.2f} ms {ms * 1e6 / total:6.2f} ns/value")
    ne.set_num_threads(1)
    ms = median_ms(lambda: ne.evaluate("(xv - mr) / sr", local_dict={"xv": xv, "mr": np.repeat(m, lens), "sr": np.repeat(s_, lens)}))
    print(f"ragged (x - m) / s, 1e6 rows (numexpr over repeat)  {ms:9.2f} ms {ms * 1e6 / total:6.2f} ns/value")
    # The per-row mean of the same expression.
    ms = median_ms(lambda: ak.mean((xr - m) / s_, axis=1))
    print(f"ragged mean((x - m) / s, axis=1) (Awkward)          {ms:9.2f} ms {ms * 1e6 / total:6.2f} ns/value")
    rows_of = np.repeat(np.arange(ROWS), lens)

    def numpy_row_mean():
        v = (xv - np.repeat(m, lens)) / np.repeat(s_, lens)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.bincount(rows_of, weights=v, minlength=ROWS) / lens

    ms = median_ms(numpy_row_mean)
    print(f"ragged mean((x - m) / s, axis=1) (NumPy bincount)   {ms:9.2f} ms {ms * 1e6 / total:6.2f} ns/value")


def ufuncs_main():
    """`floor`, `isnan`, `less` and `bitwise_and` at 1e7, as `benches/ufuncs.rs`
    makes the data, into an existing output and allocating; integer
    `multiply`, `maximum` and `add` at 1e4; `argmax`,
    `sort`, `unique` and `concatenate` as `benches/array_fns.rs`."""
    in_venv()
    import numpy as np

    n = 10_000_000
    i = np.arange(n, dtype=np.float64)
    xs = (i - 5e6) * 0.37
    xs[999::1000] = np.nan
    ys = xs[::-1].copy()
    ii = np.arange(n, dtype=np.int64)
    a = ii * np.int64(0x9E3779B9)
    b = ii ^ np.int64(0x5555)
    out_f, out_b, out_i = np.empty(n), np.empty(n, dtype=bool), np.empty(n, dtype=np.int64)
    print(f"NumPy {np.__version__}, n = {n}")
    cases = [
        ("floor (into)", lambda: np.floor(xs, out=out_f), n),
        ("floor (alloc)", lambda: np.floor(xs), n),
        ("isnan (into)", lambda: np.isnan(xs, out=out_b), n),
        ("isnan (alloc)", lambda: np.isnan(xs), n),
        ("less (into)", lambda: np.less(xs, ys, out=out_b), n),
        ("bitwise_and (into)", lambda: np.bitwise_and(a, b, out=out_i), n),
        ("bitwise_and (alloc)", lambda: np.bitwise_and(a, b), n),
    ]
    # `ints_in_cache`: two separate arrays of 1e4, into an existing output.
    m = 10_000
    im = np.arange(m, dtype=np.int64)
    p64, q64 = (im * 7919) % 20011 - 10000, (im * 104_729) % 30011 - 15000
    p32, q32, o64, o32 = p64.astype(np.int32), q64.astype(np.int32), np.empty(m, np.int64), np.empty(m, np.int32)
    cases += [
        ("multiply int64 1e4 (into)", lambda: np.multiply(p64, q64, out=o64), m),
        ("maximum int64 1e4 (into)", lambda: np.maximum(p64, q64, out=o64), m),
        ("add int32 1e4 (into)", lambda: np.add(p32, q32, out=o32), m),
    ]
    # `benches/array_fns.rs`'s data: xorshift values in [0, 1e6) + 0.5.
    def xorshift(count, seed):
        mask = (1 << 64) - 1
        s = seed | 1
        out = np.empty(count)
        for k in range(count):
            s ^= (s << 13) & mask
            s ^= s >> 7
            s ^= (s << 17) & mask
            out[k] = (s % 1_000_000) + 0.5
        return out

    v = xorshift(n, 0x9E3779B97F4A7C15)
    small = np.floor(xorshift(1_000_000, 7) / 1000.0)
    p, q = xorshift(n // 2, 3), xorshift(n // 2, 5)
    cases += [
        ("argmax 1e7", lambda: np.argmax(v), n),
        ("sort 1e7 (np.sort, quicksort)", lambda: np.sort(v), n),
        ("sort 1e7 (np.sort, stable)", lambda: np.sort(v, kind="stable"), n),
        ("unique 1e6", lambda: np.unique(small), 1_000_000),
        ("concatenate 2 x 5e6", lambda: np.concatenate([p, q]), n),
    ]
    for name, f, count in cases:
        ms = median_ms(f)
        print(f"{name:32s} {ms:9.2f} ms {ms * 1e6 / count:6.2f} ns/element")


def ragged_fns_main():
    """The per-row cases of `benches/ragged_fns.rs` in Awkward Array and
    Polars' list namespace: the same row lengths and the same seeded
    values in [-1, 1) (a 64-bit xorshift, `(s >> 11) / 2^52 - 1`)."""
    in_venv()
    os.environ.setdefault("POLARS_MAX_THREADS", "1")  # one thread, as the Rust side's `_1t`
    import awkward as ak
    import numpy as np
    import polars as pl

    mask = (1 << 64) - 1

    def data(lens, seed):
        s = seed | 1
        out = np.empty(int(sum(lens)), dtype=np.float64)
        for k in range(len(out)):
            s ^= (s << 13) & mask
            s ^= s >> 7
            s ^= (s << 17) & mask
            out[k] = (s >> 11) / float(1 << 52) - 1.0
        return out

    lens = np.array(lengths(ROWS), dtype=np.int64)
    offsets = np.zeros(ROWS + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    total = int(offsets[-1])
    v = data(lens, 0x2545F4914F6CDD1D)
    w = data(lens, 0x9E3779B97F4A7C15)
    layout = lambda vals: ak.contents.ListOffsetArray(ak.index.Index64(offsets.copy()), ak.contents.NumpyArray(vals))
    x, y = ak.Array(layout(v)), ak.Array(layout(w))
    keep = x > 0
    best = ak.argmax(x, axis=1, keepdims=True)
    px = pl.Series("x", ak.to_list(x), dtype=pl.List(pl.Float64))
    py = pl.Series("y", ak.to_list(y), dtype=pl.List(pl.Float64))
    frame = pl.DataFrame([px, py])

    def pl_softmax():
        e = (pl.col("x").list.eval(pl.element() - pl.element().max())).list.eval(pl.element().exp())
        return frame.select(e.list.eval(pl.element() / pl.element().sum()))

    cases = [
        ("argmax per row (Awkward)", lambda: ak.argmax(x, axis=1)),
        ("argmax per row (Polars list.arg_max)", lambda: px.list.arg_max()),
        ("sort per row (Awkward)", lambda: ak.sort(x, axis=1)),
        ("sort per row (Polars list.sort)", lambda: px.list.sort()),
        ("softmax per row (Awkward)", lambda: ak.softmax(x, axis=1)),
        ("softmax per row (Polars list.eval)", pl_softmax),
        ("pad to 20, fill 0 (Awkward)", lambda: ak.fill_none(ak.pad_none(x, 20, clip=True), 0.0)),
        ("flatten (Awkward)", lambda: ak.flatten(x)),
        ("flatten (Polars explode)", lambda: px.explode()),
        ("filter x > 0 (Awkward)", lambda: x[keep]),
        ("filter x > 0 (Polars list.eval)", lambda: px.list.eval(pl.element().filter(pl.element() > 0))),
        ("concatenate rows (Awkward)", lambda: ak.concatenate([x, y], axis=1)),
        ("concatenate rows (Polars concat_list)", lambda: frame.select(pl.concat_list("x", "y"))),
        ("take argmax keepdims (Awkward)", lambda: x[best]),
    ]
    print(f"{ROWS} rows, {total} values; Awkward {ak.__version__}, Polars {pl.__version__}")
    for name, f in cases:
        ms = median_ms(f, repeat=7)
        print(f"{name:48s} {ms:9.2f} ms {ms * 1e6 / total:6.2f} ns/value")


def main():
    in_venv()
    os.environ.setdefault("POLARS_MAX_THREADS", "1")  # one thread, as the Rust side's `_1t`
    import awkward as ak
    import numexpr as ne
    import numpy as np
    import polars as pl

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
    # The same rows as a Polars list column (built from Arrow's offsets).
    import pyarrow as pa

    px = pl.Series("x", pa.LargeListArray.from_arrays(pa.array(offsets), pa.array(xv)))

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
        ("sum per row (Polars list.sum)", lambda: px.list.sum()),
        ("mean per row (Awkward)", lambda: ak.mean(x, axis=1)),
        ("mean per row (Polars list.mean)", lambda: px.list.mean()),
        ("std per row (Awkward)", lambda: ak.std(x, axis=1)),
        ("std per row (Polars list.std, ddof 0)", lambda: px.list.std(ddof=0)),
        ("max per row (Awkward)", lambda: ak.max(x, axis=1)),
        ("max per row (Polars list.max)", lambda: px.list.max()),
        ("sum across rows, axis 0 (Awkward)", lambda: ak.sum(x, axis=0)),
    ]
    print(
        f"{ROWS} rows, {total} values; NumPy {np.__version__}, Awkward {ak.__version__}, "
        f"numexpr {ne.__version__}, Polars {pl.__version__} (one thread)"
    )
    for name, f in cases:
        ms = median_ms(f)
        print(f"{name:48s} {ms:9.2f} ms {ms * 1e6 / total:6.2f} ns/value")


def math_values(n, lo, hi, k):
    """`benches/math.rs`'s arguments: a 64-bit xorshift seeded with
    0x9e3779b97f4a7c15 ^ k, `lo + (hi - lo) * (s >> 11) / 2^53`."""
    import numpy as np

    mask = (1 << 64) - 1
    s = 0x9E3779B97F4A7C15 ^ k
    out = np.empty(n)
    for i in range(n):
        s ^= (s << 13) & mask
        s ^= s >> 7
        s ^= (s << 17) & mask
        out[i] = lo + (hi - lo) * ((s >> 11) / float(1 << 53))
    return out


def math_main():
    """`sin`, `cos`, `exp`, `log`, `tanh` and `power` at 1e4 and 1e6
    (float64 and float32), and `sin(a)*exp(-b) + c` at 1e6, as
    `benches/math.rs` makes the data; NumPy (its own SIMD loops where it
    has them) and numexpr (1 and 2 threads)."""
    in_venv()
    import numexpr as ne
    import numpy as np

    print(f"NumPy {np.__version__}, numexpr {ne.__version__}")
    ranges = {"sin": (-10, 10), "cos": (-10, 10), "exp": (-20, 20), "log": (1e-3, 1e3), "tanh": (-5, 5)}
    for n in [10_000, 1_000_000]:
        repeat = 200 if n <= 10_000 else 30
        for name, (lo, hi) in ranges.items():
            x = math_values(n, lo, hi, 1)
            x32 = x.astype(np.float32)
            f = getattr(np, name)
            for label, arr in (("float64", x), ("float32", x32)):
                ms = median_ms(lambda: f(arr), repeat)
                print(f"n={n:<9} {name:5s} {label} (NumPy)                 {ms * 1e6 / n:6.2f} ns/element")
            for threads in (1, 2):
                ne.set_num_threads(threads)
                ms = median_ms(lambda: ne.evaluate(f"{name}(x)", local_dict={"x": x}), repeat)
                print(f"n={n:<9} {name:5s} float64 (numexpr, {threads} thread(s))   {ms * 1e6 / n:6.2f} ns/element")
        x, y = math_values(n, 1e-3, 1e3, 2), math_values(n, -10, 10, 3)
        ms = median_ms(lambda: np.power(x, y), repeat)
        print(f"n={n:<9} pow   float64 (NumPy)                 {ms * 1e6 / n:6.2f} ns/element")
    n = 1_000_000
    a, b, c = math_values(n, -10, 10, 4), math_values(n, -5, 5, 5), math_values(n, -1, 1, 6)
    ms = median_ms(lambda: np.sin(a) * np.exp(-b) + c, 30)
    print(f"n={n:<9} sin(a)*exp(-b) + c (NumPy)            {ms * 1e6 / n:6.2f} ns/element")
    for threads in (1, 2):
        ne.set_num_threads(threads)
        ms = median_ms(lambda: ne.evaluate("sin(a)*exp(-b) + c", local_dict={"a": a, "b": b, "c": c}), 30)
        print(f"n={n:<9} sin(a)*exp(-b) + c (numexpr, {threads} thread(s)) {ms * 1e6 / n:6.2f} ns/element")


def plain_main():
    """Contiguous `add` into an existing output at 1e3, 1e5 and 1e7 (as
    `benches/elwise.rs`'s `add_contiguous`), `sum` of 1e7 (as
    `benches/reduce.rs`'s `sum_1e7`), and `sum`/`max` of 1e5 (as its
    `in_cache`)."""
    in_venv()
    import numpy as np

    print(f"NumPy {np.__version__}")
    for n in (1_000, 100_000, 10_000_000):
        i = np.arange(n, dtype=np.float64)
        a, b, out = i, i * 2.0, np.zeros(n)
        repeat = 15 if n >= 10_000_000 else 2001
        ms = median_ms(lambda: np.add(a, b, out=out), repeat)
        print(f"add into, n={n:<9} {ms * 1e3:10.2f} us {ms * 1e6 / n:6.3f} ns/element")
    n = 10_000_000
    xs = (np.arange(n) % 1000).astype(np.float64) * 0.001
    ms = median_ms(lambda: xs.sum(), 31)
    print(f"sum, n={n:<9}      {ms * 1e3:10.2f} us {ms * 1e6 / n:6.3f} ns/element")
    # `reduce/{sum,max}_1e5` (in cache).
    m = 100_000
    im = np.arange(m, dtype=np.int64)
    fl, it = ((im * 7919) % 20011).astype(np.float64) * 0.37, (im * 7919) % 20011 - 10000
    for name, f in [("sum f64", fl.sum), ("sum i64", it.sum), ("max f64", fl.max), ("max i64", it.max)]:
        ms = median_ms(f, 2001)
        print(f"{name}, n={m:<9}   {ms * 1e3:10.2f} us {ms * 1e6 / m:6.3f} ns/element")


ALPHABET = (
    list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    + [",", " ", "é", "ß", "ü", "ñ", "日", "本", "語", "😀"]
)


def text_strings(n, vocab):
    """`benches/text.rs`'s strings: `n` drawn from `vocab` distinct ones of
    4 to 30 characters, from the same seeded xorshift."""
    mask = (1 << 64) - 1
    s = 0x9E3779B97F4A7C15

    def nxt():
        nonlocal s
        s ^= (s << 13) & mask
        s ^= s >> 7
        s ^= (s << 17) & mask
        return s

    words = []
    for _ in range(vocab):
        length = 4 + nxt() % 27
        words.append("".join(ALPHABET[nxt() % len(ALPHABET)] for _ in range(length)))
    return [words[nxt() % vocab] for _ in range(n)]


def text_main():
    in_venv()
    import numpy as np
    import polars as pl
    import pyarrow as pa
    import pyarrow.compute as pc

    n = 1_000_000
    v = text_strings(n, 100_000)
    needle = v[12_345]
    # NumPy 2's variable-width strings; pyarrow's `string` (offsets and
    # one buffer); Polars' `String` (Arrow's view layout).
    npa = np.array(v, dtype=np.dtypes.StringDType())
    pa_arr = pa.array(v, type=pa.string())
    pl_s = pl.Series(v, dtype=pl.String)
    pattern = r"[0-9][a-z]"
    cases = [
        ("equal", [
            ("NumPy", lambda: npa == needle),
            ("pyarrow", lambda: pc.equal(pa_arr, needle)),
            ("Polars", lambda: pl_s == needle),
        ]),
        ("contains", [
            ("NumPy", lambda: np.strings.find(npa, ",") >= 0),
            ("pyarrow", lambda: pc.match_substring(pa_arr, ",")),
            ("Polars", lambda: pl_s.str.contains(",", literal=True)),
        ]),
        ("upper", [
            ("NumPy", lambda: np.strings.upper(npa)),
            ("pyarrow", lambda: pc.utf8_upper(pa_arr)),
            ("Polars", lambda: pl_s.str.to_uppercase()),
        ]),
        ("str_len", [
            ("NumPy", lambda: np.strings.str_len(npa)),
            ("pyarrow", lambda: pc.utf8_length(pa_arr)),
            ("Polars", lambda: pl_s.str.len_chars()),
        ]),
        ("split", [
            ("pyarrow", lambda: pc.split_pattern(pa_arr, ",")),
            ("Polars", lambda: pl_s.str.split(",")),
        ]),
        ("regex_match", [
            ("pyarrow", lambda: pc.match_substring_regex(pa_arr, pattern)),
            ("Polars", lambda: pl_s.str.contains(pattern)),
        ]),
        ("sort", [
            ("NumPy", lambda: np.sort(npa)),
            ("pyarrow", lambda: pc.sort_indices(pa_arr)),
            ("Polars", lambda: pl_s.sort()),
        ]),
        ("unique", [
            ("NumPy", lambda: np.unique(npa)),
            ("pyarrow", lambda: pc.unique(pa_arr)),
            ("Polars", lambda: pl_s.unique()),
        ]),
    ]
    print(f"{n} strings; NumPy {np.__version__}, pyarrow {pa.__version__}, Polars {pl.__version__}")
    threads = pl.thread_pool_size()
    print(f"(Polars uses {threads} threads; pyarrow's compute functions one)")
    for case, peers in cases:
        for name, f in peers:
            ms = median_ms(f, repeat=7)
            print(f"{case:12s} {name:8s} {ms:9.2f} ms {ms * 1e6 / n:7.1f} ns/string")


def records_main():
    """`benches/records.rs`: the same sizes and distributions (values from
    NumPy's generator, not the benchmark's xorshift)."""
    in_venv()
    import numpy as np
    import polars as pl
    import pyarrow as pa
    import pyarrow.compute as pc

    rng = np.random.default_rng(7)
    n = 10_000_000
    cols = {chr(ord("a") + k): rng.random(n) for k in range(8)}
    table = pa.table(cols)
    st = pa.StructArray.from_arrays([table.column(c).combine_chunks() for c in cols], names=list(cols))
    pl_s = pl.Series("s", st)
    rec8 = np.zeros(n, dtype=[(c, "f8") for c in cols])
    for c, v in cols.items():
        rec8[c] = v
    x, y = rng.random(n), rng.random(n)
    pl_xy = pl.DataFrame({"p": pl.DataFrame({"x": x, "y": y}).to_struct()})
    np_xy = np.zeros(n, dtype=[("x", "f8"), ("y", "f8")])
    np_xy["x"], np_xy["y"] = x, y
    m = 1_000_000
    k = (rng.random(m) * 1000).astype(np.int64)
    v = rng.random(m)
    np_kv = np.zeros(m, dtype=[("k", "i8"), ("v", "f8")])
    np_kv["k"], np_kv["v"] = k, v
    pl_kv = pl.DataFrame({"k": k, "v": v})
    pa_kv = pa.table({"k": k, "v": v})
    q = np.zeros(n, dtype=[("x", "f8"), ("y", "f8")])
    q["x"], q["y"] = rng.random(n), rng.random(n)
    pl_pq = pl.DataFrame({"p": pl_xy["p"], "q": pl.DataFrame({"x": q["x"], "y": q["y"]}).to_struct()})
    cases = [
        ("sum_field", n, [
            ("Polars struct.field", lambda: pl_s.struct.field("a").sum()),
            ("pyarrow field", lambda: pc.sum(st.field("a"))),
            ("NumPy structured", lambda: rec8["a"].sum()),
        ]),
        ("px2_plus_py", n, [
            ("Polars", lambda: pl_xy.select(pl.col("p").struct.field("x") * 2 + pl.col("p").struct.field("y"))),
            ("NumPy structured", lambda: np_xy["x"] * 2 + np_xy["y"]),
        ]),
        ("sort_two_fields", m, [
            ("NumPy structured", lambda: np.sort(np_kv, order=["k", "v"])),
            ("Polars", lambda: pl_kv.sort(["k", "v"])),
            ("pyarrow", lambda: pa_kv.take(pc.sort_indices(pa_kv, sort_keys=[("k", "ascending"), ("v", "ascending")]))),
        ]),
        ("dist", n, [
            ("NumPy structured", lambda: np.sqrt((np_xy["x"] - q["x"]) ** 2 + (np_xy["y"] - q["y"]) ** 2)),
            ("Polars", lambda: pl_pq.select(((pl.col("p").struct.field("x") - pl.col("q").struct.field("x")) ** 2
                                              + (pl.col("p").struct.field("y") - pl.col("q").struct.field("y")) ** 2).sqrt())),
        ]),
    ]
    print(f"NumPy {np.__version__}, pyarrow {pa.__version__}, Polars {pl.__version__} "
          f"(Polars uses {pl.thread_pool_size()} threads)")
    for case, count, peers in cases:
        for name, f in peers:
            ms = median_ms(f, repeat=7)
            print(f"{case:16s} {name:20s} {ms:9.2f} ms {ms * 1e6 / count:7.2f} ns/element")


def time_main():
    """`benches/time.rs`: 1e7 nanosecond timestamps from 1970 to 2100 made
    from the benchmark's xorshift, the same row lengths for `max` per row."""
    in_venv()
    import numpy as np
    import polars as pl
    import pyarrow as pa
    import pyarrow.compute as pc

    n = 10_000_000
    mask = (1 << 64) - 1
    s = (0x9E3779B97F4A7C15 ^ ((1 * 0x2545F4914F6CDD1D) & mask)) & mask
    # The xorshift in NumPy (vectorised over blocks is not possible for a
    # sequential generator: drawn once, in Python, then cached).
    cache = os.path.join(VENV, "time_ticks.npy")
    if os.path.exists(cache):
        ticks = np.load(cache)
    else:
        out = np.empty(n, dtype=np.int64)
        span = 4_102_444_800.0 * 1e9
        for i in range(n):
            s ^= (s << 13) & mask
            s ^= s >> 7
            s ^= (s << 17) & mask
            out[i] = int((s >> 11) / float(1 << 53) * span)
        ticks = out
        np.save(cache, ticks)
    np_t = ticks.view("M8[ns]")
    pa_t = pa.array(np_t)
    pl_t = pl.Series("t", np_t)
    rows = lengths(n // 11)
    offsets = np.concatenate([[0], np.cumsum(rows)]).astype(np.int32)
    total = int(offsets[-1])
    pa_rows = pa.ListArray.from_arrays(pa.array(offsets), pa_t.slice(0, total))
    pl_rows = pl.Series("r", pa_rows)
    # Whole seconds (pyarrow's `%S` writes a finer unit's fraction).
    pa_text = pc.strftime(pa_t.cast(pa.timestamp("s"), safe=False), format="%Y-%m-%dT%H:%M:%S")
    pl_text = pl.Series("s", pa_text)
    cases = [
        ("copy int64", [("NumPy copy", lambda: ticks.copy())]),
        ("year", [("pyarrow", lambda: pc.year(pa_t)), ("Polars", lambda: pl_t.dt.year()),
                  ("NumPy", lambda: np_t.astype("M8[Y]").astype(np.int64) + 1970)]),
        ("month", [("pyarrow", lambda: pc.month(pa_t)), ("Polars", lambda: pl_t.dt.month()),
                   ("NumPy", lambda: np_t.astype("M8[M]").astype(np.int64) % 12 + 1)]),
        ("day", [("pyarrow", lambda: pc.day(pa_t)), ("Polars", lambda: pl_t.dt.day()),
                 ("NumPy", lambda: (np_t.astype("M8[D]") - np_t.astype("M8[M]")).astype(np.int64) + 1)]),
        ("hour", [("pyarrow", lambda: pc.hour(pa_t)), ("Polars", lambda: pl_t.dt.hour()),
                  ("NumPy", lambda: np_t.astype("M8[h]").astype(np.int64) % 24)]),
        ("day_of_week", [("pyarrow", lambda: pc.day_of_week(pa_t)), ("Polars", lambda: pl_t.dt.weekday()),
                         ("NumPy", lambda: (np_t.astype("M8[D]").astype(np.int64) + 3) % 7)]),
        ("floor day", [("pyarrow", lambda: pc.floor_temporal(pa_t, unit="day")),
                       ("Polars", lambda: pl_t.dt.truncate("1d")),
                       ("NumPy", lambda: np_t.astype("M8[D]").astype("M8[ns]"))]),
        ("strftime %Y-%m-%d", [("pyarrow", lambda: pc.strftime(pa_t, format="%Y-%m-%d")),
                               ("Polars", lambda: pl_t.dt.strftime("%Y-%m-%d")),
                               ("NumPy", lambda: np.datetime_as_string(np_t, unit="D"))]),
        ("strptime ISO", [("pyarrow", lambda: pc.strptime(pa_text, format="%Y-%m-%dT%H:%M:%S", unit="s")),
                          ("Polars", lambda: pl_text.str.strptime(pl.Datetime("us"), "%Y-%m-%dT%H:%M:%S"))]),
        # (pyarrow has no per-list max.)
        ("max per row", [("Polars", lambda: pl_rows.list.max())]),
    ]
    print(f"{n} timestamps; NumPy {np.__version__}, pyarrow {pa.__version__}, Polars {pl.__version__} "
          f"(Polars uses {pl.thread_pool_size()} threads; pyarrow's compute functions one)")
    for case, peers in cases:
        count = total if case == "max per row" else n
        for name, f in peers:
            ms = median_ms(f, repeat=5)
            print(f"{case:18s} {name:12s} {ms:9.2f} ms {ms * 1e6 / count:7.2f} ns/value")


def groups_main():
    """`benches/groups.rs`: 1e7 values `(i * 40503 % 65536) / 65536` by keys
    `((i * 2654435761 + 12345) mod 2^32) % K` (K = 1e3, 1e6), the 1e3 keys
    as strings `key0000`..`key0999` too."""
    in_venv()
    import numpy as np
    import polars as pl
    import pyarrow as pa
    import pyarrow.compute as pc

    n = 10_000_000
    i = np.arange(n, dtype=np.uint64)
    v = ((i * np.uint64(40503)) % np.uint64(65536)).astype(np.float64) / 65536.0
    h = (i * np.uint64(2654435761) + np.uint64(12345)) & np.uint64(0xFFFFFFFF)
    k3 = (h % np.uint64(1000)).astype(np.int64)
    k6 = (h % np.uint64(1_000_000)).astype(np.int64)
    names = np.array([f"key{j:04d}" for j in range(1000)], dtype=object)
    s3 = names[k3]
    df3 = pl.DataFrame({"v": v, "k": k3})
    df6 = pl.DataFrame({"v": v, "k": k6})
    dfs = pl.DataFrame({"v": v, "k": pl.Series(s3.tolist(), dtype=pl.String)})
    t3 = pa.table({"v": v, "k": k3})
    t6 = pa.table({"v": v, "k": k6})
    ts = pa.table({"v": v, "k": pa.array(s3.tolist(), type=pa.string())})
    cases = [
        ("sum by 1e3 int keys", [
            ("NumPy bincount", lambda: np.bincount(k3, weights=v)),
            ("pyarrow", lambda: t3.group_by("k").aggregate([("v", "sum")])),
            ("Polars", lambda: df3.group_by("k").agg(pl.col("v").sum())),
        ]),
        ("sum by 1e6 int keys", [
            ("NumPy bincount", lambda: np.bincount(k6, weights=v)),
            ("pyarrow", lambda: t6.group_by("k").aggregate([("v", "sum")])),
            ("Polars", lambda: df6.group_by("k").agg(pl.col("v").sum())),
        ]),
        ("sum by 1e3 string keys", [
            ("pyarrow", lambda: ts.group_by("k").aggregate([("v", "sum")])),
            ("Polars", lambda: dfs.group_by("k").agg(pl.col("v").sum())),
        ]),
        ("groups as lists, 1e3 int keys", [
            ("pyarrow", lambda: t3.group_by("k").aggregate([("v", "list")])),
            ("Polars", lambda: df3.group_by("k").agg(pl.col("v"))),
        ]),
        ("dictionary_encode, 1e3 string keys", [
            ("pyarrow", lambda: pc.dictionary_encode(ts["k"])),
            ("Polars", lambda: dfs["k"].cast(pl.Categorical)),
        ]),
        ("value_counts, 1e3 int keys", [
            ("pyarrow", lambda: pc.value_counts(t3["k"])),
            ("Polars", lambda: df3["k"].value_counts(sort=True)),
        ]),
        ("value_counts, 1e3 string keys", [
            ("pyarrow", lambda: pc.value_counts(ts["k"])),
            ("Polars", lambda: dfs["k"].value_counts(sort=True)),
        ]),
    ]
    print(f"{n} values; NumPy {np.__version__}, pyarrow {pa.__version__}, Polars {pl.__version__} "
          f"(Polars uses {pl.thread_pool_size()} threads: POLARS_MAX_THREADS=1 for one)")
    for case, peers in cases:
        for name, f in peers:
            # pyarrow's own thread pool: one thread, then two.
            for threads in ((1, 2) if name == "pyarrow" else (None,)):
                if threads:
                    pa.set_cpu_count(threads)
                ms = median_ms(f, repeat=5)
                label = f"{name} {threads}t" if threads else name
                print(f"{case:36s} {label:15s} {ms:9.2f} ms {ms * 1e6 / n:7.2f} ns/value")


def per_call_us(f, calls):
    """The median over 7 runs of `calls` calls of `f`, in µs per call."""
    f()
    times = []
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(calls):
            f()
        times.append((time.perf_counter() - t) * 1e6 / calls)
    times.sort()
    return times[3]


def python_main():
    """The Python package (`crates/dynd-python`) beside NumPy, Awkward,
    numexpr and Numba, all called from Python: the small-call overhead,
    NumPy's protocols, an exported Rust ufunc against `numba.vectorize`,
    per-row functions over ragged arrays, and `dynd.evaluate` against
    numexpr. The package and the example extension are built (release)
    and installed into the peers' environment first."""
    in_venv()
    subprocess.check_call([sys.executable, "-m", "pip", "install", "--quiet", "maturin>=1.9.4,<2", "numba"])
    env = dict(os.environ, PATH=os.path.join(VENV, "bin") + os.pathsep + os.environ.get("PATH", ""))
    subprocess.check_call(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-build-isolation", "--force-reinstall",
         "--no-deps", os.path.join(ROOT, "crates/dynd-python"),
         os.path.join(ROOT, "crates/dynd-python/examples/python-ufunc")],
        env=env,
    )
    os.environ.setdefault("POLARS_MAX_THREADS", "1")
    import awkward as ak
    import numba
    import numexpr as ne
    import numpy as np

    import dynd
    import dynd_ufunc_example as ex

    ne.set_num_threads(1)
    numba.set_num_threads(1)
    print(f"NumPy {np.__version__}, Awkward {ak.__version__}, numexpr {ne.__version__}, Numba {numba.__version__}")

    # The call itself: one element.
    a1, b1 = np.array([1.5]), np.array([2.5])
    d1, e1 = dynd.array(a1), dynd.array(b1)
    rows = [
        ("1-element add: np.add(numpy, numpy)", per_call_us(lambda: np.add(a1, b1), 200_000)),
        ("1-element add: dynd.add(dynd, dynd)", per_call_us(lambda: dynd.add(d1, e1), 200_000)),
        ("1-element add: dynd x + y", per_call_us(lambda: d1 + e1, 200_000)),
        ("1-element add: np.add(dynd, dynd) (__array_ufunc__)", per_call_us(lambda: np.add(d1, e1), 100_000)),
    ]
    n3 = np.linspace(0, 1, 1000)
    d3 = dynd.array(n3)
    rows += [
        ("1e3 add: np.add(numpy, numpy)", per_call_us(lambda: np.add(n3, n3[::-1]), 100_000)),
        ("1e3 add: np.add(dynd, dynd) (__array_ufunc__)", per_call_us(lambda: np.add(d3, d3), 50_000)),
    ]
    for name, us in rows:
        print(f"{name:60s} {us:10.3f} µs/call")

    # An exported Rust ufunc against the same function under numba.vectorize.
    @numba.vectorize(["float64(float64, float64)"], nopython=True)
    def rel_diff_numba(x, y):
        ax, ay = abs(x), abs(y)
        scale = ax if ax > ay else ay
        return 0.0 if scale == 0.0 else abs(x - y) / scale

    x6 = np.linspace(-3.0, 3.0, 1_000_000)
    y6 = np.cos(x6)
    assert np.allclose(ex.rel_diff(x6, y6), rel_diff_numba(x6, y6))
    for name, f in [
        ("rel_diff 1e6 float64: numba.vectorize", lambda: rel_diff_numba(x6, y6)),
        ("rel_diff 1e6 float64: dynd_python::ufunc! (NumPy ufunc)", lambda: ex.rel_diff(x6, y6)),
        ("rel_diff 1e6 float64: the ufunc on dynd arrays", lambda: ex.rel_diff(dynd.array(x6), dynd.array(y6))),
    ]:
        print(f"{name:60s} {median_ms(f, repeat=9):10.3f} ms")

    # Ragged rows: 1e6 rows (the benchmark's lengths), and 1,000 values.
    lens = np.array(lengths(ROWS), dtype=np.int64)
    small = int(np.searchsorted(np.cumsum(lens), 1000)) + 1  # rows holding about 1,000 values
    for label, count in [("1e6 rows", ROWS), ("1e3 values", small)]:
        ln = lens[:count]
        offsets = np.zeros(len(ln) + 1, dtype=np.int64)
        np.cumsum(ln, out=offsets[1:])
        total = int(offsets[-1])
        v = np.sin(np.arange(total, dtype=np.float64))
        w = np.cos(np.arange(total, dtype=np.float64))
        make = lambda vals: ak.Array(ak.contents.ListOffsetArray(ak.index.Index64(offsets.copy()), ak.contents.NumpyArray(vals)))
        x, y = make(v), make(w)
        dx, dy = dynd.array(x), dynd.array(y)
        assert np.allclose(np.asarray(dynd.sum(dx, axis=1)), ak.to_numpy(ak.sum(x, axis=1)))
        cases = [
            ("sum per row", lambda: ak.sum(x, axis=1), lambda: dynd.sum(dx, axis=1)),
            ("softmax per row", lambda: ak.softmax(x, axis=1), lambda: dynd.softmax(dx, axis=-1)),
            ("sort per row", lambda: ak.sort(x, axis=1), lambda: dynd.sort(dx, axis=-1)),
            ("x + y", lambda: x + y, lambda: dx + dy),
        ]
        for name, fa, fd in cases:
            if count == ROWS:
                ta, td = median_ms(fa, repeat=7), median_ms(fd, repeat=7)
                print(f"{label} ({total} values) {name:18s} Awkward {ta:9.2f} ms   dynd {td:9.2f} ms   {ta / td:5.1f}x")
            else:
                ta, td = per_call_us(fa, 300), per_call_us(fd, 3000)
                print(f"{label} ({total} values) {name:18s} Awkward {ta:9.1f} µs   dynd {td:9.2f} µs   {ta / td:5.1f}x")

    # Fused expressions against numexpr.
    for n in (1_000, 10_000_000):
        a, b, c, d, e = (values(n, k) for k in range(5))
        env5 = {"a": a, "b": b, "c": c, "d": d, "e": e}
        calls = 20_000 if n == 1_000 else 1
        if n == 1_000:
            tn = per_call_us(lambda: ne.evaluate("a*b+c*d-e", local_dict=env5), calls)
            td = per_call_us(lambda: dynd.evaluate("a*b+c*d-e", **env5), calls)
            print(f"a*b+c*d-e at {n}: numexpr {tn:9.2f} µs   dynd.evaluate {td:9.2f} µs   {tn / td:5.1f}x")
        else:
            tn = median_ms(lambda: ne.evaluate("a*b+c*d-e", local_dict=env5), repeat=7)
            td = median_ms(lambda: dynd.evaluate("a*b+c*d-e", **env5), repeat=7)
            print(f"a*b+c*d-e at {n}: numexpr {tn:9.2f} ms   dynd.evaluate {td:9.2f} ms   {tn / td:5.1f}x")


if __name__ == "__main__":
    if sys.argv[1:] == ["expr"]:
        expr_main()
    elif sys.argv[1:] == ["ufuncs"]:
        ufuncs_main()
    elif sys.argv[1:] == ["ragged_fns"]:
        ragged_fns_main()
    elif sys.argv[1:] == ["math"]:
        math_main()
    elif sys.argv[1:] == ["plain"]:
        plain_main()
    elif sys.argv[1:] == ["text"]:
        text_main()
    elif sys.argv[1:] == ["records"]:
        records_main()
    elif sys.argv[1:] == ["time"]:
        time_main()
    elif sys.argv[1:] == ["groups"]:
        groups_main()
    elif sys.argv[1:] == ["python"]:
        python_main()
    else:
        main()
