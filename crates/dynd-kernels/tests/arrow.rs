//! Arrow arrays in and out: every layout, sliced arrays, nulls, shared
//! buffers (by address), record batches, and the errors.
#![cfg(feature = "arrow")]

use dynd_kernels::ArrayOps;
use dynd_kernels::ToArrow;
use std::sync::Arc;

use dynd_kernels::arrow_interop::arrow_array::builder::{
    FixedSizeListBuilder, Int32Builder, ListBuilder, StringBuilder,
};
use dynd_kernels::arrow_interop::arrow_array::cast::AsArray;
use dynd_kernels::arrow_interop::arrow_array::types::{
    Float16Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type,
    UInt32Type, UInt64Type, UInt8Type,
};
use dynd_kernels::arrow_interop::arrow_array::{
    Array as _, ArrayRef, ArrowPrimitiveType, BinaryArray, BooleanArray, Date64Array,
    Decimal128Array, DictionaryArray, FixedSizeListArray, Float16Array, Float64Array, Int32Array,
    LargeBinaryArray, LargeListArray, LargeStringArray, ListArray, ListViewArray, PrimitiveArray,
    RecordBatch, StringArray, StringViewArray, StructArray, UInt8Array,
};
use dynd_kernels::arrow_interop::arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use dynd_kernels::arrow_interop::arrow_schema::{DataType, Field, Fields, Schema};
use dynd_kernels::arrow_interop::{
    arrow_type, columns_from_record_batch, dynd_type, record_batch_from_columns,
};
use dynd_kernels::{Array, ErrorMode, Index};
use proptest::prelude::*;

fn t(s: &str) -> dynd_kernels::types::Type {
    s.parse().unwrap()
}

fn json(a: &Array) -> String {
    a.to_json()
}

/// The same values, nulls and layout types (a field's nullability follows
/// the data: a nullable Arrow field without nulls comes back not nullable).
fn same(a: &ArrayRef, b: &dyn dynd_kernels::arrow_interop::arrow_array::Array) {
    let norm = |s: String| {
        s.replace(", nullable: true", "")
            .replace(", nullable: false", "")
    };
    assert_eq!(norm(format!("{a:?}")), norm(format!("{b:?}")));
    assert_eq!(a.null_count(), b.null_count());
    assert_eq!(
        norm(format!("{:?}", a.data_type())),
        norm(format!("{:?}", b.data_type()))
    );
}

#[test]
fn primitives_share_their_buffers_both_ways() {
    macro_rules! case {
        ($t:ty, $vals:expr, $dynd:expr) => {{
            let arrow = PrimitiveArray::<$t>::from_iter_values($vals);
            let a = Array::from_arrow(&arrow).unwrap();
            assert_eq!(a.ty().to_string(), format!("{} * {}", arrow.len(), $dynd));
            assert_eq!(
                a.data_block().as_ptr().wrapping_add(a.data_offset()),
                arrow.values().as_ptr() as *const u8,
                "{} in",
                $dynd
            );
            let back = a.to_arrow().unwrap();
            same(&back, &arrow);
            assert_eq!(
                back.as_primitive::<$t>().values().as_ptr(),
                arrow.values().as_ptr(),
                "{} out",
                $dynd
            );
        }};
    }
    case!(Int8Type, [1i8, -2, 3], "int8");
    case!(Int16Type, [1i16, -2, 3], "int16");
    case!(Int32Type, [1i32, -2, 3], "int32");
    case!(Int64Type, [1i64, -2, i64::MAX], "int64");
    case!(UInt8Type, [1u8, 2, 255], "uint8");
    case!(UInt16Type, [1u16, 2, 3], "uint16");
    case!(UInt32Type, [1u32, 2, 3], "uint32");
    case!(UInt64Type, [1u64, 2, u64::MAX], "uint64");
    case!(Float32Type, [1.5f32, -0.0, f32::NAN], "float32");
    case!(Float64Type, [1.5f64, f64::INFINITY, 3.0], "float64");

    type H = <Float16Type as ArrowPrimitiveType>::Native;
    let h = Float16Array::from(vec![H::from_f32(1.5), H::from_f32(-2.0)]);
    let a = Array::from_arrow(&h).unwrap();
    assert_eq!(a.ty().to_string(), "2 * float16");
    assert_eq!(a.to_string(), "[1.5, -2]");
    same(&a.to_arrow().unwrap(), &h);
}

