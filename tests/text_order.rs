//! Ordering strings: `argsort` and `sort` of `string` and `?string`, dense
//! along any axis and per ragged row. The expectations are Python's
//! (`sorted(xs)` orders `str` by code point, which is UTF-8 byte order),
//! written in as literals.

use dynd::func::{argsort, sort};
use dynd::nd::{rows::Rows, text::Strings, Array, Arrmeta, Complex, Index};

fn json(text: &str) -> Array {
    Array::from_json(text, None).unwrap()
}

fn sorted(x: &Array, axis: i64, ascending: bool) -> String {
    sort(x, axis, ascending).unwrap().to_string()
}

#[test]
fn code_point_order_with_empty_multibyte_and_case() {
    // Python: sorted(["b", "日本語", "B", "", "naïve", "naive", "😀", "ß", "a"])
    let x = json(r#"["b", "日本語", "B", "", "naïve", "naive", "😀", "ß", "a"]"#);
    assert_eq!(
        sorted(&x, -1, true),
        r#"["", "B", "a", "b", "naive", "naïve", "ß", "日本語", "😀"]"#
    );
    assert_eq!(
        argsort(&x, -1, true).unwrap().to_string(),
        "[3, 2, 8, 0, 5, 4, 7, 1, 6]"
    );
    // Descending is the reverse; equal strings keep their order (stable).
    let d = json(r#"["b", "a", "b", "c"]"#);
    assert_eq!(argsort(&d, 0, false).unwrap().to_string(), "[3, 0, 2, 1]");
    assert_eq!(sorted(&d, 0, false), r#"["c", "b", "b", "a"]"#);
}

#[test]
fn any_axis_of_a_dense_array() {
    let x = json(r#"[["b", "a", "c"], ["a", "c", "b"]]"#);
    assert_eq!(
        argsort(&x, 0, true).unwrap().to_string(),
        "[[1, 0, 1], [0, 1, 0]]"
    );
    assert_eq!(sorted(&x, 0, true), r#"[["a", "a", "b"], ["b", "c", "c"]]"#);
    assert_eq!(
        sorted(&x, -1, true),
        r#"[["a", "b", "c"], ["a", "b", "c"]]"#
    );
    // A reversed view sorts as its own elements.
    let r = x
        .index(&[Index::ALL, Index::slice(None, None, -1)])
        .unwrap();
    assert_eq!(
        argsort(&r, -1, true).unwrap().to_string(),
        "[[1, 2, 0], [2, 0, 1]]"
    );
}

#[test]
fn ragged_rows_with_empty_rows_and_na() {
    let x = json(r#"[["b", "", "a"], [], ["日本", "z"]]"#);
    assert_eq!(
        sorted(&x, -1, true),
        r#"[["", "a", "b"], [], ["z", "日本"]]"#
    );
    assert_eq!(
        argsort(&x, -1, true).unwrap().to_string(),
        "[[1, 2, 0], [], [1, 0]]"
    );

    // NA sorts last in both directions, as NaN does for numbers.
    let ty = "3 * var * ?string".parse().unwrap();
    let na = Array::from_json(r#"[["b", null, "a"], [null], []]"#, Some(&ty)).unwrap();
    assert_eq!(na.ty().to_string(), "3 * var * ?string");
    // Its values and validity split as a number option's do.
    let nulls = dynd::func::null_count(&na, &dynd::func::AxisOptions::new()).unwrap();
    assert_eq!(nulls.to_string(), "2");
    assert_eq!(sorted(&na, -1, true), r#"[["a", "b", null], [null], []]"#);
    assert_eq!(sorted(&na, -1, false), r#"[["b", "a", null], [null], []]"#);
    assert_eq!(
        argsort(&na, -1, true).unwrap().to_string(),
        "[[2, 0, 1], [0], []]"
    );
}

#[test]
fn sorted_strings_share_the_characters() {
    let block = |a: &Array| Strings::of(a).unwrap().text_block().as_ptr();
    // The pairs moved; the text block is the input's (dense and ragged).
    let x = json(r#"["pear", "apple", "fig"]"#);
    let s = sort(&x, -1, true).unwrap();
    assert_eq!(
        (s.to_string(), block(&s)),
        (r#"["apple", "fig", "pear"]"#.into(), block(&x))
    );
    let r = json(r#"[["pear", "apple"], ["fig"]]"#);
    let s = sort(&r, -1, true).unwrap();
    assert_eq!(s.to_string(), r#"[["apple", "pear"], ["fig"]]"#);
    let text = |a: &Array| match Rows::of(a).unwrap().element_arrmeta() {
        Arrmeta::Text { block } => block.as_ptr(),
        other => panic!("not text: {other:?}"),
    };
    assert_eq!(text(&s), text(&r));
}

#[test]
fn other_data_types_without_an_order_are_still_refused() {
    let c = Array::from_vec(vec![Complex::new(1.0f64, 2.0), Complex::new(0.0, 1.0)]);
    let e = argsort(&c, -1, true).unwrap_err().to_string();
    assert!(e.contains("no order"), "{e}");
}

fn call(name: &str, args: &[&Array], kw: &[(&str, &Array)]) -> Result<String, String> {
    let f = dynd::func::builtins::get(name).unwrap();
    f.call_kw(args, kw)
        .map(|r| format!("{} : {}", r, r.ty()))
        .map_err(|e| e.to_string())
}

#[test]
fn extremes_of_strings_dense_ragged_and_na() {
    // Python: max(["b", "a", "日", ""]), min(...), the index of the first max.
    let x = json(r#"["b", "a", "日", "", "日"]"#);
    assert_eq!(call("max", &[&x], &[]).unwrap(), r#""日" : string"#);
    assert_eq!(call("min", &[&x], &[]).unwrap(), r#""" : string"#);
    assert_eq!(call("argmax", &[&x], &[]).unwrap(), "2 : int64");
    assert_eq!(call("argmin", &[&x], &[]).unwrap(), "3 : int64");
    // Along either axis of a dense array.
    let m = json(r#"[["b", "z"], ["c", "a"]]"#);
    let axis = |a: i64| Array::from_scalar(a);
    assert_eq!(
        call("max", &[&m], &[("axis", &axis(0))]).unwrap(),
        r#"["c", "z"] : 2 * string"#
    );
    assert_eq!(
        call(
            "min",
            &[&m],
            &[("axis", &axis(1)), ("keepdims", &Array::from_scalar(true))]
        )
        .unwrap(),
        r#"[["b"], ["a"]] : 2 * 1 * string"#
    );
    assert_eq!(
        call("argmax", &[&m], &[("axis", &axis(0))]).unwrap(),
        "[1, 0] : 2 * int64"
    );
    // Per ragged row: NA for an empty row.
    let r = json(r#"[["b", "a"], [], ["😀", "日"]]"#);
    assert_eq!(
        call("max", &[&r], &[("axis", &axis(-1))]).unwrap(),
        r#"["b", null, "😀"] : 3 * ?string"#
    );
    assert_eq!(
        call("argmin", &[&r], &[("axis", &axis(-1))]).unwrap(),
        "[1, null, 1] : 3 * ?int64"
    );
    // NA: a group holding NA is NA unless skipped.
    let n = Array::from_json(
        r#"[["b", null], ["a"], []]"#,
        Some(&"3 * var * ?string".parse().unwrap()),
    )
    .unwrap();
    let skip = Array::from_scalar(true);
    assert_eq!(
        call("min", &[&n], &[("axis", &axis(-1))]).unwrap(),
        r#"[null, "a", null] : 3 * ?string"#
    );
    assert_eq!(
        call("min", &[&n], &[("axis", &axis(-1)), ("skip_na", &skip)]).unwrap(),
        r#"["b", "a", null] : 3 * ?string"#
    );
    assert_eq!(call("argmax", &[&n], &[]).unwrap(), "0 : int64");
    // An empty array has no extreme; numbers' keywords are refused.
    let empty = Array::from_json("[]", Some(&"0 * string".parse().unwrap())).unwrap();
    let e = call("max", &[&empty], &[]).unwrap_err();
    assert!(e.contains("at least one string"), "{e}");
    let e = call("max", &[&x], &[("initial", &Array::from_text("a"))]).unwrap_err();
    assert!(e.contains("initial"), "{e}");
}

#[test]
fn unique_and_searchsorted_of_strings() {
    // Python: sorted(set(xs)), and the counts of each.
    let x = json(r#"[["b", "a"], [], ["b", "日", ""]]"#);
    assert_eq!(
        call("unique", &[&x], &[]).unwrap(),
        r#"["", "a", "b", "日"] : 4 * string"#
    );
    let counts = Array::from_scalar(true);
    assert_eq!(
        call(
            "unique",
            &[&json(r#"["b", "a", "b"]"#)],
            &[("return_counts", &counts)]
        )
        .unwrap(),
        r#"[["a", "b"], [1, 2]] : (2 * string, 2 * int64)"#
    );
    // Per row, NA once and last.
    let n = Array::from_json(
        r#"[["b", null, "b", null], [], ["a"]]"#,
        Some(&"3 * var * ?string".parse().unwrap()),
    )
    .unwrap();
    assert_eq!(
        call("unique", &[&n], &[("axis", &Array::from_scalar(-1i64))]).unwrap(),
        r#"[["b", null], [], ["a"]] : 3 * var * ?string"#
    );
    assert_eq!(
        call("unique", &[&n], &[("return_counts", &counts)]).unwrap(),
        r#"[["a", "b", null], [1, 2, 2]] : (3 * ?string, 3 * int64)"#
    );
    // Python: [bisect.bisect_left(["a", "c", "e"], v) for v in ["b", "c", "z", ""]]
    let hay = json(r#"["a", "c", "e"]"#);
    assert_eq!(
        call(
            "searchsorted",
            &[&hay, &json(r#"["b", "c", "z", ""]"#)],
            &[]
        )
        .unwrap(),
        "[1, 1, 3, 0] : 4 * int64"
    );
    assert_eq!(
        call(
            "searchsorted",
            &[&hay, &Array::from_text("c")],
            &[("side", &Array::from_text("right"))]
        )
        .unwrap(),
        "2 : int64"
    );
    // The unique strings share the input's characters.
    let u = dynd::func::unique(&json(r#"["pear", "fig", "pear"]"#)).unwrap();
    assert_eq!(u.to_string(), r#"["fig", "pear"]"#);
}

#[test]
fn where_and_fill_na_take_strings() {
    let n = Array::from_json(
        r#"[["b", null], [], [null]]"#,
        Some(&"3 * var * ?string".parse().unwrap()),
    )
    .unwrap();
    assert_eq!(
        call("fill_na", &[&n, &Array::from_text("-")], &[]).unwrap(),
        r#"[["b", "-"], [], ["-"]] : 3 * var * string"#
    );
    let c = Array::from_vec(vec![true, false, true]);
    assert_eq!(
        call(
            "where",
            &[&c, &json(r#"["a", "日", "c"]"#), &Array::from_text("x")],
            &[]
        )
        .unwrap(),
        r#"["a", "x", "c"] : 3 * string"#
    );
}

#[test]
fn fixed_strings_order_as_the_text_they_hold() {
    // Python: sorted(["b", "日", "", "ab"]); NumPy's `S`/`U` arrays order
    // the same, their padding not part of the text.
    let fixed = |json: &str, ty: &str| {
        let x = Array::from_json(json, None).unwrap();
        dynd::nd::ArrayOps::cast(&x, &ty.parse().unwrap(), dynd::nd::ErrorMode::Overflow).unwrap()
    };
    let x = fixed(r#"["b", "日", "", "ab", "b"]"#, "5 * fixed_string[4]");
    let r = sort(&x, -1, true).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        (
            r#"["", "ab", "b", "b", "日"]"#.into(),
            "5 * fixed_string[4]".into()
        )
    );
    assert_eq!(
        argsort(&x, -1, false).unwrap().to_string(),
        "[1, 0, 4, 3, 2]"
    );
    assert_eq!(
        call("max", &[&x], &[]).unwrap(),
        r#""日" : fixed_string[4]"#
    );
    assert_eq!(call("argmin", &[&x], &[]).unwrap(), "2 : int64");
    assert_eq!(
        call("unique", &[&x], &[]).unwrap(),
        r#"["", "ab", "b", "日"] : 4 * fixed_string[4]"#
    );
    let (v, c) = dynd::func::unique_counts(&x).unwrap();
    assert_eq!(
        (v.to_string(), c.to_string()),
        (r#"["", "ab", "b", "日"]"#.into(), "[1, 1, 2, 1]".into())
    );
    let hay = fixed(r#"["a", "c", "e"]"#, "3 * fixed_string[2]");
    let at = dynd::func::searchsorted(&hay, &json(r#"["b", "e", "z"]"#), false).unwrap();
    assert_eq!(at.to_string(), "[1, 2, 3]");
    // Along an axis of a 2-d array, and NA last.
    let x = fixed(r#"[["b", "a"], ["c", null]]"#, "2 * 2 * ?fixed_string[1]");
    let r = sort(&x, 0, true).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        (
            r#"[["b", "a"], ["c", null]]"#.into(),
            "2 * 2 * ?fixed_string[1]".into()
        )
    );
    assert_eq!(sorted(&x, 1, true), r#"[["a", "b"], ["c", null]]"#);
}
