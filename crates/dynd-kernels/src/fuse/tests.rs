use super::*;
use crate::elwise::{apply, Leaf};
use crate::op::F64Op;

/// A program of plain `float64` operation steps (a unary one reading its
/// first argument) run by [`Dense`], which takes the compiled-in loop for
/// them; `Ok(None)` where it does not take the program or the leaves.
fn eval_dense_f64(
    steps: &[(F64Op, [F64Arg; 2])],
    leaves: &[&Array],
    ty: &Type,
) -> Result<Option<Array>, Error> {
    let ls: Vec<Leaf> = steps.iter().map(|(op, _)| Leaf::f64_op(*op)).collect();
    let args: Vec<(&Leaf, &[F64Arg])> = steps
        .iter()
        .zip(&ls)
        .map(|((op, a), l)| (l, &a[..op.arity()]))
        .collect();
    let types: Vec<Type> = leaves.iter().map(|a| a.dtype().clone()).collect();
    match Dense::new(&args, &types, ty) {
        Some(d) => {
            assert!(format!("{d:?}").contains("float64 operations"), "{d:?}");
            d.eval(leaves)
        }
        None => Ok(None),
    }
}

fn f64s(n: usize) -> Array {
    Array::from_vec((0..n).map(|i| i as f64 * 0.5 - 7.0).collect::<Vec<f64>>())
}

#[test]
fn shared_steps_and_leaves_are_one() {
    let a = f64s(10);
    let mul = Leaf::map(|x: f64, y: f64| x * y);
    let mut p = Program::new();
    let (x, y) = (p.leaf(&a), p.leaf(&a.clone()));
    assert_eq!(x, y, "a clone is the same view of the same memory");
    let s1 = p.call(&mul, &[x, x]).unwrap();
    let s2 = p.call(&mul.clone(), &[x, x]).unwrap();
    assert_eq!(s1, s2);
    // Another function with the same types is another step.
    let other = Leaf::map(|x: f64, y: f64| x * y);
    assert_ne!(p.call(&other, &[x, x]).unwrap(), s1);
    assert_eq!(p.steps(), 2);
}

#[test]
fn a_long_chain_reuses_its_buffers() {
    let a = f64s(3 * BLOCK + 17);
    let add1 = Leaf::map(|x: f64| x + 1.0);
    let mut p = Program::new();
    let mut s = p.leaf(&a);
    for _ in 0..20 {
        s = p.call(&add1, &[s]).unwrap();
    }
    let Slot(Ref::Step(root)) = s else {
        unreachable!()
    };
    let mut b = KernelBuilder::new();
    let fused = p.fused(&mut b, root).unwrap();
    assert_eq!(fused.nbuf, 2, "each step needs only its argument's buffer");
    let r = p.eval(s, a.ty()).unwrap().unwrap();
    let want: Vec<f64> = a
        .to_vec::<f64>()
        .unwrap()
        .iter()
        .map(|x| x + 20.0)
        .collect();
    assert_eq!(r.to_vec::<f64>().unwrap(), want);
}

#[test]
fn a_step_error_has_the_results_index() {
    // A failure in the third block of the second row.
    let n = 3 * BLOCK;
    let mut v = vec![1.0f64; 2 * n];
    v[n + 2 * BLOCK + 5] = -1.0;
    let a = Array::from_shape_vec(&[2, n], v).unwrap();
    let sqrt = Leaf::map(|x: f64| {
        if x >= 0.0 {
            Ok(x.sqrt())
        } else {
            Err(format!("sqrt of {x}"))
        }
    });
    let mut p = Program::new();
    let x = p.leaf(&a);
    let s = p.call(&sqrt, &[x]).unwrap();
    let e = p.eval(s, a.ty()).unwrap_err();
    let plain = apply(&[&a], &sqrt).unwrap_err();
    assert_eq!(e.to_string(), plain.to_string());
    assert!(
        e.to_string().ends_with(&format!("[1, {}]", 2 * BLOCK + 5)),
        "{e}"
    );
}

