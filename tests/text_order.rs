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
