//! Every operation of the operation table runs on every path — a
//! contiguous call, short and long, a strided one, ragged rows (equal
//! rows, and a value per row broadcast along it), and fused programs
//! (paired with `add` on either side) — and gives the bits of its scalar
//! `apply`. CI runs this module again under `DYND_SIMD=avx2` and
//! `DYND_SIMD=portable`, so each instruction set's loops are checked too.

use dynd::func::raw::{F64Op, IntOp};
use dynd::func::{flatten, Callable, Eval, Leaf, Overload};
use dynd::nd::{Array, Index};
use dynd::ndt::Scalar;

/// Special values first, then a spread of ordinary ones.
fn floats(n: usize) -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -2.5,
        4503599627370495.5,
        1e300,
        -1e-310,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    let mut s = 0x2545f4914f6cdd1du64;
    while v.len() < n {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v.push((s % 20001) as f64 / 100.0 - 100.0);
    }
    v.truncate(n);
    v
}

fn bits(a: &Array) -> Vec<u64> {
    let flat = flatten(a, None).unwrap_or_else(|e| panic!("{e}"));
    flat.to_vec::<f64>()
        .unwrap_or_else(|e| panic!("{e}"))
        .iter()
        .map(|x| x.to_bits())
        .collect()
}

fn nested<V: dynd::nd::Nested>(rows: V) -> Array {
    Array::from_nested(rows).unwrap_or_else(|e| panic!("{e}"))
}

fn callable(leaf: Leaf) -> Callable {
    Callable::new("op", vec![Overload::new(leaf)]).unwrap_or_else(|e| panic!("{e}"))
}

/// The arguments of a call of `op`'s arity.
fn args<'a>(arity: usize, x: &'a Array, y: &'a Array) -> Vec<&'a Array> {
    if arity == 2 {
        vec![x, y]
    } else {
        vec![x]
    }
}

/// Rows of lengths 0, 1, … 6 over `v`.
fn rows<T: Copy>(v: &[T]) -> Vec<Vec<T>> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut len = 0;
    while at < v.len() {
        let end = (at + len).min(v.len());
        out.push(v[at..end].to_vec());
        at = end;
        len = (len + 1) % 7;
    }
    out
}

#[test]
fn every_float_op_on_every_path_gives_the_bits_of_apply() {
    let n = 700;
    let (xs, ys) = (floats(n), floats(n + 5)[5..].to_vec());
    let want = |op: F64Op, xs: &[f64], ys: &[f64]| -> Vec<u64> {
        xs.iter()
            .zip(ys)
            .map(|(&x, &y)| op.apply(x, y).to_bits())
            .collect()
    };
    let add = callable(Leaf::f64_op(F64Op::Add));
    for &op in F64Op::ALL {
        let f = callable(Leaf::f64_op(op));
        let a = op.arity();
        let (x, y) = (Array::from_vec(xs.clone()), Array::from_vec(ys.clone()));
        // Contiguous, long and short.
        let r = f
            .call(&args(a, &x, &y))
            .unwrap_or_else(|e| panic!("{op:?}: {e}"));
        assert_eq!(bits(&r), want(op, &xs, &ys), "{op:?} contiguous");
        let (x3, y3) = (
            Array::from_vec(xs[..3].to_vec()),
            Array::from_vec(ys[..3].to_vec()),
        );
        let r = f.call(&args(a, &x3, &y3)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bits(&r), want(op, &xs[..3], &ys[..3]), "{op:?} short");
        // Strided: every other element of arrays twice as long.
        let spread = |v: &[f64]| -> Array {
            let doubled: Vec<f64> = v.iter().flat_map(|&x| [x, 7.0]).collect();
            let every_other = [Index::slice(None, None, 2)];
            Array::from_vec(doubled)
                .index(&every_other)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        let (xs2, ys2) = (spread(&xs), spread(&ys));
        let r = f
            .call(&args(a, &xs2, &ys2))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bits(&r), want(op, &xs, &ys), "{op:?} strided");
        // Ragged rows, equal on both sides.
        let (xr, yr) = (nested(rows(&xs)), nested(rows(&ys)));
        assert!(xr.ty().to_string().contains("var"), "{}", xr.ty());
        let r = f.call(&args(a, &xr, &yr)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bits(&r), want(op, &xs, &ys), "{op:?} ragged");
        // Ragged rows and one value per row, either side.
        if a == 2 {
            let row_rows = rows(&xs);
            let per_row: Vec<Vec<f64>> = (0..row_rows.len()).map(|i| vec![ys[i]]).collect();
            let spread_y: Vec<f64> = row_rows
                .iter()
                .enumerate()
                .flat_map(|(i, r)| std::iter::repeat_n(ys[i], r.len()))
                .collect();
            let per_row = nested(per_row);
            let r = f.call(&[&xr, &per_row]).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                bits(&r),
                want(op, &xs, &spread_y),
                "{op:?} value per row, second"
            );
            let r = f.call(&[&per_row, &xr]).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                bits(&r),
                want(op, &spread_y, &xs),
                "{op:?} value per row, first"
            );
        }
        // Fused: the operation inside and outside an `add`.
        let z = Array::from_vec(floats(n + 9)[9..].to_vec());
        let zs = floats(n + 9)[9..].to_vec();
        let inner = f.expr(args(a, &x, &y));
        let e = add.expr(vec![inner, (&z).into()]);
        let r = e
            .eval_fused()
            .unwrap_or_else(|| panic!("{op:?} inside add: not fused"));
        let want_in: Vec<u64> = (0..n)
            .map(|i| (op.apply(xs[i], ys[i]) + zs[i]).to_bits())
            .collect();
        assert_eq!(bits(&r), want_in, "{op:?} fused inside add");
        let sum = add.expr([&x, &y]);
        let e = match a {
            2 => f.expr(vec![(&z).into(), sum]),
            _ => f.expr(vec![sum]),
        };
        let r = e
            .eval_fused()
            .unwrap_or_else(|| panic!("{op:?} around add: not fused"));
        let want_out: Vec<u64> = (0..n)
            .map(|i| match a {
                2 => op.apply(zs[i], xs[i] + ys[i]),
                _ => op.apply(xs[i] + ys[i], 0.0),
            })
            .map(f64::to_bits)
            .collect();
        assert_eq!(bits(&r), want_out, "{op:?} fused around add");
    }
}