#[test]
fn misuse_is_an_error() {
    let a = f64s(4);
    let neg = Leaf::map(|x: f64| -x);
    let mut p = Program::new();
    let x = p.leaf(&a);
    let s = p.call(&neg, &[x]).unwrap();
    // A slot of another program.
    let mut q = Program::new();
    assert!(q.call(&neg, &[s]).is_err());
    // Arguments of other types.
    let i = p.leaf(&Array::from_vec(vec![1i32]));
    assert!(p.call(&neg, &[i]).is_err());
    // A result type of another data type.
    assert!(p.eval(s, &"4 * float32".parse().unwrap()).is_err());
    // Text does not convert in a fused pass.
    assert!(p
        .cast(x, &"string".parse().unwrap(), ErrorMode::Fractional)
        .is_err());
    // A leaf alone is not a program to run.
    assert!(p.eval(x, a.ty()).unwrap().is_none());
}

#[test]
fn ragged_rows_fuse_and_share_structure() {
    let t: Type = "3 * var * float64".parse().unwrap();
    let x = Array::from_json("[[1, 2], [], [3, 4, 5]]", Some(&t)).unwrap();
    let y = Array::from_json("[[10, 20], [], [30, 40, 50]]", Some(&t)).unwrap();
    let m = Array::from_json("[[100.5], [200], [300]]", None).unwrap();
    let add = Leaf::map(|a: f64, b: f64| a + b);
    let mut p = Program::new();
    let (lx, ly, lm) = (p.leaf(&x), p.leaf(&y), p.leaf(&m));
    let s = p.call(&add, &[lx, ly]).unwrap();
    let s = p.call(&add, &[s, lm]).unwrap();
    let r = p.eval(s, &t).unwrap().expect("equal rows fuse");
    assert_eq!(r.to_string(), "[[111.5, 122.5], [], [333, 344, 355]]");
    assert!(
        Arc::ptr_eq(r.data_block(), x.data_block()),
        "x's rows are shared"
    );
    // Rows of other lengths are not taken here.
    let z = Array::from_json("[[1], [], [3, 4, 5]]", Some(&t)).unwrap();
    let mut p = Program::new();
    let (lx, lz) = (p.leaf(&x), p.leaf(&z));
    let s = p.call(&add, &[lx, lz]).unwrap();
    assert!(p.eval(s, &t).unwrap().is_none());
}

#[test]
fn eval_into_broadcasts_into_a_larger_out() {
    let a = f64s(3);
    let neg = Leaf::map(|x: f64| -x);
    let mut p = Program::new();
    let x = p.leaf(&a);
    let s = p.call(&neg, &[x]).unwrap();
    let mut out = Array::zeros(&"2 * 3 * float64".parse().unwrap()).unwrap();
    assert!(p.eval_into(s, &mut out).unwrap());
    assert_eq!(out.to_string(), "[[7, 6.5, 6], [7, 6.5, 6]]");
    let mut small = Array::zeros(&"2 * float64".parse().unwrap()).unwrap();
    assert!(
        !p.eval_into(s, &mut small).unwrap(),
        "3 does not broadcast to 2"
    );
}

