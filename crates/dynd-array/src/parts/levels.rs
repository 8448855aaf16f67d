//! Arrays of any nesting of fixed and `var` dimensions as their levels:
//! one list of lengths per dimension and one run of values, the layout
//! Awkward Array and Arrow use for lists of lists.

use super::nested::{grouped, options};
use super::*;

/// An array of fixed and `var` dimensions over numbers, as its levels.
///
/// Dimension `k` holds one list per element of the dimension above it (the
/// outermost holds one list, the array itself); `lengths[k]` has each of
/// those lists' lengths, in C order. The values are the elements in C
/// order. `[[[1], [2, 3]], [[]]]` of type `2 * var * var * int64` has
/// lengths `[[2], [2, 1], [1, 2, 0]]` and values `[1, 2, 3]`.
///
/// ```
/// use dynd::nd::Array;
///
/// let a = Array::from_nested(vec![vec![vec![1i64], vec![2, 3]], vec![vec![]]])?;
/// let levels = a.to_levels::<i64>()?;
/// assert_eq!(levels.lengths, [vec![2], vec![2, 1], vec![1, 2, 0]]);
/// assert_eq!(levels.values, [1, 2, 3]);
/// assert_eq!(Array::from_levels(levels)?.to_string(), a.to_string());
/// # Ok::<(), dynd::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Levels<T> {
    /// The dimensions, outermost first.
    pub dims: Vec<Dim>,
    /// Each dimension's list lengths, in C order.
    pub lengths: Vec<Vec<usize>>,
    /// The elements, in C order.
    pub values: Vec<T>,
}

impl<T> Levels<T> {
    /// The number of lists at dimension `k` (the elements at dimension
    /// `k - 1`; one for the outermost), or of values for `k` = the number
    /// of dimensions.
    /// Saturates at `usize::MAX` where the lengths above sum past it
    /// (which no array can hold: [`Array::from_levels`] refuses them).
    pub fn count(&self, k: usize) -> usize {
        self.checked_count(k).unwrap_or(usize::MAX)
    }

    /// [`Levels::count`], `None` where the lengths sum past `usize::MAX`.
    fn checked_count(&self, k: usize) -> Option<usize> {
        match k {
            0 => Some(1),
            _ => self.lengths[k - 1]
                .iter()
                .try_fold(0usize, |sum, &n| sum.checked_add(n)),
        }
    }

    /// Where the lengths and values disagree with each other or with the
    /// dimensions: (the dimension, or the number of dimensions for the
    /// values; the problem).
    fn check(&self) -> Result<(), (usize, String)> {
        if self.lengths.len() != self.dims.len() {
            return Err((
                self.dims.len().min(self.lengths.len()),
                format!(
                    "{} lists of lengths for {} dimensions",
                    self.lengths.len(),
                    self.dims.len()
                ),
            ));
        }
        let count = |k: usize| {
            self.checked_count(k).ok_or_else(|| {
                (
                    k - 1,
                    format!("the lengths sum past {} lists at dimension {k}", usize::MAX),
                )
            })
        };
        for (k, (dim, lengths)) in self.dims.iter().zip(&self.lengths).enumerate() {
            let lists = count(k)?;
            if lengths.len() != lists {
                return Err((
                    k,
                    format!("{} lengths for the {lists} lists there", lengths.len()),
                ));
            }
            if let Dim::Fixed(n) = dim {
                if let Some((i, len)) = lengths.iter().enumerate().find(|(_, l)| *l != n) {
                    return Err((k, format!("list {i} has length {len}, not the fixed {n}")));
                }
            }
        }
        let k = self.dims.len();
        let values = count(k)?;
        if self.values.len() != values {
            return Err((
                k,
                format!(
                    "{} values for the {values} the lengths hold",
                    self.values.len()
                ),
            ));
        }
        Ok(())
    }
}