#[test]
fn a_dynd_result_goes_out_without_a_copy_and_stays_read_only() {
    let a = Array::from_vec(vec![1.0f64, 2.0, 3.0]);
    let at = a.data_block().as_ptr();
    let arrow = a.to_arrow().unwrap();
    assert_eq!(
        arrow.as_primitive::<Float64Type>().values().as_ptr() as *const u8,
        at
    );
    // The block is shared with Arrow now: writing copies first.
    let mut a = a;
    a.assign(&Array::from_scalar(9.0), ErrorMode::Fractional)
        .unwrap();
    assert_eq!(a.to_string(), "[9, 9, 9]");
    assert_ne!(a.data_block().as_ptr(), at);
    assert_eq!(
        arrow.as_primitive::<Float64Type>().values(),
        &[1.0, 2.0, 3.0]
    );
    // And the Arrow buffer outlives the dynd array.
    drop(a);
    assert_eq!(arrow.as_primitive::<Float64Type>().value(2), 3.0);
}

#[test]
fn sliced_primitive_arrays_start_at_their_offset() {
    let arrow = Int32Array::from_iter_values(0..10);
    let s = arrow.slice(3, 4);
    let a = Array::from_arrow(&s).unwrap();
    assert_eq!(a.to_string(), "[3, 4, 5, 6]");
    assert_eq!(
        a.data_block().as_ptr().wrapping_add(a.data_offset()),
        arrow.values().as_ptr().wrapping_add(3) as *const u8
    );
}

#[test]
fn strided_and_reversed_views_are_copied_out() {
    let a = Array::from_vec((0..6).map(f64::from).collect());
    let r = a.index(&[Index::slice(None, None, -2)]).unwrap();
    let arrow = r.to_arrow().unwrap();
    assert_eq!(
        arrow.as_primitive::<Float64Type>().values(),
        &[5.0, 3.0, 1.0]
    );
}

#[test]
fn nulls_become_options_and_back() {
    let arrow = Int32Array::from(vec![Some(1), None, Some(3), None]);
    let a = Array::from_arrow(&arrow).unwrap();
    assert_eq!(a.ty().to_string(), "4 * ?int32");
    assert_eq!(json(&a), "[1, null, 3, null]");
    same(&a.to_arrow().unwrap(), &arrow);

    let f = Float64Array::from(vec![None, Some(f64::NAN), Some(2.5)]);
    let a = Array::from_arrow(&f).unwrap();
    assert_eq!(json(&a), "[null, \"NaN\", 2.5]");
    let back = a.to_arrow().unwrap();
    assert_eq!(back.null_count(), 1);
    assert!(back.as_primitive::<Float64Type>().value(1).is_nan());

    // A sliced array's nulls are its own.
    let s = arrow.slice(1, 2);
    assert_eq!(json(&Array::from_arrow(&s).unwrap()), "[null, 3]");

    // A dynd option array with no NA is still nullable on the way out.
    let o = Array::from_json("[1, 2]", Some(&t("2 * ?int64"))).unwrap();
    let batch = record_batch_from_columns(&[("x", &o)]).unwrap();
    assert!(batch.schema().field(0).is_nullable());
    assert_eq!(batch.column(0).null_count(), 0);
}

#[test]
fn booleans_are_unpacked_and_packed() {
    let arrow = BooleanArray::from(vec![Some(true), None, Some(false), Some(true)]);
    let a = Array::from_arrow(&arrow).unwrap();
    assert_eq!(a.ty().to_string(), "4 * ?bool");
    assert_eq!(json(&a), "[true, null, false, true]");
    same(&a.to_arrow().unwrap(), &arrow);
    let plain = BooleanArray::from(vec![false, true, true]).slice(1, 2);
    let a = Array::from_arrow(&plain).unwrap();
    assert_eq!(json(&a), "[true, true]");
    same(&a.to_arrow().unwrap(), &plain);
}

