//! Assignment: every error mode, every dimension combination, options,
//! copy-on-write, read-only arrays, the kernel tree, and zero allocations.

use dynd_kernels::ArrayOps;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use dynd_kernels::assign::assignment_kernel;
use dynd_kernels::{array, Array, Error, ErrorMode};
use dynd_types::Type;

struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; the counter is a const-initialised
// thread-local, which does not allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        // SAFETY: forwarded.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn t(s: &str) -> Type {
    s.parse().unwrap()
}

fn arr(json: &str, ty: &str) -> Array {
    Array::from_json(json, Some(&t(ty))).unwrap_or_else(|e| panic!("{json} as {ty}: {e}"))
}

/// Runs a table of casts, reporting every mismatch at once.
fn check_casts(cases: &[(&str, &str, &str, ErrorMode, Expect)]) {
    let mut failures = Vec::new();
    for (json, src, dst, mode, expected) in cases {
        let got = cast(json, src, dst, *mode);
        let ok = match (&got, expected) {
            (Ok(g), Ok(w)) => g == w,
            (Err(g), Err(w)) => g.contains(w),
            _ => false,
        };
        if !ok {
            failures.push(format!(
                "{json} {src} -> {dst} ({mode}): got {got:?}, expected {expected:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Casts `json` of type `src` to `dst` under `mode`.
fn cast(json: &str, src: &str, dst: &str, mode: ErrorMode) -> Result<String, String> {
    arr(json, src)
        .cast(&t(dst), mode)
        .map(|a| a.to_string())
        .map_err(|e| e.to_string())
}

use ErrorMode::{Fractional, Inexact, NoCheck, Overflow};

/// The expected outcome: the printed result, or a fragment of the error.
type Expect = Result<&'static str, &'static str>;

#[test]
fn error_modes_on_every_kind_of_conversion() {
    #[rustfmt::skip]
    let cases: &[(&str, &str, &str, ErrorMode, Expect)] = &[
        // int -> int
        ("[1, -2, 127]", "3 * int32", "3 * int8", Fractional, Ok("[1, -2, 127]")),
        ("[300]", "1 * int32", "1 * int8", NoCheck, Ok("[44]")),
        ("[300]", "1 * int32", "1 * int8", Overflow, Err("300 is out of range for int8 (assigning int32 to int8), at index [0]")),
        ("[-1]", "1 * int64", "1 * uint64", Overflow, Err("-1 is out of range for uint64")),
        ("[-1]", "1 * int64", "1 * uint64", NoCheck, Ok("[18446744073709551615]")),
        ("[18446744073709551615]", "1 * uint64", "1 * int64", Overflow, Err("18446744073709551615 is out of range for int64")),
        ("[170141183460469231731687303715884105727]", "1 * int128", "1 * uint128", Inexact, Ok("[170141183460469231731687303715884105727]")),
        // float -> int
        ("[2.5]", "1 * float64", "1 * int32", NoCheck, Ok("[2]")),
        ("[2.5]", "1 * float64", "1 * int32", Overflow, Ok("[2]")),
        ("[-2.5]", "1 * float64", "1 * int32", Overflow, Ok("[-2]")),
        ("[2.5]", "1 * float64", "1 * int32", Fractional, Err("2.5 has a fractional part (assigning float64 to int32; error mode 'fractional' forbids truncation), at index [0]")),
        ("[2.5]", "1 * float64", "1 * int32", Inexact, Err("2.5 has a fractional part")),
        ("[3.0]", "1 * float64", "1 * int32", Inexact, Ok("[3]")),
        ("[1e10]", "1 * float64", "1 * int32", Overflow, Err("10000000000 is out of range for int32")),
        ("[1e10]", "1 * float64", "1 * int32", NoCheck, Ok("[2147483647]")),
        ("[NaN]", "1 * float64", "1 * int32", Overflow, Err("NaN is out of range for int32")),
        ("[-0.5]", "1 * float32", "1 * uint8", Overflow, Ok("[0]")),
        ("[255.0, 256.0]", "2 * float64", "2 * uint8", Overflow, Err("256 is out of range for uint8 (assigning float64 to uint8), at index [1]")),
        ("[-128.0]", "1 * float64", "1 * int8", Inexact, Ok("[-128]")),
        ("[-129.0]", "1 * float64", "1 * int8", Inexact, Err("-129 is out of range for int8")),
        // int -> float
        ("[16777217]", "1 * int32", "1 * float32", Fractional, Ok("[16777216]")),
        ("[16777217]", "1 * int32", "1 * float32", Inexact, Err("16777217 cannot be represented exactly (assigning int32 to float32; error mode 'inexact')")),
        ("[16777216]", "1 * int32", "1 * float32", Inexact, Ok("[16777216]")),
        ("[70000]", "1 * int32", "1 * float16", Overflow, Err("70000 is out of range for float16")),
        ("[2049]", "1 * int16", "1 * float16", Inexact, Err("2049 cannot be represented exactly")),
        ("[100]", "1 * int8", "1 * float16", Inexact, Ok("[100]")),
        ("[9007199254740993]", "1 * int64", "1 * float64", Inexact, Err("9007199254740993 cannot be represented exactly")),
        // float -> float
        // (the float32 nearest 0.1 prints as 0.1, the shortest decimal that is it)
        ("[0.1]", "1 * float64", "1 * float32", Fractional, Ok("[0.1]")),
        ("[0.1]", "1 * float64", "1 * float32", Inexact, Err("0.1 cannot be represented exactly (assigning float64 to float32")),
        ("[0.5]", "1 * float64", "1 * float32", Inexact, Ok("[0.5]")),
        ("[1e300]", "1 * float64", "1 * float32", Overflow, Err("is out of range for float32")),
        ("[1e300]", "1 * float64", "1 * float32", NoCheck, Ok("[Infinity]")),
        ("[Infinity, NaN]", "2 * float64", "2 * float32", Inexact, Ok("[Infinity, NaN]")),
        ("[1.5]", "1 * float32", "1 * float64", Inexact, Ok("[1.5]")),
        ("[70000.0]", "1 * float32", "1 * float16", Overflow, Err("70000 is out of range for float16")),
        // complex
        ("[[1, 0]]", "1 * complex[float64]", "1 * float64", Inexact, Ok("[1]")),
        ("[[1, 2]]", "1 * complex[float64]", "1 * float64", Fractional, Err("1+2i has a fractional part")),
        ("[[1, 2]]", "1 * complex[float64]", "1 * float64", Overflow, Ok("[1]")),
        ("[[1, 2]]", "1 * complex[float64]", "1 * float64", NoCheck, Ok("[1]")),
        ("[3]", "1 * int32", "1 * complex[float32]", Inexact, Ok("[[3, 0]]")),
        ("[[0.1, 0.5]]", "1 * complex[float64]", "1 * complex[float32]", Inexact, Err("cannot be represented exactly")),
        ("[[0.5, 0.25]]", "1 * complex[float32]", "1 * complex[float64]", Inexact, Ok("[[0.5, 0.25]]")),
        // bool
        ("[0, 1]", "2 * int32", "2 * bool", Inexact, Ok("[false, true]")),
        ("[2]", "1 * int32", "1 * bool", Overflow, Err("2 is out of range for bool")),
        ("[2]", "1 * int32", "1 * bool", NoCheck, Ok("[true]")),
        ("[0.5]", "1 * float64", "1 * bool", NoCheck, Ok("[true]")),
        ("[true, false]", "2 * bool", "2 * float64", Inexact, Ok("[1, 0]")),
        // options: NA is not NaN
        ("[1, null]", "2 * ?int32", "2 * ?float64", Fractional, Ok("[1, null]")),
        ("[NaN, null]", "2 * ?float64", "2 * ?float32", Inexact, Ok("[NaN, null]")),
        ("[1, null]", "2 * ?int32", "2 * int32", Fractional, Err("NA cannot be assigned to int32, which is not an option type, at index [1]")),
        ("[1, 2]", "2 * ?int32", "2 * int64", Fractional, Ok("[1, 2]")),
        ("[1.5, 2]", "2 * float64", "2 * ?int32", Fractional, Err("1.5 has a fractional part")),
        ("[1.5, NaN]", "2 * float64", "2 * ?float32", Fractional, Ok("[1.5, NaN]")),
    ];
    check_casts(cases);
}

#[test]
fn every_numeric_pair_round_trips_small_integers() {
    let numeric = [
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "int128",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "uint128",
        "float16",
        "float32",
        "float64",
        "complex[float32]",
        "complex[float64]",
    ];
    for src in numeric {
        for dst in numeric {
            let a = arr("[0, 1]", "2 * int8")
                .cast(&t(&format!("2 * {src}")), Inexact)
                .unwrap();
            let b = a
                .cast(&t(&format!("2 * {dst}")), Inexact)
                .unwrap_or_else(|e| panic!("{src} -> {dst}: {e}"));
            let back = b.cast(&t("2 * int8"), Inexact).unwrap();
            assert_eq!(back.to_string(), "[0, 1]", "{src} -> {dst}");
        }
    }
}

#[test]
fn dimension_combinations() {
    #[rustfmt::skip]
    let cases: &[(&str, &str, &str, &str, Expect)] = &[
        // (dst init, dst type, src json, src type, result)
        ("[0, 0, 0]", "3 * int32", "7", "int32", Ok("[7, 7, 7]")),
        ("[[0, 0], [0, 0]]", "2 * 2 * int32", "[1, 2]", "2 * int32", Ok("[[1, 2], [1, 2]]")),
        ("[[0, 0], [0, 0]]", "2 * 2 * int32", "[[1], [2]]", "2 * 1 * int32", Ok("[[1, 1], [2, 2]]")),
        ("[[0, 0], [0, 0]]", "2 * 2 * int32", "[[[1, 2], [3, 4]]]", "1 * 2 * 2 * int32", Ok("[[1, 2], [3, 4]]")),
        ("[0, 0]", "2 * int32", "[1, 2, 3]", "3 * int32", Err("cannot assign 3 * int32 to 2 * int32: source dimension 0 (3) does not broadcast to the destination's (2)")),
        ("[0, 0]", "2 * int32", "[[1, 2], [3, 4]]", "2 * 2 * int32", Err("source dimension 0 (2) does not broadcast to the destination's (none)")),
        ("[[0, 0], [0, 0]]", "2 * 2 * int32", "[1, 2, 3]", "3 * int32", Err("source dimension 1 (3) does not broadcast")),
        // var -> fixed: rows must match or have length 1
        ("[[0, 0], [0, 0]]", "2 * 2 * int32", "[[1, 2], [3, 4]]", "2 * var * int32", Ok("[[1, 2], [3, 4]]")),
        ("[[0, 0], [0, 0]]", "2 * 2 * int32", "[[1], [3, 4]]", "2 * var * int32", Ok("[[1, 1], [3, 4]]")),
        ("[[0, 0], [0, 0]]", "2 * 2 * int32", "[[1, 2], [3, 4, 5]]", "2 * var * int32", Err("a ragged row of length 3 cannot broadcast to length 2, at index [1]")),
        ("[[0, 0], [0, 0]]", "2 * 2 * int32", "[[1, 2], []]", "2 * var * int32", Err("a ragged row of length 0 cannot broadcast to length 2, at index [1]")),
        ("[[0, 0], [0, 0]]", "2 * 2 * int32", "[[1, 2]]", "var * var * int32", Ok("[[1, 2], [1, 2]]")),
        ("[[0, 0], [0, 0]]", "2 * 2 * int32", "[[1, 2], [3], [4]]", "var * var * int32", Err("a ragged row of length 3 cannot broadcast to length 2")),
        ("[0, 0, 0]", "3 * int32", "[1, 2]", "var * int32", Err("a ragged row of length 2 cannot broadcast to length 3")),
        ("[[[0, 0]], [[0, 0]]]", "2 * 1 * 2 * int32", "[[[1, 2]], [[3]]]", "2 * var * var * int32", Ok("[[[1, 2]], [[3, 3]]]")),
        ("[[[0, 0]], [[0, 0]]]", "2 * 1 * 2 * int32", "[[[1, 2]], [[3, 4, 5]]]", "2 * var * var * int32", Err("a ragged row of length 3 cannot broadcast to length 2, at index [1, 0]")),
        // fixed -> var, var -> var, scalar -> var
        ("[[0, 0], [0]]", "2 * var * int32", "[5, 6]", "2 * int32", Err("a ragged row of length 2 cannot broadcast to length 1, at index [1]")),
        ("[[0, 0], [0, 0]]", "2 * var * int32", "[5, 6]", "2 * int32", Ok("[[5, 6], [5, 6]]")),
        ("[[0, 0], [0]]", "2 * var * int32", "[[1, 2], [3]]", "2 * var * int8", Ok("[[1, 2], [3]]")),
        ("[[0, 0], [0]]", "2 * var * int32", "[[1], [3]]", "2 * var * int8", Ok("[[1, 1], [3]]")),
        ("[[0, 0], [0]]", "2 * var * int32", "[[1, 2, 3], [3]]", "2 * var * int8", Err("a ragged row of length 3 cannot broadcast to length 2, at index [0]")),
        ("[[0, 0], [0]]", "2 * var * float64", "9", "int8", Ok("[[9, 9], [9]]")),
        ("[[0, 0], [0]]", "var * var * float64", "[[1], [2]]", "2 * 1 * int8", Ok("[[1, 1], [2]]")),
        ("[[0, 0], [0]]", "2 * var * ?float64", "[[null], [1]]", "2 * 1 * ?int8", Ok("[[null, null], [1]]")),
        ("[[0, 0], [0]]", "2 * var * ?float64", "[null, 1]", "2 * ?int8", Err("a ragged row of length 2 cannot broadcast to length 1, at index [1]")),
    ];
    let mut failures = Vec::new();
    for (init, dst_ty, json, src_ty, expected) in cases {
        let mut dst = arr(init, dst_ty);
        let got = dst
            .assign(&arr(json, src_ty), Fractional)
            .map(|_| dst.to_string())
            .map_err(|e| e.to_string());
        let ok = match (&got, expected) {
            (Ok(g), Ok(w)) => g == w,
            (Err(g), Err(w)) => g.contains(w),
            _ => false,
        };
        if !ok {
            failures.push(format!(
                "{json} ({src_ty}) into {dst_ty}: got {got:?}, expected {expected:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_c_contiguous_3d_copy_is_one_loop() {
    let src = Array::from_shape_vec(&[2, 3, 4], (0..24).map(f64::from).collect()).unwrap();
    let dst = Array::zeros(&t("2 * 3 * 4 * float64")).unwrap();
    let k =
        assignment_kernel(dst.ty(), dst.arrmeta(), src.ty(), src.arrmeta(), Fractional).unwrap();
    assert_eq!(
        k.describe(),
        "loops [24:(8; [8])] (size:(dst stride; src strides))\n  assign float64 <- float64 (nocheck)\n"
    );
    // A broadcast row: the inner loop keeps stride 0 for the source.
    let row = Array::from_vec(vec![1.0f32, 2.0, 3.0, 4.0]);
    let k =
        assignment_kernel(dst.ty(), dst.arrmeta(), row.ty(), row.arrmeta(), Fractional).unwrap();
    assert_eq!(
        k.describe(),
        "loops [6:(32; [0]), 4:(8; [4])] (size:(dst stride; src strides))\n  assign float64 <- float32 (nocheck)\n"
    );
    // A checked conversion keeps its mode.
    let k = assignment_kernel(row.ty(), row.arrmeta(), dst.ty(), dst.arrmeta(), Fractional);
    assert!(k.is_err());
    let ints = Array::zeros(&t("4 * int32")).unwrap();
    let k =
        assignment_kernel(ints.ty(), ints.arrmeta(), row.ty(), row.arrmeta(), Overflow).unwrap();
    assert_eq!(k.describe(), "loops [4:(4; [4])] (size:(dst stride; src strides))\n  assign int32 <- float32 (overflow)\n");
    // Ragged: one record per var level.
    let ragged = array![[1.0], [2.0, 3.0]];
    let dst = Array::zeros(&t("3 * 2 * 4 * float64")).unwrap();
    let k = assignment_kernel(
        dst.ty(),
        dst.arrmeta(),
        ragged.ty(),
        ragged.arrmeta(),
        Fractional,
    )
    .unwrap();
    assert_eq!(
        k.describe(),
        "loops [3:(64; [0]), 2:(32; [16])] (size:(dst stride; src strides))\n  \
         4 <- [var] (row lengths checked)\n    \
         assign float64 <- float64 (nocheck)\n"
    );
}

#[test]
fn building_and_running_a_3d_strided_assignment_allocates_nothing() {
    let src =
        Array::from_shape_vec(&[20, 30, 40], (0..24_000).map(|i| i as f32).collect()).unwrap();
    let dst = Array::zeros(&t("20 * 30 * 40 * float64")).unwrap();
    let mut out = vec![0.0f64; 24_000];
    let src_ptr = src.as_slice::<f32>().unwrap().as_ptr();
    let before = ALLOCS.with(Cell::get);
    {
        let k = assignment_kernel(dst.ty(), dst.arrmeta(), src.ty(), src.arrmeta(), Fractional)
            .unwrap();
        // SAFETY: `out` has the destination's C-contiguous layout and size.
        unsafe { k.single(out.as_mut_ptr().cast(), &[src_ptr.cast()]) }.unwrap();
    }
    assert_eq!(ALLOCS.with(Cell::get) - before, 0);
    assert_eq!(out[23_999], 23_999.0);
}

#[test]
fn shared_memory_is_copied_on_write_and_static_memory_is_read_only() {
    let mut a = array![1, 2, 3];
    let b = a.clone();
    assert_eq!(a.data_block().as_ptr(), b.data_block().as_ptr());
    a.assign(&array![9], Fractional).unwrap();
    assert_eq!(a.to_string(), "[9, 9, 9]");
    assert_eq!(b.to_string(), "[1, 2, 3]");
    assert_ne!(a.data_block().as_ptr(), b.data_block().as_ptr());

    // Assigning an array to itself (shared memory) gives the temporary-copy result.
    let mut c = array![[1, 2], [3, 4]];
    let c2 = c.clone();
    c.assign(&c2, Fractional).unwrap();
    assert_eq!(c.to_string(), "[[1, 2], [3, 4]]");

    static DATA: [i32; 2] = [1, 2];
    let mut s = Array::from_static(&DATA);
    assert_eq!(s.assign(&array![5], Fractional), Err(Error::ReadOnly));
    assert_eq!(s.to_string(), "[1, 2]");
}

#[test]
fn strings_convert_both_ways() {
    #[rustfmt::skip]
    let cases: &[(&str, &str, &str, ErrorMode, Expect)] = &[
        ("[\"a\", \"\u{e9}t\u{e9}\"]", "2 * string", "2 * string", Fractional, Ok("[\"a\", \"\u{e9}t\u{e9}\"]")),
        ("[1, -2]", "2 * int32", "2 * string", Fractional, Ok("[\"1\", \"-2\"]")),
        ("[1.5, NaN, -Infinity]", "3 * float64", "3 * string", Fractional, Ok("[\"1.5\", \"NaN\", \"-Infinity\"]")),
        ("[true]", "1 * bool", "1 * string", Fractional, Ok("[\"true\"]")),
        ("[[1, -2]]", "1 * complex[float64]", "1 * string", Fractional, Ok("[\"1-2j\"]")),
        ("[\" 42 \", \"-7\"]", "2 * string", "2 * int8", Fractional, Ok("[42, -7]")),
        ("[\"1.25\", \"nan\", \"inf\"]", "3 * string", "3 * float32", Fractional, Ok("[1.25, NaN, Infinity]")),
        ("[\"2.5\"]", "1 * string", "1 * int32", Fractional, Err("2.5 has a fractional part (assigning string to int32")),
        ("[\"2.5\"]", "1 * string", "1 * int32", Overflow, Ok("[2]")),
        ("[\"300\"]", "1 * string", "1 * uint8", Overflow, Err("300 is out of range for uint8 (assigning string to uint8), at index [0]")),
        ("[\"1\", \"x1\"]", "2 * string", "2 * float64", Fractional, Err("cannot parse \"x1\" as float64, at index [1]")),
        ("[\"1+2j\"]", "1 * string", "1 * complex[float64]", Fractional, Ok("[[1, 2]]")),
        ("[\"a\", null]", "2 * ?string", "2 * ?string", Fractional, Ok("[\"a\", null]")),
        ("[\"3\", null]", "2 * ?string", "2 * ?int64", Fractional, Ok("[3, null]")),
        ("[[\"x\"], [\"y\", \"z\"]]", "2 * var * string", "2 * var * string", Fractional, Ok("[[\"x\"], [\"y\", \"z\"]]")),
    ];
    check_casts(cases);
}

#[test]
fn partial_string_assignment_keeps_the_other_strings() {
    let mut a = arr("[\"one\", \"two\", \"three\"]", "3 * string");
    let before = a.clone();
    a.assign_at(
        &[dynd_kernels::Index::At(1)],
        &arr("\"deux\"", "string"),
        Fractional,
    )
    .unwrap();
    assert_eq!(a.to_string(), "[\"one\", \"deux\", \"three\"]");
    assert_eq!(before.to_string(), "[\"one\", \"two\", \"three\"]");
    a.assign(&arr("5", "int8"), Fractional).unwrap();
    assert_eq!(a.to_string(), "[\"5\", \"5\", \"5\"]");
}

#[test]
fn fixed_strings_and_bytes() {
    #[rustfmt::skip]
    let cases: &[(&str, &str, &str, ErrorMode, Expect)] = &[
        ("[\"ab\", \"\u{e9}\"]", "2 * string", "2 * fixed_string[4]", Fractional, Ok("[\"ab\", \"\u{e9}\"]")),
        ("[\"abcde\"]", "1 * string", "1 * fixed_string[4]", Fractional, Err("\"abcde\" does not fit fixed_string[4]: needs 5 code units but the fixed string holds 4, at index [0]")),
        ("[\"abcde\"]", "1 * string", "1 * fixed_string[4]", NoCheck, Ok("[\"abcd\"]")),
        ("[\"\u{e9}t\u{e9}\"]", "1 * string", "1 * fixed_string[4, 'ascii']", Overflow, Err("'\u{e9}' cannot be encoded in ASCII")),
        ("[\"\u{e9}t\u{e9}\"]", "1 * string", "1 * fixed_string[4, 'ascii']", NoCheck, Ok("[\"?t?\"]")),
        ("[\"h\u{e9}\"]", "1 * fixed_string[3]", "1 * fixed_string[2, 'utf16']", Fractional, Ok("[\"h\u{e9}\"]")),
        ("[\"h\u{e9}\"]", "1 * fixed_string[3]", "1 * fixed_string[5, 'utf32']", Fractional, Ok("[\"h\u{e9}\"]")),
        ("[\"xyz\"]", "1 * fixed_string[3, 'U32']", "1 * string", Fractional, Ok("[\"xyz\"]")),
        ("[[1, 2, 255], \"ab\"]", "2 * bytes", "2 * bytes", Fractional, Ok("[[1, 2, 255], [97, 98]]")),
    ];
    check_casts(cases);
    let err = Array::from_json("[\"toolong\"]", Some(&t("1 * fixed_string[3]"))).unwrap_err();
    assert_eq!(
        err.to_string(),
        "\"toolong\" does not fit fixed_string[3]: needs 7 code units but the fixed string holds 3 (at index [0])"
    );
    assert!(Array::from_json("[[1, 256]]", Some(&t("1 * bytes"))).is_err());
}

#[test]
fn na_text_parses_into_options_as_na() {
    // libdynd's rule: "NA", "null" and "" read into an option type are NA.
    let src = Array::from_json(r#"["NA", "null", "", "3", " 4 "]"#, None).unwrap();
    let t: Type = "5 * ?int32".parse().unwrap();
    let r = src.cast(&t, ErrorMode::Fractional).unwrap();
    assert_eq!(r.to_string(), "[null, null, null, 3, 4]");
    let f = src
        .cast(&"5 * ?float64".parse().unwrap(), ErrorMode::Fractional)
        .unwrap();
    assert_eq!(f.to_string(), "[null, null, null, 3, 4]");
    // Without an option the same text is a parse error naming it.
    let e = src
        .cast(&"5 * int32".parse().unwrap(), ErrorMode::Fractional)
        .unwrap_err();
    assert!(
        e.to_string().contains("cannot parse \"NA\" as int32"),
        "{e}"
    );
    // A string option keeps the text.
    let s = src
        .cast(&"5 * ?string".parse().unwrap(), ErrorMode::Fractional)
        .unwrap();
    assert_eq!(s.to_string(), r#"["NA", "null", "", "3", " 4 "]"#);
    // The same from JSON values.
    let v = Array::from_json(
        r#"["NA", "", null, 5]"#,
        Some(&"4 * ?int8".parse().unwrap()),
    )
    .unwrap();
    assert_eq!(v.to_string(), "[null, null, null, 5]");
}

/// The overlap check `make_unique` runs: rows shared by `take`, and a
/// compact copy that shares nothing.
#[test]
fn shared_rows_overlap() {
    let a = Array::from_starts_lengths(vec![3.0, 2.0, 1.0], &[0u32, 1], &[2u32, 2]).unwrap();
    assert!(dynd_kernels::overlap::overlaps(&a).unwrap());
    // Out of order but disjoint: no overlap.
    let b = Array::from_starts_lengths(vec![3.0, 2.0, 1.0], &[2u32, 0], &[1u32, 2]).unwrap();
    assert!(!dynd_kernels::overlap::overlaps(&b).unwrap());
    // A repeated row, and a repeated empty row (which nothing writes).
    let x = Array::from_json("[[1, 2], [3, 4], []]", None).unwrap();
    let i = Array::from_vec(vec![0i64, 0]);
    assert!(
        dynd_kernels::overlap::overlaps(&x.take(&i, Some(0), Default::default()).unwrap()).unwrap()
    );
    let e = Array::from_vec(vec![2i64, 2]);
    assert!(
        !dynd_kernels::overlap::overlaps(&x.take(&e, Some(0), Default::default()).unwrap())
            .unwrap()
    );
    // Inner rows shared across distinct outer rows.
    let n = Array::from_json("[[[1, 2]], [[3]]]", None).unwrap();
    let both = n.take(&i, Some(0), Default::default()).unwrap();
    assert!(dynd_kernels::overlap::overlaps(&both).unwrap());
    // A compact copy does not overlap.
    let copy = both.cast(both.ty(), ErrorMode::NoCheck).unwrap();
    assert!(!dynd_kernels::overlap::overlaps(&copy).unwrap());
}
