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
//! | `Utf8View`, `BinaryView` | `string` / `bytes` | copied into one run |
//! | `List`, `LargeList` | `var * T` | values shared both ways, (start, length) per row written in one pass |
//! | `ListView`, `LargeListView` | `var * T` | values shared in; out as `List` |
//! | `FixedSizeList(k)` | `k * T` | shared both ways |
//! | `Struct` | `{name: T, ...}` | fields copied into dynd's one record per element (and out of it) |
//! | a validity bitmap with nulls | `?T` | copied: dynd keeps a flag byte after each value |
//!
//! The type follows the data: an Arrow array with nulls gives `?T`, one
//! without gives `T`; going out, a `?T` element is a nullable field. Null
//! lists and null fixed-size lists are refused (dynd has no optional
//! dimensions); so are Arrow types with no dynd equivalent (decimals, dates
//! and times, dictionaries, unions, maps), named in the error, and dynd
//! types with no Arrow equivalent (`int128`, complex, tuples, fixed
//! strings).
//!
//! A [`RecordBatch`] is either a set of named columns
//! ([`columns_from_record_batch`], no copies; [`record_batch_from_columns`])
//! or one struct array ([`Array::from_record_batch`],
//! [`Array::to_record_batch`]).
//!
//! The arrow-rs crates are re-exported ([`arrow_array`], [`arrow_buffer`],
//! [`arrow_schema`]) so a user's versions match dynd's.
//!
//! ```
//! use std::sync::Arc;
//! use dynd_kernels::arrow_interop::arrow_array::{cast::AsArray, types::Float64Type, ListArray};
//! use dynd_kernels::Array;
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

pub use arrow_array;
pub use arrow_buffer;
pub use arrow_schema;

use arrow_array::cast::AsArray;
use arrow_array::{
    make_array, Array as ArrowArray, ArrayRef, BooleanArray, FixedSizeListArray,
    GenericBinaryArray, GenericListArray, GenericStringArray, OffsetSizeTrait, RecordBatch,
    StructArray,
};
use arrow_buffer::{
    ArrowNativeType, BooleanBuffer, Buffer, MutableBuffer, NullBuffer, OffsetBuffer, ScalarBuffer,
};
use arrow_data::ArrayDataBuilder;
use arrow_schema::{DataType, Field, Fields, Schema};
use dynd_types::{ArrowProblem, Dim, LayoutProblem, Scalar, Struct, Type, TypeKind};

use crate::array::Array;
use crate::arrmeta::{read_pair, Arrmeta, PAIR_SIZE};
use crate::error::Error;
use crate::memory::MemoryBlock;
use crate::ErrorMode;

/// [`Error::Arrow`] of conversion `op` at `path` (where in a nested
/// value: `column 'x'.item.field 'y'`).
fn arrow(op: &'static str, problem: ArrowProblem, path: &str) -> Error {
    Error::Arrow {
        op,
        problem: Box::new(problem),
        path: path.into(),
    }
}

fn join(path: &str, part: &str) -> String {
    if path.is_empty() {
        part.to_string()
    } else {
        format!("{path}.{part}")
    }
}

/// The dynd scalar of a primitive Arrow type stored as dynd stores it.
fn primitive_scalar(dt: &DataType) -> Option<Scalar> {
    Some(match dt {
        DataType::Int8 => Scalar::Int8,
        DataType::Int16 => Scalar::Int16,
        DataType::Int32 => Scalar::Int32,
        DataType::Int64 => Scalar::Int64,
        DataType::UInt8 => Scalar::UInt8,
        DataType::UInt16 => Scalar::UInt16,
        DataType::UInt32 => Scalar::UInt32,
        DataType::UInt64 => Scalar::UInt64,
        DataType::Float16 => Scalar::Float16,
        DataType::Float32 => Scalar::Float32,
        DataType::Float64 => Scalar::Float64,
        _ => return None,
    })
}

