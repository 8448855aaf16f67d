//! Data layouts and arrmeta layouts of concrete types.
//!
//! A concrete type knows how big one element is and how it is aligned
//! ([`DataLayout`]), and which arrmeta records an array of it carries
//! ([`ArrmetaLayout`]): a (size, stride) record per fixed dimension, a
//! (values block, offset, stride) record per `var` dimension, a memory-block
//! reference per `string` or `bytes`, field offsets per tuple or struct.
//!
//! ```
//! use dynd::ndt::{ArrmetaLayout, Type};
//!
//! let t: Type = "3 * {x: int8, y: float64}".parse()?;
//! let layout = t.data_layout()?;
//! assert_eq!((layout.size, layout.align), (48, 8));
//! assert_eq!(t.dtype().field_offsets(), Some(vec![0, 8]));
//! assert!(matches!(t.arrmeta_layout()?, ArrmetaLayout::FixedDim(_)));
//!
//! // NA is a flag beside the value, not a sentinel: a NaN stays a value.
//! let opt: Type = "?float64".parse()?;
//! assert_eq!(opt.data_layout()?.size, 16);
//! assert!("N * int32".parse::<Type>()?.data_layout().is_err());
//! # Ok::<(), dynd::Error>(())
//! ```

use crate::error::Error;
use crate::scalar::Scalar;
use crate::ty::{Dim, Type, TypeKind};

/// Size and alignment of one element of a concrete type, in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataLayout {
    /// Size in bytes (a multiple of `align`).
    pub size: usize,
    /// Alignment in bytes (a power of two).
    pub align: usize,
}

/// The arrmeta records an array of a concrete type carries, outermost first.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArrmetaLayout {
    /// No arrmeta: a fixed-size scalar.
    None,
    /// A fixed dimension's (size, stride), then the element's arrmeta.
    FixedDim(Box<ArrmetaLayout>),
    /// A `var` dimension's (values block, offset, stride), then the element's arrmeta.
    VarDim(Box<ArrmetaLayout>),
    /// A reference to the memory block holding `string` or `bytes` data.
    BlockRef,
    /// An option's arrmeta is its value type's.
    Option(Box<ArrmetaLayout>),
    /// Field offsets of a tuple or struct, then each field's arrmeta.
    Fields(Vec<ArrmetaLayout>),
    /// A reference to the categories of a `categorical` (an array of
    /// their own).
    Categories,
}

fn round_up(n: usize, align: usize) -> Option<usize> {
    n.checked_add(align - 1).map(|n| n & !(align - 1))
}

fn symbolic(ty: &Type, operation: &'static str) -> Error {
    Error::Symbolic {
        operation,
        ty: ty.clone(),
        reason: "it is a pattern, not a type of data".to_string(),
    }
}

fn too_large(ty: &Type) -> Error {
    Error::Invalid(Box::new(crate::TypeRule::DataSize { ty: ty.clone() }))
}

/// C layout of a list of field layouts: (offsets, size, align).
fn c_layout(fields: &[DataLayout]) -> Option<(Vec<usize>, DataLayout)> {
    let mut offsets = Vec::with_capacity(fields.len());
    let mut size = 0usize;
    let mut align = 1usize;
    for f in fields {
        size = round_up(size, f.align)?;
        offsets.push(size);
        size = size.checked_add(f.size)?;
        align = align.max(f.align);
    }
    Some((
        offsets,
        DataLayout {
            size: round_up(size, align)?,
            align,
        },
    ))
}

