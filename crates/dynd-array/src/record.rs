//! Fields of record and tuple arrays, read as views.
//!
//! A field of a record array `dims * {x: X, y: Y}` is the array
//! `dims * X`: the record array's own dimensions over one field of each
//! record. It is a view, never a copy: for records held as columns it is
//! the column itself ([`Array::from_columns`]); for interleaved records
//! it shares their block, each element one record's stride from the next.
//! Fields read at any depth (`{a: {b: int32}}` gives `a`, then `b`) and
//! under fixed and `var` dimensions alike; tuples' fields read by
//! position. The one copy is a field of optional records (`?{x: X}`): an
//! NA record has NA fields, and `?X` keeps its flag beside its value, so
//! the result `dims * ?X` is made anew.
//!
//! ```
//! use dynd::nd::Array;
//!
//! let ty = "2 * var * {name: string, at: {x: float64, y: float64}}".parse()?;
//! let a = Array::from_json(
//!     r#"[[{"name": "a", "at": {"x": 1, "y": 2}}], []]"#,
//!     Some(&ty),
//! )?;
//! let x = a.field("at")?.field("x")?;
//! assert_eq!(x.ty().to_string(), "2 * var * float64");
//! assert_eq!(x.to_string(), "[[1], []]");
//! assert_eq!(x.data_block().as_ptr(), a.field("name")?.data_block().as_ptr()); // one block
//!
//! // An unknown field lists the ones there are.
//! let err = a.field("size").unwrap_err();
//! assert_eq!(err.to_string(), "{name: string, at: {x: float64, y: float64}} has no field 'size'; its fields are name, at");
//! # Ok::<(), dynd::Error>(())
//! ```

use std::sync::Arc;

use dynd_types::{Type, TypeKind};

use crate::array::columns::{leaf_meta as leaf_of, pack};
use crate::array::Array;
use crate::arrmeta::Arrmeta;
use crate::error::Error;

/// Whether `dtype` is a record or a tuple, or an option of one.
pub fn is_record(dtype: &Type) -> bool {
    let t = match dtype.kind() {
        TypeKind::Option(t) => t,
        _ => dtype,
    };
    fields_of(t).is_some()
}

/// A record or tuple data type's fields: names (`None` for a tuple's) and
/// types.
fn fields_of(dtype: &Type) -> Option<Vec<(Option<&str>, &Type)>> {
    match dtype.kind() {
        TypeKind::Struct(s) => Some(s.fields.iter().map(|(n, t)| (Some(&**n), t)).collect()),
        TypeKind::Tuple(t) => Some(t.fields.iter().map(|t| (None, t)).collect()),
        _ => None,
    }
}

fn labels(fields: &[(Option<&str>, &Type)]) -> Vec<Box<str>> {
    fields
        .iter()
        .enumerate()
        .map(|(i, (n, _))| match n {
            Some(n) => Box::from(*n),
            None => i.to_string().into(),
        })
        .collect()
}

/// The position of the field called `name` in the record (or tuple: a
/// position written out) data type `dtype`.
///
/// # Errors
///
/// [`Error::NoField`] listing the fields; [`Error::NeedsArray`] if
/// `dtype` is not a record or tuple (or an option of one).
pub fn field_index(dtype: &Type, name: &str) -> Result<usize, Error> {
    let rec = match dtype.kind() {
        TypeKind::Option(t) => t,
        _ => dtype,
    };
    let fields = fields_of(rec).ok_or_else(|| not_record("field", dtype))?;
    let found = match rec.kind() {
        TypeKind::Tuple(_) => name.parse::<usize>().ok().filter(|&i| i < fields.len()),
        _ => fields.iter().position(|(n, _)| *n == Some(name)),
    };
    found.ok_or_else(|| Error::NoField {
        ty: rec.clone(),
        field: format!("'{name}'").into(),
        fields: labels(&fields),
    })
}

fn not_record(op: &str, ty: &Type) -> Error {
    Error::NeedsArray {
        op: op.into(),
        expected: "an array of records or tuples",
        found: ty.clone(),
    }
}

impl Array {
    /// The field called `name` of every record: a view, `dims * T` for a
    /// record array `dims * {..., name: T, ...}` (see the [module
    /// docs](self)). For a tuple array, `name` is a position (`"0"`).
    ///
    /// # Errors
    ///
    /// [`Error::NoField`] listing the fields there are;
    /// [`Error::NeedsArray`] for an array of something else.
    pub fn field(&self, name: &str) -> Result<Array, Error> {
        let i = field_index(self.dtype(), name).map_err(|e| match e {
            Error::NeedsArray { .. } => not_record("field", self.ty()),
            e => e,
        })?;
        self.field_at(i)
    }

