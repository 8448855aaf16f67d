//! Arrow arrays in and out (feature `arrow`), sharing buffers wherever the
//! layouts agree.
//!
//! An Arrow array of length `N` is a dynd array of type `N * T`, where `T`
//! follows the Arrow type:
//!
//! | Arrow | dynd | buffers |
//! |---|---|---|
//! | `Int8` … `UInt64`, `Float16/32/64` | `int8` … `uint64`, `float16/32/64` | shared both ways |
//! | `Boolean` | `bool` | copied (Arrow packs bits, dynd has a byte per value) |
//! | `Utf8`, `LargeUtf8` / `Binary`, `LargeBinary` | `string` / `bytes` | characters shared both ways, (start, length) per value written in one pass |
//! | `Utf8View`, `BinaryView` | `string` / `bytes` | copied into one run (the short strings live inside the views, which dynd's (start, length) pairs cannot name; see `dynd::nd::text`) |
//! | `List`, `LargeList` | `var * T` | values shared both ways, (start, length) per row written in one pass |
//! | `ListView`, `LargeListView` | `var * T` | values shared in; out as `List` |
//! | `FixedSizeList(k)` | `k * T` | shared both ways |
//! | `Struct` | `{name: T, ...}` | each field's buffers shared both ways: the record array is held as columns (`Array::from_columns`); a struct with null records is `?{...}`, copied into one record per element |
//! | `Dictionary(K, V)` | `categorical[T, index=K]` | keys shared both ways as the codes (checked to name values), values as the categories |
//! | a validity bitmap with nulls | `?T` | copied: dynd keeps a flag byte after each value |
//!
//! The type follows the data: an Arrow array with nulls gives `?T`, one
//! without gives `T`; going out, a `?T` element is a nullable field. Null
//! lists and null fixed-size lists are refused (dynd has no optional
//! dimensions); so are Arrow types with no dynd equivalent (decimals,
//! `Date64`, unions, maps), and dictionaries with null values, named in
//! the error, and dynd
//! types with no Arrow equivalent (`int128`, complex, tuples, fixed
//! strings).
//!
//! A [`RecordBatch`] is either a set of named columns
//! ([`columns_from_record_batch`]; [`record_batch_from_columns`])
//! or one record array held as columns ([`Array::from_record_batch`],
//! [`ToArrow::to_record_batch`]); neither copies a column's buffers.
//! Interleaved records (one record after another) go out as views of
//! each field, copied where a field's elements are not contiguous.
//!
//! The arrow-rs crates are re-exported ([`arrow_array`], [`arrow_buffer`],
//! [`arrow_schema`]) so a user's versions match dynd's.
//!
//! ```
//! use dynd_kernels::arrow_interop::arrow_array::{cast::AsArray, types::Float64Type, ListArray};
//! use dynd_kernels::{Array, ToArrow};
//!
//! let lists = ListArray::from_iter_primitive::<Float64Type, _, _>([
//!     Some(vec![Some(1.0), Some(2.0)]),
//!     Some(vec![]),
//!     Some(vec![Some(3.0)]),
//! ]);
//! let a = Array::from_arrow(&lists)?;
//! assert_eq!(a.ty().to_string(), "3 * var * float64");
//! assert_eq!(a.to_string(), "[[1, 2], [], [3]]");
//!
//! // Back: the values buffer is the one the list array had.
//! let back = a.to_arrow()?;
//! let back = back.as_list::<i32>();
//! assert_eq!(back.value_offsets(), [0, 2, 2, 3]);
//! assert_eq!(
//!     back.values().as_primitive::<Float64Type>().values().as_ptr(),
//!     lists.values().as_primitive::<Float64Type>().values().as_ptr(),
//! );
//! # Ok::<(), dynd_kernels::Error>(())
//! ```

use std::panic::RefUnwindSafe;
use std::ptr::NonNull;
use std::sync::Arc;

pub use dynd_array::arrow::{
    arrow_array, arrow_buffer, arrow_schema, arrow_type, columns_from_record_batch, dynd_type,
};