#[test]
fn strings_share_their_characters() {
    let arrow = StringArray::from(vec![Some("héllo"), None, Some(""), Some("wörld")]);
    let a = Array::from_arrow(&arrow).unwrap();
    assert_eq!(a.ty().to_string(), "4 * ?string");
    assert_eq!(json(&a), r#"["héllo", null, "", "wörld"]"#);
    same(&a.to_arrow().unwrap(), &arrow);

    let plain = StringArray::from(vec!["ab", "cde", "f"]);
    let a = Array::from_arrow(&plain).unwrap();
    let back = a.to_arrow().unwrap();
    same(&back, &plain);
    assert_eq!(
        back.as_string::<i32>().values().as_ptr(),
        plain.values().as_ptr()
    );

    // Sliced: the offsets are absolute, into the same characters.
    let s = plain.slice(1, 2);
    let a = Array::from_arrow(&s).unwrap();
    assert_eq!(json(&a), r#"["cde", "f"]"#);
    same(&a.to_arrow().unwrap(), &s);

    for arrow in [
        Arc::new(LargeStringArray::from(vec!["x", "yz"])) as ArrayRef,
        Arc::new(StringViewArray::from(vec![
            "a string longer than twelve bytes",
            "short",
        ])),
    ] {
        let a = Array::from_arrow(arrow.as_ref()).unwrap();
        assert_eq!(a.dtype().to_string(), "string", "{}", arrow.data_type());
        let back = a.to_arrow().unwrap();
        assert_eq!(back.data_type(), &DataType::Utf8);
        let back = back.as_string::<i32>();
        let expect: Vec<String> = (0..arrow.len())
            .map(|i| match arrow.data_type() {
                DataType::LargeUtf8 => arrow.as_string::<i64>().value(i).to_string(),
                _ => arrow.as_string_view().value(i).to_string(),
            })
            .collect();
        assert_eq!(back.iter().flatten().collect::<Vec<_>>(), expect);
    }

    let bin = BinaryArray::from(vec![&b"\x00\x01"[..], b"", b"\xff"]);
    let a = Array::from_arrow(&bin).unwrap();
    assert_eq!(a.ty().to_string(), "3 * bytes");
    same(&a.to_arrow().unwrap(), &bin);
    let large = LargeBinaryArray::from(vec![&b"ab"[..]]);
    assert_eq!(
        Array::from_arrow(&large).unwrap().ty().to_string(),
        "1 * bytes"
    );
}

#[test]
fn dynd_strings_not_end_to_end_are_copied_out() {
    let a = Array::from_json(r#"["a", "bb", "ccc", "dddd"]"#, None).unwrap();
    let r = a.index(&[Index::slice(None, None, -1)]).unwrap();
    let back = r.to_arrow().unwrap();
    let back = back.as_string::<i32>();
    assert_eq!(
        back.iter().flatten().collect::<Vec<_>>(),
        ["dddd", "ccc", "bb", "a"]
    );
}

fn list_of(rows: &[Option<Vec<Option<i32>>>]) -> ListArray {
    ListArray::from_iter_primitive::<Int32Type, _, _>(rows.iter().cloned())
}

#[test]
fn lists_are_var_dimensions_sharing_the_values() {
    let arrow = list_of(&[
        Some(vec![Some(1), Some(2)]),
        Some(vec![]),
        Some(vec![Some(3), Some(4), Some(5)]),
    ]);
    let a = Array::from_arrow(&arrow).unwrap();
    assert_eq!(a.ty().to_string(), "3 * var * int32");
    assert_eq!(a.to_string(), "[[1, 2], [], [3, 4, 5]]");
    let (values, _) = a.to_offsets().unwrap();
    let arrow_values = arrow.values().as_primitive::<Int32Type>().values().as_ptr();
    assert_eq!(
        values
            .data_block()
            .as_ptr()
            .wrapping_add(values.data_offset()),
        arrow_values as *const u8
    );
    let back = a.to_arrow().unwrap();
    same(&back, &arrow);
    assert_eq!(
        back.as_list::<i32>()
            .values()
            .as_primitive::<Int32Type>()
            .values()
            .as_ptr(),
        arrow_values
    );

    // Sliced: offsets[0] > 0, values shared from there.
    let s = arrow.slice(1, 2);
    let a = Array::from_arrow(&s).unwrap();
    assert_eq!(a.to_string(), "[[], [3, 4, 5]]");
    let back = a.to_arrow().unwrap();
    assert_eq!(back.as_list::<i32>().value_offsets(), [0, 0, 3]);
    same(&back, &s);

    // Nulls at the ends of rows are optional values.
    let arrow = list_of(&[
        Some(vec![Some(1), None]),
        Some(vec![None]),
        Some(vec![Some(2), Some(3), None]),
    ]);
    let a = Array::from_arrow(&arrow).unwrap();
    assert_eq!(a.ty().to_string(), "3 * var * ?int32");
    assert_eq!(json(&a), "[[1, null], [null], [2, 3, null]]");
    same(&a.to_arrow().unwrap(), &arrow);
}

/// Writing into an array whose rows' values are an Arrow buffer (sort,
/// assign, an in-place function) copies them first: the buffer is Arrow's,
/// shared with the list it came from, and stays as it was.
#[test]
fn writes_copy_values_shared_with_arrow_first() {
    let arrow = list_of(&[
        Some(vec![Some(3), Some(1), Some(2)]),
        Some(vec![Some(9), Some(8)]),
    ]);
    let before = [3, 1, 2, 9, 8];
    let arrow_values = || arrow.values().as_primitive::<Int32Type>().values().to_vec();

    let mut a = Array::from_arrow(&arrow).unwrap();
    a.sort(-1, false).unwrap();
    assert_eq!(a.to_string(), "[[1, 2, 3], [8, 9]]");
    assert_eq!(arrow_values(), before);

    let mut b = Array::from_arrow(&arrow).unwrap();
    let zeros = Array::from_nested(vec![vec![0i32; 3], vec![0; 2]]).unwrap();
    b.assign(&zeros, ErrorMode::Overflow).unwrap();
    assert_eq!(b.to_string(), "[[0, 0, 0], [0, 0]]");
    assert_eq!(arrow_values(), before);

    // Untouched arrays still share the buffer (no copy on reading).
    let c = Array::from_arrow(&arrow).unwrap();
    let (values, _) = c.to_offsets().unwrap();
    assert_eq!(
        values
            .data_block()
            .as_ptr()
            .wrapping_add(values.data_offset()),
        arrow.values().as_primitive::<Int32Type>().values().as_ptr() as *const u8
    );
}

#[test]
fn large_lists_and_list_views_convert() {
    let large = LargeListArray::from_iter_primitive::<Int32Type, _, _>([
        Some(vec![Some(1)]),
        Some(vec![Some(2), Some(3)]),
    ]);
    let a = Array::from_arrow(&large).unwrap();
    assert_eq!(a.to_string(), "[[1], [2, 3]]");
    let back = a.to_arrow().unwrap();
    assert_eq!(
        back.data_type(),
        &DataType::List(Arc::new(Field::new("item", DataType::Int32, false)))
    );
    assert_eq!(back.as_list::<i32>().value_offsets(), [0, 1, 3]);

    // A list view: rows in any order, overlapping.
    let values = Arc::new(Int32Array::from_iter_values([10, 20, 30, 40])) as ArrayRef;
    let field = Arc::new(Field::new("item", DataType::Int32, false));
    let view = ListViewArray::new(
        field,
        ScalarBuffer::from(vec![2, 0, 1]),
        ScalarBuffer::from(vec![2, 1, 3]),
        values,
        None,
    );
    let a = Array::from_arrow(&view).unwrap();
    assert_eq!(a.to_string(), "[[30, 40], [10], [20, 30, 40]]");
    let back = a.to_arrow().unwrap();
    assert_eq!(back.as_list::<i32>().value_offsets(), [0, 2, 3, 6]);
}

#[test]
fn null_lists_are_refused_with_the_row() {
    let arrow = list_of(&[Some(vec![Some(1)]), Some(vec![]), None]);
    let e = Array::from_arrow(&arrow).unwrap_err().to_string();
    assert!(e.contains("1 null list(s), the first at row 2"), "{e}");
    assert!(e.contains("?var"), "{e}");
    // Sliced past the null: fine.
    assert_eq!(
        Array::from_arrow(&arrow.slice(0, 2)).unwrap().to_string(),
        "[[1], []]"
    );
}

#[test]
fn nested_lists_compose() {
    let mut b = ListBuilder::new(ListBuilder::new(Int32Builder::new()));
    b.values().values().append_value(1);
    b.values().append(true);
    b.values().append(true);
    b.append(true);
    b.values().values().append_value(2);
    b.values().values().append_value(3);
    b.values().append(true);
    b.append(true);
    let arrow = b.finish();
    let a = Array::from_arrow(&arrow).unwrap();
    assert_eq!(a.ty().to_string(), "2 * var * var * int32");
    assert_eq!(a.to_string(), "[[[1], []], [[2, 3]]]");
    same(&a.to_arrow().unwrap(), &arrow);
}

#[test]
fn fixed_size_lists_are_fixed_dimensions() {
    let mut b = FixedSizeListBuilder::new(Int32Builder::new(), 3);
    for row in [[1, 2, 3], [4, 5, 6], [7, 8, 9]] {
        b.values().append_slice(&row);
        b.append(true);
    }
    let arrow = b.finish();
    let a = Array::from_arrow(&arrow).unwrap();
    assert_eq!(a.ty().to_string(), "3 * 3 * int32");
    assert_eq!(a.to_string(), "[[1, 2, 3], [4, 5, 6], [7, 8, 9]]");
    let back = a.to_arrow().unwrap();
    same(&back, &arrow);
    let values = arrow.values().as_primitive::<Int32Type>().values().as_ptr();
    let back_values = back
        .as_fixed_size_list()
        .values()
        .as_primitive::<Int32Type>()
        .values()
        .as_ptr();
    assert_eq!(back_values, values);

    // Sliced.
    let s = arrow.slice(1, 2);
    let a = Array::from_arrow(&s).unwrap();
    assert_eq!(a.to_string(), "[[4, 5, 6], [7, 8, 9]]");
    same(&a.to_arrow().unwrap(), &s);

    // A transposed dynd matrix is copied into rows.
    let m = Array::from_shape_vec(&[2, 3], vec![1i32, 2, 3, 4, 5, 6]).unwrap();
    let tr = m.transpose().unwrap();
    let back = tr.to_arrow().unwrap();
    let back = back.as_fixed_size_list();
    assert_eq!(back.value_length(), 2);
    assert_eq!(
        back.values().as_primitive::<Int32Type>().values(),
        &[1, 4, 2, 5, 3, 6]
    );

    // A null fixed-size list is refused.
    let mut b = FixedSizeListBuilder::new(Int32Builder::new(), 1);
    b.values().append_value(1);
    b.append(false);
    let e = Array::from_arrow(&b.finish()).unwrap_err().to_string();
    assert!(e.contains("null list"), "{e}");
}

#[test]
fn structs_become_records_and_back() {
    let x = Arc::new(Int32Array::from(vec![1, 2, 3])) as ArrayRef;
    let y = Arc::new(StringArray::from(vec![Some("a"), None, Some("ccc")])) as ArrayRef;
    let z = Arc::new(list_of(&[
        Some(vec![Some(1)]),
        Some(vec![]),
        Some(vec![Some(2), Some(3)]),
    ])) as ArrayRef;
    let fields = Fields::from(vec![
        Field::new("x", DataType::Int32, false),
        Field::new("y", DataType::Utf8, true),
        Field::new("z", z.data_type().clone(), false),
    ]);
    let s = StructArray::new(fields, vec![x, y, z], None);
    let a = Array::from_arrow(&s).unwrap();
    assert_eq!(
        a.ty().to_string(),
        "3 * {x: int32, y: ?string, z: var * int32}"
    );
    assert_eq!(
        json(&a),
        r#"[{"x": 1, "y": "a", "z": [1]}, {"x": 2, "y": null, "z": []}, {"x": 3, "y": "ccc", "z": [2, 3]}]"#
    );
    same(&a.to_arrow().unwrap(), &s);

    // Sliced, and with nulls of its own.
    let sl = s.slice(1, 2);
    assert_eq!(
        json(&Array::from_arrow(&sl).unwrap()),
        r#"[{"x": 2, "y": null, "z": []}, {"x": 3, "y": "ccc", "z": [2, 3]}]"#
    );
    let (fields, columns, _) = s.clone().into_parts();
    let with_nulls = StructArray::new(
        fields,
        columns,
        Some(NullBuffer::from(vec![true, false, true])),
    );
    let a = Array::from_arrow(&with_nulls).unwrap();
    assert!(a.ty().to_string().starts_with("3 * ?{"), "{}", a.ty());
    assert_eq!(json(&a.index(&[Index::At(1)]).unwrap()), "null");
    let back = a.to_arrow().unwrap();
    assert_eq!(back.null_count(), 1);
    assert_eq!(
        back.as_struct()
            .column(0)
            .as_primitive::<Int32Type>()
            .value(2),
        3
    );
}

#[test]
fn record_batches_as_columns_or_one_struct_array() {
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("score", DataType::Float64, true),
    ]));
    let ids = PrimitiveArray::<Int64Type>::from_iter_values([7, 8]);
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(ids.clone()),
            Arc::new(Float64Array::from(vec![Some(0.5), None])),
        ],
    )
    .unwrap();
    let columns = columns_from_record_batch(&batch).unwrap();
    assert_eq!(columns[0].0, "id");
    assert_eq!(
        columns[0].1.data_block().as_ptr(),
        ids.values().as_ptr() as *const u8
    );
    assert_eq!(json(&columns[1].1), "[0.5, null]");

    let a = Array::from_record_batch(&batch).unwrap();
    assert_eq!(a.ty().to_string(), "2 * {id: int64, score: ?float64}");
    let back = a.to_record_batch().unwrap();
    assert_eq!(back, batch);
    let again = Array::try_from(&back).unwrap();
    assert_eq!(json(&again), json(&a));

    let refs: Vec<(&str, &Array)> = columns.iter().map(|(n, a)| (n.as_str(), a)).collect();
    assert_eq!(record_batch_from_columns(&refs).unwrap(), batch);

    let short = Array::from_vec(vec![1i32]);
    let e = record_batch_from_columns(&[("a", &columns[0].1), ("b", &short)])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("column 'b' has 1 rows where column 'a' has 2"),
        "{e}"
    );
}

