//! Record arrays held as columns: each field in its own memory.
//!
//! A record array `dims * {x: X, y: Y}` is either *interleaved* (one record
//! after another, each field at its offset in the record: NumPy's
//! structured arrays, a `#[repr(C)]` Rust struct) or held as *columns*:
//! the arrays `dims * X` and `dims * Y`, each with its own block,
//! arrmeta and strides (Arrow's `StructArray`, Awkward's `RecordArray`).
//! The columns form is what Arrow record batches and struct columns come
//! in as, without copying any buffer, and a field of it is its own array
//! at no cost.
//!
//! The columns' dimensions are checked equal where the record array is
//! made ([`Array::from_columns`]): the same fixed sizes, and the same
//! length for every `var` row. Code that understands records (fields,
//! zipping, order, Arrow export, the fused expressions) reads the columns;
//! every other walker asks an array for its raw parts
//! ([`Array::arrmeta`], [`Array::data_block`]), and a record array held as
//! columns answers with its interleaved form, made once on first use and
//! kept with the columns.
//!
//! ## The representation, and why
//!
//! In the architecture's terms an array is a type, arrmeta and a data
//! reference, and its dimensions find elements by byte address: a fixed
//! dimension adds `i * stride`, a `var` row is a (start, length) pair into
//! its values block. A record's fields are then byte offsets inside each
//! element ([`Arrmeta::Fields`]): the interleaved layout. Held as columns,
//! a record array is instead the arrays of its fields, each with its own
//! block, arrmeta and strides over the record dimensions
//! ([`Arrmeta::Columns`] at the root, holding the fields' parts):
//! `dims * {x: X, y: Y}` is `dims * X` beside `dims * Y`, the dimensions
//! repeated per field (a `var` dimension is one pairs block per field, the
//! pairs being byte offsets into each field's own values).
//!
//! The other design — per-field blocks in the record's arrmeta, the
//! dimensions above computing one "record address" each field scales by
//! its own element size — keeps one set of dimensions but makes the
//! address a kernel sees for a record a virtual one: every walker that
//! copies, takes or prints elements would have to know it, and one that
//! did not would read memory the address does not name. Here the raw
//! parts a walker can get are always real (the interleaved form), so the
//! invariant the unsafe loops rely on — every element any index reaches
//! lies in its block — holds by construction: validated where each field's
//! array was made, and where the interleaved copy is made
//! ([`Array::try_from_parts`](crate::Array::try_from_parts)). What the
//! columns cost is that walker's copy, once; what they give is Arrow's
//! and Awkward's layout without a copy, and a field that is an array of
//! its own (contiguous, as fast as a plain column).
//!
//! Views (`index`, slices, `expand_dims`, transposes, reshapes) apply to
//! each field and keep the columns; writing to a record array held as
//! columns makes it interleaved first.
//!
//! ```
//! use dynd::nd::Array;
//!
//! let x = Array::from_vec(vec![1.0f64, 2.0, 3.0]);
//! let y = Array::from_vec(vec![10i32, 20, 30]);
//! let p = Array::from_columns([("x", x.clone()), ("y", y)])?;
//! assert_eq!(p.ty().to_string(), "3 * {x: float64, y: int32}");
//! assert!(p.is_columnar());
//! // A field is the column itself: the same memory.
//! assert_eq!(p.field("x")?.data_ptr(), x.data_ptr());
//! assert_eq!(p.to_string(), r#"[{"x": 1, "y": 10}, {"x": 2, "y": 20}, {"x": 3, "y": 30}]"#);
//! # Ok::<(), dynd::Error>(())
//! ```

use std::mem::ManuallyDrop;
use std::sync::{Arc, OnceLock};

use dynd_types::{Dim, LayoutProblem, Struct, Tuple, Type, TypeKind};

use super::display::dim_entries;
use super::Array;
use crate::arrmeta::{write_pair, Arrmeta, ColumnParts, Columns, PAIR_SIZE};
use crate::error::Error;
use crate::memory::MemoryBlock;