/// The Arrow type of a dynd scalar stored as Arrow stores it.
fn primitive_data_type(s: Scalar) -> Option<DataType> {
    Some(match s {
        Scalar::Int8 => DataType::Int8,
        Scalar::Int16 => DataType::Int16,
        Scalar::Int32 => DataType::Int32,
        Scalar::Int64 => DataType::Int64,
        Scalar::UInt8 => DataType::UInt8,
        Scalar::UInt16 => DataType::UInt16,
        Scalar::UInt32 => DataType::UInt32,
        Scalar::UInt64 => DataType::UInt64,
        Scalar::Float16 => DataType::Float16,
        Scalar::Float32 => DataType::Float32,
        Scalar::Float64 => DataType::Float64,
        _ => return None,
    })
}

fn no_dynd_type(dt: &DataType, path: &str) -> Error {
    arrow(
        "from_arrow",
        ArrowProblem::NoDyndType {
            arrow: dt.to_string().into(),
        },
        path,
    )
}

/// The dynd type of one value of Arrow type `dt`: `?T` when `nullable`
/// (for a list or fixed-size list, whose nulls dynd cannot hold, the
/// nullability is ignored: such an array converts while it has no nulls).
///
/// ```
/// use dynd_kernels::arrow_interop::{arrow_schema::{DataType, Field}, dynd_type};
/// use std::sync::Arc;
///
/// let list = DataType::List(Arc::new(Field::new("item", DataType::Float64, true)));
/// assert_eq!(dynd_type(&list, false)?.to_string(), "var * ?float64");
/// # Ok::<(), dynd_kernels::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Arrow`] naming an Arrow type with no dynd equivalent.
pub fn dynd_type(dt: &DataType, nullable: bool) -> Result<Type, Error> {
    data_type_to_dynd(dt, nullable, "")
}

fn data_type_to_dynd(dt: &DataType, nullable: bool, path: &str) -> Result<Type, Error> {
    let item = |f: &Field| data_type_to_dynd(f.data_type(), f.is_nullable(), &join(path, "item"));
    let value = match dt {
        DataType::Boolean => Type::from(Scalar::Bool),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Type::from(Scalar::String),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            Type::from(Scalar::Bytes)
        }
        DataType::List(f)
        | DataType::LargeList(f)
        | DataType::ListView(f)
        | DataType::LargeListView(f) => return Type::dim(Dim::Var, item(f)?),
        DataType::FixedSizeList(f, k) => {
            let k = usize::try_from(*k).map_err(|_| no_dynd_type(dt, path))?;
            return Type::dim(Dim::Fixed(k), item(f)?);
        }
        DataType::Struct(fields) => {
            let fields = fields
                .iter()
                .map(|f| {
                    let p = join(path, &format!("field '{}'", f.name()));
                    Ok((
                        Arc::from(f.name().as_str()),
                        data_type_to_dynd(f.data_type(), f.is_nullable(), &p)?,
                    ))
                })
                .collect::<Result<Vec<_>, Error>>()?;
            Type::new(TypeKind::Struct(Struct {
                fields,
                variadic: false,
            }))?
        }
        other => match primitive_scalar(other) {
            Some(s) => Type::from(s),
            None => return Err(no_dynd_type(dt, path)),
        },
    };
    Ok(if nullable {
        Type::option(value)?
    } else {
        value
    })
}

fn is_option(t: &Type) -> bool {
    matches!(t.kind(), TypeKind::Option(_))
}

fn no_arrow_type(ty: &Type, path: &str) -> Error {
    arrow(
        "to_arrow",
        ArrowProblem::NoArrowType { ty: ty.clone() },
        path,
    )
}

/// The Arrow type of one value of dynd type `ty`, and whether it is
/// nullable (`?T`). `var` dimensions become `List` (the `i32` offsets
/// [`Array::to_arrow`] uses unless the values outgrow them).
///
/// ```
/// use dynd_kernels::arrow_interop::{arrow_schema::DataType, arrow_type};
///
/// let (dt, nullable) = arrow_type(&"3 * ?int16".parse()?)?;
/// assert!(matches!(dt, DataType::FixedSizeList(_, 3)) && !nullable);
/// # Ok::<(), dynd_kernels::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Arrow`] naming a dynd type with no Arrow equivalent.
pub fn arrow_type(ty: &Type) -> Result<(DataType, bool), Error> {
    type_to_arrow(ty, "")
}