impl Type {
    /// Size and alignment of one element of this type.
    ///
    /// A fixed dimension holds its elements in C order; a `var` dimension is
    /// a (start, length) pair of 64-bit words into a values block; `string`
    /// and `bytes` likewise; `?T` is a `T` followed by a one-byte validity
    /// flag, so that NA is distinct from every value of `T` (a NaN is a
    /// value); tuples and structs use the C layout.
    ///
    /// # Errors
    ///
    /// [`Error::Symbolic`] for a pattern, [`Error::Invalid`] if the size overflows.
    pub fn data_layout(&self) -> Result<DataLayout, Error> {
        let word = DataLayout { size: 8, align: 8 };
        Ok(match self.kind() {
            TypeKind::Scalar(s) => DataLayout {
                size: s.size(),
                align: s.align(),
            },
            TypeKind::FixedString { size, encoding } => DataLayout {
                size: size
                    .checked_mul(encoding.unit_size())
                    .ok_or_else(|| too_large(self))?,
                align: encoding.unit_size(),
            },
            TypeKind::FixedBytes { size, align } => DataLayout {
                size: *size,
                align: *align,
            },
            TypeKind::DateTimeTz { .. } => DataLayout { size: 8, align: 8 },
            TypeKind::Categorical { index, .. } => DataLayout {
                size: index.size(),
                align: index.align(),
            },
            TypeKind::Void => DataLayout { size: 0, align: 1 },
            TypeKind::Type => word,
            TypeKind::Option(t) => {
                let inner = t.data_layout()?;
                DataLayout {
                    size: inner
                        .size
                        .checked_add(1)
                        .and_then(|n| round_up(n, inner.align))
                        .ok_or_else(|| too_large(self))?,
                    align: inner.align,
                }
            }
            TypeKind::Tuple(_) | TypeKind::Struct(_) => self.fields_layout()?.1,
            TypeKind::Dim(Dim::Fixed(n), element) => {
                let e = element.data_layout()?;
                DataLayout {
                    size: e.size.checked_mul(*n).ok_or_else(|| too_large(self))?,
                    align: e.align,
                }
            }
            TypeKind::Dim(Dim::Var, element) => {
                element.data_layout()?;
                DataLayout { size: 16, align: 8 }
            }
            TypeKind::Callable(_) if !self.is_symbolic() => word,
            _ => return Err(symbolic(self, "a data layout")),
        })
    }

    fn fields_layout(&self) -> Result<(Vec<usize>, DataLayout), Error> {
        let types: Vec<&Type> = match self.kind() {
            TypeKind::Tuple(t) if !t.variadic => t.fields.iter().collect(),
            TypeKind::Struct(s) if !s.variadic => s.fields.iter().map(|(_, t)| t).collect(),
            _ => return Err(symbolic(self, "a field layout")),
        };
        let layouts = types
            .iter()
            .map(|t| t.data_layout())
            .collect::<Result<Vec<_>, _>>()?;
        c_layout(&layouts).ok_or_else(|| too_large(self))
    }

    /// The default (C layout) byte offsets of a concrete tuple's or struct's
    /// fields; `None` for any other type.
    pub fn field_offsets(&self) -> Option<Vec<usize>> {
        self.fields_layout().ok().map(|(offsets, _)| offsets)
    }

    /// The arrmeta records an array of this type carries.
    ///
    /// # Errors
    ///
    /// [`Error::Symbolic`] for a pattern.
    pub fn arrmeta_layout(&self) -> Result<ArrmetaLayout, Error> {
        if self.is_symbolic() {
            return Err(symbolic(self, "an arrmeta layout"));
        }
        Ok(match self.kind() {
            TypeKind::Scalar(Scalar::String | Scalar::Bytes) => ArrmetaLayout::BlockRef,
            TypeKind::Option(t) => ArrmetaLayout::Option(Box::new(t.arrmeta_layout()?)),
            TypeKind::Categorical { .. } => ArrmetaLayout::Categories,
            TypeKind::Tuple(t) => ArrmetaLayout::Fields(
                t.fields
                    .iter()
                    .map(Type::arrmeta_layout)
                    .collect::<Result<_, _>>()?,
            ),
            TypeKind::Struct(s) => ArrmetaLayout::Fields(
                s.fields
                    .iter()
                    .map(|(_, t)| t.arrmeta_layout())
                    .collect::<Result<_, _>>()?,
            ),
            TypeKind::Dim(Dim::Var, t) => ArrmetaLayout::VarDim(Box::new(t.arrmeta_layout()?)),
            TypeKind::Dim(_, t) => ArrmetaLayout::FixedDim(Box::new(t.arrmeta_layout()?)),
            _ => ArrmetaLayout::None,
        })
    }
}