use arrow_array::cast::AsArray;
use arrow_array::{
    make_array, Array as ArrowArray, ArrayRef, BooleanArray, FixedSizeListArray,
    GenericBinaryArray, GenericListArray, GenericStringArray, OffsetSizeTrait, RecordBatch,
    StructArray,
};
use arrow_buffer::{BooleanBuffer, Buffer, MutableBuffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_data::ArrayDataBuilder;
use arrow_schema::{DataType, Field, Fields, Schema};
use dynd_array::arrow::{
    arrow, element, elements, is_option, join, no_arrow_type, primitive_arrow_type,
};
use dynd_types::{ArrowProblem, Dim, LayoutProblem, Scalar, Type, TypeKind};

use crate::arrmeta::{read_pair, Arrmeta, PAIR_SIZE};
use crate::memory::MemoryBlock;
use crate::{Array, Error, ErrorMode};
// ---------------------------------------------------------------------------
// dynd to Arrow

/// Keeps a dynd memory block alive under an Arrow buffer.
struct Keep(#[allow(dead_code)] Arc<MemoryBlock>);

// A shared block is never written (module `memory`), so a panic cannot
// leave it half-changed.
impl RefUnwindSafe for Keep {}

/// `len` bytes of `block` from `start` as an Arrow buffer, without copying.
fn shared_buffer(block: &Arc<MemoryBlock>, start: usize, len: usize) -> Result<Buffer, Error> {
    let bytes = block
        .bytes()
        .get(start..start.saturating_add(len))
        .ok_or_else(|| {
            Error::Layout(Box::new(LayoutProblem::Read {
                op: "to_arrow".into(),
                part: "an element",
            }))
        })?;
    let ptr = NonNull::from(bytes).cast::<u8>();
    // SAFETY: `ptr` is valid for `len` initialised bytes: they are a slice
    // of the block, which the buffer's owner (`Keep`) keeps alive for as
    // long as the buffer lives. Nothing writes them meanwhile: the block is
    // now shared (the `Keep` is a second reference), and a shared block's
    // bytes are only written after it is unique again (module `memory`),
    // which it cannot be while the buffer holds it.
    Ok(unsafe { Buffer::from_custom_allocation(ptr, len, Arc::new(Keep(block.clone()))) })
}

/// The way out to Arrow: [`ToArrow::to_arrow`] and
/// [`ToArrow::to_record_batch`] (in the facade's prelude with the `arrow`
/// feature).
pub trait ToArrow {
    /// The Arrow array of a dynd array of type `N * T` (see the
    /// [module docs](self) for the types and what is shared). `var`
    /// dimensions become `List` (`LargeList` when the values outgrow `i32`
    /// offsets), strings `Utf8` (or `LargeUtf8`).
    ///
    /// # Errors
    ///
    /// [`Error::NeedsArray`] for an array with no dimensions or a `var`
    /// first dimension; [`Error::Arrow`] naming a dynd type with no Arrow
    /// equivalent.
    fn to_arrow(&self) -> Result<ArrayRef, Error>;

    /// A record batch of a struct array (`N * {column: T, ...}`), one
    /// column per field.
    ///
    /// # Errors
    ///
    /// As [`ToArrow::to_arrow`], and [`Error::NeedsArray`] if the elements
    /// are not structs.
    fn to_record_batch(&self) -> Result<RecordBatch, Error>;
}

impl ToArrow for Array {
    fn to_arrow(&self) -> Result<ArrayRef, Error> {
        export(self, "")
    }

    fn to_record_batch(&self) -> Result<RecordBatch, Error> {
        if let (Some(columns), TypeKind::Struct(s), 1) =
            (self.columns(), self.dtype().kind(), self.ndim())
        {
            let refs: Vec<(&str, &Array)> =
                s.fields.iter().map(|(n, _)| &**n).zip(&columns).collect();
            return record_batch_from_columns(&refs);
        }
        let (n, _, stride, ty, meta) = elements(self)?;
        let (TypeKind::Struct(s), Arrmeta::Fields { offsets, fields }) = (ty.kind(), meta) else {
            return Err(Error::NeedsArray {
                op: "to_record_batch".into(),
                expected: "an array of structs (`N * {name: T, ...}`)",
                found: self.ty().clone(),
            });
        };
        let mut columns = Vec::with_capacity(fields.len());
        for (((name, t), m), off) in s.fields.iter().zip(fields).zip(offsets) {
            let view = field_view(self, n, stride, t, m, *off)?;
            columns.push((name.to_string(), view));
        }
        let refs: Vec<(&str, &Array)> = columns.iter().map(|(n, a)| (n.as_str(), a)).collect();
        record_batch_from_columns(&refs)
    }
}

/// A record batch of named columns of equal length, each converted as
/// [`ToArrow::to_arrow`] converts it.
///
/// # Errors
///
/// As [`ToArrow::to_arrow`], naming the column, and [`Error::Arrow`] for
/// columns of different lengths.
pub fn record_batch_from_columns(columns: &[(&str, &Array)]) -> Result<RecordBatch, Error> {
    let mut fields = Vec::with_capacity(columns.len());
    let mut arrays = Vec::with_capacity(columns.len());
    for (name, a) in columns {
        let path = format!("column '{name}'");
        let arrow = export(a, &path)?;
        let nullable = is_option(elements(a)?.3);
        fields.push(Field::new(
            name.to_string(),
            arrow.data_type().clone(),
            nullable,
        ));
        arrays.push(arrow);
    }
    let n = arrays.first().map_or(0, |a| a.len());
    if let Some((i, a)) = arrays.iter().enumerate().find(|(_, a)| a.len() != n) {
        return Err(arrow(
            "record_batch_from_columns",
            ArrowProblem::ColumnLength {
                column: columns[i].0.to_string().into(),
                len: a.len(),
                other: columns[0].0.to_string().into(),
                expected: n,
            },
            "",
        ));
    }
    let options = arrow_array::RecordBatchOptions::new().with_row_count(Some(n));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options).map_err(
        |e| {
            arrow(
                "record_batch_from_columns",
                ArrowProblem::Arrow(e.to_string().into()),
                "",
            )
        },
    )
}

/// The view of field `m` at byte `off` of each of `n` records `stride`
/// bytes apart.
fn field_view(
    a: &Array,
    n: usize,
    stride: isize,
    ty: &Type,
    meta: &Arrmeta,
    off: usize,
) -> Result<Array, Error> {
    let t = Type::dim(Dim::Fixed(n), ty.clone())?;
    let m = Arrmeta::Fixed {
        size: n,
        stride,
        element: Box::new(meta.clone()),
    };
    Array::try_from_parts(
        t,
        Arc::new(m),
        a.data_block().clone(),
        a.data_offset() + off,
    )
}

fn arrow_error(path: &str) -> impl Fn(arrow_schema::ArrowError) -> Error + '_ {
    move |e| arrow("to_arrow", ArrowProblem::Arrow(e.to_string().into()), path)
}