    /// Field `i` (in field order) of every record or tuple: as
    /// [`Array::field`].
    ///
    /// ```
    /// use dynd::nd::Array;
    ///
    /// let t = Array::from_json(r#"[[1, "a"], [2, "b"]]"#, Some(&"2 * (int8, string)".parse()?))?;
    /// assert_eq!(t.field_at(1)?.to_string(), r#"["a", "b"]"#);
    /// assert!(t.field_at(2).unwrap_err().to_string().contains("has no field 2; its fields are 0, 1"));
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::NoField`] for `i` past the last field;
    /// [`Error::NeedsArray`] for an array of something else.
    pub fn field_at(&self, i: usize) -> Result<Array, Error> {
        let dtype = self.dtype();
        let (option, rec) = match dtype.kind() {
            TypeKind::Option(t) => (true, t),
            _ => (false, dtype),
        };
        let fields = fields_of(rec).ok_or_else(|| not_record("field", self.ty()))?;
        let Some(&(_, fty)) = fields.get(i) else {
            return Err(Error::NoField {
                ty: rec.clone(),
                field: i.to_string().into(),
                fields: labels(&fields),
            });
        };
        if let Some(columns) = self.columns() {
            if let Some(c) = columns.into_iter().nth(i) {
                return Ok(c);
            }
        }
        let dims = self.ty().split_dims().0.into_iter().cloned();
        let ty = Type::with_dims(
            dims,
            if option {
                Type::option(match fty.kind() {
                    TypeKind::Option(u) => u.clone(),
                    _ => fty.clone(),
                })?
            } else {
                fty.clone()
            },
        )?;
        let nd = self.ndim();
        let (meta, pending) = field_meta(self.arrmeta(), nd, i, option)
            .ok_or_else(|| not_record("field", self.ty()))?;
        if option {
            return option_field(self, &ty, i, meta);
        }
        let offset = self
            .data_offset()
            .checked_add(pending)
            .ok_or_else(|| not_record("field", self.ty()))?;
        Array::try_from_parts(ty, Arc::new(meta), self.data_block().clone(), offset)
    }

    /// Every field of every record, in field order: views, as
    /// [`Array::field_at`] gives them one by one.
    ///
    /// # Errors
    ///
    /// [`Error::NeedsArray`] for an array that does not hold records or
    /// tuples.
    pub fn fields(&self) -> Result<Vec<Array>, Error> {
        let rec = match self.dtype().kind() {
            TypeKind::Option(t) => t,
            _ => self.dtype(),
        };
        let n = fields_of(rec)
            .ok_or_else(|| not_record("fields", self.ty()))?
            .len();
        if let Some(columns) = self.columns() {
            return Ok(columns);
        }
        (0..n).map(|i| self.field_at(i)).collect()
    }
}

impl Array {
    /// `dims * ?T` from `values` (`dims * T`, any data type that is not
    /// an option: records too) and `valid` (`dims * bool`, the same
    /// dimensions and rows): each value with its flag. The values are
    /// copied (an option's flag lives beside its value); what they point
    /// into (text, rows of a `var` field) is shared.
    ///
    /// ```
    /// use dynd::nd::Array;
    ///
    /// let p = Array::from_json(r#"[{"x": 1}, {"x": 2}]"#, Some(&"2 * {x: int8}".parse()?))?;
    /// let o = Array::optional(&p, &Array::from_vec(vec![true, false]))?;
    /// assert_eq!(o.ty().to_string(), "2 * ?{x: int8}");
    /// assert_eq!(o.to_string(), r#"[{"x": 1}, null]"#);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::NeedsArray`] for `valid` not `bool` or of other dimensions,
    /// or `values` already optional.
    pub fn optional(values: &Array, valid: &Array) -> Result<Array, Error> {
        let bad = |expected: &'static str, found: &Array| Error::NeedsArray {
            op: "optional".into(),
            expected,
            found: found.ty().clone(),
        };
        if valid.dtype().as_scalar() != Some(dynd_types::Scalar::Bool)
            || valid.shape() != values.shape()
        {
            return Err(bad(
                "validity flags (bool) of the values' dimensions",
                valid,
            ));
        }
        if matches!(values.dtype().kind(), TypeKind::Option(_)) {
            return Err(bad("values that are not optional already", values));
        }
        let size = values.dtype().data_layout()?.size;
        let ty = Type::with_dims(values.shape(), Type::option(values.dtype().clone())?)?;
        let leaf = leaf_of(values.arrmeta(), values.ndim())
            .cloned()
            .ok_or_else(|| bad("an array", values))?;
        let mut write = |src: &[&[u8]], out: &mut [u8]| {
            out[..size].copy_from_slice(src[0]);
            out[size] = u8::from(src[1][0] != 0);
            Ok(())
        };
        pack(
            &ty,
            &[values.clone(), valid.clone()],
            Arrmeta::Option(Box::new(leaf)),
            &mut write,
        )
    }
}

