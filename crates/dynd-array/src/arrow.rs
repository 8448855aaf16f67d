//! Arrow arrays in (feature `arrow`): an Arrow array, list or record
//! batch as a dynd [`Array`], sharing buffers wherever the layouts agree,
//! and the type mapping both ways. The way out (`to_arrow`, which may
//! copy) runs kernels and lives in `dynd-kernels`' `arrow_interop`, whose
//! docs give the whole table.

use std::sync::Arc;

pub use arrow_array;
pub use arrow_buffer;
pub use arrow_schema;

use arrow_array::cast::AsArray;
use arrow_array::{Array as ArrowArray, ArrayRef, RecordBatch};
use arrow_buffer::{ArrowNativeType, Buffer, NullBuffer};
use arrow_schema::{DataType, Field, Fields};
use dynd_types::{ArrowProblem, Dim, Scalar, Struct, Temporal, TimeUnit, Type, TypeKind};

use crate::array::Array;
use crate::arrmeta::{Arrmeta, PAIR_SIZE};
use crate::error::Error;
use crate::memory::MemoryBlock;

/// [`Error::Arrow`] of conversion `op` at `path` (where in a nested
/// value: `column 'x'.item.field 'y'`).
#[doc(hidden)]
pub fn arrow(op: &'static str, problem: ArrowProblem, path: &str) -> Error {
    Error::Arrow {
        op,
        problem: Box::new(problem),
        path: path.into(),
    }
}

#[doc(hidden)]
pub fn join(path: &str, part: &str) -> String {
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
        // The time types: Arrow's layouts (a zoned timestamp is the naive
        // one's scalar here; its zone is [`primitive_type`]'s).
        DataType::Date32 => Scalar::Date,
        DataType::Time32(u) => Temporal::Time(time_unit(u)).scalar(),
        DataType::Time64(u) => Temporal::Time(time_unit(u)).scalar(),
        DataType::Timestamp(u, _) => Temporal::DateTime(time_unit(u)).scalar(),
        DataType::Duration(u) => Temporal::TimeDelta(time_unit(u)).scalar(),
        _ => return None,
    })
}

fn time_unit(u: &arrow_schema::TimeUnit) -> TimeUnit {
    match u {
        arrow_schema::TimeUnit::Second => TimeUnit::Second,
        arrow_schema::TimeUnit::Millisecond => TimeUnit::Milli,
        arrow_schema::TimeUnit::Microsecond => TimeUnit::Micro,
        arrow_schema::TimeUnit::Nanosecond => TimeUnit::Nano,
    }
}

fn arrow_unit(u: TimeUnit) -> arrow_schema::TimeUnit {
    match u {
        TimeUnit::Second => arrow_schema::TimeUnit::Second,
        TimeUnit::Milli => arrow_schema::TimeUnit::Millisecond,
        TimeUnit::Micro => arrow_schema::TimeUnit::Microsecond,
        TimeUnit::Nano => arrow_schema::TimeUnit::Nanosecond,
    }
}

/// The dynd type of a primitive Arrow type stored as dynd stores it: its
/// scalar, or a zoned datetime for a timestamp with a zone.
fn primitive_type(dt: &DataType) -> Result<Option<Type>, Error> {
    Ok(match dt {
        DataType::Timestamp(u, Some(tz)) => Some(Type::new(TypeKind::DateTimeTz {
            unit: time_unit(u),
            tz: tz.as_ref().into(),
        })?),
        dt => primitive_scalar(dt).map(Type::from),
    })
}

/// The Arrow type of a dynd data type stored as Arrow stores it (the
/// primitive scalars, the time types, zoned datetimes).
#[doc(hidden)]
pub fn primitive_arrow_type(t: &Type) -> Option<DataType> {
    match t.kind() {
        TypeKind::Scalar(s) => primitive_data_type(*s),
        TypeKind::DateTimeTz { unit, tz } => Some(DataType::Timestamp(
            arrow_unit(*unit),
            Some(tz.as_ref().into()),
        )),
        _ => None,
    }
}

/// The Arrow type of a dynd scalar stored as Arrow stores it.
#[doc(hidden)]
pub fn primitive_data_type(s: Scalar) -> Option<DataType> {
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
        s => match s.temporal()? {
            Temporal::Date => DataType::Date32,
            Temporal::Time(u @ (TimeUnit::Second | TimeUnit::Milli)) => {
                DataType::Time32(arrow_unit(u))
            }
            Temporal::Time(u) => DataType::Time64(arrow_unit(u)),
            Temporal::DateTime(u) => DataType::Timestamp(arrow_unit(u), None),
            Temporal::TimeDelta(u) => DataType::Duration(arrow_unit(u)),
        },
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
/// use dynd_array::arrow::{arrow_schema::{DataType, Field}, dynd_type};
/// use std::sync::Arc;
///
/// let list = DataType::List(Arc::new(Field::new("item", DataType::Float64, true)));
/// assert_eq!(dynd_type(&list, false)?.to_string(), "var * ?float64");
/// # Ok::<(), dynd::Error>(())
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
        DataType::Dictionary(key, values) => {
            let index = primitive_scalar(key).ok_or_else(|| no_dynd_type(dt, path))?;
            let values = data_type_to_dynd(values, false, &join(path, "values"))?;
            Type::new(TypeKind::Categorical { values, index })
                .map_err(|_| no_dynd_type(dt, path))?
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
        other => match primitive_type(other)? {
            Some(t) => t,
            None => return Err(no_dynd_type(dt, path)),
        },
    };
    Ok(if nullable {
        Type::option(value)?
    } else {
        value
    })
}