/// A record array held as columns: each field's array exported, then
/// zipped under the dimensions (the fields' lists share offsets).
fn export_columns(a: &Array, columns: &[Array], path: &str) -> Result<ArrayRef, Error> {
    let TypeKind::Struct(s) = a.dtype().kind() else {
        return Err(no_arrow_type(a.dtype(), path));
    };
    let mut fields = Vec::with_capacity(columns.len());
    let mut arrays = Vec::with_capacity(columns.len());
    for ((name, t), c) in s.fields.iter().zip(columns) {
        let arrow = export(c, &join(path, &format!("field '{name}'")))?;
        fields.push((name.to_string(), is_option(t)));
        arrays.push(arrow);
    }
    zip_arrow(
        &fields,
        arrays,
        a.ndim().saturating_sub(1),
        &arrow_error(path),
    )
}

/// The struct array of `arrays` (each a field's, `depth` list levels
/// over its values, all of one structure), under those list levels.
fn zip_arrow(
    fields: &[(String, bool)],
    arrays: Vec<ArrayRef>,
    depth: usize,
    fail: &dyn Fn(arrow_schema::ArrowError) -> Error,
) -> Result<ArrayRef, Error> {
    let mismatch = || {
        fail(arrow_schema::ArrowError::InvalidArgumentError(
            "the fields' lists differ".into(),
        ))
    };
    if depth == 0 {
        let n = arrays.first().map_or(0, |a| a.len());
        let f: Vec<Field> = fields
            .iter()
            .zip(&arrays)
            .map(|((name, nullable), a)| Field::new(name, a.data_type().clone(), *nullable))
            .collect();
        return Ok(Arc::new(
            StructArray::try_new_with_length(Fields::from(f), arrays, None, n).map_err(fail)?,
        ));
    }
    let item = |values: &ArrayRef| Arc::new(Field::new("item", values.data_type().clone(), false));
    let first = arrays.first().ok_or_else(mismatch)?.clone();
    Ok(match first.data_type() {
        arrow_schema::DataType::List(_) => zip_lists::<i32>(fields, &arrays, depth, fail)?,
        arrow_schema::DataType::LargeList(_) => zip_lists::<i64>(fields, &arrays, depth, fail)?,
        arrow_schema::DataType::FixedSizeList(_, k) => {
            let values = arrays
                .iter()
                .map(|a| a.as_fixed_size_list().values().clone())
                .collect();
            let inner = zip_arrow(fields, values, depth - 1, fail)?;
            Arc::new(FixedSizeListArray::try_new(item(&inner), *k, inner, None).map_err(fail)?)
        }
        _ => return Err(mismatch()),
    })
}