/// The values and the flags of a `?T` array over one fixed dimension
/// (`K * ?T` to `K * T` and `K * bool`), views of its memory.
pub(crate) fn option_parts_view(a: &Array) -> Option<(Array, Array)> {
    let TypeKind::Option(inner) = a.dtype().kind() else {
        return None;
    };
    let (n, stride, element) = a.arrmeta().as_fixed()?;
    let Arrmeta::Option(value_meta) = element else {
        return None;
    };
    let size = inner.data_layout().ok()?.size;
    let view = |t: Type, m: Arrmeta, at: usize| {
        let meta = Arrmeta::Fixed {
            size: n,
            stride,
            element: Box::new(m),
        };
        Array::try_from_parts(
            Type::dim(dynd_types::Dim::Fixed(n), t).ok()?,
            Arc::new(meta),
            a.data_block().clone(),
            a.data_offset().checked_add(at)?,
        )
        .ok()
    };
    Some((
        view(inner.clone(), (**value_meta).clone(), 0)?,
        view(dynd_types::Scalar::Bool.into(), Arrmeta::Scalar, size)?,
    ))
}

/// The arrmeta of field `i`'s view of `nd` dimension records over a
/// record's (`?record`'s with `option`: there the field's own record,
/// under the dimensions, is what the copy's is made of), and the bytes
/// its offset adds to the array's data offset (0 when a `var` level above
/// absorbs it into its values' offset).
fn field_meta(meta: &Arrmeta, nd: usize, i: usize, option: bool) -> Option<(Arrmeta, usize)> {
    if nd == 0 {
        let rec = match meta {
            Arrmeta::Option(inner) if option => &**inner,
            m => m,
        };
        let Arrmeta::Fields { offsets, fields } = rec else {
            return None;
        };
        return Some((fields.get(i)?.clone(), *offsets.get(i)?));
    }
    Some(match meta {
        Arrmeta::Fixed {
            size,
            stride,
            element,
        } => {
            let (e, pending) = field_meta(element, nd - 1, i, option)?;
            (
                Arrmeta::Fixed {
                    size: *size,
                    stride: *stride,
                    element: Box::new(e),
                },
                pending,
            )
        }
        Arrmeta::Var {
            values,
            offset,
            stride,
            packed,
            element,
        } => {
            let (e, pending) = field_meta(element, nd - 1, i, option)?;
            (
                Arrmeta::Var {
                    values: values.clone(),
                    offset: offset.checked_add(pending)?,
                    stride: *stride,
                    packed: *packed,
                    element: Box::new(e),
                },
                0,
            )
        }
        _ => return None,
    })
}

/// Field `i` of optional records, `ty` (`dims * ?X`): each value with a
/// flag that is set where the record and (for an optional field) the
/// field are both there. `meta` is the field's view arrmeta (dimensions
/// over the field's own record).
fn option_field(a: &Array, ty: &Type, i: usize, meta: Arrmeta) -> Result<Array, Error> {
    let dtype = a.dtype();
    let TypeKind::Option(rec) = dtype.kind() else {
        return Err(not_record("field", a.ty()));
    };
    let flag_at = rec.data_layout()?.size;
    let fields = fields_of(rec).ok_or_else(|| not_record("field", a.ty()))?;
    let fty = fields[i].1;
    let (value_size, field_flag) = match fty.kind() {
        TypeKind::Option(u) => (u.data_layout()?.size, true),
        _ => (fty.data_layout()?.size, false),
    };
    let field_size = fty.data_layout()?.size;
    let Arrmeta::Option(inner) =
        leaf_of(a.arrmeta(), a.ndim()).ok_or_else(|| not_record("field", a.ty()))?
    else {
        return Err(not_record("field", a.ty()));
    };
    let Arrmeta::Fields { offsets, .. } = &**inner else {
        return Err(not_record("field", a.ty()));
    };
    let off = offsets[i];
    let field_leaf = leaf_of(&meta, a.ndim())
        .cloned()
        .ok_or_else(|| not_record("field", a.ty()))?;
    let leaf = match field_leaf {
        m @ Arrmeta::Option(_) => m,
        m => Arrmeta::Option(Box::new(m)),
    };
    let mut write = |src: &[&[u8]], out: &mut [u8]| {
        let r = src[0];
        out[..field_size].copy_from_slice(&r[off..off + field_size]);
        let valid = r[flag_at] != 0 && (!field_flag || r[off + value_size] != 0);
        out[value_size] = u8::from(valid);
        Ok(())
    };
    pack(ty, std::slice::from_ref(a), leaf, &mut write)
}