#[test]
fn types_without_an_equivalent_are_named() {
    let cases: Vec<(ArrayRef, &str)> = vec![
        (
            Arc::new(
                Decimal128Array::from(vec![1i128])
                    .with_precision_and_scale(10, 2)
                    .unwrap(),
            ),
            "Decimal128(10, 2)",
        ),
        // (Date32 is dynd's `date`; Date64, milliseconds at midnight, has
        // no equivalent.)
        (Arc::new(Date64Array::from(vec![86_400_000])), "Date64"),
        // A dictionary is a categorical, unless its values hold nulls.
        (
            Arc::new(
                DictionaryArray::<Int32Type>::try_new(
                    Int32Array::from(vec![0, 1]),
                    Arc::new(StringArray::from(vec![Some("a"), None])),
                )
                .unwrap(),
            ),
            "Dictionary(Int32, Utf8) with null values in its dictionary",
        ),
    ];
    let d = DictionaryArray::<Int32Type>::from_iter(["a", "b", "a"]);
    assert_eq!(
        Array::from_arrow(&d).unwrap().ty().to_string(),
        "3 * categorical[string]"
    );
    for (arrow, name) in cases {
        let e = Array::from_arrow(arrow.as_ref()).unwrap_err().to_string();
        assert!(e.contains(name) && e.contains("no dynd equivalent"), "{e}");
    }
    // Deep inside, the path says where.
    let field = Arc::new(Field::new("item", DataType::Date64, false));
    let l = ListArray::new(
        field,
        OffsetBuffer::new(ScalarBuffer::from(vec![0, 1])),
        Arc::new(Date64Array::from(vec![86_400_000])),
        None,
    );
    let e = Array::from_arrow(&l).unwrap_err().to_string();
    assert!(e.contains("Date64") && e.contains("(at item)"), "{e}");

    for (json_text, ty, name) in [
        ("[[1, 2]]", "1 * complex[float64]", "complex[float64]"),
        ("[1]", "1 * int128", "int128"),
        ("[[1, 2]]", "1 * (int8, int8)", "(int8, int8)"),
    ] {
        let a = Array::from_json(json_text, Some(&t(ty))).unwrap();
        let e = a.to_arrow().unwrap_err().to_string();
        assert!(e.contains(name) && e.contains("no Arrow equivalent"), "{e}");
    }
    let scalar = Array::from_scalar(1i32);
    let e = scalar.to_arrow().unwrap_err().to_string();
    assert!(e.contains("fixed first dimension"), "{e}");
}