/// [`zip_arrow`] of the fields' lists (offsets `O`): one list array over
/// the struct of their values, the fields' offsets being one.
fn zip_lists<O: OffsetSizeTrait>(
    fields: &[(String, bool)],
    arrays: &[ArrayRef],
    depth: usize,
    fail: &dyn Fn(arrow_schema::ArrowError) -> Error,
) -> Result<ArrayRef, Error> {
    let lists: Vec<_> = arrays.iter().map(|a| a.as_list::<O>()).collect();
    if lists.iter().any(|l| l.offsets() != lists[0].offsets()) {
        return Err(fail(arrow_schema::ArrowError::InvalidArgumentError(
            "the fields' lists differ".into(),
        )));
    }
    let values = lists.iter().map(|l| l.values().clone()).collect();
    let inner = zip_arrow(fields, values, depth - 1, fail)?;
    let item = Arc::new(Field::new("item", inner.data_type().clone(), false));
    Ok(Arc::new(
        GenericListArray::<O>::try_new(item, lists[0].offsets().clone(), inner, None)
            .map_err(fail)?,
    ))
}

fn export(a: &Array, path: &str) -> Result<ArrayRef, Error> {
    if let (Some(categories), 1) = (a.categories(), a.ndim()) {
        // A dictionary array: the codes as its keys (shared where they lie
        // end to end), the categories as its values.
        let keys = export(&a.codes()?, path)?;
        let values = export(&categories, &join(path, "values"))?;
        let dt = DataType::Dictionary(
            Box::new(keys.data_type().clone()),
            Box::new(values.data_type().clone()),
        );
        let data = keys
            .to_data()
            .into_builder()
            .data_type(dt)
            .child_data(vec![values.to_data()]);
        return Ok(make_array(data.build().map_err(arrow_error(path))?));
    }
    if let Some(columns) = a.columns() {
        if matches!(a.ty().split_dims().0.first(), Some(Dim::Fixed(_))) {
            return export_columns(a, &columns, path);
        }
    }
    let (n, size, stride, ty, meta) = match elements(a) {
        Ok(parts) => parts,
        Err(_) => {
            return Err(Error::NeedsArray {
                op: "to_arrow".into(),
                expected: "an array with a fixed first dimension (`N * T`)",
                found: a.ty().clone(),
            })
        }
    };
    let fail = arrow_error(path);
    Ok(match (ty.kind(), meta) {
        (TypeKind::Option(inner), Arrmeta::Option(inner_meta)) if !inner.is_dim() => {
            let values = field_view(a, n, stride, inner, inner_meta, 0)?;
            let value_size = inner.data_layout()?.size;
            let valid =
                BooleanBuffer::collect_bool(n, |i| element(a, stride, size, i)[value_size] != 0);
            let values = export(&values, path)?;
            let data = values
                .to_data()
                .into_builder()
                .nulls(Some(NullBuffer::new(valid)));
            make_array(data.build().map_err(&fail)?)
        }
        (TypeKind::Scalar(Scalar::Bool), _) => {
            let bits = BooleanBuffer::collect_bool(n, |i| element(a, stride, 1, i)[0] != 0);
            Arc::new(BooleanArray::new(bits, None))
        }
        (TypeKind::Scalar(s @ (Scalar::String | Scalar::Bytes)), Arrmeta::Text { block }) => {
            export_text(a, n, stride, block, *s, &fail)?
        }
        (TypeKind::Scalar(_) | TypeKind::DateTimeTz { .. }, _) => {
            let Some(dt) = primitive_arrow_type(ty) else {
                return Err(no_arrow_type(ty, path));
            };
            let aligned = (a.data_block().as_ptr() as usize + a.data_offset()).is_multiple_of(size);
            let buffer = if stride == size as isize && aligned {
                shared_buffer(a.data_block(), a.data_offset(), n * size)?
            } else {
                // Arrow's own allocation: aligned for any element type.
                let mut bytes = MutableBuffer::with_capacity(n * size);
                for i in 0..n {
                    bytes.extend_from_slice(element(a, stride, size, i));
                }
                bytes.into()
            };
            let data = ArrayDataBuilder::new(dt).len(n).add_buffer(buffer);
            make_array(data.build().map_err(&fail)?)
        }
        (TypeKind::Dim(Dim::Fixed(k), item_ty), Arrmeta::Fixed { stride: inner, .. }) => {
            let k32 = i32::try_from(*k).map_err(|_| no_arrow_type(ty, path))?;
            let merged = match merge_first(a, n, *k, stride, *inner)? {
                Some(m) => m,
                None => {
                    let c = crate::assign::cast(a, a.ty(), ErrorMode::NoCheck)?;
                    let (_, _, cstride, _, cmeta) = elements(&c)?;
                    let Some((_, cinner, _)) = cmeta.as_fixed() else {
                        unreachable!("a copy keeps the type")
                    };
                    merge_first(&c, n, *k, cstride, cinner)?
                        .ok_or_else(|| no_arrow_type(ty, path))?
                }
            };
            let values = export(&merged, &join(path, "item"))?;
            let field = Field::new("item", values.data_type().clone(), is_option(item_ty));
            Arc::new(
                FixedSizeListArray::try_new(Arc::new(field), k32, values, None).map_err(&fail)?,
            )
        }
        (TypeKind::Dim(Dim::Var, item_ty), Arrmeta::Var { .. }) => {
            let (values, offsets) = a.to_offsets()?;
            let nullable = is_option(item_ty);
            let values = export(&values, &join(path, "item"))?;
            let field = Arc::new(Field::new("item", values.data_type().clone(), nullable));
            let total = offsets.last().copied().unwrap_or(0);
            if i32::try_from(total).is_ok() {
                let offsets: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
                list_array::<i32>(field, offsets, values, &fail)?
            } else {
                list_array::<i64>(field, offsets, values, &fail)?
            }
        }
        (TypeKind::Struct(s), Arrmeta::Fields { offsets, fields }) => {
            let mut arrow_fields = Vec::with_capacity(fields.len());
            let mut arrays = Vec::with_capacity(fields.len());
            for (((name, t), m), off) in s.fields.iter().zip(fields).zip(offsets) {
                let view = field_view(a, n, stride, t, m, *off)?;
                let arrow = export(&view, &join(path, &format!("field '{name}'")))?;
                arrow_fields.push(Field::new(
                    name.to_string(),
                    arrow.data_type().clone(),
                    is_option(t),
                ));
                arrays.push(arrow);
            }
            Arc::new(
                StructArray::try_new_with_length(Fields::from(arrow_fields), arrays, None, n)
                    .map_err(&fail)?,
            )
        }
        _ => return Err(no_arrow_type(ty, path)),
    })
}