#[doc(hidden)]
pub fn is_option(t: &Type) -> bool {
    matches!(t.kind(), TypeKind::Option(_))
}

#[doc(hidden)]
pub fn no_arrow_type(ty: &Type, path: &str) -> Error {
    arrow(
        "to_arrow",
        ArrowProblem::NoArrowType { ty: ty.clone() },
        path,
    )
}

/// The Arrow type of one value of dynd type `ty`, and whether it is
/// nullable (`?T`). `var` dimensions become `List` (the `i32` offsets
/// `to_arrow` (the kernels' `ToArrow`) uses unless the values outgrow them).
///
/// ```
/// use dynd_array::arrow::{arrow_schema::DataType, arrow_type};
///
/// let (dt, nullable) = arrow_type(&"3 * ?int16".parse()?)?;
/// assert!(matches!(dt, DataType::FixedSizeList(_, 3)) && !nullable);
/// # Ok::<(), dynd::Error>(())
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
        TypeKind::Scalar(_) | TypeKind::DateTimeTz { .. } => match primitive_arrow_type(ty) {
            Some(dt) => (dt, false),
            None => return Err(no_arrow_type(ty, path)),
        },
        TypeKind::Categorical { values, index } => {
            let key = primitive_data_type(*index).ok_or_else(|| no_arrow_type(ty, path))?;
            let (values, _) = type_to_arrow(values, &join(path, "values"))?;
            (DataType::Dictionary(Box::new(key), Box::new(values)), false)
        }
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

    /// A record array (`N * {column: T, ...}`) of a record batch's
    /// columns, held as columns ([`Array::from_columns`]): no buffer is
    /// copied, and the import costs the same for any number of rows
    /// (columns that Arrow and dynd lay out differently, such as booleans
    /// and nullable values, are converted as [`Array::from_arrow`]
    /// converts them). A batch with no columns gives `N * {}`.
    ///
    /// # Errors
    ///
    /// As [`Array::from_arrow`], naming the column.
    pub fn from_record_batch(batch: &RecordBatch) -> Result<Array, Error> {
        let schema = batch.schema();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        let columns = columns_from_record_batch(batch)?;
        let columns: Vec<Array> = columns.into_iter().map(|(_, a)| a).collect();
        if columns.is_empty() {
            return struct_from_columns(&names, &columns, batch.num_rows());
        }
        Array::from_columns_at(1, names.into_iter().zip(columns))
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
    if let DataType::Dictionary(..) = dt {
        return import_dictionary(a, path);
    }
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
            match s.nulls() {
                // NA records: `?{...}` is interleaved, each record with its flag.
                Some(n) if n.null_count() > 0 => struct_from_columns(&names, &columns, s.len())?,
                _ if columns.is_empty() => struct_from_columns(&names, &columns, s.len())?,
                _ => Array::from_columns_at(1, names.iter().copied().zip(columns))?,
            }
        }
        other => match primitive_scalar(other).zip(primitive_type(other)?) {
            Some((s, dtype)) => {
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
                column(dtype, Arrmeta::Scalar, a.len(), size, block)?
            }
            None => return Err(no_dynd_type(dt, path)),
        },
    };
    match a.logical_nulls() {
        Some(nulls) if nulls.null_count() > 0 => with_nulls(&plain, &nulls),
        _ => Ok(plain),
    }
}

/// A dictionary array as a categorical one: its keys are the codes (their
/// buffer shared where they have no nulls), its values the categories.
/// A key that names no value is an error naming it; null values in the
/// dictionary are refused (a categorical's categories are not NA: the
/// keys' nulls say NA).
fn import_dictionary(a: &dyn ArrowArray, path: &str) -> Result<Array, Error> {
    let d = a.as_any_dictionary();
    let values = d.values();
    if values.null_count() > 0 {
        return Err(arrow(
            "from_arrow",
            ArrowProblem::NoDyndType {
                arrow: format!("{} with null values in its dictionary", a.data_type()).into(),
            },
            path,
        ));
    }
    let categories = import(values.as_ref(), &join(path, "values"))?;
    let codes = import(d.keys(), &join(path, "keys"))?;
    Array::from_codes(&codes, &categories)
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
#[doc(hidden)]
pub fn element(a: &Array, stride: isize, size: usize, i: usize) -> &[u8] {
    let at = a.data_offset() as isize + i as isize * stride;
    &a.data_block().bytes()[at as usize..at as usize + size]
}

/// The size, stride, element type and arrmeta of a 1-d array's elements.
#[doc(hidden)]
pub fn elements(a: &Array) -> Result<(usize, usize, isize, &Type, &Arrmeta), Error> {
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