/// `((a * b) + c / d - e) * sqrt(|a|)` and `-a`, evaluated with marked
/// float64 leaves (one loop over chunks) and with the same functions
/// unmarked (a kernel per step per block): the same bits, over dense,
/// reversed, strided and broadcast leaves, a transposed result and lengths
/// around the chunk size.
#[test]
fn float64_loop_matches_the_kernels() {
    use crate::elwise::F64Op;
    use crate::Index;
    let plain = |op: F64Op| match op.arity() {
        2 => Leaf::map(move |x: f64, y: f64| op.apply(x, y)),
        _ => Leaf::map(move |x: f64| op.apply(x, 0.0)),
    };
    let build = |leaves: &[Array], marked: bool| -> (Program, Slot, usize) {
        let leaf = |op| if marked { Leaf::f64_op(op) } else { plain(op) };
        let mut p = Program::new();
        let l: Vec<Slot> = leaves.iter().map(|a| p.leaf(a)).collect();
        let ab = p.call(&leaf(F64Op::Mul), &[l[0], l[1]]).unwrap();
        let cd = p.call(&leaf(F64Op::Div), &[l[2], l[3]]).unwrap();
        let s = p.call(&leaf(F64Op::Add), &[ab, cd]).unwrap();
        let s = p.call(&leaf(F64Op::Sub), &[s, l[4]]).unwrap();
        let abs = p.call(&leaf(F64Op::Abs), &[l[0]]).unwrap();
        let root = p.call(&leaf(F64Op::Sqrt), &[abs]).unwrap();
        let root = p.call(&leaf(F64Op::Mul), &[s, root]).unwrap();
        let neg = p.call(&leaf(F64Op::Neg), &[root]).unwrap();
        let Slot(Ref::Step(j)) = neg else {
            unreachable!("a step")
        };
        (p, neg, j)
    };
    for n in [1, 63, 64, 65, 1000, 3 * BLOCK + 5] {
        let v = |k: usize| -> Array {
            Array::from_vec(
                (0..2 * n)
                    .map(|i| ((i * 7919 + k * 104729) % 1000) as f64 / 37.0 - 13.0)
                    .collect::<Vec<f64>>(),
            )
        };
        let dense = v(0)
            .index(&[Index::slice(None, Some(n as i64), 1)])
            .unwrap();
        let reversed = v(1).index(&[Index::slice(None, None, -2)]).unwrap();
        let strided = v(2).index(&[Index::slice(Some(1), None, 2)]).unwrap();
        let scalar = Array::from_scalar(2.5f64);
        let leaves = [
            dense,
            reversed,
            strided,
            scalar,
            v(3).index(&[Index::slice(None, Some(n as i64), 1)])
                .unwrap(),
        ];
        let ty: Type = format!("{n} * float64").parse().unwrap();
        let (pm, rm, jm) = build(&leaves, true);
        let (pu, ru, _) = build(&leaves, false);
        let mut b = KernelBuilder::new();
        assert!(
            pm.fused(&mut b, jm).unwrap().vm.is_some(),
            "marked steps run as one loop"
        );
        let (x, y) = (
            pm.eval(rm, &ty).unwrap().unwrap(),
            pu.eval(ru, &ty).unwrap().unwrap(),
        );
        let bits = |a: &Array| {
            a.to_vec::<f64>()
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&x), bits(&y), "n = {n}");
        // Into a strided (every other element) result.
        let out = Array::zeros(&format!("{} * float64", 2 * n).parse().unwrap()).unwrap();
        let mut view = out.index(&[Index::slice(None, None, 2)]).unwrap();
        assert!(pm.eval_into(rm, &mut view).unwrap());
        assert_eq!(bits(&view), bits(&y), "strided result, n = {n}");
    }
    // A 2-d result in Fortran order of a C-order leaf: the runs are
    // transposed (tiles), the loop still applies.
    let m =
        Array::from_shape_vec(&[37, 41], (0..37 * 41).map(|i| i as f64 * 0.25).collect()).unwrap();
    let t = m.transpose().unwrap();
    let ones = Array::from_scalar(1.0f64);
    let leaves = [t.clone(), t.clone(), ones.clone(), ones, t];
    let ty: Type = "41 * 37 * float64".parse().unwrap();
    let (pm, rm, _) = build(&leaves, true);
    let (pu, ru, _) = build(&leaves, false);
    let (x, y) = (
        pm.eval(rm, &ty).unwrap().unwrap(),
        pu.eval(ru, &ty).unwrap().unwrap(),
    );
    assert_eq!(x.to_string(), y.to_string());
}