/// The block every record array held as columns points its own (unused)
/// data at: shared, so never unique, so never kept for reuse with the
/// columns inside its arrmeta.
fn no_data() -> Arc<MemoryBlock> {
    static EMPTY: OnceLock<Arc<MemoryBlock>> = OnceLock::new();
    EMPTY.get_or_init(|| MemoryBlock::from_bytes(&[])).clone()
}

/// Names and arrays apart.
fn named<S: AsRef<str>>(
    fields: impl IntoIterator<Item = (S, Array)>,
) -> (Vec<Box<str>>, Vec<Array>) {
    fields
        .into_iter()
        .map(|(n, a)| (Box::from(n.as_ref()), a))
        .unzip()
}

fn field_label(names: Option<&[Box<str>]>, i: usize) -> Box<str> {
    match names {
        Some(n) => format!("'{}'", n[i]).into(),
        None => i.to_string().into(),
    }
}

impl Array {
    /// A record array of the named fields' arrays, without copying them:
    /// `dims * {name: T, ...}` from arrays `dims * T`, where `dims` are
    /// all the dimensions the arrays share (the same fixed sizes, `var`
    /// dimensions with the same row lengths): records as deep as they go,
    /// as Awkward's `ak.zip` makes them. [`Array::from_columns_at`] says
    /// how deep. The fields keep their own memory (see the [module
    /// docs](self)); a field of the result is its array again.
    ///
    /// ```
    /// use dynd::nd::{array, Array};
    ///
    /// let a = array![[1, 2], [3]];
    /// let b = array![[0.5, 1.5], [2.5]];
    /// let r = Array::from_columns([("a", a.clone()), ("b", b.clone())])?;
    /// assert_eq!(r.ty().to_string(), "2 * var * {a: int64, b: float64}");
    /// assert_eq!(r.to_string(), r#"[[{"a": 1, "b": 0.5}, {"a": 2, "b": 1.5}], [{"a": 3, "b": 2.5}]]"#);
    ///
    /// // One record per row of lists, rows of other lengths allowed.
    /// let c = Array::from_nested(vec![vec![1i64, 2], vec![3, 4]])?; // 2 * var * int64
    /// let r = Array::from_columns_at(1, [("a", a.clone()), ("c", c.clone())])?;
    /// assert_eq!(r.ty().to_string(), "2 * {a: var * int64, c: var * int64}");
    ///
    /// // As deep as they go, their rows must agree: the error names the row.
    /// let err = Array::from_columns([("a", a), ("c", c)]).unwrap_err();
    /// assert!(err.to_string().contains("row [1] has 2 element(s) in field 'c' and 1 in field 'a'"));
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::ColumnShape`] naming the field whose rows differ from the
    /// first field's; [`Error::Invalid`] for two fields of one name;
    /// [`Error::Argument`] for no fields.
    pub fn from_columns<S: AsRef<str>>(
        fields: impl IntoIterator<Item = (S, Array)>,
    ) -> Result<Array, Error> {
        let (names, arrays) = named(fields);
        Array::columns_of(Some(names), arrays, None)
    }

    /// As [`Array::from_columns`], the records under the first `ndim`
    /// dimensions of every field's array (which must agree); the rest of
    /// each array's dimensions are its field's: `ndim = 1` over arrays
    /// `N * T` gives `N * {name: T, ...}`, as an Arrow `StructArray`.
    ///
    /// # Errors
    ///
    /// [`Error::ColumnShape`] naming the field whose first `ndim`
    /// dimensions or rows differ from the first field's (or that has
    /// fewer); as [`Array::from_columns`].
    pub fn from_columns_at<S: AsRef<str>>(
        ndim: usize,
        fields: impl IntoIterator<Item = (S, Array)>,
    ) -> Result<Array, Error> {
        let (names, arrays) = named(fields);
        Array::columns_of(Some(names), arrays, Some(ndim))
    }

    /// A tuple array of the fields' arrays, without copying them:
    /// `dims * (T0, T1, ...)` from arrays `dims * Ti` (as
    /// [`Array::from_columns`]; fields are read by position).
    ///
    /// # Errors
    ///
    /// As [`Array::from_columns`].
    pub fn tuple_from_columns(fields: impl IntoIterator<Item = Array>) -> Result<Array, Error> {
        Array::columns_of(None, fields.into_iter().collect(), None)
    }

    /// As [`Array::tuple_from_columns`], under the first `ndim`
    /// dimensions (as [`Array::from_columns_at`]).
    ///
    /// # Errors
    ///
    /// As [`Array::from_columns_at`].
    pub fn tuple_from_columns_at(
        ndim: usize,
        fields: impl IntoIterator<Item = Array>,
    ) -> Result<Array, Error> {
        Array::columns_of(None, fields.into_iter().collect(), Some(ndim))
    }

    fn columns_of(
        names: Option<Vec<Box<str>>>,
        arrays: Vec<Array>,
        ndim: Option<usize>,
    ) -> Result<Array, Error> {
        let Some(first) = arrays.first() else {
            return Err(Error::Argument {
                op: "from_columns",
                what: "the fields",
                expected: "at least one field (a record array held as columns takes its dimensions from its fields)",
                found: "none".into(),
            });
        };
        let (dims, _) = first.ty().split_dims();
        let all: Vec<Dim> = dims.into_iter().cloned().collect();
        // As deep as the dimensions agree, and at least the first: arrays
        // of other lengths are not one record array's fields.
        let nd = ndim.unwrap_or_else(|| {
            let common = arrays.iter().skip(1).fold(all.len(), |n, a| {
                let (d, _) = a.ty().split_dims();
                d.iter()
                    .zip(&all)
                    .take(n)
                    .take_while(|(x, y)| ***x == **y)
                    .count()
            });
            match common {
                0 if arrays.iter().all(|a| a.ndim() > 0) => 1,
                n => n,
            }
        });
        let shape_error = |i: usize, row| Error::ColumnShape {
            field: field_label(names.as_deref(), i),
            ty: arrays[i].ty().clone(),
            first: field_label(names.as_deref(), 0),
            first_ty: first.ty().clone(),
            row,
        };
        if all.len() < nd {
            return Err(shape_error(0, None));
        }
        let dims = &all[..nd];
        let mut dtypes = Vec::with_capacity(arrays.len());
        for (i, a) in arrays.iter().enumerate() {
            let (d, _) = a.ty().split_dims();
            if d.len() < nd || d.iter().zip(dims).any(|(x, y)| **x != *y) {
                return Err(shape_error(i, None));
            }
            let mut t = a.ty();
            for _ in 0..nd {
                if let TypeKind::Dim(_, e) = t.kind() {
                    t = e;
                }
            }
            dtypes.push(t.clone());
        }
        let dtype = match &names {
            Some(names) => Type::new(TypeKind::Struct(Struct {
                fields: names.iter().map(|n| Arc::from(&**n)).zip(dtypes).collect(),
                variadic: false,
            }))?,
            None => Type::new(TypeKind::Tuple(Tuple {
                fields: dtypes,
                variadic: false,
            }))?,
        };
        let ty = Type::with_dims(dims.iter().cloned(), dtype)?;
        if dims.iter().any(|d| matches!(d, Dim::Var)) {
            same_rows(dims, &arrays)
                .map_err(|(i, row, n, m)| shape_error(i, Some(Box::new((row, n, m)))))?;
        }
        let fields = arrays
            .iter()
            .map(|a| ColumnParts {
                ty: a.ty.clone(),
                meta: Arc::clone(&a.meta),
                data: Arc::clone(&a.data),
                offset: a.offset,
            })
            .collect();
        let meta = Arrmeta::Columns(Box::new(Columns {
            fields,
            interleaved: OnceLock::new(),
        }));
        Ok(Array {
            ty,
            meta: ManuallyDrop::new(Arc::new(meta)),
            data: ManuallyDrop::new(no_data()),
            offset: 0,
        })
    }

    /// Whether this is a record array held as columns ([`Array::from_columns`]).
    #[inline]
    pub fn is_columnar(&self) -> bool {
        matches!(**self.meta, Arrmeta::Columns(_))
    }

    /// The fields' arrays of a record array held as columns, in field
    /// order (`None` for any other array). They share the record array's
    /// memory.
    pub fn columns(&self) -> Option<Vec<Array>> {
        let Arrmeta::Columns(c) = &**self.meta else {
            return None;
        };
        Some(c.fields.iter().map(column).collect())
    }

    /// For a record array held as columns, the record array of `f`
    /// applied to each field's array (`None` for any other array): views
    /// and reshapes keep the columns.
    pub(crate) fn map_columns(
        &self,
        mut f: impl FnMut(&Array) -> Result<Array, Error>,
    ) -> Option<Result<Array, Error>> {
        let Arrmeta::Columns(c) = &**self.meta else {
            return None;
        };
        // Each field's array keeps the dimensions under the records.
        let inner = c.fields.first().map_or(0, |p| p.ty.ndim()) - self.ndim();
        let mapped = c
            .fields
            .iter()
            .map(|p| f(&column(p)))
            .collect::<Result<Vec<_>, Error>>();
        Some(mapped.and_then(|arrays| {
            let nd = arrays.first().map_or(0, |a| a.ndim()).saturating_sub(inner);
            let names = match self.dtype().kind() {
                TypeKind::Struct(s) => {
                    Some(s.fields.iter().map(|(n, _)| Box::from(&**n)).collect())
                }
                _ => None,
            };
            Array::columns_of(names, arrays, Some(nd))
        }))
    }

    /// The record array interleaved, one record after another (itself if
    /// it is not held as columns): the fields' values are copied into
    /// records; what they point into (text, `var` rows under a field) is
    /// shared.
    ///
    /// # Errors
    ///
    /// An allocation error.
    pub fn interleaved(&self) -> Result<Array, Error> {
        let Arrmeta::Columns(c) = &**self.meta else {
            return Ok(self.clone());
        };
        let (meta, data) = interleaved(&self.ty, c)?;
        Ok(Array {
            ty: self.ty.clone(),
            meta: ManuallyDrop::new(Arc::clone(meta)),
            data: ManuallyDrop::new(Arc::clone(data)),
            offset: 0,
        })
    }

    /// The raw parts walkers read: the array's own, or for a record array
    /// held as columns its interleaved form's (made on first use).
    #[inline]
    pub(super) fn raw(&self) -> (&Arc<Arrmeta>, &Arc<MemoryBlock>, usize) {
        if self.is_columnar() {
            return self.raw_columns();
        }
        (&self.meta, &self.data, self.offset)
    }

    /// [`Array::raw`] of a record array held as columns: out of line, so
    /// that every reader's check of the common case is a load and a
    /// compare, not a call.
    #[cold]
    #[inline(never)]
    fn raw_columns(&self) -> (&Arc<Arrmeta>, &Arc<MemoryBlock>, usize) {
        let Arrmeta::Columns(c) = &**self.meta else {
            unreachable!("called for a record array held as columns")
        };
        match interleaved(&self.ty, c) {
            Ok((meta, data)) => (meta, data, 0),
            // Only allocation can fail here: the columns were checked to
            // agree where the array was made.
            Err(e) => panic!("cannot interleave a record array held as columns: {e}"),
        }
    }

    /// Makes a record array held as columns interleaved in place, before
    /// its parts are handed out for writing.
    #[inline(always)]
    pub(super) fn make_raw(&mut self) {
        if self.is_columnar() {
            self.interleave();
        }
    }

    /// [`Array::make_raw`] of a record array held as columns: out of line,
    /// so that every writer's check of the common case is a load and a
    /// compare, not a call.
    #[cold]
    #[inline(never)]
    fn interleave(&mut self) {
        let (meta, data, _) = self.raw();
        let (meta, data) = (Arc::clone(meta), Arc::clone(data));
        *self = Array {
            ty: self.ty.clone(),
            meta: ManuallyDrop::new(meta),
            data: ManuallyDrop::new(data),
            offset: 0,
        };
    }
}

/// One field's array from its parts.
pub(super) fn column(p: &ColumnParts) -> Array {
    Array {
        ty: p.ty.clone(),
        meta: ManuallyDrop::new(Arc::clone(&p.meta)),
        data: ManuallyDrop::new(Arc::clone(&p.data)),
        offset: p.offset,
    }
}

/// A field's array's raw parts at its top level.
type Src<'a> = (&'a Arrmeta, &'a [u8], isize);

fn raw_src(a: &Array) -> Src<'_> {
    let (meta, data, offset) = a.raw();
    (meta, data.bytes(), offset as isize)
}

fn layout_error(ty: &Type) -> Error {
    Error::Layout(Box::new(LayoutProblem::Arrmeta {
        record: "a columns field",
        ty: ty.clone(),
    }))
}

/// Checks that every `var` row has one length in all `arrays` (whose
/// dimension types are `dims`): `Err((field, row, its length, the first
/// field's))` where one differs. One pass over the rows above the
/// innermost `var` dimension.
#[allow(clippy::type_complexity)]
fn same_rows(dims: &[Dim], arrays: &[Array]) -> Result<(), (usize, Vec<usize>, usize, usize)> {
    let last_var = dims
        .iter()
        .rposition(|d| matches!(d, Dim::Var))
        .unwrap_or(0);
    let mut cur: Vec<Src> = arrays.iter().map(raw_src).collect();
    let mut at = Vec::new();
    rows_at(last_var, 0, &mut cur, &mut at)
}

#[allow(clippy::type_complexity)]
fn rows_at(
    last_var: usize,
    l: usize,
    cur: &mut [Src],
    at: &mut Vec<usize>,
) -> Result<(), (usize, Vec<usize>, usize, usize)> {
    if l > last_var {
        return Ok(());
    }
    // Each array's entries at this level (validated arrays: all are
    // dimensions here).
    let Some(here) = cur
        .iter()
        .map(|&(meta, bytes, off)| dim_entries(meta, bytes, off))
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(());
    };
    let n = here[0].0;
    if let Some(j) = here.iter().position(|e| e.0 != n) {
        return Err((j, at.clone(), here[j].0, n));
    }
    for i in 0..n {
        for (c, &(_, element, data, first, stride)) in cur.iter_mut().zip(&here) {
            *c = (element, data, first + i as isize * stride);
        }
        at.push(i);
        rows_at(last_var, l + 1, cur, at)?;
        at.pop();
    }
    Ok(())
}

/// The interleaved form of `c` (of type `ty`), made on first use.
fn interleaved<'c>(
    ty: &Type,
    c: &'c Columns,
) -> Result<(&'c Arc<Arrmeta>, &'c Arc<MemoryBlock>), Error> {
    if let Some((meta, data)) = c.interleaved.get() {
        return Ok((meta, data));
    }
    let made = interleave(ty, c)?;
    let (meta, data) = c.interleaved.get_or_init(|| made);
    Ok((meta, data))
}

/// Writes one output element from the arrays' elements (their bytes).
pub(crate) type Leaf<'w> = dyn FnMut(&[&[u8]], &mut [u8]) -> Result<(), Error> + 'w;

/// Builds a packed array with the dimensions of several arrays of equal
/// dimensions, level by level, one element from theirs at a time.
struct Pack<'a, 'w> {
    dims: Vec<Dim>,
    /// The output's element size under each level (`sizes[nd]` is the data type's).
    sizes: Vec<usize>,
    /// Per level: which output buffer a `var` level's values go to.
    vbuf: Vec<usize>,
    /// Each array's element size.
    elem: Vec<usize>,
    /// Output buffers: the top level's, then each `var` level's values.
    bufs: Vec<Vec<u8>>,
    /// Per level, where each array is.
    cur: Vec<Vec<Src<'a>>>,
    ty: &'a Type,
    leaf: &'a mut Leaf<'w>,
}

fn interleave(ty: &Type, c: &Columns) -> Result<(Arc<Arrmeta>, Arc<MemoryBlock>), Error> {
    let arrays: Vec<Array> = c.fields.iter().map(column).collect();
    let nd = ty.ndim();
    let offsets = ty.dtype().field_offsets().ok_or_else(|| layout_error(ty))?;
    // The record's fields keep their records.
    let leaf = arrays
        .iter()
        .map(|a| {
            leaf_meta(a.raw().0, nd)
                .cloned()
                .ok_or_else(|| layout_error(ty))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let leaf = Arrmeta::Fields {
        offsets: offsets.clone(),
        fields: leaf,
    };
    let mut write = |src: &[&[u8]], out: &mut [u8]| {
        for (s, &off) in src.iter().zip(&offsets) {
            out[off..off + s.len()].copy_from_slice(s);
        }
        Ok(())
    };
    let packed = pack(ty, &arrays, leaf, &mut write)?;
    let (meta, data, _) = packed.raw();
    Ok((Arc::clone(meta), Arc::clone(data)))
}

/// A new array of type `ty` whose dimensions are those of `arrays` (all
/// equal: [`Array::from_columns`]'s check), packed (C order, rows end to
/// end), each element written by `write` from the arrays' elements there;
/// `leaf` is the data type's arrmeta record.
///
/// # Errors
///
/// An allocation error; a layout error where the arrays' dimensions
/// disagree; `write`'s error.
pub(crate) fn pack(
    ty: &Type,
    arrays: &[Array],
    leaf: Arrmeta,
    write: &mut Leaf<'_>,
) -> Result<Array, Error> {
    let (dims, _) = ty.split_dims();
    let dims: Vec<Dim> = dims.into_iter().cloned().collect();
    let nd = dims.len();
    let mut sizes = Vec::with_capacity(nd + 1);
    let mut t = ty;
    loop {
        sizes.push(t.data_layout()?.size);
        match t.kind() {
            TypeKind::Dim(_, e) => t = e,
            _ => break,
        }
    }
    // Each array's element under the `nd` dimensions (which may itself
    // have dimensions: a field `var * int32` is a pair).
    let elem = arrays
        .iter()
        .map(|a| {
            let mut t = a.ty();
            for _ in 0..nd {
                if let TypeKind::Dim(_, e) = t.kind() {
                    t = e;
                }
            }
            Ok(t.data_layout()?.size)
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let mut vbuf = Vec::with_capacity(nd);
    let mut nvar = 0;
    for d in &dims {
        if matches!(d, Dim::Var) {
            nvar += 1;
        }
        vbuf.push(nvar);
    }
    let top = crate::memory::try_zeroed(1, sizes[0])?;
    let mut bufs = vec![top];
    bufs.extend((0..nvar).map(|_| Vec::new()));
    let first: Vec<Src> = arrays.iter().map(raw_src).collect();
    let cur = vec![first; nd + 1];
    let mut w = Pack {
        dims,
        sizes,
        vbuf,
        elem,
        bufs,
        cur,
        ty,
        leaf: write,
    };
    w.emit(0, 0, 0)?;
    let Pack {
        dims, sizes, bufs, ..
    } = w;
    let mut meta = leaf;
    let mut bufs: Vec<Option<Vec<u8>>> = bufs.into_iter().map(Some).collect();
    for (l, d) in dims.iter().enumerate().rev() {
        meta = match d {
            Dim::Fixed(n) => Arrmeta::Fixed {
                size: *n,
                stride: sizes[l + 1] as isize,
                element: Box::new(meta),
            },
            _ => {
                let values = bufs[w_vbuf(&dims, l)].take().unwrap_or_default();
                Arrmeta::Var {
                    values: MemoryBlock::try_from_bytes(&values)?,
                    offset: 0,
                    stride: sizes[l + 1] as isize,
                    packed: true,
                    element: Box::new(meta),
                }
            }
        };
    }
    let top = bufs[0].take().unwrap_or_default();
    let data = MemoryBlock::try_from_bytes(&top)?;
    Array::try_from_parts(ty.clone(), Arc::new(meta), data, 0)
}

/// The record under `nd` dimension records.
pub(crate) fn leaf_meta(mut meta: &Arrmeta, nd: usize) -> Option<&Arrmeta> {
    for _ in 0..nd {
        meta = match meta {
            Arrmeta::Fixed { element, .. } | Arrmeta::Var { element, .. } => element,
            _ => return None,
        };
    }
    Some(meta)
}

/// The output buffer of `var` level `l` (1 + the `var` levels above it).
fn w_vbuf(dims: &[Dim], l: usize) -> usize {
    dims[..=l].iter().filter(|d| matches!(d, Dim::Var)).count()
}

impl Pack<'_, '_> {
    /// Writes the element at level `l` (each field's array at `cur[l]`)
    /// at byte `at` of output buffer `buf`.
    fn emit(&mut self, l: usize, buf: usize, at: usize) -> Result<(), Error> {
        let nd = self.dims.len();
        if l == nd {
            let mut src = smallvec::SmallVec::<[&[u8]; 8]>::new();
            for (j, &size) in self.elem.iter().enumerate() {
                let (_, bytes, from) = self.cur[l][j];
                let s = usize::try_from(from)
                    .ok()
                    .and_then(|f| bytes.get(f..f.checked_add(size)?))
                    .ok_or_else(|| layout_error(self.ty))?;
                src.push(s);
            }
            let out_size = self.sizes[nd];
            let dst = self.bufs[buf]
                .get_mut(at..at + out_size)
                .ok_or_else(|| layout_error(self.ty))?;
            return (self.leaf)(&src, dst);
        }
        let inner = self.sizes[l + 1];
        // Each array's entries at this level, one count for all.
        let mut entries = smallvec::SmallVec::<[_; 8]>::new();
        for j in 0..self.elem.len() {
            let (meta, bytes, off) = self.cur[l][j];
            entries.push(dim_entries(meta, bytes, off).ok_or_else(|| layout_error(self.ty))?);
        }
        let n = entries.first().map_or(0, |e| e.0);
        if entries.iter().any(|e| e.0 != n) {
            return Err(layout_error(self.ty));
        }
        // Where the entries go: in place for a fixed dimension; for a
        // `var` one, a row appended to its values, its pair written here.
        let (out, base) = match self.dims[l] {
            Dim::Fixed(_) => (buf, at),
            _ => {
                let vb = self.vbuf[l];
                let start = self.bufs[vb].len();
                let grow = n.checked_mul(inner).ok_or_else(|| layout_error(self.ty))?;
                self.bufs[vb]
                    .try_reserve(grow)
                    .map_err(|_| Error::alloc(grow as u128))?;
                self.bufs[vb].resize(start + grow, 0);
                let pair = self.bufs[buf]
                    .get_mut(at..at + PAIR_SIZE)
                    .ok_or_else(|| layout_error(self.ty))?;
                write_pair(pair, start as u64, n as u64);
                (vb, start)
            }
        };
        for i in 0..n {
            for (j, &(_, element, data, first, stride)) in entries.iter().enumerate() {
                self.cur[l + 1][j] = (element, data, first + i as isize * stride);
            }
            self.emit(l + 1, out, base + i * inner)?;
        }
        Ok(())
    }
}