impl Array {
    /// This array's levels (see [`Levels`]): its elements copied out as
    /// `T`s (or `Option<T>`s for `?T` data, see [`Item`]) with every
    /// dimension's list lengths, for any nesting of fixed and `var`
    /// dimensions.
    ///
    /// # Errors
    ///
    /// [`Error::DtypeMismatch`] if the elements are not `T`s;
    /// [`Error::NeedsArray`] for dimensions other than fixed and `var`.
    pub fn to_levels<T: Item>(&self) -> Result<Levels<T>, Error> {
        let option = self.check_item::<T>()?;
        self.walk(Walk {
            option,
            size: std::mem::size_of::<T::Number>(),
        })
    }

    /// This array's dimensions and their list lengths (see [`Levels`]),
    /// without its values (of any data type): the shape of a ragged array
    /// of any nesting.
    ///
    /// ```
    /// let ty = "var * var * string".parse()?;
    /// let a = dynd::nd::Array::from_json(r#"[["a", "b"], [], ["c"]]"#, Some(&ty))?;
    /// assert_eq!(a.level_lengths()?.lengths, [vec![3], vec![2, 0, 1]]);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::NeedsArray`] for dimensions other than fixed and `var`.
    pub fn level_lengths(&self) -> Result<Levels<()>, Error> {
        // Records held as columns: their first field's lengths, down to
        // the records (not the interleaved copy).
        if let Some(first) = self.columns().and_then(|c| c.into_iter().next()) {
            let nd = self.ndim();
            let mut l = first.level_lengths()?;
            l.dims.truncate(nd);
            l.lengths.truncate(nd);
            l.values = vec![(); l.count(nd)];
            return Ok(l);
        }
        self.walk(Walk {
            option: false,
            size: 0,
        })
    }

    /// The levels `walk` reads.
    fn walk<T: Leaf>(&self, walk: Walk) -> Result<Levels<T>, Error> {
        let dims: Vec<Dim> = self.ty().split_dims().0.into_iter().cloned().collect();
        if dims.iter().any(|d| !matches!(d, Dim::Fixed(_) | Dim::Var)) {
            return Err(Error::NeedsArray {
                op: "to_levels".into(),
                expected: "fixed and var dimensions",
                found: self.ty().clone(),
            });
        }
        let mut out = Levels {
            lengths: vec![Vec::new(); dims.len()],
            dims,
            values: Vec::new(),
        };
        walk.visit(
            self.arrmeta(),
            self.data_block().bytes(),
            self.data_offset() as isize,
            0,
            &mut out,
        );
        Ok(out)
    }

    /// The array of `levels` (see [`Levels`]): `T` data, or `?T` for
    /// `Option<T>` values. The values are moved in, not copied.
    ///
    /// # Errors
    ///
    /// [`Error::Offsets`] naming the dimension whose lengths do not match
    /// the level above, a fixed dimension's size, or the values.
    pub fn from_levels<T: Item>(levels: Levels<T>) -> Result<Array, Error> {
        if let Err((dim, problem)) = levels.check() {
            return Err(offsets_error(
                "from_levels",
                OffsetsProblem::Levels { dim, problem },
            ));
        }
        let Levels {
            dims,
            lengths,
            values,
        } = levels;
        let (numbers, valid): (Vec<T::Number>, Vec<bool>) =
            values.into_iter().map(Item::to_parts).unzip();
        let flat = if T::OPTION {
            options(&numbers, &valid, !dims.is_empty())?
        } else if dims.is_empty() {
            match numbers[..] {
                [x] => Array::from_scalar(x),
                _ => unreachable!("checked: no dimensions hold one value"),
            }
        } else {
            Array::from_vec(numbers)
        };
        if dims.is_empty() {
            return Ok(flat);
        }
        under_levels(flat, &dims, &lengths)
    }