fn type_to_arrow(ty: &Type, path: &str) -> Result<(DataType, bool), Error> {
    let item = |t: &Type| -> Result<Arc<Field>, Error> {
        let (dt, nullable) = type_to_arrow(t, &join(path, "item"))?;
        Ok(Arc::new(Field::new("item", dt, nullable)))
    };
    Ok(match ty.kind() {
        TypeKind::Option(inner) if !inner.is_dim() => (type_to_arrow(inner, path)?.0, true),
        TypeKind::Scalar(Scalar::Bool) => (DataType::Boolean, false),
        TypeKind::Scalar(Scalar::String) => (DataType::Utf8, false),
        TypeKind::Scalar(Scalar::Bytes) => (DataType::Binary, false),
        TypeKind::Scalar(s) => match primitive_data_type(*s) {
            Some(dt) => (dt, false),
            None => return Err(no_arrow_type(ty, path)),
        },
        TypeKind::Dim(Dim::Var, element) => (DataType::List(item(element)?), false),
        TypeKind::Dim(Dim::Fixed(k), element) => {
            let k = i32::try_from(*k).map_err(|_| no_arrow_type(ty, path))?;
            (DataType::FixedSizeList(item(element)?, k), false)
        }
        TypeKind::Struct(s) => {
            let fields = s
                .fields
                .iter()
                .map(|(name, t)| {
                    let (dt, nullable) = type_to_arrow(t, &join(path, &format!("field '{name}'")))?;
                    Ok(Field::new(name.to_string(), dt, nullable))
                })
                .collect::<Result<Vec<_>, Error>>()?;
            (DataType::Struct(Fields::from(fields)), false)
        }
        _ => return Err(no_arrow_type(ty, path)),
    })
}

// ---------------------------------------------------------------------------
// Arrow to dynd

impl Array {
    /// The dynd array of an Arrow array (see the [module docs](self) for the
    /// types and what is shared): `N * T` for an array of length `N`.
    ///
    /// # Errors
    ///
    /// [`Error::Arrow`] naming the Arrow type for types with no dynd
    /// equivalent, and the row for a null list or fixed-size list.
    pub fn from_arrow(array: &dyn ArrowArray) -> Result<Array, Error> {
        import(array, "")
    }

    /// A struct array (`N * {column: T, ...}`) of a record batch's
    /// columns, copied into one record per row. [`columns_from_record_batch`]
    /// gives the columns without copying.
    ///
    /// # Errors
    ///
    /// As [`Array::from_arrow`], naming the column.
    pub fn from_record_batch(batch: &RecordBatch) -> Result<Array, Error> {
        let schema = batch.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        let columns = columns_from_record_batch(batch)?;
        let columns: Vec<Array> = columns.into_iter().map(|(_, a)| a).collect();
        struct_from_columns(&names, &columns, batch.num_rows())
    }
}

impl TryFrom<&dyn ArrowArray> for Array {
    type Error = Error;

    /// As [`Array::from_arrow`].
    fn try_from(array: &dyn ArrowArray) -> Result<Array, Error> {
        Array::from_arrow(array)
    }
}

impl TryFrom<ArrayRef> for Array {
    type Error = Error;

    /// As [`Array::from_arrow`].
    fn try_from(array: ArrayRef) -> Result<Array, Error> {
        Array::from_arrow(array.as_ref())
    }
}

impl TryFrom<&RecordBatch> for Array {
    type Error = Error;

    /// As [`Array::from_record_batch`].
    fn try_from(batch: &RecordBatch) -> Result<Array, Error> {
        Array::from_record_batch(batch)
    }
}

/// A record batch's columns by name, each converted as
/// [`Array::from_arrow`] converts it (buffers shared, not copied).
///
/// # Errors
///
/// As [`Array::from_arrow`], naming the column.
pub fn columns_from_record_batch(batch: &RecordBatch) -> Result<Vec<(String, Array)>, Error> {
    let schema = batch.schema();
    schema
        .fields()
        .iter()
        .zip(batch.columns())
        .map(|(f, c)| {
            let path = format!("column '{}'", f.name());
            Ok((f.name().clone(), import(c.as_ref(), &path)?))
        })
        .collect()
}

