//! Typed arrmeta: what an array needs besides its type to find its elements.
//!
//! One record per level of the type, never a byte blob reinterpreted by
//! convention:
//!
//! | type level | record |
//! |---|---|
//! | fixed dimension | [`Arrmeta::Fixed`]: size and byte stride |
//! | `var` dimension | [`Arrmeta::Var`]: the values block, the byte offset of element 0 in it, the element stride, and whether the rows are packed |
//! | `string`, `bytes` | [`Arrmeta::Text`]: the block holding the characters |
//! | `?T` | [`Arrmeta::Option`]: `T`'s record (the validity flag follows `T`'s bytes) |
//! | tuple, struct | [`Arrmeta::Fields`]: each field's offset and record |
//! | `categorical[T]` | [`Arrmeta::Categories`]: the categories, an array `K * T` of their own (the data holds the codes) |
//! | other scalars | [`Arrmeta::Scalar`] |
//! | a record array held as columns | [`Arrmeta::Columns`]: each field's own array (the root of such an array only) |
//!
//! A `var` element in the data is a (start, length) pair of 64-bit words:
//! row element `i` is at byte `offset + start + i * stride` of the values
//! block (`start` is a signed byte offset), after Arrow's ListView, so rows
//! can be viewed, sliced (with any step) and shared without copying. A `string` element is a (start, length) byte range of the text
//! block.

use std::sync::{Arc, OnceLock};

use dynd_types::{Dim, Type, TypeKind};

use crate::memory::MemoryBlock;

/// The arrmeta record of one level of a type.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Arrmeta {
    /// A fixed-size scalar: nothing to record.
    Scalar,
    /// A fixed dimension.
    Fixed {
        /// Number of elements.
        size: usize,
        /// Bytes from one element to the next (may be 0 or negative).
        stride: isize,
        /// The element's record.
        element: Box<Arrmeta>,
    },
    /// A `var` dimension.
    Var {
        /// The block holding the row elements.
        values: Arc<MemoryBlock>,
        /// Byte offset of element 0 in `values`.
        offset: usize,
        /// Bytes from one element to the next.
        stride: isize,
        /// Row `i + 1` starts where row `i` ends, from row 0 at start 0,
        /// counting the level's rows in C order of every dimension above
        /// it: the rows' elements are the values from `offset` on, in
        /// order, up to where the last row ends. Checked where an array is made (a flag that does
        /// not hold is refused) and cleared by views that drop or reorder
        /// rows, so `flatten` and Arrow export can take the values as they
        /// are, without a pass over the rows.
        packed: bool,
        /// The element's record.
        element: Box<Arrmeta>,
    },
    /// `string` or `bytes`.
    Text {
        /// The block holding the characters.
        block: Arc<MemoryBlock>,
    },
    /// `?T`.
    Option(Box<Arrmeta>),
    /// A tuple or struct: each field's byte offset in the element, and its record.
    Fields {
        /// Byte offsets of the fields.
        offsets: Vec<usize>,
        /// The fields' records.
        fields: Vec<Arrmeta>,
    },
    /// The root of a record array held as columns: `dims * {x: X, y: Y}`
    /// as the arrays `dims * X` and `dims * Y`, each in its own memory
    /// (see [`Columns`]). [`Array::arrmeta`](crate::Array::arrmeta) never
    /// returns one: code that reads raw parts sees the interleaved form.
    Columns(Box<Columns>),
    /// `categorical[T]`: the categories the codes in the data name, an
    /// array `K * T` of their own (checked where the array is made: every
    /// code lies in `0..K`).
    Categories {
        /// The categories.
        categories: Box<Categories>,
    },
}