#[test]
fn float64_sums_fold_the_values_the_kernels_make() {
    use crate::elwise::F64Op;
    use crate::Index;
    let sum = |marked: bool, leaves: &[Array], ty: &Type| -> f64 {
        let (mul, sub) = if marked {
            (Leaf::f64_op(F64Op::Mul), Leaf::f64_op(F64Op::Sub))
        } else {
            (
                Leaf::map(|x: f64, y: f64| x * y),
                Leaf::map(|x: f64, y: f64| x - y),
            )
        };
        let mut p = Program::new();
        let l: Vec<Slot> = leaves.iter().map(|a| p.leaf(a)).collect();
        let ab = p.call(&mul, &[l[0], l[1]]).unwrap();
        let root = match l.get(2) {
            Some(&c) => p.call(&sub, &[ab, c]).unwrap(),
            None => ab,
        };
        let Slot(Ref::Step(j)) = root else {
            unreachable!("a step")
        };
        let mut b = KernelBuilder::new();
        assert_eq!(p.fused(&mut b, j).unwrap().vm.is_some(), marked);
        p.sum_f64(root, ty).unwrap().expect("one run")
    };
    for shape in [
        vec![1usize],
        vec![15],
        vec![16],
        vec![257],
        vec![3 * BLOCK + 5],
        vec![40, 7],
        vec![6, 300],
        vec![2, 301],
    ] {
        let n: usize = shape.iter().product();
        let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        let ty: Type = format!("{} * float64", dims.join(" * ")).parse().unwrap();
        // Even and odd elements of leaf 0 near +1e8 and -1e8: each lane's
        // sum is large and the total small, so a value folded in another
        // lane or order shows in the result's bits.
        let v = |k: usize, rev: bool| -> Array {
            let a = Array::from_vec(
                (0..n)
                    .map(|i| {
                        let noise = ((i + 7 * k) as f64 * 0.754_877_666_2).fract();
                        match k {
                            0 if i % 2 == 0 => 1e8 + noise,
                            0 => -1e8 + noise,
                            _ => 1.5 + noise,
                        }
                    })
                    .collect::<Vec<f64>>(),
            );
            let a = if rev {
                a.index(&[Index::slice(None, None, -1)]).unwrap()
            } else {
                a
            };
            a.reshape(shape.clone()).unwrap()
        };
        for leaves in [
            vec![v(0, false), v(1, false)],
            vec![v(0, false), v(1, false), Array::from_scalar(0.25f64)],
            vec![v(2, true), v(0, false), v(4, false)],
        ] {
            assert_eq!(
                sum(true, &leaves, &ty).to_bits(),
                sum(false, &leaves, &ty).to_bits(),
                "{shape:?}, {} leaves",
                leaves.len()
            );
        }
    }
}

#[test]
fn dense_float64_programs_run_without_kernels() {
    use crate::elwise::F64Op;
    use crate::Index;
    let ty: Type = "3 * 150 * float64".parse().unwrap();
    let v = |k: f64| {
        Array::from_shape_vec(
            &[3, 150],
            (0..450)
                .map(|i| (i as f64 * 0.37 + k).sin() * 9.0)
                .collect(),
        )
        .unwrap()
    };
    let (a, b, s) = (v(0.0), v(1.0), Array::from_scalar(0.5f64));
    // (a * b - s) / a, then its negation; a unary step reads its first
    // argument.
    let steps = [
        (F64Op::Mul, [F64Arg::Leaf(0), F64Arg::Leaf(1)]),
        (F64Op::Sub, [F64Arg::Step(0), F64Arg::Leaf(2)]),
        (F64Op::Div, [F64Arg::Step(1), F64Arg::Leaf(0)]),
        (F64Op::Neg, [F64Arg::Step(2), F64Arg::Step(2)]),
    ];
    let r = eval_dense_f64(&steps, &[&a, &b, &s], &ty).unwrap().unwrap();
    let (x, y) = (a.to_vec::<f64>().unwrap(), b.to_vec::<f64>().unwrap());
    let want: Vec<u64> = x
        .iter()
        .zip(&y)
        .map(|(x, y)| (-((x * y - 0.5) / x)).to_bits())
        .collect();
    let got: Vec<u64> = r
        .to_vec::<f64>()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(got, want);
    assert_eq!(r.ty(), &ty);
    // Layouts it does not take, and malformed programs: `None`.
    let t = a.index(&[Index::slice(None, None, -1)]).unwrap();
    let other: Type = "450 * float64".parse().unwrap();
    assert!(eval_dense_f64(&steps, &[&t, &b, &s], &ty)
        .unwrap()
        .is_none());
    assert!(eval_dense_f64(&steps, &[&a, &b, &s], &other)
        .unwrap()
        .is_none());
    let ahead = [(F64Op::Add, [F64Arg::Step(1), F64Arg::Leaf(0)])];
    assert!(eval_dense_f64(&ahead, &[&a], &ty).unwrap().is_none());
    assert!(eval_dense_f64(&[], &[&a], &ty).unwrap().is_none());
    let missing = [(F64Op::Add, [F64Arg::Leaf(3), F64Arg::Leaf(0)])];
    assert!(eval_dense_f64(&missing, &[&a], &ty).unwrap().is_none());
}