    /// Every element in C order (row after row for `var` dimensions), as
    /// one dimension `K * T`: a view where they already lie so (a
    /// C-contiguous array), else a copy of the elements (what they point
    /// into, text and rows of a `var` field, is shared). A 0-d array gives
    /// one element.
    ///
    /// ```
    /// use dynd::nd::Array;
    ///
    /// let a = Array::from_json(r#"[["a", "b"], [], ["c"]]"#, None)?;
    /// let flat = a.flat_values()?;
    /// assert_eq!((flat.ty().to_string(), flat.to_string()), ("3 * string".into(), r#"["a", "b", "c"]"#.into()));
    /// assert_eq!(Array::regroup(&flat, &a)?.to_string(), a.to_string());
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// An allocation error; [`Error::NeedsArray`] for dimensions other
    /// than fixed and `var`.
    pub fn flat_values(&self) -> Result<Array, Error> {
        // Records held as columns stay columns: each field flattened.
        if let Some(columns) = self.columns() {
            let nd = self.ndim();
            if columns.iter().all(|c| c.ndim() == nd) {
                if let Some(r) = self.map_columns(Array::flat_values) {
                    return r;
                }
            }
        }
        let count = match self.ty().fixed_shape() {
            // Fixed dimensions: the count from the type, no walk.
            Some(shape) => crate::memory::checked_count(shape)?,
            None => {
                let lengths = self.level_lengths()?;
                lengths.count(lengths.dims.len())
            }
        };
        let dtype = self.dtype().clone();
        let ty = Type::dim(Dim::Fixed(count), dtype.clone())?;
        let packed = if self.ty().has_var_dim() {
            let meta = crate::array::columns::leaf_meta(self.arrmeta(), self.ndim())
                .cloned()
                .ok_or_else(|| not_levels(self))?;
            let mut write = |src: &[&[u8]], out: &mut [u8]| {
                out.copy_from_slice(src[0]);
                Ok(())
            };
            crate::array::columns::pack(self.ty(), std::slice::from_ref(self), meta, &mut write)?
        } else {
            self.compact()?
        };
        // Packed: the innermost level's elements lie end to end from the
        // start of its block (the data block when all are fixed).
        let size = dtype.data_layout()?.size;
        let mut meta = packed.arrmeta();
        let (mut block, mut offset) = (packed.data_block(), packed.data_offset());
        loop {
            meta = match meta {
                Arrmeta::Fixed { element, .. } => element,
                Arrmeta::Var {
                    values,
                    offset: o,
                    element,
                    ..
                } => {
                    (block, offset) = (values, *o);
                    element
                }
                _ => break,
            };
        }
        let flat = Arrmeta::Fixed {
            size: count,
            stride: size as isize,
            element: Box::new(meta.clone()),
        };
        Array::try_from_parts(ty, Arc::new(flat), block.clone(), offset)
    }

    /// `values` (`K * T`, every element of `like` in C order, as
    /// [`Array::flat_values`] gives them) under the dimensions of `like`:
    /// its fixed sizes and its rows' lengths. The values are not copied.
    ///
    /// # Errors
    ///
    /// [`Error::Offsets`] if `values` has another count than `like` has
    /// elements; as [`Array::level_lengths`].
    pub fn regroup(values: &Array, like: &Array) -> Result<Array, Error> {
        // Fixed dimensions: a reshape of the values, no walk.
        if let Some(shape) = like.ty().fixed_shape() {
            let count = crate::memory::checked_count(shape.iter().copied())?;
            let given = values
                .ty()
                .fixed_shape()
                .filter(|s| s.len() == 1)
                .map(|s| s[0]);
            if given == Some(count) {
                return match shape.len() {
                    0 => values.index(&[crate::Index::At(0)]),
                    1 => Ok(values.clone()),
                    _ => values.reshape(&shape[..]),
                };
            }
        }
        let levels = like.level_lengths()?;
        let count = levels.count(levels.dims.len());
        let given = values.ty().split_dims().0.first().map_or(1, |d| match d {
            Dim::Fixed(n) => *n,
            _ => usize::MAX,
        });
        if values.ndim() != 1 || given != count {
            return Err(offsets_error(
                "regroup",
                OffsetsProblem::Levels {
                    dim: levels.dims.len(),
                    problem: format!(
                        "{} has {count} element(s); the values are {}",
                        like.ty(),
                        values.ty()
                    ),
                },
            ));
        }
        let Levels { dims, lengths, .. } = levels;
        if dims.is_empty() {
            return values.index(&[crate::Index::At(0)]);
        }
        under_levels(values.clone(), &dims, &lengths)
    }

