//! Arrays from nested Rust vectors (`Vec<Vec<T>>`, arrays, slices) and
//! back: one level per nesting, `var` where the lengths differ.

use super::*;

impl Array {
    /// The rows of a two-dimensional array (`N * var * T`, `var * var *
    /// T`, `N * M * T`, …) copied into `Vec`s: of `T`s, or of `Option<T>`s
    /// for `?T` data (see [`Item`]). [`Array::to_nested_as`] takes any
    /// number of dimensions.
    ///
    /// # Errors
    ///
    /// [`Error::NeedsArray`] for an array of other than two dimensions;
    /// [`Error::DtypeMismatch`] if the elements are not `T`s.
    pub fn to_nested<T: Item>(&self) -> Result<Vec<Vec<T>>, Error> {
        if self.ndim() != 2 {
            return Err(Error::NeedsArray {
                op: "to_nested".into(),
                expected: "an array of two dimensions (to_nested_as takes any number)",
                found: self.ty().clone(),
            });
        }
        if !matches!(self.shape()[..], [Dim::Fixed(_), Dim::Var]) {
            return self.to_nested_as();
        }
        if !T::OPTION {
            if let Ok(rows) = self.rows::<T::Number>() {
                return Ok(rows
                    .iter()
                    .map(|r| r.iter().map(|&x| T::from_parts(x, true)).collect())
                    .collect());
            }
        }
        let (values, offsets) = self.offsets_for("to_nested")?;
        let values = values.to_vec::<T>()?;
        Ok(offsets
            .windows(2)
            .map(|w| values[w[0] as usize..w[1] as usize].to_vec())
            .collect())
    }