#[test]
fn type_mappings_agree_with_conversions() {
    let arrow = list_of(&[Some(vec![Some(1), None])]);
    let a = Array::from_arrow(&arrow).unwrap();
    assert_eq!(
        dynd_type(arrow.data_type(), false).unwrap().to_string(),
        "var * ?int32"
    );
    assert_eq!(a.ty().to_string(), "1 * var * ?int32");
    let (dt, nullable) = arrow_type(&t("var * ?int32")).unwrap();
    assert_eq!(&dt, a.to_arrow().unwrap().data_type());
    assert!(!nullable);
    assert_eq!(arrow_type(&t("?string")).unwrap(), (DataType::Utf8, true));
    let e = dynd_type(&DataType::Date64, true).unwrap_err().to_string();
    assert!(e.contains("Date64"), "{e}");
    let u = UInt8Array::from(vec![1u8]);
    assert_eq!(
        dynd_type(u.data_type(), true).unwrap().to_string(),
        "?uint8"
    );
}

#[test]
fn ragged_views_go_out_as_packed_lists() {
    let a = Array::from_offsets(vec![1i64, 2, 3, 4, 5], &[0i32, 2, 2, 5]).unwrap();
    let r = a.index(&[Index::slice(None, None, -1)]).unwrap();
    let back = r.to_arrow().unwrap();
    let l = back.as_list::<i32>();
    assert_eq!(l.value_offsets(), [0, 3, 3, 5]);
    assert_eq!(
        l.values().as_primitive::<Int64Type>().values(),
        &[3, 4, 5, 1, 2]
    );
}