    /// The array as nested Rust `Vec`s of any depth (one level per
    /// dimension, fixed or `var`), of `T`s or `Option<T>`s (see [`Item`]).
    ///
    /// ```
    /// use dynd::nd::Array;
    ///
    /// let ty = "var * var * var * float64".parse()?;
    /// let a = Array::from_json("[[[1.5], []], [[2, 3]]]", Some(&ty))?;
    /// let v = a.to_nested_as::<Vec<Vec<Vec<f64>>>>()?;
    /// assert_eq!(v, vec![vec![vec![1.5], vec![]], vec![vec![2.0, 3.0]]]);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::NeedsArray`] if `V` has another number of levels than the
    /// array has dimensions; as [`Array::to_levels`].
    pub fn to_nested_as<V: FromLevels>(&self) -> Result<V, Error> {
        let ndim = self.ndim();
        if V::DEPTH != ndim {
            return Err(Error::NeedsArray {
                op: format!("to_nested_as into {} Vec levels", V::DEPTH).into(),
                expected: "an array of as many dimensions",
                found: self.ty().clone(),
            });
        }
        let levels = self.to_levels::<V::Item>()?;
        let mut at = Cursor {
            lists: vec![0; ndim],
            value: 0,
        };
        Ok(V::build(&levels, 0, &mut at))
    }
}

/// Where [`FromLevels::build`] has got to: the next list at each
/// dimension, and the next value.
#[derive(Debug)]
pub struct Cursor {
    lists: Vec<usize>,
    value: usize,
}

/// Rust values [`Array::to_nested_as`] builds: [`Item`]s, and `Vec`s of
/// them nested to any depth (one `Vec` per dimension). Sealed.
pub trait FromLevels: Sized + from_levels::Sealed {
    /// The item at the bottom.
    type Item: Item;
    /// The number of `Vec` levels.
    const DEPTH: usize;
    /// This value at dimension `depth` of `levels`, from `at` on.
    #[doc(hidden)]
    fn build(levels: &Levels<Self::Item>, depth: usize, at: &mut Cursor) -> Self;
}

mod from_levels {
    /// Implemented by the [`FromLevels`](super::FromLevels) types only.
    pub trait Sealed {}
    impl<T: crate::element::Item> Sealed for T {}
    impl<X: super::FromLevels> Sealed for Vec<X> {}
}

impl<T: Item> FromLevels for T {
    type Item = T;
    const DEPTH: usize = 0;
    fn build(levels: &Levels<T>, _: usize, at: &mut Cursor) -> T {
        let x = levels.values[at.value];
        at.value += 1;
        x
    }
}

impl<X: FromLevels> FromLevels for Vec<X> {
    type Item = X::Item;
    const DEPTH: usize = X::DEPTH + 1;
    fn build(levels: &Levels<X::Item>, depth: usize, at: &mut Cursor) -> Vec<X> {
        let len = levels.lengths[depth][at.lists[depth]];
        at.lists[depth] += 1;
        (0..len).map(|_| X::build(levels, depth + 1, at)).collect()
    }
}

/// A walk over an array's elements that records its levels.
struct Walk {
    /// Whether the elements are `?T` (the value, then a flag byte).
    option: bool,
    /// The size of a `T`.
    size: usize,
}