/// A record array's fields, each an array of its own over the record
/// array's dimensions (Arrow's `StructArray`, Awkward's `RecordArray`):
/// the parts of each field's array, checked equal in their dimensions
/// where the record array was made (`Array::from_columns`), and the
/// interleaved form (one record after another), made the first time a
/// walker asks for raw parts.
#[derive(Clone, Debug)]
pub struct Columns {
    /// Each field's array, as its parts.
    pub(crate) fields: Vec<ColumnParts>,
    /// The interleaved form's arrmeta and block, once made.
    pub(crate) interleaved: OnceLock<(Arc<Arrmeta>, Arc<MemoryBlock>)>,
}

/// The categories of a `categorical[T]` array: an array `K * T` of their
/// own, held as its parts (a checked `Array`'s);
/// [`Array::categories`](crate::Array::categories) gives it back.
#[derive(Clone, Debug)]
pub struct Categories {
    pub(crate) parts: ColumnParts,
}

impl Categories {
    /// How many categories there are (`K`).
    pub fn len(&self) -> usize {
        match self.parts.ty.kind() {
            TypeKind::Dim(Dim::Fixed(k), _) => *k,
            _ => 0,
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Their type, `K * T`.
    pub fn ty(&self) -> &Type {
        &self.parts.ty
    }
}

/// The parts of one field's array (a checked `Array`'s).
#[derive(Clone, Debug)]
pub(crate) struct ColumnParts {
    pub(crate) ty: Type,
    pub(crate) meta: Arc<Arrmeta>,
    pub(crate) data: Arc<MemoryBlock>,
    pub(crate) offset: usize,
}

impl Columns {
    /// The number of fields.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Whether there are no fields (never: a record array held as columns
    /// has at least one).
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }
}

impl Arrmeta {
    /// Whether this record or one under it is a `var` dimension.
    pub fn has_var(&self) -> bool {
        match self {
            Arrmeta::Var { .. } => true,
            Arrmeta::Fixed { element, .. } | Arrmeta::Option(element) => element.has_var(),
            Arrmeta::Fields { fields, .. } => fields.iter().any(Arrmeta::has_var),
            Arrmeta::Columns(c) => c.fields.iter().any(|f| f.meta.has_var()),
            _ => false,
        }
    }

    /// Whether this record or one under it is a `var` level marked packed
    /// (its rows run end to end: see [`Arrmeta::Var`]'s `packed`).
    pub fn claims_packed(&self) -> bool {
        match self {
            Arrmeta::Var {
                packed, element, ..
            } => *packed || element.claims_packed(),
            Arrmeta::Fixed { element, .. } | Arrmeta::Option(element) => element.claims_packed(),
            Arrmeta::Fields { fields, .. } => fields.iter().any(Arrmeta::claims_packed),
            _ => false,
        }
    }

    /// This record with every `var` level under it (itself included)
    /// marked not packed: what a view that drops or reorders rows (a
    /// slice, an integer index, permuted dimensions above the rows) keeps.
    /// A record array's columns and a categorical's categories are arrays
    /// of their own and keep theirs.
    pub fn unpacked(&self) -> Arrmeta {
        let mut m = self.clone();
        m.clear_packed();
        m
    }

    fn clear_packed(&mut self) {
        match self {
            Arrmeta::Var {
                packed, element, ..
            } => {
                *packed = false;
                element.clear_packed();
            }
            Arrmeta::Fixed { element, .. } | Arrmeta::Option(element) => element.clear_packed(),
            Arrmeta::Fields { fields, .. } => fields.iter_mut().for_each(Arrmeta::clear_packed),
            _ => {}
        }
    }

    /// Whether this record or one under it is a `string`/`bytes` record.
    pub fn has_text(&self) -> bool {
        match self {
            Arrmeta::Text { .. } => true,
            Arrmeta::Fixed { element, .. }
            | Arrmeta::Option(element)
            | Arrmeta::Var { element, .. } => element.has_text(),
            Arrmeta::Fields { fields, .. } => fields.iter().any(Arrmeta::has_text),
            Arrmeta::Columns(c) => c.fields.iter().any(|f| f.meta.has_text()),
            Arrmeta::Scalar | Arrmeta::Categories { .. } => false,
        }
    }