/// A block over `bytes` of `buffer` holding elements aligned to `align`:
/// shared when the buffer's address is aligned, copied otherwise.
fn element_block(buffer: Buffer, align: usize) -> Result<Arc<MemoryBlock>, Error> {
    if (buffer.as_ptr() as usize) % align == 0 {
        Ok(MemoryBlock::from_arrow_buffer(buffer))
    } else {
        MemoryBlock::try_from_bytes(buffer.as_slice())
    }
}

/// An array of `n` elements of `dtype`, `size` bytes apart from byte 0 of
/// `data`.
fn column(
    dtype: Type,
    element: Arrmeta,
    n: usize,
    size: usize,
    data: Arc<MemoryBlock>,
) -> Result<Array, Error> {
    let ty = Type::dim(Dim::Fixed(n), dtype)?;
    let meta = Arrmeta::Fixed {
        size: n,
        stride: size as isize,
        element: Box::new(element),
    };
    Array::try_from_parts(ty, Arc::new(meta), data, 0)
}

fn import(a: &dyn ArrowArray, path: &str) -> Result<Array, Error> {
    let dt = a.data_type();
    let plain = match dt {
        DataType::Boolean => {
            let values = a.as_boolean().values();
            let bytes: Vec<u8> = values.iter().map(u8::from).collect();
            column(
                Scalar::Bool.into(),
                Arrmeta::Scalar,
                a.len(),
                1,
                MemoryBlock::from_vec(bytes),
            )?
        }
        DataType::Utf8 => text(a.as_string::<i32>(), Scalar::String)?,
        DataType::LargeUtf8 => text(a.as_string::<i64>(), Scalar::String)?,
        DataType::Binary => text(a.as_binary::<i32>(), Scalar::Bytes)?,
        DataType::LargeBinary => text(a.as_binary::<i64>(), Scalar::Bytes)?,
        DataType::Utf8View => {
            let v = a.as_string_view();
            text_copy(v.len(), |i| v.value(i).as_bytes(), Scalar::String)?
        }
        DataType::BinaryView => {
            let v = a.as_binary_view();
            text_copy(v.len(), |i| v.value(i), Scalar::Bytes)?
        }
        DataType::List(_) => {
            let l = a.as_list::<i32>();
            no_null_rows(a, path)?;
            let values = import(l.values().as_ref(), &join(path, "item"))?;
            Array::from_offsets(values, l.value_offsets())?
        }
        DataType::LargeList(_) => {
            let l = a.as_list::<i64>();
            no_null_rows(a, path)?;
            let values = import(l.values().as_ref(), &join(path, "item"))?;
            Array::from_offsets(values, l.value_offsets())?
        }
        DataType::ListView(_) => {
            let l = a.as_list_view::<i32>();
            no_null_rows(a, path)?;
            let values = import(l.values().as_ref(), &join(path, "item"))?;
            Array::from_starts_lengths(values, l.value_offsets(), l.value_sizes())?
        }
        DataType::LargeListView(_) => {
            let l = a.as_list_view::<i64>();
            no_null_rows(a, path)?;
            let values = import(l.values().as_ref(), &join(path, "item"))?;
            Array::from_starts_lengths(values, l.value_offsets(), l.value_sizes())?
        }
        DataType::FixedSizeList(_, k) => {
            let l = a.as_fixed_size_list();
            no_null_rows(a, path)?;
            let k = usize::try_from(*k).map_err(|_| no_dynd_type(dt, path))?;
            let n = l.len();
            let count = n
                .checked_mul(k)
                .filter(|c| *c <= l.values().len())
                .ok_or_else(|| {
                    arrow(
                        "from_arrow",
                        ArrowProblem::FixedSizeValues {
                            lists: n,
                            size: k,
                            values: l.values().len(),
                        },
                        path,
                    )
                })?;
            let values = l.values().slice(0, count);
            let values = import(values.as_ref(), &join(path, "item"))?;
            values.split_first(n, k)?
        }
        DataType::Struct(fields) => {
            let s = a.as_struct();
            let names: Vec<&str> = fields.iter().map(|f| f.name().as_str()).collect();
            let columns = s
                .columns()
                .iter()
                .zip(&names)
                .map(|(c, name)| import(c.as_ref(), &join(path, &format!("field '{name}'"))))
                .collect::<Result<Vec<_>, Error>>()?;
            struct_from_columns(&names, &columns, s.len())?
        }
        other => match primitive_scalar(other) {
            Some(s) => {
                let data = a.to_data();
                let size = s.size();
                let buffer = data
                    .buffers()
                    .first()
                    .ok_or_else(|| no_dynd_type(dt, path))?;
                let start = data.offset() * size;
                let len = a.len() * size;
                if start + len > buffer.len() {
                    return Err(arrow(
                        "from_arrow",
                        ArrowProblem::Buffer {
                            arrow: dt.to_string().into(),
                            len: a.len(),
                            bytes: buffer.len(),
                        },
                        path,
                    ));
                }
                let block = element_block(buffer.slice_with_length(start, len), size)?;
                column(s.into(), Arrmeta::Scalar, a.len(), size, block)?
            }
            None => return Err(no_dynd_type(dt, path)),
        },
    };
    match a.logical_nulls() {
        Some(nulls) if nulls.null_count() > 0 => with_nulls(&plain, &nulls),
        _ => Ok(plain),
    }
}

