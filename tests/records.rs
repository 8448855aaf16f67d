//! Records: fields read as views at any depth, over fixed, `var` and
//! option dimensions, from interleaved records and from records held as
//! columns; `zip` and `with_field` against Awkward Array's answers
//! (`ak.zip`, `ak.with_field` of awkward 2.x, written in as literals);
//! Arrow record batches and struct columns in and out without copying a
//! field's buffer.

use dynd::func::{self, builtins};
use dynd::nd::{Array, ArrayOps, ErrorMode, Index};
use dynd::ndt::Type;

fn typed(text: &str, ty: &str) -> Array {
    Array::from_json(text, Some(&ty.parse::<Type>().unwrap())).unwrap()
}

/// `a` has type `ty` and the values of `text` (JSON) of that type.
#[track_caller]
fn same(a: &Array, text: &str, ty: &str) {
    assert_eq!(a.ty().to_string(), ty);
    assert_eq!(a.to_string(), typed(text, ty).to_string());
}

/// Whether `a`'s data lies in `b`'s block: a view, not a copy.
fn shares(a: &Array, b: &Array) -> bool {
    std::sync::Arc::ptr_eq(a.data_block(), b.data_block())
}

mod fields {
    use super::*;

    #[test]
    fn a_field_of_interleaved_records_is_a_strided_view() {
        let p = typed(
            r#"[{"x": 1, "y": 0.5}, {"x": 2, "y": 1.5}, {"x": 3, "y": -0.0}]"#,
            "3 * {x: int32, y: float64}",
        );
        let x = p.field("x").unwrap();
        same(&x, "[1, 2, 3]", "3 * int32");
        assert!(shares(&x, &p));
        assert_eq!(x.strides(), [16]);
        let y = p.field_at(1).unwrap();
        same(&y, "[0.5, 1.5, -0.0]", "3 * float64");
        assert_eq!(y.data_offset(), p.data_offset() + 8);
        // A view of a view: every other record's field.
        let odd = p
            .index(&[Index::slice(None, None, 2)])
            .unwrap()
            .field("y")
            .unwrap();
        same(&odd, "[0.5, -0.0]", "2 * float64");
        assert_eq!(odd.strides(), [32]);
    }

