//! Comparing, joining and repeating strings elementwise: `equal`, `less`,
//! ... and `add`, `multiply` over `string`, `?string` and
//! `fixed_string[N]`, dense and ragged, a scalar string broadcast. The
//! expectations are Python's (`str` compares by code point, which is
//! UTF-8 byte order), written in as literals.

use dynd::func::{add, builtins, equal, greater, less, less_equal, multiply, not_equal, Eval};
use dynd::nd::{array, Array};

fn json(text: &str) -> Array {
    Array::from_json(text, None).unwrap()
}

fn show(r: Array) -> (String, String) {
    (r.to_string(), r.ty().to_string())
}

#[test]
fn comparisons_in_code_point_order() {
    // Python: [s < "naïve" for s in ["b", "日本語", "B", "", "naïve", "ß", "naive"]]
    let x = json(r#"["b", "日本語", "B", "", "naïve", "ß", "naive"]"#);
    let s = Array::from_text("naïve");
    assert_eq!(
        less(&x, &s).unwrap().to_string(),
        "[true, false, true, true, false, false, true]"
    );
    // [s <= "naïve" ...], [s > ...], [s == ...], [s != ...]
    assert_eq!(
        less_equal(&x, &s).unwrap().to_string(),
        "[true, false, true, true, true, false, true]"
    );
    assert_eq!(
        greater(&x, &s).unwrap().to_string(),
        "[false, true, false, false, false, true, false]"
    );
    assert_eq!(
        equal(&x, &s).unwrap().to_string(),
        "[false, false, false, false, true, false, false]"
    );
    assert_eq!(
        not_equal(&x, &s).unwrap().to_string(),
        "[true, true, true, true, false, true, true]"
    );
    // The scalar on the left: "naïve" >= s.
    let ge = builtins::GREATER_EQUAL.call(&[&s, &x]).unwrap();
    assert_eq!(
        show(ge),
        (
            "[true, false, true, true, true, false, true]".into(),
            "7 * bool".into()
        )
    );
    // Emoji (4 bytes) after every BMP character; a prefix first.
    let e = json(r#"["😀", "\uffff", "ab", "a"]"#);
    assert_eq!(
        less(&e, &json(r#"["\uffff", "😀", "a", "ab"]"#))
            .unwrap()
            .to_string(),
        "[false, true, false, true]"
    );
}

#[test]
fn ragged_rows_with_a_scalar_and_a_row_broadcast() {
    let x = json(r#"[["a", ""], [], ["日本", "a", "b"]]"#);
    assert_eq!(
        show(equal(&x, &Array::from_text("a")).unwrap()),
        (
            "[[true, false], [], [false, true, false]]".into(),
            "3 * var * bool".into()
        )
    );
    // A row of one broadcasts along each ragged row.
    let r = json(r#"[["a"], ["x"], ["b"]]"#);
    assert_eq!(
        less(&x, &r).unwrap().to_string(),
        "[[false, true], [], [false, true, false]]"
    );
    // Fixed rows against ragged rows of the same lengths: fixed.
    let y = json(r#"[["a", "b"], ["c", "d"]]"#);
    let z = Array::from_json(
        r#"[["a", "c"], ["c", "a"]]"#,
        Some(&"2 * var * string".parse().unwrap()),
    )
    .unwrap();
    assert_eq!(
        show(equal(&y, &z).unwrap()),
        (
            "[[true, false], [true, false]]".into(),
            "2 * 2 * bool".into()
        )
    );
    // Lengths that do not broadcast name the row.
    let err = equal(&x, &json(r#"["a", "b"]"#)).unwrap_err().to_string();
    assert!(err.contains("length 0") && err.contains("[1]"), "{err}");
}

#[test]
fn na_propagates_and_fixed_strings_compare_as_strings() {
    let x = Array::from_json(r#"["a", null, "c"]"#, Some(&"3 * ?string".parse().unwrap())).unwrap();
    assert_eq!(
        show(equal(&x, &Array::from_text("a")).unwrap()),
        ("[true, null, false]".into(), "3 * ?bool".into())
    );
    assert_eq!(
        show(add(&x, &Array::from_text("z")).unwrap()),
        (r#"["az", null, "cz"]"#.into(), "3 * ?string".into())
    );
    let f = Array::from_json(
        r#"["ab", "日本"]"#,
        Some(&"2 * fixed_string[8]".parse().unwrap()),
    )
    .unwrap();
    assert_eq!(
        equal(&f, &array!["ab", "ab"]).unwrap().to_string(),
        "[true, false]"
    );
    assert_eq!(
        show(add(&f, &Array::from_text("!")).unwrap()),
        (r#"["ab!", "日本!"]"#.into(), "2 * string".into())
    );
}

#[test]
fn strings_meet_numbers_with_the_signatures_listed() {
    let err = equal(&array!["a"], &array![1]).unwrap_err().to_string();
    assert!(
        err.contains("no overload accepts (string, int64)")
            && err.contains("(string, string) -> bool"),
        "{err}"
    );
}

#[test]
fn concatenation_and_repetition() {
    // Python: [a + b for a, b in zip(["a", "日", "", "ß"], ["b", "本", "", ""])]
    let a = json(r#"["a", "日", "", "ß"]"#);
    let b = json(r#"["b", "本", "", ""]"#);
    assert_eq!(
        show(add(&a, &b).unwrap()),
        (r#"["ab", "日本", "", "ß"]"#.into(), "4 * string".into())
    );
    // A scalar against ragged rows; the result has the rows' shape.
    let x = json(r#"[["x"], [], ["y", "😀"]]"#);
    assert_eq!(
        show(add(&Array::from_text(">"), &x).unwrap()),
        (
            r#"[[">x"], [], [">y", ">😀"]]"#.into(),
            "3 * var * string".into()
        )
    );
    // Python: ["ab" * 3, "日" * 2, "x" * 0, "y" * -1]
    let n = array![3i64, 2, 0, -1];
    assert_eq!(
        multiply(&json(r#"["ab", "日", "x", "y"]"#), &n)
            .unwrap()
            .to_string(),
        r#"["ababab", "日日", "", ""]"#
    );
    // A count past memory is an error naming the element, not an abort.
    let err = multiply(&json(r#"["", "ab"]"#), &array![5i64, i64::MAX])
        .unwrap_err()
        .to_string();
    assert!(err.contains("does not fit") && err.contains("[1]"), "{err}");
    // `add.reduce` joins in order.
    let joined = builtins::get("add.reduce")
        .unwrap()
        .call(&[&json(r#"["a", "b", "日"]"#)])
        .unwrap();
    assert_eq!(joined.to_string(), r#""ab日""#);
}

#[test]
fn expressions_compare_strings() {
    let x = json(r#"["apple", "kiwi", "melon", "zest"]"#);
    // A string function is computed apart; the mask around it fuses.
    let mask = (x.greater_equal("b") & x.less("n")).eval().unwrap();
    assert_eq!(mask.to_string(), "[false, true, true, false]");
    assert_eq!(
        (&x + "!").eval().unwrap().to_string(),
        r#"["apple!", "kiwi!", "melon!", "zest!"]"#
    );
}