impl Walk {
    /// Records the element at byte `at` of `data` (described by `meta`)
    /// at dimension `depth`, and everything under it.
    fn visit<T: Leaf>(
        &self,
        meta: &Arrmeta,
        data: &[u8],
        at: isize,
        depth: usize,
        out: &mut Levels<T>,
    ) {
        let (len, data, first, stride, element) = match meta {
            _ if depth == out.dims.len() => return out.values.push(T::read(self, data, at)),
            Arrmeta::Fixed {
                size,
                stride,
                element,
            } => (*size, data, at, *stride, element),
            Arrmeta::Var {
                values,
                offset,
                stride,
                element,
                ..
            } => {
                let pair = usize::try_from(at)
                    .ok()
                    .and_then(|at| data.get(at..at.checked_add(PAIR_SIZE)?));
                let Some(pair) = pair else {
                    unreachable!("a validated array's (start, length) pairs are in its block")
                };
                let (start, len) = read_pair(pair);
                let first = *offset as isize + start as i64 as isize;
                (len as usize, values.bytes(), first, *stride, element)
            }
            _ => unreachable!("to_levels checked the dimensions are fixed or var"),
        };
        out.lengths[depth].push(len);
        if depth + 1 == out.dims.len() && T::run(self, data, first, len, stride, &mut out.values) {
            return;
        }
        for i in 0..len as isize {
            self.visit(element, data, first + i * stride, depth + 1, out);
        }
    }
}

/// What a [`Walk`] reads at the bottom: an [`Item`], or nothing (`()`,
/// for the lengths alone).
trait Leaf: Sized {
    /// The element at byte `at` of `data`.
    fn read(walk: &Walk, data: &[u8], at: isize) -> Self;
    /// Appends the `len` elements `stride` bytes apart from byte `first`
    /// of `data` in one pass, or returns `false` to have them read one by
    /// one.
    fn run(
        walk: &Walk,
        data: &[u8],
        first: isize,
        len: usize,
        stride: isize,
        out: &mut Vec<Self>,
    ) -> bool;
}

impl<T: Item> Leaf for T {
    fn read(walk: &Walk, data: &[u8], at: isize) -> T {
        let item = usize::try_from(at).ok().and_then(|at| {
            let x = data.get(at..at.checked_add(walk.size)?)?;
            let there = !walk.option || *data.get(at + walk.size)? != 0;
            Some(T::from_parts(crate::element::read(x)?, there))
        });
        match item {
            Some(x) => x,
            None => unreachable!("a validated array's elements are in its block"),
        }
    }

    fn run(
        walk: &Walk,
        data: &[u8],
        first: isize,
        len: usize,
        stride: isize,
        out: &mut Vec<T>,
    ) -> bool {
        if walk.option || stride != walk.size as isize {
            return false;
        }
        let run = usize::try_from(first)
            .ok()
            .and_then(|f| data.get(f..f.checked_add(len.checked_mul(walk.size)?)?));
        let Some(run) = run else {
            unreachable!("a validated array's elements are in its block")
        };
        out.extend(
            run.chunks_exact(walk.size)
                .map(|x| match crate::element::read(x) {
                    Some(x) => T::from_parts(x, true),
                    None => unreachable!("the bytes are a number's size"),
                }),
        );
        true
    }
}

impl Leaf for () {
    fn read(_: &Walk, _: &[u8], _: isize) {}

    fn run(_: &Walk, _: &[u8], _: isize, len: usize, _: isize, out: &mut Vec<()>) -> bool {
        out.resize(out.len() + len, ());
        true
    }
}

/// `flat` (every element in C order) under dimensions `dims` (at least
/// one) with the lists' `lengths` of each (see [`Levels`]).
fn under_levels(flat: Array, dims: &[Dim], lengths: &[Vec<usize>]) -> Result<Array, Error> {
    let kinds: Vec<Level> = dims
        .iter()
        .map(|d| match d {
            Dim::Fixed(n) => Level::Fixed(*n),
            _ => Level::Var,
        })
        .collect();
    let totals: Vec<usize> = lengths.iter().map(|l| l.iter().sum()).collect();
    let a = grouped(flat, &kinds, lengths, &totals)?;
    match dims.first() {
        // One row over the outermost level: the `var` dimension itself.
        Some(Dim::Var) => Array::from_offsets(a, &[0, totals[0]])?.index(&[crate::Index::At(0)]),
        _ => Ok(a),
    }
}