#[test]
fn every_int_op_on_every_path_gives_apply() {
    let xs: Vec<i32> = floats(600)
        .iter()
        .map(|&v| {
            if v.is_finite() {
                (v * 1e7) as i32
            } else {
                i32::MIN
            }
        })
        .chain([i32::MAX, -1, 0, 31, 32, -33])
        .collect();
    let ys: Vec<i32> = xs.iter().rev().map(|&v| v % 40).collect();
    for &op in IntOp::ALL {
        let leaf = Leaf::int_op(op, Scalar::Int32).unwrap_or_else(|| panic!("{op:?}"));
        let f = callable(leaf);
        let a = op.arity();
        let want: Vec<i32> = xs.iter().zip(&ys).map(|(&x, &y)| op.apply(x, y)).collect();
        let (x, y) = (Array::from_vec(xs.clone()), Array::from_vec(ys.clone()));
        let r = f.call(&args(a, &x, &y)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            r.to_vec::<i32>().ok(),
            Some(want.clone()),
            "{op:?} contiguous"
        );
        let every_other = [Index::slice(None, None, 2)];
        let spread = |v: &[i32]| {
            let doubled: Vec<i32> = v.iter().flat_map(|&x| [x, 7]).collect();
            Array::from_vec(doubled)
                .index(&every_other)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        let r = f
            .call(&args(a, &spread(&xs), &spread(&ys)))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.to_vec::<i32>().ok(), Some(want.clone()), "{op:?} strided");
        let (xr, yr) = (nested(rows(&xs)), nested(rows(&ys)));
        let r = f.call(&args(a, &xr, &yr)).unwrap_or_else(|e| panic!("{e}"));
        let flat = flatten(&r, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            flat.to_vec::<i32>().ok(),
            Some(want.clone()),
            "{op:?} ragged"
        );
        // Unsigned and narrow: the sign-blind operations share the
        // unsigned loops, the others have their own.
        let bytes: Vec<u8> = xs.iter().map(|&v| v as u8).collect();
        let by: Vec<u8> = ys.iter().map(|&v| v as u8).collect();
        let leaf = Leaf::int_op(op, Scalar::Int8).unwrap_or_else(|| panic!("{op:?}"));
        let signed: Vec<i8> = bytes.iter().map(|&v| v as i8).collect();
        let sy: Vec<i8> = by.iter().map(|&v| v as i8).collect();
        let want8: Vec<i8> = signed
            .iter()
            .zip(&sy)
            .map(|(&x, &y)| op.apply(x, y))
            .collect();
        let (x8, y8) = (Array::from_vec(signed), Array::from_vec(sy));
        let r = callable(leaf)
            .call(&args(a, &x8, &y8))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.to_vec::<i8>().ok(), Some(want8), "{op:?} int8");
    }
}

