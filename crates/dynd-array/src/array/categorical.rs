//! Categories: dictionary-encoded arrays, laid out as Arrow's
//! `DictionaryArray` lays them out.
//!
//! An array of `categorical[T]` holds an integer *code* per element (its
//! data, `int32` unless the type says `index=…`) and, once, the
//! *categories*: an array `K * T` of their own, kept in the arrmeta
//! ([`Arrmeta::Categories`]). Element `i` is category `code[i]`. Every
//! code lies in `0..K`, checked where the array is made
//! ([`Array::from_codes`], Arrow import, parts), so a reader indexes the
//! categories without a check of its own. An optional categorical
//! (`?categorical[T]`) flags NA beside the code, whose value then names
//! nothing and is never read.
//!
//! Two arrays of the same categorical type may hold different categories
//! (as two Arrow arrays of one `Dictionary` type may): their codes are
//! comparable only through the categories. No kernel copies codes from
//! one array to another; functions decode, or work on the categories and
//! keep the codes (see the `categorical` functions of `dynd-arrfunc`).
//!
//! ```
//! use dynd::nd::{array, Array};
//!
//! let c = Array::from_codes(&Array::from_vec(vec![1i8, 0, 1, 1]), &array!["low", "high"])?;
//! assert_eq!(c.ty().to_string(), "4 * categorical[string, index=int8]");
//! assert_eq!(c.to_string(), r#"["high", "low", "high", "high"]"#);
//! assert_eq!(c.codes()?.to_string(), "[1, 0, 1, 1]");
//! assert_eq!(c.categories().map(|k| k.to_string()), Some(r#"["low", "high"]"#.to_string()));
//! let bad = Array::from_codes(&Array::from_vec(vec![0i8, 2]), &array!["low", "high"]).unwrap_err();
//! assert!(bad.to_string().contains("code 2 of categorical[string, index=int8] names no category"));
//! # Ok::<(), dynd::Error>(())
//! ```

use std::sync::Arc;

use dynd_types::{ScalarCategory, Type, TypeKind};

use super::{column, Array};
use crate::arrmeta::{Arrmeta, Categories, ColumnParts};
use crate::error::Error;
use crate::value::Value;

/// `meta` with the record under its dimensions replaced by `leaf`.
fn with_leaf(meta: &Arrmeta, leaf: Arrmeta) -> Arrmeta {
    match meta {
        Arrmeta::Fixed {
            size,
            stride,
            element,
        } => Arrmeta::Fixed {
            size: *size,
            stride: *stride,
            element: Box::new(with_leaf(element, leaf)),
        },
        Arrmeta::Var {
            values,
            offset,
            stride,
            packed,
            element,
        } => Arrmeta::Var {
            values: Arc::clone(values),
            offset: *offset,
            stride: *stride,
            packed: *packed,
            element: Box::new(with_leaf(element, leaf)),
        },
        _ => leaf,
    }
}

fn not_categorical(op: &str, found: &Type) -> Error {
    Error::NeedsArray {
        op: op.into(),
        expected: "a categorical array (dims * categorical[T] or dims * ?categorical[T])",
        found: found.clone(),
    }
}

impl Array {
    /// A categorical array from its codes (`dims * I` or `dims * ?I`, `I`
    /// an integer type) and its categories (`K * T`): element `i` is
    /// category `codes[i]`, the type `dims * categorical[T, index=I]`
    /// (optional where the codes are). The codes' memory is shared, not
    /// copied; the categories are kept as they are.
    ///
    /// See the [module docs](crate::array::categorical) for an example.
    ///
    /// # Errors
    ///
    /// [`Error::NeedsArray`] for codes that are not integers or categories
    /// not of one fixed dimension over a data type a categorical may have;
    /// [`Error::Layout`] naming a code outside `0..K`.
    pub fn from_codes(codes: &Array, categories: &Array) -> Result<Array, Error> {
        let op = "from_codes";
        let values = match categories.ty().kind() {
            TypeKind::Dim(dynd_types::Dim::Fixed(_), t) if !t.is_dim() => t.clone(),
            _ => {
                return Err(Error::NeedsArray {
                    op: op.into(),
                    expected: "categories of one fixed dimension (K * T)",
                    found: categories.ty().clone(),
                })
            }
        };
        let (option, index) = match codes.dtype().kind() {
            TypeKind::Option(t) => (true, t.as_scalar()),
            _ => (false, codes.dtype().as_scalar()),
        };
        let index = index
            .filter(|s| {
                matches!(
                    s.category(),
                    ScalarCategory::SignedInt | ScalarCategory::UnsignedInt
                ) && s.size() <= 8
            })
            .ok_or_else(|| Error::NeedsArray {
                op: op.into(),
                expected: "integer codes (int8 … int64, uint8 … uint64, or optional ones)",
                found: codes.ty().clone(),
            })?;
        let dtype = Type::new(TypeKind::Categorical { values, index })?;
        let dtype = if option { Type::option(dtype)? } else { dtype };
        let dims = codes.ty().split_dims().0.into_iter().cloned();
        let ty = Type::with_dims(dims, dtype)?;
        let (meta, data, offset) = categories.raw();
        let leaf = Arrmeta::Categories {
            categories: Box::new(Categories {
                parts: ColumnParts {
                    ty: categories.ty().clone(),
                    meta: Arc::clone(meta),
                    data: Arc::clone(data),
                    offset,
                },
            }),
        };
        let leaf = if option {
            Arrmeta::Option(Box::new(leaf))
        } else {
            leaf
        };
        let meta = with_leaf(codes.arrmeta(), leaf);
        Array::try_from_parts(
            ty,
            Arc::new(meta),
            codes.data_block().clone(),
            codes.data_offset(),
        )
    }