#[test]
fn a_function_result_goes_back_to_arrow() {
    // Strings built by a kernel (an arena) and a computed ragged result.
    let words = StringArray::from(vec!["a", "bc"]);
    let a = Array::from_arrow(&words).unwrap();
    let c = a.cast(&t("2 * string"), ErrorMode::NoCheck).unwrap();
    same(&c.to_arrow().unwrap(), &words);
    let nested = Array::from_nested(vec![vec![1.0f64], vec![2.0, 3.0]]).unwrap();
    let back = nested.to_arrow().unwrap();
    assert_eq!(back.as_list::<i32>().value_offsets(), [0, 1, 3]);
}

// ---------------------------------------------------------------------------
// Random nested list arrays against a naive conversion.

/// A list column: rows of optional int32s, or rows of rows of them.
#[derive(Clone, Debug)]
enum Col {
    Flat(Vec<Vec<Option<i32>>>),
    Deep(Vec<Vec<Vec<Option<i32>>>>),
}

fn flat_rows() -> impl Strategy<Value = Vec<Vec<Option<i32>>>> {
    prop::collection::vec(
        prop::collection::vec(prop::option::weighted(0.8, -50i32..50), 0..5),
        0..12,
    )
}

fn col() -> impl Strategy<Value = Col> {
    prop_oneof![
        flat_rows().prop_map(Col::Flat),
        prop::collection::vec(flat_rows(), 0..6).prop_map(Col::Deep),
    ]
}