fn list_array<O: OffsetSizeTrait>(
    field: Arc<Field>,
    offsets: Vec<O>,
    values: ArrayRef,
    fail: &impl Fn(arrow_schema::ArrowError) -> Error,
) -> Result<ArrayRef, Error> {
    // Offsets from `to_offsets` start at 0 and never decrease.
    let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
    Ok(Arc::new(
        GenericListArray::<O>::try_new(field, offsets, values, None).map_err(fail)?,
    ))
}

/// `N * k * T` as `(N * k) * T` sharing memory, when the outer stride is
/// `k` inner strides.
fn merge_first(
    a: &Array,
    n: usize,
    k: usize,
    stride: isize,
    inner: isize,
) -> Result<Option<Array>, Error> {
    if n > 1 && stride != inner * k as isize {
        return Ok(None);
    }
    let Some((_, _, element)) = a.arrmeta().as_fixed().and_then(|(.., e)| e.as_fixed()) else {
        return Ok(None);
    };
    let TypeKind::Dim(_, inner_ty) = a.ty().kind() else {
        return Ok(None);
    };
    let TypeKind::Dim(_, item_ty) = inner_ty.kind() else {
        return Ok(None);
    };
    let t = Type::dim(Dim::Fixed(n * k), item_ty.clone())?;
    let m = Arrmeta::Fixed {
        size: n * k,
        stride: inner,
        element: Box::new(element.clone()),
    };
    Ok(Some(Array::try_from_parts(
        t,
        Arc::new(m),
        a.data_block().clone(),
        a.data_offset(),
    )?))
}