    /// Whether the elements are categorical (`categorical[T]` or
    /// `?categorical[T]`).
    ///
    /// Every call asks this of each argument: inline, and a builtin
    /// scalar data type (one bit of its type word) answers without a
    /// second look.
    #[inline]
    pub fn is_categorical(&self) -> bool {
        let d = self.dtype();
        if d.as_scalar().is_some() {
            return false;
        }
        let t = match d.kind() {
            TypeKind::Option(t) => t,
            _ => d,
        };
        matches!(t.kind(), TypeKind::Categorical { .. })
    }

    /// The codes of a categorical array, a view: `dims * I` (or
    /// `dims * ?I`) over the same memory.
    ///
    /// # Errors
    ///
    /// [`Error::NeedsArray`] for an array that is not categorical.
    pub fn codes(&self) -> Result<Array, Error> {
        let (option, index) = match self.dtype().kind() {
            TypeKind::Categorical { index, .. } => (false, *index),
            TypeKind::Option(t) => match t.kind() {
                TypeKind::Categorical { index, .. } => (true, *index),
                _ => return Err(not_categorical("codes", self.ty())),
            },
            _ => return Err(not_categorical("codes", self.ty())),
        };
        let dtype: Type = index.into();
        let (dtype, leaf) = if option {
            (
                Type::option(dtype)?,
                Arrmeta::Option(Box::new(Arrmeta::Scalar)),
            )
        } else {
            (dtype, Arrmeta::Scalar)
        };
        let dims = self.ty().split_dims().0.into_iter().cloned();
        let ty = Type::with_dims(dims, dtype)?;
        let meta = with_leaf(self.arrmeta(), leaf);
        Array::try_from_parts(
            ty,
            Arc::new(meta),
            self.data_block().clone(),
            self.data_offset(),
        )
    }

    /// The categories of a categorical array (`K * T`, the array it holds,
    /// not a copy); `None` for any other array.
    pub fn categories(&self) -> Option<Array> {
        let leaf = match super::columns::leaf_meta(self.arrmeta(), self.ndim())? {
            Arrmeta::Option(m) => m,
            m => m,
        };
        match leaf {
            Arrmeta::Categories { categories } => Some(column(&categories.parts)),
            _ => None,
        }
    }
}

/// An array of a categorical type `ty` (`dims * categorical[T]`, or an
/// optional one) holding `v`: its distinct values (equal as their JSON
/// text) the categories in order of first appearance. `None` for any
/// other type.
pub(crate) fn from_value(v: &Value, ty: &Type) -> Option<Result<Array, Error>> {
    let (dims, dtype) = ty.split_dims();
    let (option, inner) = match dtype.kind() {
        TypeKind::Option(t) => (true, t),
        _ => (false, dtype),
    };
    let TypeKind::Categorical { values, index } = inner.kind() else {
        return None;
    };
    let nd = dims.len();
    let mut distinct: Vec<Value> = Vec::new();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    fn codes(
        v: &Value,
        depth: usize,
        seen: &mut std::collections::HashMap<String, usize>,
        distinct: &mut Vec<Value>,
    ) -> Value {
        match (depth, v) {
            (0, Value::Null) => Value::Null,
            (0, v) => {
                let key = v.to_json();
                let code = *seen.entry(key).or_insert_with(|| {
                    distinct.push(v.clone());
                    distinct.len() - 1
                });
                Value::Int(code as i128)
            }
            (d, Value::List(items)) => Value::List(
                items
                    .iter()
                    .map(|x| codes(x, d - 1, seen, distinct))
                    .collect(),
            ),
            // Not a list where a dimension is: building the codes says so.
            (_, v) => v.clone(),
        }
    }
    let code_values = codes(v, nd, &mut seen, &mut distinct);
    Some((|| {
        let k = distinct.len();
        let categories = Array::from_value(
            &Value::List(distinct),
            Some(&Type::dim(dynd_types::Dim::Fixed(k), values.clone())?),
        )?;
        let code_ty: Type = (*index).into();
        let code_ty = if option {
            Type::option(code_ty)?
        } else {
            code_ty
        };
        let code_ty = Type::with_dims(dims.into_iter().cloned(), code_ty)?;
        let codes = Array::from_value(&code_values, Some(&code_ty))?;
        Array::from_codes(&codes, &categories)
    })())
}