    #[test]
    fn fields_at_any_depth_under_fixed_and_var_dimensions() {
        let ty = "2 * var * {name: string, at: {x: float64, y: float64}, tags: var * string}";
        let a = typed(
            r#"[[{"name": "a", "at": {"x": 1, "y": 2}, "tags": ["p", "q"]},
                 {"name": "日本", "at": {"x": 3, "y": 4}, "tags": []}],
                []]"#,
            ty,
        );
        let at = a.field("at").unwrap();
        same(
            &at,
            r#"[[{"x": 1, "y": 2}, {"x": 3, "y": 4}], []]"#,
            "2 * var * {x: float64, y: float64}",
        );
        let y = at.field("y").unwrap();
        same(&y, "[[2, 4], []]", "2 * var * float64");
        assert!(shares(&y, &a));
        same(
            &a.field("name").unwrap(),
            r#"[["a", "日本"], []]"#,
            "2 * var * string",
        );
        same(
            &a.field("tags").unwrap(),
            r#"[[["p", "q"], []], []]"#,
            "2 * var * var * string",
        );
        // A fixed dimension inside a record, and records in fixed rows.
        let m = typed(
            r#"[[{"v": [1, 2]}, {"v": [3, 4]}], [{"v": [5, 6]}, {"v": [7, 8]}]]"#,
            "2 * 2 * {v: 2 * int8}",
        );
        same(
            &m.field("v").unwrap(),
            "[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]",
            "2 * 2 * 2 * int8",
        );
        // A 0-d record.
        let r = typed(r#"{"a": 1, "b": [1.5, 2.5]}"#, "{a: int64, b: 2 * float64}");
        same(&r.field("b").unwrap(), "[1.5, 2.5]", "2 * float64");
    }

    #[test]
    fn an_na_record_has_na_fields() {
        let a = typed(
            r#"[{"x": 1, "y": 0.5}, null, {"x": 3, "y": null}]"#,
            "3 * ?{x: int32, y: ?float64}",
        );
        same(&a.field("x").unwrap(), "[1, null, 3]", "3 * ?int32");
        same(&a.field("y").unwrap(), "[0.5, null, null]", "3 * ?float64");
        // Ragged rows of optional records with strings.
        let b = typed(
            r#"[[{"s": "a"}, null], [], [{"s": null}]]"#,
            "3 * var * ?{s: ?string}",
        );
        same(
            &b.field("s").unwrap(),
            r#"[["a", null], [], [null]]"#,
            "3 * var * ?string",
        );
        // Nested: `?{a: {b: int16}}` reads `a`, then `b`.
        let c = typed(r#"[{"a": {"b": 7}}, null]"#, "2 * ?{a: {b: int16}}");
        let ab = c.field("a").unwrap().field("b").unwrap();
        same(&ab, "[7, null]", "2 * ?int16");
    }

    #[test]
    fn tuples_by_position() {
        let t = typed(r#"[[1, "a"], [2, "b"]]"#, "2 * (int8, string)");
        same(&t.field_at(0).unwrap(), "[1, 2]", "2 * int8");
        same(&t.field("1").unwrap(), r#"["a", "b"]"#, "2 * string");
        let by_pos = builtins::get("field")
            .unwrap()
            .call(&[&t, &Array::from_scalar(1i64)])
            .unwrap();
        same(&by_pos, r#"["a", "b"]"#, "2 * string");
    }

    #[test]
    fn errors_name_the_fields_there_are() {
        let p = typed(r#"[{"x": 1, "y": 2}]"#, "1 * {x: int32, y: int32}");
        assert_eq!(
            p.field("z").unwrap_err().to_string(),
            "{x: int32, y: int32} has no field 'z'; its fields are x, y"
        );
        let t = typed("[[1, 2]]", "1 * (int8, int8)");
        assert_eq!(
            t.field_at(5).unwrap_err().to_string(),
            "(int8, int8) has no field 5; its fields are 0, 1"
        );
        assert_eq!(
            Array::from_vec(vec![1.0f64])
                .field("x")
                .unwrap_err()
                .to_string(),
            "field needs an array of records or tuples, not 1 * float64"
        );
        let f = builtins::get("field").unwrap();
        let err = f.call(&[&p, &Array::from_scalar(1.5f64)]).unwrap_err();
        assert!(
            err.to_string()
                .contains("must be a name (string) or a position"),
            "{err}"
        );
    }
}

mod columns {
    use super::*;

    #[test]
    fn a_field_of_records_held_as_columns_is_the_column() {
        let x = Array::from_vec(vec![1.0f64, 2.0, 3.0]);
        let s = typed(r#"["a", "", "日本語"]"#, "3 * string");
        let r = Array::from_columns([("x", x.clone()), ("s", s.clone())]).unwrap();
        assert!(r.is_columnar());
        assert_eq!(r.ty().to_string(), "3 * {x: float64, s: string}");
        assert_eq!(r.field("x").unwrap().data_ptr(), x.data_ptr());
        assert!(shares(&r.field("s").unwrap(), &s));
        same(
            &r,
            r#"[{"x": 1, "s": "a"}, {"x": 2, "s": ""}, {"x": 3, "s": "日本語"}]"#,
            "3 * {x: float64, s: string}",
        );
        // Views keep the columns.
        let tail = r.index(&[Index::slice(Some(1), None, 1)]).unwrap();
        assert!(tail.is_columnar());
        same(&tail.field("s").unwrap(), r#"["", "日本語"]"#, "2 * string");
        let one = r.at(2).unwrap();
        same(
            &one,
            r#"{"x": 3, "s": "日本語"}"#,
            "{x: float64, s: string}",
        );
        // Interleaved on request: equal values, one block.
        let i = r.interleaved().unwrap();
        assert!(!i.is_columnar());
        assert_eq!(i.to_string(), r.to_string());
        assert_eq!(i.field("x").unwrap().strides(), [24]);
    }

    #[test]
    fn walkers_that_read_raw_parts_see_the_interleaved_form() {
        let a = Array::from_nested(vec![vec![1i64, 2], vec![3]]).unwrap();
        let b = Array::from_nested(vec![vec![0.5f64, 1.5], vec![2.5]]).unwrap();
        let r = Array::from_columns([("a", a), ("b", b)]).unwrap();
        assert_eq!(r.len(), 2);
        // A cast, a copy and a take run on the interleaved records.
        let c = r
            .cast(
                &"2 * var * {a: float32, b: float64}".parse().unwrap(),
                ErrorMode::NoCheck,
            )
            .unwrap();
        same(
            &c,
            r#"[[{"a": 1, "b": 0.5}, {"a": 2, "b": 1.5}], [{"a": 3, "b": 2.5}]]"#,
            "2 * var * {a: float32, b: float64}",
        );
        assert_eq!(r.interleaved().unwrap().to_value(), r.to_value());
        // Writing makes the array interleaved, then writes.
        let mut w = Array::from_columns([
            ("k", Array::from_vec(vec![2i32, 1])),
            ("v", Array::from_vec(vec![20i32, 10])),
        ])
        .unwrap();
        w.assign(
            &typed(
                r#"[{"k": 5, "v": 6}, {"k": 7, "v": 8}]"#,
                "2 * {k: int32, v: int32}",
            ),
            ErrorMode::NoCheck,
        )
        .unwrap();
        assert!(!w.is_columnar());
        same(
            &w,
            r#"[{"k": 5, "v": 6}, {"k": 7, "v": 8}]"#,
            "2 * {k: int32, v: int32}",
        );
    }

    #[test]
    fn fields_with_dimensions_of_their_own() {
        let a = Array::from_vec(vec![1i32, 2, 3]);
        let z = Array::from_json(
            "[[1], [], [2, 3]]",
            Some(&"3 * var * int32".parse().unwrap()),
        )
        .unwrap();
        let r = Array::from_columns([("a", a), ("z", z.clone())]).unwrap();
        assert_eq!(r.ty().to_string(), "3 * {a: int32, z: var * int32}");
        same(
            &r,
            r#"[{"a": 1, "z": [1]}, {"a": 2, "z": []}, {"a": 3, "z": [2, 3]}]"#,
            "3 * {a: int32, z: var * int32}",
        );
        same(
            &r.interleaved().unwrap().field("z").unwrap(),
            "[[1], [], [2, 3]]",
            "3 * var * int32",
        );
        // Records inside the rows, or one per row of lists.
        let w = Array::from_json(
            "[[5], [], [6, 7]]",
            Some(&"3 * var * float64".parse().unwrap()),
        )
        .unwrap();
        let deep = Array::from_columns([("z", z.clone()), ("w", w.clone())]).unwrap();
        assert_eq!(deep.ty().to_string(), "3 * var * {z: int32, w: float64}");
        let flat = Array::from_columns_at(1, [("z", z), ("w", w)]).unwrap();
        same(
            &flat,
            r#"[{"z": [1], "w": [5]}, {"z": [], "w": []}, {"z": [2, 3], "w": [6, 7]}]"#,
            "3 * {z: var * int32, w: var * float64}",
        );
        same(
            &flat.at(2).unwrap().field("w").unwrap(),
            "[6, 7]",
            "var * float64",
        );
    }

    #[test]
    fn columns_must_agree_in_dimensions_and_rows() {
        let err = Array::from_columns([
            ("a", Array::from_vec(vec![1i64, 2])),
            ("b", Array::from_vec(vec![1i64, 2, 3])),
        ])
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the fields of a record array need the same dimensions: field 'b' is 3 * int64 \
             where field 'a' is 2 * int64"
        );
        let err = Array::from_columns([
            (
                "a",
                Array::from_nested(vec![vec![1i64, 2], vec![3]]).unwrap(),
            ),
            (
                "b",
                Array::from_nested(vec![vec![1i64, 2], vec![3, 4]]).unwrap(),
            ),
        ])
        .unwrap_err();
        assert!(
            err.to_string()
                .ends_with("(row [1] has 2 element(s) in field 'b' and 1 in field 'a')"),
            "{err}"
        );
        let none: [(&str, Array); 0] = [];
        assert!(Array::from_columns(none).is_err());
        let dup = Array::from_columns([
            ("a", Array::from_vec(vec![1i64])),
            ("a", Array::from_vec(vec![2i64])),
        ]);
        assert!(dup.is_err());
    }
}

/// `ak.zip` and `ak.with_field`, awkward 2.x; the comments give the call.
mod zip {
    use super::*;

    fn zip(arrays: &[&str], names: Option<&[&str]>) -> Array {
        let arrays: Vec<Array> = arrays
            .iter()
            .map(|t| Array::from_json(t, None).unwrap())
            .collect();
        let refs: Vec<&Array> = arrays.iter().collect();
        func::zip(&refs, names).unwrap()
    }

    #[test]
    fn scalars_and_shallow_arrays_line_up_with_the_outer_rows() {
        // ak.zip({"a": [1, 2, 3], "b": [[1.5], [], [2.5, 3.5]]})
        same(
            &zip(&["[1, 2, 3]", "[[1.5], [], [2.5, 3.5]]"], Some(&["a", "b"])),
            r#"[[{"a": 1, "b": 1.5}], [], [{"a": 3, "b": 2.5}, {"a": 3, "b": 3.5}]]"#,
            "3 * var * {a: int64, b: float64}",
        );
        // ak.zip({"a": 5, "b": [[1], [2, 3]]})
        same(
            &zip(&["5", "[[1], [2, 3]]"], Some(&["a", "b"])),
            r#"[[{"a": 5, "b": 1}], [{"a": 5, "b": 2}, {"a": 5, "b": 3}]]"#,
            "2 * var * {a: int64, b: int64}",
        );
        // ak.zip({"a": [[[1], [2, 3]], []], "b": [10, 20]})
        same(
            &zip(&["[[[1], [2, 3]], []]", "[10, 20]"], Some(&["a", "b"])),
            r#"[[[{"a": 1, "b": 10}], [{"a": 2, "b": 10}, {"a": 3, "b": 10}]], []]"#,
            "2 * var * var * {a: int64, b: int64}",
        );
        // ak.zip({"a": [[[1], [2, 3]], [[4]]], "b": [[10, 20], [30]]})
        same(
            &zip(
                &["[[[1], [2, 3]], [[4]]]", "[[10, 20], [30]]"],
                Some(&["a", "b"]),
            ),
            r#"[[[{"a": 1, "b": 10}], [{"a": 2, "b": 20}, {"a": 3, "b": 20}]], [[{"a": 4, "b": 30}]]]"#,
            "2 * var * var * {a: int64, b: int64}",
        );
    }

    #[test]
    fn equal_rows_are_the_arrays_themselves() {
        // ak.zip({"x": [[1, 2], [3]], "y": [[4, 5], [6]]})
        let x = Array::from_json("[[1, 2], [3]]", None).unwrap();
        let y = Array::from_json("[[4, 5], [6]]", None).unwrap();
        let r = func::zip(&[&x, &y], Some(&["x", "y"])).unwrap();
        same(
            &r,
            r#"[[{"x": 1, "y": 4}, {"x": 2, "y": 5}], [{"x": 3, "y": 6}]]"#,
            "2 * var * {x: int64, y: int64}",
        );
        assert!(shares(&r.field("x").unwrap(), &x));
        assert!(shares(&r.field("y").unwrap(), &y));
        // ak.zip([[1, 2], [[3], [4, 5]]]): tuples without names.
        same(
            &zip(&["[1, 2]", "[[3], [4, 5]]"], None),
            "[[[1, 3]], [[2, 4], [2, 5]]]",
            "2 * var * (int64, int64)",
        );
    }

    #[test]
    fn fixed_dimensions_broadcast_as_numpy_does() {
        // Awkward refuses this (regular dimensions of other lengths);
        // NumPy's rule lines them up from the right.
        same(
            &zip(&["[[1, 2], [3, 4]]", "[10, 20]"], Some(&["a", "b"])),
            r#"[[{"a": 1, "b": 10}, {"a": 2, "b": 20}], [{"a": 3, "b": 10}, {"a": 4, "b": 20}]]"#,
            "2 * 2 * {a: int64, b: int64}",
        );
    }

    #[test]
    fn rows_that_do_not_broadcast_are_an_error() {
        // ak.zip({"a": [[1, 2], [3]], "b": [[1, 2, 3], [4]]}): "cannot broadcast nested list"
        let a = Array::from_json("[[1, 2], [3]]", None).unwrap();
        let b = Array::from_json("[[1, 2, 3], [4]]", None).unwrap();
        let err = func::zip(&[&a, &b], Some(&["a", "b"])).unwrap_err();
        assert!(err.to_string().contains("at index [0]"), "{err}");
        let err = func::zip(&[&a, &b], Some(&["a"])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "zip: fields must be one name per array, not 1 name(s) for 2 array(s)"
        );
    }

    #[test]
    fn with_field_adds_or_replaces() {
        let a = Array::from_json("[[1, 2], [3]]", None).unwrap();
        let r = func::zip(&[&a], Some(&["a"])).unwrap();
        // ak.with_field(ak.zip({"a": [[1, 2], [3]]}), [10, 20], "b")
        same(
            &func::with_field(&r, &Array::from_json("[10, 20]", None).unwrap(), "b").unwrap(),
            r#"[[{"a": 1, "b": 10}, {"a": 2, "b": 10}], [{"a": 3, "b": 20}]]"#,
            "2 * var * {a: int64, b: int64}",
        );
        // ak.with_field(ak.zip({"a": [[1, 2], [3]], "b": [[0.5, 1], [2]]}), [[7, 8], [9]], "a")
        let b = Array::from_json("[[0.5, 1], [2]]", None).unwrap();
        let r = func::zip(&[&a, &b], Some(&["a", "b"])).unwrap();
        let w =
            func::with_field(&r, &Array::from_json("[[7, 8], [9]]", None).unwrap(), "a").unwrap();
        same(
            &w,
            r#"[[{"a": 7, "b": 0.5}, {"a": 8, "b": 1.0}], [{"a": 9, "b": 2.0}]]"#,
            "2 * var * {a: int64, b: float64}",
        );
        assert!(shares(&w.field("b").unwrap(), &b));
        // On interleaved records: the kept fields are views of them.
        let p = typed(
            r#"[{"x": 1, "y": 2}, {"x": 3, "y": 4}]"#,
            "2 * {x: int32, y: int32}",
        );
        let q = func::with_field(&p, &Array::from_scalar(true), "ok").unwrap();
        same(
            &q,
            r#"[{"x": 1, "y": 2, "ok": true}, {"x": 3, "y": 4, "ok": true}]"#,
            "2 * {x: int32, y: int32, ok: bool}",
        );
        assert!(shares(&q.field("y").unwrap(), &p));
    }
}

/// Arrow's struct columns and record batches come in as records held as
/// columns and go out again; every field's buffer is the one it was.
#[cfg(feature = "arrow")]
mod arrow {
    use std::sync::Arc;

    use dynd::nd::arrow_interop::arrow_array::{
        cast::AsArray, types::Float64Type, types::Int32Type, ArrayRef, Float64Array, Int32Array,
        ListArray, RecordBatch, StringArray, StructArray,
    };
    use dynd::nd::arrow_interop::arrow_buffer::OffsetBuffer;
    use dynd::nd::arrow_interop::arrow_schema::{DataType, Field, Fields};
    use dynd::nd::ToArrow;

    use super::*;

    fn batch() -> RecordBatch {
        let x: ArrayRef = Arc::new(Float64Array::from(vec![1.5, -0.0, 3.0]));
        let k: ArrayRef = Arc::new(Int32Array::from(vec![7, 8, 9]));
        let s: ArrayRef = Arc::new(StringArray::from(vec!["a", "", "日本語"]));
        RecordBatch::try_from_iter([("x", x), ("k", k), ("s", s)]).unwrap()
    }

    #[test]
    fn a_record_batch_in_and_out_shares_every_buffer() {
        let b = batch();
        let r = Array::from_record_batch(&b).unwrap();
        assert!(r.is_columnar());
        assert_eq!(r.ty().to_string(), "3 * {x: float64, k: int32, s: string}");
        let x_in = b.column(0).as_primitive::<Float64Type>().values().as_ptr();
        let k_in = b.column(1).as_primitive::<Int32Type>().values().as_ptr();
        let s_in = b.column(2).as_string::<i32>().values().as_ptr();
        assert_eq!(r.field("x").unwrap().data_ptr(), x_in as *const u8);
        assert_eq!(r.field("k").unwrap().data_ptr(), k_in as *const u8);
        let out = r.to_record_batch().unwrap();
        assert_eq!(out.schema().field(0).name(), "x");
        assert_eq!(
            out.column(0)
                .as_primitive::<Float64Type>()
                .values()
                .as_ptr(),
            x_in
        );
        assert_eq!(
            out.column(1).as_primitive::<Int32Type>().values().as_ptr(),
            k_in
        );
        assert_eq!(out.column(2).as_string::<i32>().values().as_ptr(), s_in);
        // A field alone, out again: the same buffer.
        let x = r.field("x").unwrap().to_arrow().unwrap();
        assert_eq!(x.as_primitive::<Float64Type>().values().as_ptr(), x_in);
        // As one struct column.
        let st = r.to_arrow().unwrap();
        let st = st.as_struct();
        assert_eq!(
            st.column(1).as_primitive::<Int32Type>().values().as_ptr(),
            k_in
        );
    }

    #[test]
    fn a_list_of_structs_in_and_out_shares_the_fields_values() {
        let x = Float64Array::from(vec![1.0, 2.0, 3.0]);
        let k = Int32Array::from(vec![10, 20, 30]);
        let fields = Fields::from(vec![
            Field::new("x", DataType::Float64, false),
            Field::new("k", DataType::Int32, false),
        ]);
        let st = StructArray::new(
            fields.clone(),
            vec![Arc::new(x.clone()) as ArrayRef, Arc::new(k.clone())],
            None,
        );
        let item = Arc::new(Field::new("item", DataType::Struct(fields), false));
        let lists = ListArray::new(
            item,
            OffsetBuffer::new(vec![0, 2, 2, 3].into()),
            Arc::new(st),
            None,
        );
        let a = Array::from_arrow(&lists).unwrap();
        assert!(a.is_columnar());
        same(
            &a,
            r#"[[{"x": 1, "k": 10}, {"x": 2, "k": 20}], [], [{"x": 3, "k": 30}]]"#,
            "3 * var * {x: float64, k: int32}",
        );
        let back = a.to_arrow().unwrap();
        let back = back.as_list::<i32>();
        assert_eq!(back.value_offsets(), [0, 2, 2, 3]);
        let values = back.values().as_struct();
        assert_eq!(
            values
                .column(0)
                .as_primitive::<Float64Type>()
                .values()
                .as_ptr(),
            x.values().as_ptr()
        );
        assert_eq!(
            values
                .column(1)
                .as_primitive::<Int32Type>()
                .values()
                .as_ptr(),
            k.values().as_ptr()
        );
    }

    #[test]
    fn null_records_and_interleaved_records() {
        // A struct with null records is `?{...}`: one record per element.
        let x = Int32Array::from(vec![1, 2]);
        let fields = Fields::from(vec![Field::new("x", DataType::Int32, false)]);
        let st = StructArray::new(
            fields,
            vec![Arc::new(x) as ArrayRef],
            Some(vec![true, false].into()),
        );
        let a = Array::from_arrow(&st).unwrap();
        same(&a, r#"[{"x": 1}, null]"#, "2 * ?{x: int32}");
        same(&a.field("x").unwrap(), "[1, null]", "2 * ?int32");
        // Interleaved records go out as a struct of their fields.
        let p = typed(r#"[{"x": 1, "y": 2.5}]"#, "1 * {x: int32, y: float64}");
        let out = p.to_record_batch().unwrap();
        assert_eq!(out.column(1).as_primitive::<Float64Type>().value(0), 2.5);
    }
}

/// Lexicographic order by field order, each field in its type's order;
/// the expectations are NumPy's for structured arrays (`np.sort`,
/// `np.argsort(kind="stable")`, `np.unique`, `np.searchsorted` of numpy
/// 2.x), and Python's `sorted` with NA last where NumPy has no NA.
mod order {
    use super::*;
    use dynd::func::{
        argmax, argmin, argsort, searchsorted, sort, unique, unique_counts, unique_rows,
    };

    fn records() -> Array {
        typed(
            r#"[{"x": 1.0, "s": "b"}, {"x": NaN, "s": "a"}, {"x": -0.0, "s": "z"}, {"x": 0.0, "s": "y"},
                {"x": 1.0, "s": "a"}, {"x": -1.0, "s": "q"}, {"x": NaN, "s": ""}]"#,
            "7 * {x: float64, s: string}",
        )
    }

    #[test]
    fn nan_last_zeros_equal_then_the_next_field() {
        let a = records();
        assert_eq!(
            argsort(&a, -1, true).unwrap().to_string(),
            "[5, 3, 2, 4, 0, 6, 1]"
        );
        same(
            &sort(&a, -1, true).unwrap(),
            r#"[{"x": -1, "s": "q"}, {"x": 0, "s": "y"}, {"x": -0.0, "s": "z"}, {"x": 1, "s": "a"},
                {"x": 1, "s": "b"}, {"x": NaN, "s": ""}, {"x": NaN, "s": "a"}]"#,
            "7 * {x: float64, s: string}",
        );
        // Descending as numbers sort descending: NaN still last, equal
        // records in their order.
        assert_eq!(
            argsort(&a, -1, false).unwrap().to_string(),
            "[0, 4, 2, 3, 5, 1, 6]"
        );
        assert_eq!(argmax(&a, None, false).unwrap().to_string(), "1");
        assert_eq!(argmin(&a, None, false).unwrap().to_string(), "5");
        // The same records held as columns order the same.
        let c = Array::from_columns([("x", a.field("x").unwrap()), ("s", a.field("s").unwrap())])
            .unwrap();
        assert_eq!(
            argsort(&c, -1, true).unwrap().to_string(),
            "[5, 3, 2, 4, 0, 6, 1]"
        );
        assert!(sort(&c, -1, true).unwrap().is_columnar());
    }

    #[test]
    fn unique_counts_and_search() {
        let b = typed(
            r#"[{"k": 2, "v": 1.5}, {"k": 1, "v": 2.5}, {"k": 2, "v": -0.0}, {"k": 1, "v": 2.5}, {"k": 2, "v": 0.0}]"#,
            "5 * {k: int64, v: float64}",
        );
        assert_eq!(argsort(&b, 0, true).unwrap().to_string(), "[1, 3, 2, 4, 0]");
        let (u, n) = unique_counts(&b).unwrap();
        same(
            &u,
            r#"[{"k": 1, "v": 2.5}, {"k": 2, "v": -0.0}, {"k": 2, "v": 1.5}]"#,
            "3 * {k: int64, v: float64}",
        );
        assert_eq!(n.to_string(), "[2, 2, 1]");
        let sorted = sort(&b, 0, true).unwrap();
        let needles = typed(
            r#"[{"k": 1, "v": 2.5}, {"k": 2, "v": 0.0}, {"k": 3, "v": 0.0}]"#,
            "3 * {k: int64, v: float64}",
        );
        assert_eq!(
            searchsorted(&sorted, &needles, false).unwrap().to_string(),
            "[0, 2, 5]"
        );
        assert_eq!(
            searchsorted(&sorted, &needles, true).unwrap().to_string(),
            "[2, 4, 5]"
        );
        // Equality: every field equal; -0.0 equals 0.0.
        let eq = builtins::get("equal").unwrap();
        let one = b.at(1).unwrap();
        assert_eq!(
            eq.call(&[&b, &one]).unwrap().to_string(),
            "[false, true, false, true, false]"
        );
        let ne = builtins::get("not_equal").unwrap();
        assert_eq!(
            ne.call(&[&b, &one]).unwrap().to_string(),
            "[true, false, true, false, true]"
        );
        assert_eq!(
            eq.call(&[&b.at(2).unwrap(), &b.at(4).unwrap()])
                .unwrap()
                .to_string(),
            "true"
        );
    }

    #[test]
    fn along_either_axis_of_a_dense_array() {
        let m = typed(
            r#"[[{"k": 2, "v": 1.0}, {"k": 1, "v": 5.0}, {"k": 2, "v": 0.5}],
                [{"k": 0, "v": 0.0}, {"k": 0, "v": -1.0}, {"k": 3, "v": 3.0}]]"#,
            "2 * 3 * {k: int64, v: float64}",
        );
        assert_eq!(
            argsort(&m, 0, true).unwrap().to_string(),
            "[[1, 1, 0], [0, 0, 1]]"
        );
        assert_eq!(
            argsort(&m, 1, true).unwrap().to_string(),
            "[[1, 2, 0], [1, 0, 2]]"
        );
        same(
            &sort(&m, 1, true).unwrap(),
            r#"[[{"k": 1, "v": 5}, {"k": 2, "v": 0.5}, {"k": 2, "v": 1}],
                [{"k": 0, "v": -1}, {"k": 0, "v": 0}, {"k": 3, "v": 3}]]"#,
            "2 * 3 * {k: int64, v: float64}",
        );
        let max = builtins::get("max").unwrap();
        same(
            &max.call_kw(&[&m], &[("axis", &Array::from_scalar(1i64))])
                .unwrap(),
            r#"[{"k": 2, "v": 1}, {"k": 3, "v": 3}]"#,
            "2 * {k: int64, v: float64}",
        );
    }

    #[test]
    fn per_ragged_row_with_na_and_strings() {
        let r = typed(
            r#"[[{"n": "b", "w": 1}, {"n": null, "w": 0}, {"n": "a", "w": 2}, {"n": "b", "w": 1}],
                [],
                [{"n": "日本", "w": null}, {"n": "日本", "w": 3}]]"#,
            "3 * var * {n: ?string, w: ?int32}",
        );
        same(
            &sort(&r, -1, true).unwrap(),
            r#"[[{"n": "a", "w": 2}, {"n": "b", "w": 1}, {"n": "b", "w": 1}, {"n": null, "w": 0}],
                [],
                [{"n": "日本", "w": 3}, {"n": "日本", "w": null}]]"#,
            "3 * var * {n: ?string, w: ?int32}",
        );
        assert_eq!(
            argsort(&r, -1, true).unwrap().to_string(),
            "[[2, 0, 3, 1], [], [1, 0]]"
        );
        same(
            &unique_rows(&r).unwrap(),
            r#"[[{"n": "a", "w": 2}, {"n": "b", "w": 1}, {"n": null, "w": 0}], [], [{"n": "日本", "w": 3}, {"n": "日本", "w": null}]]"#,
            "3 * var * {n: ?string, w: ?int32}",
        );
        let min = builtins::get("min").unwrap();
        same(
            &min.call_kw(&[&r], &[("axis", &Array::from_scalar(1i64))])
                .unwrap(),
            r#"[{"n": "a", "w": 2}, null, {"n": "日本", "w": 3}]"#,
            "3 * ?{n: ?string, w: ?int32}",
        );
        assert_eq!(unique(&r).unwrap().len(), 5);
    }

    #[test]
    fn optional_records_and_unordered_fields() {
        let o = typed(r#"[{"x": 2}, null, {"x": 1}]"#, "3 * ?{x: int8}");
        same(
            &sort(&o, 0, true).unwrap(),
            r#"[{"x": 1}, {"x": 2}, null]"#,
            "3 * ?{x: int8}",
        );
        assert_eq!(o.is_na().unwrap().to_string(), "[false, true, false]");
        assert_eq!(o.null_count().unwrap(), 1);
        let c = typed(r#"[{"z": [1, 2]}]"#, "1 * {z: complex[float64]}");
        let err = sort(&c, 0, true).unwrap_err();
        assert!(
            err.to_string()
                .contains("ordering records with a field of this type"),
            "{err}"
        );
    }
}

/// Files as record arrays: written and read back, every value and type
/// kept; a CSV's types inferred; errors name the file.
#[cfg(all(feature = "parquet", feature = "csv", feature = "ipc"))]
mod files {
    use super::*;
    use dynd::nd::{
        read_csv, read_ipc, read_parquet, write_ipc, write_parquet, CsvOptions, ToArrow,
    };

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("dynd-records-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn sample() -> Array {
        typed(
            r#"[{"id": 1, "x": 0.5, "name": "a", "tags": [1, 2], "ok": true, "w": null},
                {"id": 2, "x": -0.0, "name": "日本語", "tags": [], "ok": false, "w": 7},
                {"id": 3, "x": NaN, "name": "", "tags": [3], "ok": true, "w": -1}]"#,
            "3 * {id: int64, x: float64, name: string, tags: var * int32, ok: bool, w: ?int16}",
        )
    }

    #[test]
    fn parquet_and_ipc_round_trip() {
        let d = dir("round");
        let a = sample();
        type Write = fn(&std::path::Path, &Array) -> Result<(), dynd::Error>;
        type Read = fn(&std::path::Path) -> Result<Array, dynd::Error>;
        let cases: [(std::path::PathBuf, Write, Read); 2] = [
            (
                d.join("a.parquet"),
                |p, a| write_parquet(p, a),
                |p| read_parquet(p),
            ),
            (d.join("a.arrow"), |p, a| write_ipc(p, a), |p| read_ipc(p)),
        ];
        for (path, write, read) in cases {
            write(&path, &a).unwrap();
            let back = read(&path).unwrap();
            assert!(back.is_columnar());
            assert_eq!(back.ty(), a.ty(), "{}", path.display());
            assert_eq!(back.to_string(), a.to_string());
            // A field of what came back is a plain column.
            assert_eq!(back.field("x").unwrap().strides(), [8]);
        }
        // Columns written from records held as columns.
        let cols = Array::from_record_batch(&a.to_record_batch().unwrap()).unwrap();
        write_parquet(d.join("c.parquet"), &cols).unwrap();
        assert_eq!(
            read_parquet(d.join("c.parquet")).unwrap().to_string(),
            a.to_string()
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn csv_types_are_inferred() {
        let d = dir("csv");
        let path = d.join("t.csv");
        std::fs::write(&path, "city,km,open\nLyon,12.5,true\nOrsay,,false\n").unwrap();
        let t = read_csv(&path, &CsvOptions::default()).unwrap();
        assert_eq!(
            t.ty().to_string(),
            "2 * {city: string, km: ?float64, open: bool}"
        );
        assert_eq!(t.field("km").unwrap().to_string(), "[12.5, null]");
        let semi = d.join("s.csv");
        std::fs::write(&semi, "1;2\n3;4\n").unwrap();
        let opts = CsvOptions {
            header: false,
            delimiter: b';',
            ..CsvOptions::default()
        };
        let s = read_csv(&semi, &opts).unwrap();
        assert_eq!(s.ty().to_string(), "2 * {column_1: int64, column_2: int64}");
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn errors_name_the_file() {
        let d = dir("err");
        let path = d.join("nope.parquet");
        let err = read_parquet(&path).unwrap_err().to_string();
        assert!(err.contains("nope.parquet"), "{err}");
        std::fs::write(&path, b"not parquet").unwrap();
        let err = read_parquet(&path).unwrap_err().to_string();
        assert!(err.contains("nope.parquet"), "{err}");
        // Something that is not records cannot be written as a table.
        let err = write_ipc(d.join("x.arrow"), &Array::from_vec(vec![1.0f64])).unwrap_err();
        assert!(err.to_string().contains("struct"), "{err}");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
