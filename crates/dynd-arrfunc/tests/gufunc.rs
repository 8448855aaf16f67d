//! Core-dimension callables (generalised ufuncs): results against naive
//! references over broadcast leading dimensions, strided and transposed
//! cores, ragged leading dimensions, `out` arrays, and every error.

use dynd_arrfunc::{builtins, Callable, Error, Keyword, Overload};
use dynd_kernels::elwise::{CoreLeaf, CoreSlice, CoreSliceMut};
use dynd_kernels::{array, Array, Index};
use dynd_types::{Scalar, Type};
use proptest::prelude::*;

fn t(s: &str) -> Type {
    s.parse().unwrap()
}

fn call(name: &str, args: &[&Array]) -> Result<String, String> {
    builtins::get(name)
        .unwrap()
        .call(args)
        .map(|a| format!("{a} : {}", a.ty()))
        .map_err(|e| e.to_string())
}

#[test]
fn builtins_consume_core_dims_and_broadcast_leading_ones() {
    let a = array![[1, 2, 3], [4, 5, 6]];
    assert_eq!(
        call("dot", &[&a, &array![1, 0, 1]]),
        Ok("[4, 10] : 2 * int64".into())
    );
    assert_eq!(
        call("dot", &[&array![1.5, 2.0], &array![2, 1]]),
        Ok("5 : float64".into()),
        "int64 promotes to float64 for the float64 overload"
    );
    let m = array![[1, 2], [3, 4]];
    assert_eq!(
        call("matmul", &[&m, &array![[5, 6], [7, 8]]]),
        Ok("[[19, 22], [43, 50]] : 2 * 2 * int64".into())
    );
    // A stack of matrices times one matrix: (2 x 2 x 2) @ (2 x 3).
    let stack = array![[[1, 0], [0, 1]], [[2, 0], [0, 2]]];
    assert_eq!(
        call("matmul", &[&stack, &array![[1, 2, 3], [4, 5, 6]]]),
        Ok("[[[1, 2, 3], [4, 5, 6]], [[2, 4, 6], [8, 10, 12]]] : 2 * 2 * 3 * int64".into())
    );
    // Fixed-size core dimensions.
    assert_eq!(
        call(
            "cross",
            &[
                &array![[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                &array![0.0, 0.0, 1.0]
            ]
        ),
        Ok("[[0, -1, 0], [1, 0, 0]] : 2 * 3 * float64".into())
    );
    // The norm scales, so huge components do not overflow.
    assert_eq!(
        call("norm", &[&array![[3.0, 4.0], [0.0, 0.0], [3e200, 4e-200]]]),
        Ok("[5, 0, 3e200] : 3 * float64".into())
    );
    let big = builtins::get("norm")
        .unwrap()
        .call(&[&array![3e200, 4e200]])
        .unwrap();
    assert!((big.get::<f64>(&[]).unwrap() / 5e200 - 1.0).abs() < 1e-15);
    // Empty cores: the identity of the sum, and an empty product.
    let empty = Array::zeros(&t("2 * 0 * float64")).unwrap();
    assert_eq!(
        call("dot", &[&empty, &empty]),
        Ok("[0, 0] : 2 * float64".into())
    );
}

#[test]
fn strided_and_transposed_cores_are_gathered_and_scattered() {
    let a = Array::from_shape_vec(&[3, 2], vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let at = a.transpose().unwrap(); // 2 x 3, not row-major
    assert!(!at.is_c_contiguous());
    let b = Array::from_shape_vec(&[3, 2], vec![1.0f64, 0.0, 0.0, 1.0, 1.0, 1.0]).unwrap();
    // at @ b = [[1+5, 3+5], [2+6, 4+6]]
    assert_eq!(
        call("matmul", &[&at, &b]),
        Ok("[[6, 8], [8, 10]] : 2 * 2 * float64".into())
    );
    // A reversed, stepped core.
    let v = array![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let rev = v.index(&[Index::slice(None, None, -2)]).unwrap(); // [6, 4, 2]
    assert_eq!(
        call("dot", &[&rev, &array![1.0, 10.0, 100.0]]),
        Ok("246 : float64".into())
    );
    // A transposed `out`: the result is scattered into it.
    let matmul = builtins::get("matmul").unwrap();
    let base = Array::zeros(&t("2 * 2 * float64")).unwrap();
    let mut out = base.transpose().unwrap();
    matmul
        .call_into(
            &mut out,
            &[
                &array![[1.0, 2.0], [3.0, 4.0]],
                &array![[1.0, 0.0], [0.0, 1.0]],
            ],
        )
        .unwrap();
    assert_eq!(out.to_string(), "[[1, 2], [3, 4]]");
    assert_eq!(
        base.to_string(),
        "[[0, 0], [0, 0]]",
        "arrays are values: writing a view copies its shared memory"
    );
}

#[test]
fn ragged_leading_dimensions_take_their_rows_from_the_arguments() {
    let rows = Array::from_json(
        "[[[3, 4], [6, 8]], [], [[0, 1]]]",
        Some(&t("3 * var * 2 * float64")),
    )
    .unwrap();
    assert_eq!(
        call("norm", &[&rows]),
        Ok("[[5, 10], [], [1]] : 3 * var * float64".into())
    );
    assert_eq!(
        call("dot", &[&rows, &array![1.0, 1.0]]),
        Ok("[[7, 14], [], [1]] : 3 * var * float64".into())
    );
    // A ragged core is not a fixed core.
    let ragged_core = array![[1.0], [2.0, 3.0]];
    assert_eq!(
        call("norm", &[&ragged_core]).unwrap_err(),
        "a core dimension that is not fixed is not supported for 2 * var * float64"
    );
}

#[test]
fn core_errors_name_the_argument_and_the_sizes() {
    assert_eq!(
        call("dot", &[&array![1, 2, 3], &array![1, 2]]).unwrap_err(),
        "argument 1 (2 * int64) does not match parameter N * int64: dimension variable 'N' is bound to '3' but meets '2'"
    );
    assert_eq!(
        call("matmul", &[&array![1, 2], &array![[1, 2], [3, 4]]]).unwrap_err(),
        "argument 0 (2 * int64) has 1 dimension(s), but parameter M * N * int64 needs at least 2"
    );
    assert_eq!(
        call("cross", &[&array![1, 2], &array![3, 4]]).unwrap_err(),
        "argument 0 (2 * int64) does not match parameter 3 * int64: expected dimension '3', found '2'"
    );
    // Leading dimensions broadcast by NumPy's rules; core dims never do.
    let err = call(
        "dot",
        &[&array![[1, 2], [3, 4], [5, 6]], &array![[1, 2], [3, 4]]],
    )
    .unwrap_err();
    assert!(err.contains("3") && err.contains("2"), "{err}");
    let err = call("dot", &[&array![[1, 2]], &array![1]]).unwrap_err();
    assert!(
        err.contains("'N' is bound to '2' but meets '1'"),
        "a core dim of 1 does not stretch: {err}"
    );
    // Options are refused, not silently misread.
    let opt = Array::from_json("[1.0, null]", Some(&t("2 * ?float64"))).unwrap();
    assert_eq!(
        call("norm", &[&opt]).unwrap_err(),
        "an option argument to a core-dimension function is not supported for ?float64"
    );
    // `out` must have the result's type exactly.
    let mut out = Array::zeros(&t("3 * float64")).unwrap();
    let err = builtins::get("dot")
        .unwrap()
        .call_into(
            &mut out,
            &[&array![[1.0, 2.0], [3.0, 4.0]], &array![1.0, 1.0]],
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "dot: the out array has type 3 * float64, but the result has type 2 * float64"
    );
}

#[test]
fn core_leaves_check_their_signatures() {
    let f = |a: CoreSlice<'_, f64>, mut out: CoreSliceMut<'_, f64>| {
        out.as_mut_slice()[0] = a.iter().sum();
    };
    let msg = |r: Result<CoreLeaf, dynd_kernels::Error>| r.unwrap_err().to_string();
    assert_eq!(
        msg(CoreLeaf::map("(N * int32) -> float64", f)),
        "core signature (N * int32) -> float64: parameter 0 has data type int32, the function's is float64"
    );
    assert_eq!(
        msg(CoreLeaf::map("(N * float64, N * float64) -> float64", f)),
        "core signature (N * float64, N * float64) -> float64: has 2 parameters, the function takes 1"
    );
    assert_eq!(
        msg(CoreLeaf::map("(var * float64) -> float64", f)),
        "core signature (var * float64) -> float64: parameter 0 has dimension var; core dimensions are fixed sizes, `Fixed` or size variables"
    );
    assert!(msg(CoreLeaf::map("(N * float64 -> float64", f)).contains("expected"));
    assert_eq!(
        msg(CoreLeaf::map("float64", f)),
        "float64 is not a callable signature"
    );
    // A user's gufunc with keywords is refused when the callable is built.
    let sum = Callable::new(
        "sum",
        vec![Overload::core(
            CoreLeaf::map("(N * float64) -> float64", f).unwrap(),
        )],
    )
    .unwrap();
    let err = sum
        .clone()
        .with_keywords(vec![Keyword::required("x", Scalar::Float64)])
        .unwrap_err();
    assert!(matches!(err, Error::Unsupported { .. }), "{err}");
    assert_eq!(sum.signatures()[0].to_string(), "(N * float64) -> float64");
    assert_eq!(
        sum.call(&[&array![[1.0, 2.0], [3.0, 4.0]]])
            .unwrap()
            .to_string(),
        "[3, 7]"
    );
}

#[test]
fn outer_keeps_core_dimensions_last() {
    let dot = builtins::get("dot").unwrap();
    let a = array![[1, 0], [0, 1], [1, 1]]; // 3 vectors
    let b = array![[1, 2], [3, 4]]; // 2 vectors
    let r = dot.outer(&[&a, &b]).unwrap();
    assert_eq!(r.ty().to_string(), "3 * 2 * int64");
    assert_eq!(r.to_string(), "[[1, 3], [2, 4], [3, 7]]");
}

/// Naive matrix product of row-major `m x n` and `n x p`.
fn naive_matmul(a: &[f64], b: &[f64], m: usize, n: usize, p: usize) -> Vec<f64> {
    let mut out = vec![0.0; m * p];
    for i in 0..m {
        for j in 0..p {
            for k in 0..n {
                out[i * p + j] += a[i * n + k] * b[k * p + j];
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn matmul_matches_a_naive_reference(
        batch in 1usize..4, m in 1usize..5, n in 0usize..5, p in 1usize..5,
        transpose_a in any::<bool>(), seed in 0u64..1000,
    ) {
        let val = |i: usize| ((i as u64 * 7 + seed) % 11) as f64 - 5.0;
        let av: Vec<f64> = (0..batch * m * n).map(val).collect();
        let bv: Vec<f64> = (0..n * p).map(|i| val(i + 100)).collect();
        // `a` as a stack of m x n matrices, stored transposed when asked.
        let a = if transpose_a {
            let mut stored = vec![0.0; batch * n * m];
            for s in 0..batch {
                for i in 0..m {
                    for k in 0..n {
                        stored[s * n * m + k * m + i] = av[s * m * n + i * n + k];
                    }
                }
            }
            Array::from_shape_vec(&[batch, n, m], stored).unwrap().permute_axes(&[0, 2, 1]).unwrap()
        } else {
            Array::from_shape_vec(&[batch, m, n], av.clone()).unwrap()
        };
        let b = Array::from_shape_vec(&[n, p], bv.clone()).unwrap();
        let r = builtins::get("matmul").unwrap().call(&[&a, &b]).unwrap();
        let expected: Vec<f64> = (0..batch)
            .flat_map(|s| naive_matmul(&av[s * m * n..(s + 1) * m * n], &bv, m, n, p))
            .collect();
        prop_assert_eq!(r.ty().to_string(), format!("{batch} * {m} * {p} * float64"));
        prop_assert_eq!(r.to_vec::<f64>().unwrap(), expected);
    }
}