fn naive_json(v: &[Option<i32>]) -> String {
    let items: Vec<String> = v
        .iter()
        .map(|x| x.map_or("null".to_string(), |x| x.to_string()))
        .collect();
    format!("[{}]", items.join(", "))
}

fn build(c: &Col) -> (ArrayRef, Vec<String>) {
    match c {
        Col::Flat(rows) => {
            let arrow = list_of(&rows.iter().cloned().map(Some).collect::<Vec<_>>());
            (
                Arc::new(arrow),
                rows.iter().map(|r| naive_json(r)).collect(),
            )
        }
        Col::Deep(rows) => {
            let mut b = ListBuilder::new(ListBuilder::new(Int32Builder::new()));
            for row in rows {
                for inner in row {
                    for x in inner {
                        b.values().values().append_option(*x);
                    }
                    b.values().append(true);
                }
                b.append(true);
            }
            let naive = rows
                .iter()
                .map(|row| {
                    let inner: Vec<String> = row.iter().map(|r| naive_json(r)).collect();
                    format!("[{}]", inner.join(", "))
                })
                .collect();
            (Arc::new(b.finish()), naive)
        }
    }
}

/// An Arrow list (of lists) of int32 as JSON, walked row by row.
fn arrow_json(a: &dyn dynd_kernels::arrow_interop::arrow_array::Array) -> String {
    let items: Vec<String> = match a.data_type() {
        DataType::List(_) => {
            let l = a.as_list::<i32>();
            (0..l.len())
                .map(|i| arrow_json(l.value(i).as_ref()))
                .collect()
        }
        _ => {
            let p = a.as_primitive::<Int32Type>();
            (0..p.len())
                .map(|i| {
                    if p.is_null(i) {
                        "null".into()
                    } else {
                        p.value(i).to_string()
                    }
                })
                .collect()
        }
    };
    format!("[{}]", items.join(", "))
}