    /// The sizes and byte strides of the leading fixed dimensions, outermost
    /// first, and the record under them (a `var` dimension, or the data
    /// type's). Up to four dimensions are kept inline (no allocation).
    pub fn fixed_dims(&self) -> (FixedDims, &Arrmeta) {
        let mut dims = FixedDims::new();
        let mut m = self;
        while let Some((n, s, e)) = m.as_fixed() {
            dims.push((n, s));
            m = e;
        }
        (dims, m)
    }

    /// The innermost `var` level under fixed levels only: its values
    /// block, offset, element stride and element arrmeta.
    #[allow(clippy::type_complexity)]
    pub fn innermost_var(&self) -> Option<(&Arc<MemoryBlock>, usize, isize, &Arrmeta)> {
        match self {
            Arrmeta::Fixed { element, .. } => element.innermost_var(),
            Arrmeta::Var {
                values,
                offset,
                stride,
                element,
                ..
            } => Some((values, *offset, *stride, element)),
            _ => None,
        }
    }

    /// The size and stride of a fixed dimension record.
    #[inline]
    pub fn as_fixed(&self) -> Option<(usize, isize, &Arrmeta)> {
        match self {
            Arrmeta::Fixed {
                size,
                stride,
                element,
            } => Some((*size, *stride, element)),
            _ => None,
        }
    }
}

/// Size in bytes of a `var` element or a `string` element: (start, length) as `u64`s.
pub const PAIR_SIZE: usize = 16;

/// The byte offset of element `i` (in C order) of fixed dimensions `dims`
/// (each one's size and byte stride) whose first element is at `base`;
/// `None` on overflow or a negative offset. One dimension is one
/// multiply-add.
#[inline]
pub(crate) fn c_order_offset(base: isize, dims: &[(usize, isize)], mut i: usize) -> Option<usize> {
    let mut at = base;
    if let [(_, s)] = dims[..] {
        at = at.checked_add(isize::try_from(i).ok()?.checked_mul(s)?)?;
    } else {
        for &(n, s) in dims.iter().rev() {
            at = at.checked_add(isize::try_from(i % n.max(1)).ok()?.checked_mul(s)?)?;
            i /= n.max(1);
        }
    }
    usize::try_from(at).ok()
}

/// Reads a (start, length) pair.
#[inline]
pub fn read_pair(bytes: &[u8]) -> (u64, u64) {
    let mut a = [0u8; 8];
    let mut b = [0u8; 8];
    a.copy_from_slice(&bytes[..8]);
    b.copy_from_slice(&bytes[8..16]);
    (u64::from_ne_bytes(a), u64::from_ne_bytes(b))
}

/// Writes a (start, length) pair.
#[inline]
pub fn write_pair(out: &mut [u8], start: u64, len: u64) {
    out[..8].copy_from_slice(&start.to_ne_bytes());
    out[8..16].copy_from_slice(&len.to_ne_bytes());
}

/// A type's dimension levels, each with its arrmeta record, outermost
/// first.
pub type Levels<'a> = smallvec::SmallVec<[(&'a Dim, &'a Arrmeta); 8]>;

/// The leading fixed dimensions' sizes and byte strides, outermost first
/// ([`Arrmeta::fixed_dims`]).
pub type FixedDims = smallvec::SmallVec<[(usize, isize); 4]>;

/// The dimension levels of `ty` with their records in `meta`, and the
/// element type and record under them.
pub fn levels<'a>(ty: &'a Type, meta: &'a Arrmeta) -> (Levels<'a>, &'a Type, &'a Arrmeta) {
    let mut out = Levels::new();
    let (mut t, mut m) = (ty, meta);
    while let TypeKind::Dim(dim, element) = t.kind() {
        let next = match m {
            Arrmeta::Fixed { element, .. } | Arrmeta::Var { element, .. } => element,
            _ => break,
        };
        out.push((dim, m));
        t = element;
        m = next;
    }
    (out, t, m)
}