/// Every pair of `+ - * /` steps the float64 loop folds into one pass
/// (the inner value as the outer step's first operand and as its second,
/// over leaves, registers and a broadcast scalar, which falls back to two
/// passes) gives the bits of the two operations one after the other.
#[test]
fn folded_pairs_give_the_bits_of_their_two_steps() {
    use crate::elwise::F64Op;
    let n = 333; // no multiple of a chunk or a vector
    let ty: Type = format!("{n} * float64").parse().unwrap();
    let v = |k: f64| -> Vec<f64> {
        (0..n)
            .map(|i| ((i as f64 + k) * 0.618_033_988_7).fract() * 7.0 - 3.0 + k)
            .collect()
    };
    let (xa, xb, xc) = (v(0.25), v(1.5), v(-2.0));
    let (a, b, c) = (
        Array::from_vec(xa.clone()),
        Array::from_vec(xb.clone()),
        Array::from_vec(xc.clone()),
    );
    let s = Array::from_scalar(0.75f64);
    let ops = [
        F64Op::Add,
        F64Op::Sub,
        F64Op::Mul,
        F64Op::Div,
        F64Op::Maximum,
        F64Op::Minimum,
    ];
    for inner in ops {
        for outer in ops {
            // `other` is leaf 2 (an array, or the scalar), or the value of
            // a first step `c * b` (a register).
            for other in ["leaf", "scalar", "register"] {
                for first in [true, false] {
                    let mut steps: Vec<(F64Op, [F64Arg; 2])> = Vec::new();
                    let z = if other == "register" {
                        steps.push((F64Op::Mul, [F64Arg::Leaf(2), F64Arg::Leaf(1)]));
                        F64Arg::Step(0)
                    } else {
                        F64Arg::Leaf(2)
                    };
                    let j = steps.len();
                    steps.push((inner, [F64Arg::Leaf(0), F64Arg::Leaf(1)]));
                    let args = if first {
                        [F64Arg::Step(j), z]
                    } else {
                        [z, F64Arg::Step(j)]
                    };
                    steps.push((outer, args));
                    let third = if other == "scalar" { &s } else { &c };
                    let r = eval_dense_f64(&steps, &[&a, &b, third], &ty)
                        .unwrap()
                        .unwrap();
                    let want: Vec<u64> = (0..n)
                        .map(|i| {
                            let (x, y) = (xa[i], xb[i]);
                            let zv = match other {
                                "leaf" => xc[i],
                                "scalar" => 0.75,
                                _ => xc[i] * y,
                            };
                            let g = inner.apply(x, y);
                            let out = if first {
                                outer.apply(g, zv)
                            } else {
                                outer.apply(zv, g)
                            };
                            out.to_bits()
                        })
                        .collect();
                    let got: Vec<u64> = r
                        .to_vec::<f64>()
                        .unwrap()
                        .iter()
                        .map(|x| x.to_bits())
                        .collect();
                    assert_eq!(
                        got, want,
                        "{inner:?} then {outer:?}, {other}, first: {first}"
                    );
                }
            }
        }
    }
}