proptest! {
    #[test]
    fn random_list_arrays_convert_like_a_naive_walk(c in col(), cut in 0usize..4, keep in 0usize..20) {
        let (arrow, naive) = build(&c);
        let start = cut.min(arrow.len());
        let len = keep.min(arrow.len() - start);
        let sliced = arrow.slice(start, len);
        let a = Array::from_arrow(sliced.as_ref()).unwrap();
        let expect = format!("[{}]", naive[start..start + len].join(", "));
        prop_assert_eq!(a.to_json(), expect.clone());
        let back = a.to_arrow().unwrap();
        prop_assert_eq!(arrow_json(back.as_ref()), expect.clone());
        prop_assert_eq!(arrow_json(sliced.as_ref()), expect);
        let again = Array::from_arrow(back.as_ref()).unwrap();
        prop_assert_eq!(again.to_json(), a.to_json());
    }
}

#[test]
fn every_utf8_string_array_layout_round_trips() {
    let mut b = StringBuilder::new();
    b.append_value("x");
    b.append_null();
    b.append_value("");
    let arrow = b.finish();
    let a = Array::from_arrow(&arrow).unwrap();
    same(&a.to_arrow().unwrap(), &arrow);
    let fsl = FixedSizeListArray::try_new(
        Arc::new(Field::new("item", DataType::Utf8, true)),
        3,
        Arc::new(arrow),
        None,
    )
    .unwrap();
    let a = Array::from_arrow(&fsl).unwrap();
    assert_eq!(a.ty().to_string(), "1 * 3 * ?string");
    same(&a.to_arrow().unwrap(), &fsl);
}