/// Refuses null lists: dynd has no optional dimensions.
fn no_null_rows(a: &dyn ArrowArray, path: &str) -> Result<(), Error> {
    match a.nulls() {
        Some(nulls) if nulls.null_count() > 0 => {
            let first = (0..a.len()).find(|&i| nulls.is_null(i)).unwrap_or(0);
            Err(arrow(
                "from_arrow",
                ArrowProblem::NullLists {
                    arrow: a.data_type().to_string().into(),
                    count: nulls.null_count(),
                    first,
                },
                path,
            ))
        }
        _ => Ok(()),
    }
}

/// `string`/`bytes` over an Arrow byte array: the characters shared, a
/// (start, length) pair written per value.
fn text<T: arrow_array::types::ByteArrayType>(
    a: &arrow_array::GenericByteArray<T>,
    s: Scalar,
) -> Result<Array, Error> {
    let offsets = a.value_offsets();
    let mut pairs: Vec<u64> = Vec::new();
    pairs
        .try_reserve_exact(2 * a.len())
        .map_err(|_| Error::alloc(a.len() as u128 * PAIR_SIZE as u128))?;
    for w in offsets.windows(2) {
        let (start, end) = (w[0].as_usize(), w[1].as_usize());
        pairs.push(start as u64);
        pairs.push(end.saturating_sub(start) as u64);
    }
    let block = MemoryBlock::from_arrow_buffer(a.values().clone());
    column(
        s.into(),
        Arrmeta::Text { block },
        a.len(),
        PAIR_SIZE,
        MemoryBlock::from_vec(pairs),
    )
}

/// `string`/`bytes` from `n` values, copied into one run.
fn text_copy<'a>(n: usize, value: impl Fn(usize) -> &'a [u8], s: Scalar) -> Result<Array, Error> {
    let mut chars = Vec::new();
    let mut pairs: Vec<u64> = Vec::with_capacity(2 * n);
    for i in 0..n {
        let v = value(i);
        pairs.push(chars.len() as u64);
        pairs.push(v.len() as u64);
        chars.extend_from_slice(v);
    }
    column(
        s.into(),
        Arrmeta::Text {
            block: MemoryBlock::from_vec(chars),
        },
        n,
        PAIR_SIZE,
        MemoryBlock::from_vec(pairs),
    )
}

/// The bytes of element `i` of a 1-d array of `size`-byte elements.
fn element(a: &Array, stride: isize, size: usize, i: usize) -> &[u8] {
    let at = a.data_offset() as isize + i as isize * stride;
    &a.data_block().bytes()[at as usize..at as usize + size]
}

/// The size, stride, element type and arrmeta of a 1-d array's elements.
fn elements(a: &Array) -> Result<(usize, usize, isize, &Type, &Arrmeta), Error> {
    match (a.ty().kind(), a.arrmeta()) {
        (
            TypeKind::Dim(Dim::Fixed(n), element_ty),
            Arrmeta::Fixed {
                stride, element, ..
            },
        ) => Ok((
            *n,
            element_ty.data_layout()?.size,
            *stride,
            element_ty,
            element,
        )),
        _ => Err(Error::NeedsArray {
            op: "an Arrow conversion".into(),
            expected: "an array with a fixed first dimension (`N * T`)",
            found: a.ty().clone(),
        }),
    }
}