fn not_levels(a: &Array) -> Error {
    Error::NeedsArray {
        op: "flat_values".into(),
        expected: "fixed and var dimensions",
        found: a.ty().clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Index;

    fn json(text: &str, ty: &str) -> Array {
        Array::from_json(text, Some(&ty.parse().unwrap())).unwrap()
    }

    #[test]
    fn round_trips_any_nesting() {
        for (text, ty) in [
            ("[[1, 2, 3], [], [4]]", "var * var * int64"),
            ("[[[1], [2, 3]], [[]]]", "2 * var * var * int64"),
            ("[[[1, 2], [3, 4]], []]", "var * var * 2 * int64"),
            ("[[[1], []], [[2, 3], [4]]]", "2 * 2 * var * int64"),
            ("[]", "var * int64"),
            ("7", "int64"),
        ] {
            let a = json(text, ty);
            let levels = a.to_levels::<i64>().unwrap();
            let b = Array::from_levels(levels).unwrap();
            assert_eq!(
                (b.to_string(), b.ty().to_string()),
                (text.into(), ty.into())
            );
        }
    }

    #[test]
    fn views_options_and_lengths() {
        // Views stepping backwards over rows and elements.
        let a = json("[[1, 2, 3], [], [4, 5]]", "3 * var * int64");
        let r = a
            .index(&[Index::slice(None, None, -1), Index::slice(None, None, -1)])
            .unwrap();
        assert_eq!(
            r.to_nested_as::<Vec<Vec<i64>>>().unwrap(),
            [vec![5, 4], vec![], vec![3, 2, 1]]
        );
        assert_eq!(r.level_lengths().unwrap().lengths, [vec![3], vec![2, 0, 3]]);
        let a = json("[[[1], [2, 3]], [], [[4]]]", "var * var * var * int64");
        let r = a.index(&[Index::slice(None, None, -2)]).unwrap();
        let v = r.to_nested_as::<Vec<Vec<Vec<i64>>>>().unwrap();
        assert_eq!(v, [vec![vec![4]], vec![vec![1], vec![2, 3]]]);
        let o = json("[[1.5, null], [null]]", "var * var * ?float64");
        let v = o.to_nested_as::<Vec<Vec<Option<f64>>>>().unwrap();
        assert_eq!(v, [vec![Some(1.5), None], vec![None]]);
        let back = Array::from_levels(o.to_levels::<Option<f64>>().unwrap()).unwrap();
        assert_eq!(back.ty().to_string(), "var * var * ?float64");
        assert_eq!(back.to_string(), o.to_string());
    }

    #[test]
    fn mismatches_say_where() {
        let a = json("[[1, 2], [3]]", "var * var * int64");
        let e = a.to_nested_as::<Vec<f64>>().unwrap_err().to_string();
        assert_eq!(
            e,
            "to_nested_as into 1 Vec levels needs an array of as many dimensions, not var * var * int64"
        );
        let e = a.to_nested_as::<Vec<Vec<f64>>>().unwrap_err().to_string();
        assert!(e.contains("float64") && e.contains("int64"), "{e}");
        let bad = Levels {
            dims: vec![Dim::Fixed(2), Dim::Var],
            lengths: vec![vec![2], vec![1, 2]],
            values: vec![1i64, 2],
        };
        let e = Array::from_levels(bad).unwrap_err().to_string();
        assert!(
            e.contains("at dimension 2: 2 values for the 3 the lengths hold"),
            "{e}"
        );
        let bad = Levels {
            dims: vec![Dim::Fixed(2), Dim::Fixed(2)],
            lengths: vec![vec![2], vec![2, 1]],
            values: vec![1i64, 2, 3],
        };
        let e = Array::from_levels(bad).unwrap_err().to_string();
        assert!(
            e.contains("at dimension 1: list 1 has length 1, not the fixed 2"),
            "{e}"
        );
    }
}