#[test]
fn reductions_fold_with_the_table_bodies() {
    // `maximum` and `minimum` reduce as the table's NaN-propagating bodies.
    let v = Array::from_vec(vec![1.0, f64::NAN, 3.0]);
    let reduce = |c: &Callable, a: &Array| {
        let r = c.reduce().and_then(|r| r.call(&[a]));
        r.unwrap_or_else(|e| panic!("{e}"))
    };
    let max = reduce(dynd::func::builtins::MAXIMUM.callable(), &v);
    assert!(max.to_vec::<f64>().is_ok_and(|m| m[0].is_nan()));
    let ints = Array::from_vec(vec![i8::MAX, 1]);
    let sum = reduce(dynd::func::builtins::ADD.callable(), &ints);
    assert_eq!(
        sum.to_vec::<i8>().ok(),
        Some(vec![IntOp::Add.apply(i8::MAX, 1)])
    );
}

#[test]
fn fmax_and_fmin_run_on_the_table_paths() {
    use dynd::func::builtins::{FMAX, FMIN, MULTIPLY};
    let x = Array::from_vec(vec![1.0, f64::NAN, f64::NAN, -3.0]);
    let y = Array::from_vec(vec![f64::NAN, 2.0, f64::NAN, -4.0]);
    let r = FMAX.call(&[&x, &y]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.to_string(), "[1, 2, NaN, -3]");
    let r = FMIN.call(&[&x, &y]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.to_string(), "[1, 2, NaN, -4]");
    // The builtin's float64 leaf is the table's, so expressions over it fuse.
    let two = Array::from_vec(vec![2.0; 4]);
    let e = MULTIPLY.expr(vec![FMAX.expr([&x, &y]), (&two).into()]);
    let r = e
        .eval_fused()
        .unwrap_or_else(|| panic!("fmax * 2 is not fused"));
    assert_eq!(r.to_string(), "[2, 4, NaN, -6]");
    let ints = Array::from_vec(vec![3i16, -7]);
    let r = FMIN.call(&[&ints, &Array::from_vec(vec![1i16, 9])]);
    assert_eq!(r.map(|r| r.to_string()).ok().as_deref(), Some("[1, -7]"));
}

#[test]
fn maximum_minimum_fmax_fmin_give_x_on_a_tie_on_every_path() {
    use dynd::func::builtins::{FMAX, FMIN, MAXIMUM, MINIMUM};
    // Zeros of both signs against each other, at every position of the
    // vector loops and their scalar tails (lengths 1 to 67), as NumPy's
    // loops give them: `x` where `x == y`.
    for n in 1..68 {
        let xs: Vec<f64> = (0..n)
            .map(|i| if i % 3 == 0 { -0.0 } else { 0.0 })
            .collect();
        let ys: Vec<f64> = xs.iter().map(|x| -x).collect();
        let (x, y) = (Array::from_vec(xs), Array::from_vec(ys));
        for f in [&MAXIMUM, &MINIMUM, &FMAX, &FMIN] {
            // In both orders: the first argument's zero each time.
            for (first, second) in [(&x, &y), (&y, &x)] {
                let r = f.call(&[first, second]).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(bits(&r), bits(first), "{} of {n}", f.name());
            }
        }
    }
    // float32 as well.
    let xs = [0.0f32, -0.0, 0.0, -0.0, 0.0, -0.0, 0.0, -0.0, -0.0];
    let (x, y) = (
        Array::from_vec(xs.to_vec()),
        Array::from_vec(xs.map(|v| -v).to_vec()),
    );
    let bits32 = |a: &Array| -> Vec<u32> {
        let v = a.to_vec::<f32>().unwrap_or_else(|e| panic!("{e}"));
        v.iter().map(|v| v.to_bits()).collect()
    };
    let r = MAXIMUM.call(&[&x, &y]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(bits32(&r), bits32(&x));
}