/// `N * ?T` from `N * T` and Arrow's validity: each value with its flag.
fn with_nulls(a: &Array, nulls: &NullBuffer) -> Result<Array, Error> {
    let (n, size, stride, ty, meta) = elements(a)?;
    let opt = Type::option(ty.clone())?;
    let osize = opt.data_layout()?.size;
    let mut block = MemoryBlock::zeroed(n * osize)?;
    let Some(out) = Arc::get_mut(&mut block) else {
        unreachable!("a fresh block is unique")
    };
    let out = out.bytes_mut();
    for i in 0..n {
        let o = &mut out[i * osize..(i + 1) * osize];
        if nulls.is_valid(i) {
            o[..size].copy_from_slice(element(a, stride, size, i));
            o[size] = 1;
        } else if matches!(meta, Arrmeta::Text { .. } | Arrmeta::Fields { .. }) {
            // The value under an NA is never read; pairs stay in range.
            o[..size].copy_from_slice(element(a, stride, size, i));
        }
    }
    column(
        opt,
        Arrmeta::Option(Box::new(meta.clone())),
        n,
        osize,
        block,
    )
}

/// `N * {name: T, ...}` from the columns `N * T`, one record per row.
fn struct_from_columns(names: &[&str], columns: &[Array], n: usize) -> Result<Array, Error> {
    let mut fields = Vec::with_capacity(columns.len());
    let mut metas = Vec::with_capacity(columns.len());
    for (name, c) in names.iter().zip(columns) {
        let (len, _, _, ty, meta) = elements(c)?;
        if len != n {
            return Err(arrow(
                "from_arrow",
                ArrowProblem::ColumnLength {
                    column: (*name).into(),
                    len,
                    other: names[0].into(),
                    expected: n,
                },
                "",
            ));
        }
        fields.push((Arc::from(*name), ty.clone()));
        metas.push(meta.clone());
    }
    let dtype = Type::new(TypeKind::Struct(Struct {
        fields,
        variadic: false,
    }))?;
    let size = dtype.data_layout()?.size;
    let offsets = dtype.field_offsets().unwrap_or_default();
    let bytes = n
        .checked_mul(size)
        .ok_or_else(|| Error::alloc(n as u128 * size as u128))?;
    let mut block = MemoryBlock::zeroed(bytes)?;
    let Some(out) = Arc::get_mut(&mut block) else {
        unreachable!("a fresh block is unique")
    };
    let out = out.bytes_mut();
    for (c, off) in columns.iter().zip(&offsets) {
        let (_, fsize, stride, ..) = elements(c)?;
        for i in 0..n {
            out[i * size + off..i * size + off + fsize]
                .copy_from_slice(element(c, stride, fsize, i));
        }
    }
    column(
        dtype,
        Arrmeta::Fields {
            offsets,
            fields: metas,
        },
        n,
        size,
        block,
    )
}

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

impl Array {
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
    pub fn to_arrow(&self) -> Result<ArrayRef, Error> {
        export(self, "")
    }

    /// A record batch of a struct array (`N * {column: T, ...}`), one
    /// column per field.
    ///
    /// # Errors
    ///
    /// As [`Array::to_arrow`], and [`Error::NeedsArray`] if the elements are
    /// not structs.
    pub fn to_record_batch(&self) -> Result<RecordBatch, Error> {
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
/// [`Array::to_arrow`] converts it.
///
/// # Errors
///
/// As [`Array::to_arrow`], naming the column, and [`Error::Arrow`] for
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

fn export(a: &Array, path: &str) -> Result<ArrayRef, Error> {
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
        (TypeKind::Scalar(s), _) => {
            let Some(dt) = primitive_data_type(*s) else {
                return Err(no_arrow_type(ty, path));
            };
            let aligned = (a.data_block().as_ptr() as usize + a.data_offset()) % size == 0;
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
                    let c = a.cast(a.ty(), ErrorMode::NoCheck)?;
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
