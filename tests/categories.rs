//! Categories: the `categorical[T]` type (spelled, checked, printed),
//! `dictionary_encode` against literal answers (pyarrow's
//! `dictionary_encode` computed once: categories in order of first
//! appearance), codes and categories as views, casts both ways,
//! elementwise functions run on the categories alone (counted),
//! comparisons, grouping by categories, Arrow's `DictionaryArray` in and
//! out without copies, and a property test that decoding an encoding
//! gives the values back.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use dynd::func::{self, builtins};
use dynd::nd::{array, Array};
use dynd::ndt::Type;
use proptest::prelude::*;

fn ty(s: &str) -> Type {
    s.parse().unwrap()
}

fn arr(json: &str, t: &str) -> Array {
    Array::from_json(json, Some(&ty(t))).unwrap()
}

fn show(a: &Array) -> (String, String) {
    (a.ty().to_string(), a.to_string())
}

#[test]
fn the_type_is_spelled_and_checked() {
    assert_eq!(ty("categorical[string]").to_string(), "categorical[string]");
    assert_eq!(
        ty("3 * categorical[string, index=int16]").to_string(),
        "3 * categorical[string, index=int16]"
    );
    assert_eq!(
        ty("var * ?categorical[{x: int8, y: date}, index=uint8]").to_string(),
        "var * ?categorical[{x: int8, y: date}, index=uint8]"
    );
    // The index names the default only when it is not the default.
    assert_eq!(
        ty("categorical[float64, index=int32]").to_string(),
        "categorical[float64]"
    );
    assert_eq!(ty("categorical[int8]").data_layout().unwrap().size, 4);
    assert_eq!(
        ty("categorical[string, index=int8]")
            .data_layout()
            .unwrap()
            .size,
        1
    );
    for (bad, says) in [
        (
            "categorical[string, index=float32]",
            "index is an integer type",
        ),
        ("categorical[3 * int32]", "without dimensions"),
        ("categorical[?string]", "not NA"),
        (
            "categorical[categorical[string]]",
            "not categorical themselves",
        ),
        ("categorical[string, size=int8]", "'index='"),
        (
            "categorical[string, index=int99]",
            "unknown index type 'int99'",
        ),
        ("categorical", "'[' after 'categorical'"),
    ] {
        let e = bad.parse::<Type>().unwrap_err().to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
    // A pattern binds the categories' type.
    let sig: Type = "(N * categorical[T]) -> T".parse().unwrap();
    assert!(sig.to_string().contains("categorical[T]"));
}

#[test]
fn dictionary_encode_in_order_of_first_appearance() {
    let c = func::dictionary_encode(&array!["b", "a", "b", "c", "a"]).unwrap();
    assert_eq!(
        show(&c),
        (
            "5 * categorical[string]".into(),
            r#"["b", "a", "b", "c", "a"]"#.into()
        )
    );
    assert_eq!(func::codes(&c).unwrap().to_string(), "[0, 1, 0, 2, 1]");
    assert_eq!(
        func::categories(&c).unwrap().to_string(),
        r#"["b", "a", "c"]"#
    );
    // Numbers: NaNs are one category, -0.0 is 0.0's.
    let f = func::dictionary_encode(&array![2.5, f64::NAN, -0.0, 2.5, 0.0, f64::NAN]).unwrap();
    assert_eq!(func::codes(&f).unwrap().to_string(), "[0, 1, 2, 0, 2, 1]");
    assert_eq!(
        func::categories(&f).unwrap().to_string(),
        "[2.5, NaN, -0.0]"
    );
    let b = func::dictionary_encode(&array![true, true, false]).unwrap();
    assert_eq!(show(&func::categories(&b).unwrap()).1, "[true, false]");
    // NA stays NA, and is no category.
    let n = func::dictionary_encode(&arr(r#"["x", null, "y", "x", null]"#, "5 * ?string")).unwrap();
    assert_eq!(
        show(&n),
        (
            "5 * ?categorical[string]".into(),
            r#"["x", null, "y", "x", null]"#.into()
        )
    );
    assert_eq!(
        func::codes(&n).unwrap().to_string(),
        "[0, null, 1, 0, null]"
    );
    assert_eq!(func::categories(&n).unwrap().to_string(), r#"["x", "y"]"#);
    // Dates keep their type in the categories.
    let d = func::dictionary_encode(&arr(
        r#"["2024-01-02", "2023-05-06", "2024-01-02"]"#,
        "3 * date",
    ))
    .unwrap();
    assert_eq!(d.ty().to_string(), "3 * categorical[date]");
    assert_eq!(
        func::categories(&d).unwrap().to_string(),
        r#"["2024-01-02", "2023-05-06"]"#
    );
    // Records: equal where every field is.
    let r = func::dictionary_encode(&arr(
        r#"[{"k": 1, "s": "x"}, {"k": 1, "s": "y"}, {"k": 1, "s": "x"}, {"k": 2, "s": "x"}]"#,
        "4 * {k: int32, s: string}",
    ))
    .unwrap();
    assert_eq!(func::codes(&r).unwrap().to_string(), "[0, 1, 0, 2]");
    assert_eq!(
        func::categories(&r).unwrap().to_string(),
        r#"[{"k": 1, "s": "x"}, {"k": 1, "s": "y"}, {"k": 2, "s": "x"}]"#
    );
    // Any dimensions, ragged ones included; one set of categories.
    let g =
        func::dictionary_encode(&arr(r#"[["p", "q"], [], ["q"]]"#, "3 * var * string")).unwrap();
    assert_eq!(g.ty().to_string(), "3 * var * categorical[string]");
    assert_eq!(func::codes(&g).unwrap().to_string(), "[[0, 1], [], [1]]");
    let m = func::dictionary_encode(&array![[1, 2], [2, 1]]).unwrap();
    assert_eq!(func::codes(&m).unwrap().to_string(), "[[0, 1], [1, 0]]");
    // Empty input; a categorical is its own encoding.
    let e = func::dictionary_encode(&arr("[]", "0 * string")).unwrap();
    assert_eq!(show(&e), ("0 * categorical[string]".into(), "[]".into()));
    assert_eq!(func::categories(&e).unwrap().to_string(), "[]");
    let again = func::dictionary_encode(&c).unwrap();
    assert_eq!(again.data_ptr(), c.data_ptr());
}

#[test]
fn codes_and_categories_are_views() {
    let c = func::dictionary_encode(&array!["u", "v", "u"]).unwrap();
    let codes = c.codes().unwrap();
    assert_eq!(codes.data_ptr(), c.data_ptr());
    // Made from codes: they are shared, and checked.
    let k = Array::from_vec(vec![1i8, 0, 1, 1]);
    let m = Array::from_codes(&k, &array!["low", "high"]).unwrap();
    assert_eq!(m.data_ptr(), k.data_ptr());
    assert_eq!(
        show(&m),
        (
            "4 * categorical[string, index=int8]".into(),
            r#"["high", "low", "high", "high"]"#.into()
        )
    );
    let e = Array::from_codes(&Array::from_vec(vec![0i8, 2, -1]), &array!["low", "high"])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("code 2 of categorical[string, index=int8] names no category"),
        "{e}"
    );
    assert!(e.contains("there are 2"), "{e}");
    let e = Array::from_codes(&array![0.5], &array!["a"])
        .unwrap_err()
        .to_string();
    assert!(e.contains("integer codes"), "{e}");
    let e = Array::from_codes(&array![0], &array![["a"]])
        .unwrap_err()
        .to_string();
    assert!(e.contains("one fixed dimension"), "{e}");
    // An NA element's code is never read: any value passes.
    let na = Array::optional(&Array::from_vec(vec![7i32, 0]), &array![false, true]).unwrap();
    let o = Array::from_codes(&na, &array!["a"]).unwrap();
    assert_eq!(
        show(&o),
        ("2 * ?categorical[string]".into(), r#"[null, "a"]"#.into())
    );
    let e = func::codes(&array![1, 2]).unwrap_err().to_string();
    assert!(e.contains("a categorical array"), "{e}");
    // Views of a categorical keep its categories.
    let s = m.index(&[dynd::nd::Index::Slice {
        start: Some(1),
        stop: None,
        step: 2,
    }]);
    assert_eq!(s.unwrap().to_string(), r#"["low", "high"]"#);
    // JSON in and out: the values.
    let j = arr(
        r#"["a", "b", null, "a"]"#,
        "4 * ?categorical[string, index=int16]",
    );
    assert_eq!(j.codes().unwrap().to_string(), "[0, 1, null, 0]");
    assert_eq!(j.to_json(), r#"["a", "b", null, "a"]"#);
}

#[test]
fn casts_both_ways() {
    let cast = builtins::get("cast").unwrap();
    let s = array!["x", "y", "x"];
    let c = cast
        .call(&[&s, &Array::from_text("categorical[string, index=int8]")])
        .unwrap();
    assert_eq!(c.ty().to_string(), "3 * categorical[string, index=int8]");
    assert_eq!(c.codes().unwrap().to_string(), "[0, 1, 0]");
    let back = cast.call(&[&c, &Array::from_text("string")]).unwrap();
    assert_eq!(
        show(&back),
        ("3 * string".into(), r#"["x", "y", "x"]"#.into())
    );
    // Values cast on the way: numbers from text, into the categories' type.
    let n = cast
        .call(&[
            &array!["1", "2", "1"],
            &Array::from_text("3 * categorical[int64]"),
        ])
        .unwrap();
    assert_eq!(func::categories(&n).unwrap().to_string(), "[1, 2]");
    let f = cast.call(&[&n, &Array::from_text("float32")]).unwrap();
    assert_eq!(show(&f), ("3 * float32".into(), "[1, 2, 1]".into()));
    // NA needs an optional categorical; too many categories for the index.
    let na = arr(r#"["a", null]"#, "2 * ?string");
    let e = cast
        .call(&[&na, &Array::from_text("categorical[string]")])
        .unwrap_err()
        .to_string();
    assert!(e.contains("not an option type"), "{e}");
    let o = cast
        .call(&[&na, &Array::from_text("?categorical[string]")])
        .unwrap();
    assert_eq!(o.to_string(), r#"["a", null]"#);
    let many = Array::from_vec((0..300i64).collect::<Vec<_>>());
    let e = cast
        .call(&[&many, &Array::from_text("categorical[int64, index=int8]")])
        .unwrap_err()
        .to_string();
    assert!(e.contains("300 distinct values for codes of int8"), "{e}");
}

static CALLS: AtomicUsize = AtomicUsize::new(0);

/// Counts its calls: how many strings an elementwise function touched.
#[dynd::elemental]
fn counted_upper(s: &str) -> String {
    CALLS.fetch_add(1, Relaxed);
    s.to_uppercase()
}

#[test]
fn elementwise_functions_run_on_the_categories() {
    let words: Vec<&str> = (0..1000).map(|i| ["ab", "cd", "ef"][i % 3]).collect();
    let c = func::dictionary_encode(&Array::from_json(&serde_json_list(&words), None).unwrap())
        .unwrap();
    CALLS.store(0, Relaxed);
    let u = counted_upper::call(&c).unwrap();
    assert_eq!(CALLS.load(Relaxed), 3, "one call per category");
    // The result keeps the codes: the same memory, new categories.
    assert_eq!(u.ty().to_string(), "1000 * categorical[string]");
    assert_eq!(u.codes().unwrap().data_ptr(), c.data_ptr());
    assert_eq!(
        func::categories(&u).unwrap().to_string(),
        r#"["AB", "CD", "EF"]"#
    );
    // Builtins alike; a result of another type is gathered by the codes.
    let up = func::upper(&c).unwrap();
    assert_eq!(up.codes().unwrap().data_ptr(), c.data_ptr());
    let l = func::str_len(&c).unwrap();
    assert_eq!(l.ty().to_string(), "1000 * int64");
    // Comparisons against a scalar: K comparisons, N booleans.
    let eq = func::equal(&c, &Array::from_text("cd")).unwrap();
    assert_eq!(eq.ty().to_string(), "1000 * bool");
    assert_eq!(func::count_nonzero(&eq, None).unwrap().to_string(), "333");
    let s = func::startswith(&c, &Array::from_text("e"), None, None).unwrap();
    assert_eq!(func::count_nonzero(&s, None).unwrap().to_string(), "333");
    // NA stays NA.
    let n = func::dictionary_encode(&arr(r#"["a", null, "b"]"#, "3 * ?string")).unwrap();
    assert_eq!(func::upper(&n).unwrap().to_string(), r#"["A", null, "B"]"#);
    let e = func::equal(&n, &Array::from_text("b")).unwrap();
    assert_eq!(e.to_string(), "[false, null, true]");
    // Two categoricals, or an array beside one: compared by value.
    let other = func::dictionary_encode(&array!["b", "a", "b"]).unwrap();
    let first3 = func::dictionary_encode(&array!["a", "a", "b"]).unwrap();
    assert_eq!(
        func::equal(&first3, &other).unwrap().to_string(),
        "[false, true, true]"
    );
    assert_eq!(
        func::equal(&first3, &array!["a", "b", "b"])
            .unwrap()
            .to_string(),
        "[true, false, true]"
    );
    // Functions over whole arrays see the values.
    assert_eq!(
        func::sort(&other, -1, true).unwrap().to_string(),
        r#"["a", "b", "b"]"#
    );
    assert_eq!(func::unique(&other).unwrap().to_string(), r#"["a", "b"]"#);
    assert_eq!(
        func::concatenate(&[&other, &first3], 0)
            .unwrap()
            .to_string(),
        r#"["b", "a", "b", "a", "a", "b"]"#
    );
    let d = func::dictionary_encode(&arr(r#"["2024-03-01", "2023-12-31"]"#, "2 * date")).unwrap();
    assert_eq!(func::year(&d).unwrap().to_string(), "[2024, 2023]");
    assert_eq!(
        func::strftime(&d, Some("%d/%m")).unwrap().to_string(),
        r#"["01/03", "31/12"]"#
    );
}

fn serde_json_list(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
    format!("[{}]", quoted.join(", "))
}

#[test]
fn grouping_by_categories() {
    let k = func::dictionary_encode(&array!["m", "f", "m", "x", "f"]).unwrap();
    let v = array![1.0, 2.0, 3.0, 4.0, 5.0];
    // Groups in ascending category value, labelled by category.
    let g = func::groupby(&v, &k).unwrap();
    assert_eq!(g.to_string(), "[[2, 5], [1, 3], [4]]");
    let labels = func::groupby_keys(&k).unwrap();
    assert_eq!(
        show(&labels),
        (
            "3 * categorical[string]".into(),
            r#"["f", "m", "x"]"#.into()
        )
    );
    // Equal categories (after `upper` of "a" and "A") are one group.
    let mixed = func::dictionary_encode(&array!["a", "A", "b", "a"]).unwrap();
    let up = func::upper(&mixed).unwrap();
    assert_eq!(
        func::categories(&up).unwrap().to_string(),
        r#"["A", "A", "B"]"#
    );
    assert_eq!(
        func::groupby(&array![1, 2, 3, 4], &up).unwrap().to_string(),
        "[[1, 2, 4], [3]]"
    );
    assert_eq!(
        func::value_counts(&up)
            .unwrap()
            .field("count")
            .unwrap()
            .to_string(),
        "[3, 1]"
    );
    // NA keys last.
    let n = func::dictionary_encode(&arr(r#"["b", null, "a"]"#, "3 * ?string")).unwrap();
    assert_eq!(
        func::groupby(&array![1, 2, 3], &n).unwrap().to_string(),
        "[[3], [1], [2]]"
    );
    // Through the registry too.
    let gb = builtins::get("groupby").unwrap();
    assert_eq!(gb.call(&[&v, &k]).unwrap().to_string(), g.to_string());
}

#[cfg(feature = "arrow")]
mod arrow {
    use std::sync::Arc;

    use dynd::nd::arrow_interop::arrow_array::types::{Int32Type, Int8Type};
    use dynd::nd::arrow_interop::arrow_array::{
        cast::AsArray, Array as _, ArrayRef, DictionaryArray, Int32Array, Int8Array, RecordBatch,
        StringArray,
    };
    use dynd::nd::arrow_interop::arrow_schema::DataType;
    use dynd::nd::ToArrow;

    use super::*;

    #[test]
    fn dictionary_arrays_in_and_out_without_copies() {
        let keys = Int8Array::from(vec![1, 0, 1, 2]);
        let values: ArrayRef = Arc::new(StringArray::from(vec!["lo", "hi", "mid"]));
        let d = DictionaryArray::<Int8Type>::try_new(keys, values).unwrap();
        let a = Array::from_arrow(&d).unwrap();
        assert_eq!(
            show(&a),
            (
                "4 * categorical[string, index=int8]".into(),
                r#"["hi", "lo", "hi", "mid"]"#.into()
            )
        );
        assert_eq!(a.data_ptr(), d.keys().values().as_ptr() as *const u8);
        // Out: the same keys buffer, the dictionary's type.
        let back = a.to_arrow().unwrap();
        assert_eq!(
            back.data_type(),
            &DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8))
        );
        let back = back.as_dictionary::<Int8Type>();
        assert_eq!(back.keys().values().as_ptr(), d.keys().values().as_ptr());
        assert_eq!(back.values().as_string::<i32>().value(2), "mid");
        // Null keys are NA (their key is never read, whatever it is).
        let keys = Int32Array::from(vec![Some(0), None, Some(1)]);
        let values: ArrayRef = Arc::new(StringArray::from(vec!["p", "q"]));
        let d = DictionaryArray::<Int32Type>::try_new(keys, values).unwrap();
        let a = Array::from_arrow(&d).unwrap();
        assert_eq!(
            show(&a),
            (
                "3 * ?categorical[string]".into(),
                r#"["p", null, "q"]"#.into()
            )
        );
        let back = a.to_arrow().unwrap();
        assert_eq!(back.null_count(), 1);
        // A dictionary-encoded column of a record batch.
        let batch = RecordBatch::try_from_iter([
            ("k", Arc::new(d) as ArrayRef),
            ("v", Arc::new(Int32Array::from(vec![1, 2, 3])) as ArrayRef),
        ])
        .unwrap();
        let r = Array::from_record_batch(&batch).unwrap();
        assert_eq!(
            r.ty().to_string(),
            "3 * {k: ?categorical[string], v: int32}"
        );
        assert_eq!(
            r.to_string(),
            r#"[{"k": "p", "v": 1}, {"k": null, "v": 2}, {"k": "q", "v": 3}]"#
        );
        // dynd's encoding goes out as a dictionary array.
        let enc = func::dictionary_encode(&array!["z", "z", "y"]).unwrap();
        let out = enc.to_arrow().unwrap();
        let out = out.as_dictionary::<Int32Type>();
        assert_eq!(out.keys().values().as_ref(), [0, 0, 1]);
        // A key past the dictionary is refused, naming it.
        let keys = Int32Array::from(vec![0, 5]);
        let values: ArrayRef = Arc::new(StringArray::from(vec!["p"]));
        let data = DictionaryArray::<Int32Type>::try_new(keys.clone(), values.clone());
        assert!(data.is_err(), "arrow-rs checks too");
        let e = Array::from_codes(
            &Array::from_arrow(&keys).unwrap(),
            &Array::from_arrow(&values).unwrap(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("code 5"), "{e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Decoding an encoding gives the values back, NA included; the
    /// categories are distinct and in order of first appearance.
    #[test]
    fn decoding_an_encoding_gives_the_values(
        xs in prop::collection::vec(prop::option::of("[a-c]{0,2}"), 0..60),
    ) {
        let json: Vec<String> = xs.iter().map(|x| match x {
            Some(s) => format!("\"{s}\""),
            None => "null".into(),
        }).collect();
        let a = arr(&format!("[{}]", json.join(", ")), &format!("{} * ?string", xs.len()));
        let c = func::dictionary_encode(&a).unwrap();
        let cast = builtins::get("cast").unwrap();
        let back = cast.call(&[&c, &Array::from_text("?string")]).unwrap();
        prop_assert_eq!(back.to_string(), a.to_string());
        let cats = func::categories(&c).unwrap().to_string();
        let mut firsts: Vec<String> = Vec::new();
        for s in xs.iter().flatten() {
            let q = format!("\"{s}\"");
            if !firsts.contains(&q) {
                firsts.push(q);
            }
        }
        prop_assert_eq!(cats, format!("[{}]", firsts.join(", ")));
    }
}