/// `Utf8`/`Binary` (or their large forms) of `n` text elements: the
/// characters shared when the values lie end to end in their block.
fn export_text(
    a: &Array,
    n: usize,
    stride: isize,
    block: &Arc<MemoryBlock>,
    s: Scalar,
    fail: &impl Fn(arrow_schema::ArrowError) -> Error,
) -> Result<ArrayRef, Error> {
    let pairs: Vec<(u64, u64)> = (0..n)
        .map(|i| read_pair(element(a, stride, PAIR_SIZE, i)))
        .collect();
    let origin = pairs.first().map_or(0, |p| p.0);
    let mut end_to_end = true;
    let mut next = origin;
    for &(start, len) in &pairs {
        end_to_end &= len == 0 || start == next;
        next = if len == 0 { next } else { start + len };
    }
    let total: u64 = pairs.iter().map(|p| p.1).sum();
    let (chars, offsets): (Buffer, Vec<i64>) = if end_to_end {
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0i64);
        let mut acc = 0i64;
        for &(_, len) in &pairs {
            acc += len as i64;
            offsets.push(acc);
        }
        (
            shared_buffer(block, origin as usize, total as usize)?,
            offsets,
        )
    } else {
        let bytes = block.bytes();
        let mut chars = Vec::with_capacity(total as usize);
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0i64);
        for &(start, len) in &pairs {
            chars.extend_from_slice(&bytes[start as usize..(start + len) as usize]);
            offsets.push(chars.len() as i64);
        }
        (Buffer::from_vec(chars), offsets)
    };
    fn build<O: OffsetSizeTrait>(
        offsets: Vec<O>,
        chars: Buffer,
        s: Scalar,
    ) -> Result<ArrayRef, arrow_schema::ArrowError> {
        let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
        Ok(match s {
            Scalar::String => Arc::new(GenericStringArray::<O>::try_new(offsets, chars, None)?),
            _ => Arc::new(GenericBinaryArray::<O>::try_new(offsets, chars, None)?),
        })
    }
    if i32::try_from(total).is_ok() {
        let offsets: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
        build(offsets, chars, s).map_err(fail)
    } else {
        build(offsets, chars, s).map_err(fail)
    }
}