    /// An array from nested Rust `Vec`s, slices and arrays of numbers or
    /// bools, or of `Option`s of them (`?T` data, `None` as NA), typed by
    /// their Rust types (see the [module docs](crate::parts)):
    /// the outermost level is a fixed dimension of its length, every `Vec`
    /// or slice under it a `var` dimension, every `[T; N]` a fixed one. The
    /// values are copied once into one flat run; no value tree is built.
    ///
    /// ```
    /// use dynd::nd::Array;
    /// let a = Array::from_nested(vec![[1i32, 2], [3, 4]])?;
    /// assert_eq!(a.ty().to_string(), "2 * 2 * int32");
    /// let b = Array::from_nested(vec![vec![1.5], vec![2.0, 3.0]])?;
    /// assert_eq!(b.ty().to_string(), "2 * var * float64");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// For strings or a type inferred from the data, build a
    /// [`Value`](crate::Value) (or use `array!`) and [`Array::from_value`].
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`] if the memory cannot be had.
    pub fn from_nested<V: Nested>(v: V) -> Result<Array, Error> {
        Ok(Array::nested_parts(v)?.0)
    }

    /// [`Array::from_nested`], with the levels and the flattened value.
    pub(super) fn nested_parts<V: Nested>(v: V) -> Result<NestedParts<V::Elem>, Error> {
        let mut levels = Vec::new();
        V::levels(&mut levels);
        let mut flat = Flat {
            values: Vec::new(),
            valid: Vec::new(),
            lengths: vec![Vec::new(); levels.len()],
            totals: vec![0; levels.len()],
        };
        v.flatten(0, &mut flat);
        if V::OPTION {
            let a = options(&flat.values, &flat.valid, !levels.is_empty())?;
            return Ok((
                grouped(a, &levels, &flat.lengths, &flat.totals)?,
                levels,
                flat,
            ));
        }
        if levels.is_empty() {
            let a = match flat.values[..] {
                [x] => Array::from_scalar(x),
                _ => unreachable!("a scalar flattens to one value"),
            };
            return Ok((a, levels, flat));
        }
        let a = Array::from_vec(std::mem::take(&mut flat.values));
        Ok((
            grouped(a, &levels, &flat.lengths, &flat.totals)?,
            levels,
            flat,
        ))
    }

    /// As [`Array::from_nested`], with the dimensions checked against
    /// `ty`'s (the number of them, and each fixed size against the rows'
    /// lengths): the kernels' `from_nested_as` then converts the result to
    /// `ty`.
    ///
    /// # Errors
    ///
    /// [`Error::FromValue`] naming the level and row whose length differs
    /// from `ty`'s fixed dimension, or a different number of dimensions.
    #[doc(hidden)]
    pub fn from_nested_checked<V: Nested>(v: V, ty: &Type) -> Result<Array, Error> {
        let (a, levels, flat) = Array::nested_parts(v)?;
        if a.ty() == ty {
            return Ok(a);
        }
        let (dims, _) = ty.split_dims();
        if dims.len() != levels.len() {
            return Err(Error::FromValue {
                problem: Box::new(ValueProblem::Rank {
                    found: levels.len(),
                    value_type: a.ty().clone(),
                    ty: ty.clone(),
                    expected: dims.len(),
                }),
                path: Vec::new(),
            });
        }
        for (k, (dim, level)) in dims.iter().zip(&levels).enumerate() {
            let Dim::Fixed(n) = dim else { continue };
            let mismatch = match level {
                _ if k == 0 => (flat.totals[0] != *n).then_some((0, flat.totals[0])),
                Level::Fixed(m) => (m != n).then_some((0, *m)),
                Level::Var => flat.lengths[k]
                    .iter()
                    .position(|l| l != n)
                    .map(|r| (r, flat.lengths[k][r])),
            };
            if let Some((row, len)) = mismatch {
                return Err(Error::FromValue {
                    problem: Box::new(ValueProblem::RowLength {
                        dim: k,
                        row,
                        len,
                        size: *n,
                        ty: ty.clone(),
                    }),
                    path: Vec::new(),
                });
            }
        }
        Ok(a)
    }
}

/// The flat run `a` of a [`Nested`] value grouped into its levels, the
/// innermost first (the outermost is the run's or the rows' count).
pub(super) fn grouped(
    mut a: Array,
    levels: &[Level],
    lengths: &[Vec<usize>],
    totals: &[usize],
) -> Result<Array, Error> {
    // Innermost level first: group the flat run into rows or blocks;
    // the outermost level is the run's (or the rows') count already.
    for (k, level) in levels.iter().enumerate().skip(1).rev() {
        a = match level {
            Level::Var => {
                let lengths = &lengths[k];
                let mut offsets = Vec::with_capacity(lengths.len() + 1);
                let mut total = 0u64;
                offsets.push(0u64);
                for &l in lengths {
                    total += l as u64;
                    offsets.push(total);
                }
                Array::from_offsets(a, &offsets)?
            }
            Level::Fixed(n) => a.split_first(totals[k - 1], *n)?,
        };
    }
    Ok(a)
}

/// A `n * ?T` array (a 0-d `?T` for one value when not `dims`) of
/// `values` where `valid`, NA elsewhere: each element the value's bytes,
/// then its flag byte, then zero padding (the layout of `?T`).
pub(super) fn options<T: Element>(
    values: &[T],
    valid: &[bool],
    dims: bool,
) -> Result<Array, Error> {
    let ty = Type::option(T::SCALAR.into())?;
    let size = ty.data_layout()?.size;
    let n = values.len();
    let bytes = n
        .checked_mul(size)
        .ok_or(Error::Alloc { bytes: u64::MAX })?;
    let mut block = MemoryBlock::zeroed(bytes)?;
    let Some(b) = Arc::get_mut(&mut block) else {
        unreachable!("a fresh block has one owner")
    };
    let value = std::mem::size_of::<T>();
    for ((out, &x), &there) in b.bytes_mut().chunks_exact_mut(size).zip(values).zip(valid) {
        if there {
            crate::element::write(out, x);
            out[value] = 1;
        }
    }
    let meta = crate::array::dtype_meta(&ty)?;
    if !dims {
        return Array::try_from_parts(ty, Arc::new(meta), block, 0);
    }
    let out_ty = Type::with_dims([Dim::Fixed(n)], ty)?;
    let meta = Arrmeta::Fixed {
        size: n,
        stride: size as isize,
        element: Box::new(meta),
    };
    Array::try_from_parts(out_ty, Arc::new(meta), block, 0)
}

/// An array built from a [`Nested`] value, its levels, and the value
/// flattened (the values themselves moved into the array).
pub(super) type NestedParts<T> = (Array, Vec<Level>, Flat<T>);

/// One level of a [`Nested`] Rust type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    /// A `Vec` or slice: a `var` dimension (a fixed one of its length at
    /// the outermost level).
    Var,
    /// An array `[T; N]`: a fixed dimension of `N`.
    Fixed(usize),
}

/// The values of a [`Nested`] value in one run, with each level's row
/// lengths (`var` levels) and element count.
#[derive(Debug)]
pub struct Flat<T> {
    values: Vec<T>,
    /// Which values are there, for `Option` leaves.
    valid: Vec<bool>,
    lengths: Vec<Vec<usize>>,
    totals: Vec<usize>,
}

/// Rust values [`Array::from_nested`] builds from: numbers, bools and
/// complex numbers (the [`Element`] types), and `Vec`s, slices and arrays
/// of them, nested to any depth. Sealed: the implementations here are the
/// ones whose levels and values agree.
pub trait Nested: sealed::Sealed {
    /// The scalar at the bottom.
    type Elem: Element;
    /// Whether the leaves are `Option`s (the array's data is `?T`).
    const OPTION: bool = false;
    /// Appends this type's levels, outermost first.
    fn levels(out: &mut Vec<Level>);
    /// Appends this value (at level `depth`) to `flat`.
    fn flatten(&self, depth: usize, flat: &mut Flat<Self::Elem>);
    /// `items` as scalars, if this type is a scalar.
    fn as_elems(items: &[Self]) -> Option<&[Self::Elem]>
    where
        Self: Sized,
    {
        let _ = items;
        None
    }
}

mod sealed {
    /// Implemented by the [`Nested`](super::Nested) types only.
    pub trait Sealed {}
}

macro_rules! nested_scalar {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Nested for $t {
            type Elem = $t;
            fn levels(_: &mut Vec<Level>) {}
            fn flatten(&self, _: usize, flat: &mut Flat<$t>) {
                flat.values.push(*self);
            }
            fn as_elems(items: &[$t]) -> Option<&[$t]> {
                Some(items)
            }
        }
    )*};
}
nested_scalar!(
    bool,
    i8,
    i16,
    i32,
    i64,
    i128,
    u8,
    u16,
    u32,
    u64,
    u128,
    f32,
    f64,
    crate::F16,
    crate::Complex<f32>,
    crate::Complex<f64>
);
nested_scalar!(crate::time::Date);

/// The time types with a unit parameter, as [`nested_scalar`]'s.
macro_rules! nested_time {
    ($($t:ident),*) => {$(
        impl<U: crate::time::Unit> sealed::Sealed for crate::time::$t<U> {}
        impl<U: crate::time::Unit> Nested for crate::time::$t<U> {
            type Elem = crate::time::$t<U>;
            fn levels(_: &mut Vec<Level>) {}
            fn flatten(&self, _: usize, flat: &mut Flat<Self>) {
                flat.values.push(*self);
            }
            fn as_elems(items: &[Self]) -> Option<&[Self]> {
                Some(items)
            }
        }
    )*};
}
nested_time!(DateTime, Time, TimeDelta);

impl<T: Element + Nested<Elem = T>> sealed::Sealed for Option<T> {}
/// An optional number: `?T` data, `None` as NA.
impl<T: Element + Nested<Elem = T>> Nested for Option<T> {
    type Elem = T;
    const OPTION: bool = true;
    fn levels(_: &mut Vec<Level>) {}
    fn flatten(&self, _: usize, flat: &mut Flat<T>) {
        let (value, there) = Item::to_parts(*self);
        flat.values.push(value);
        flat.valid.push(there);
    }
}

// `Option`s of numbers, nested, as arguments: `?T` arrays.
impl<T: Element + Nested<Elem = T>> crate::into_array::IntoArray for Option<T> {
    fn into_array(self) -> Result<Array, Error> {
        Array::from_nested(self)
    }
}

impl<T: Element + Nested<Elem = T>> crate::into_array::IntoArray for Vec<Option<T>> {
    fn into_array(self) -> Result<Array, Error> {
        Array::from_nested(self)
    }
}

impl<T: Element + Nested<Elem = T>> crate::into_array::IntoArray for Vec<Vec<Option<T>>> {
    fn into_array(self) -> Result<Array, Error> {
        Array::from_nested(self)
    }
}

impl<T: Element + Nested<Elem = T>> crate::into_array::IntoArray for Vec<Vec<Vec<Option<T>>>> {
    fn into_array(self) -> Result<Array, Error> {
        Array::from_nested(self)
    }
}

/// Appends the items of one container at level `depth` to `flat`: a run
/// of scalars in one copy, anything else item by item.
pub(super) fn flatten_items<X: Nested>(items: &[X], depth: usize, flat: &mut Flat<X::Elem>) {
    if let Some(total) = flat.totals.get_mut(depth) {
        *total += items.len();
    }
    match X::as_elems(items) {
        Some(xs) => flat.values.extend_from_slice(xs),
        None => items.iter().for_each(|x| x.flatten(depth + 1, flat)),
    }
}

impl<X: Nested> sealed::Sealed for [X] {}
impl<X: Nested> Nested for [X] {
    type Elem = X::Elem;
    const OPTION: bool = X::OPTION;
    fn levels(out: &mut Vec<Level>) {
        out.push(Level::Var);
        X::levels(out);
    }
    fn flatten(&self, depth: usize, flat: &mut Flat<X::Elem>) {
        if let Some(lengths) = flat.lengths.get_mut(depth) {
            lengths.push(self.len());
        }
        flatten_items(self, depth, flat);
    }
}

impl<X: Nested> sealed::Sealed for Vec<X> {}
impl<X: Nested> Nested for Vec<X> {
    type Elem = X::Elem;
    const OPTION: bool = X::OPTION;
    fn levels(out: &mut Vec<Level>) {
        <[X]>::levels(out)
    }
    fn flatten(&self, depth: usize, flat: &mut Flat<X::Elem>) {
        self.as_slice().flatten(depth, flat)
    }
}

impl<X: Nested + ?Sized> sealed::Sealed for &X {}
impl<X: Nested + ?Sized> Nested for &X {
    type Elem = X::Elem;
    const OPTION: bool = X::OPTION;
    fn levels(out: &mut Vec<Level>) {
        X::levels(out)
    }
    fn flatten(&self, depth: usize, flat: &mut Flat<X::Elem>) {
        (**self).flatten(depth, flat)
    }
}

impl<X: Nested, const N: usize> sealed::Sealed for [X; N] {}
impl<X: Nested, const N: usize> Nested for [X; N] {
    type Elem = X::Elem;
    const OPTION: bool = X::OPTION;
    fn levels(out: &mut Vec<Level>) {
        out.push(Level::Fixed(N));
        X::levels(out);
    }
    fn flatten(&self, depth: usize, flat: &mut Flat<X::Elem>) {
        flatten_items(self.as_slice(), depth, flat);
    }
}
