//! Rust structs as elements: [`Record`] (made by `#[derive(Record)]`) and
//! the [`Field`] types a record's fields may have.
//!
//! A struct whose fields are element types — numbers, `bool`, `F16`,
//! complex numbers, dates and times ([`Date`], [`DateTime`], [`Time`],
//! [`TimeDelta`] of a unit), `Option`s of them, `String`, `Option<String>`,
//! fixed-size arrays `[T; N]` of fields, and other records — is a dynd
//! record: `#[derive(Record)] struct Point { x: f64, y: f64 }` has the
//! datashape `{x: float64, y: float64}` ([`Record::DATASHAPE`]). The
//! derive reads each field's datashape from its type as written (the
//! numbers, `String`, `Date`, `DateTime<Ns>` by the last segment of their
//! path, any other type as a record), so a field's type is spelled by its
//! name, not through a type alias.
//!
//! In and out:
//! - [`Array::from_records`] makes `N * {...}` from a `Vec` of them: a
//!   `#[repr(C)]` struct of plain fields (numbers, `bool`, arrays of them,
//!   plain records) without padding is laid out as dynd lays out a record,
//!   so its `Vec` becomes the array's memory without a copy; any other
//!   struct becomes records held as columns, one per field
//!   ([`Array::from_columns`]).
//! - [`Array::as_records`] borrows the records of an interleaved array as
//!   `&[Point]` (plain structs, the array's layout theirs);
//!   [`Array::to_records`] copies them out of any layout, dimensions
//!   flattened in C order.
//! - `Option<Point>` is `?{x: float64, y: float64}`:
//!   [`Array::from_optional_records`], [`Array::to_optional_records`].
//!
//! ```
//! use dynd::nd::{Array, Record};
//!
//! #[derive(Record, Clone, Copy, Debug, PartialEq)]
//! #[repr(C)]
//! struct Point {
//!     x: f64,
//!     y: f64,
//! }
//!
//! assert_eq!(Point::DATASHAPE, "{x: float64, y: float64}");
//! let v = vec![Point { x: 1.0, y: 2.0 }, Point { x: 3.0, y: 4.0 }];
//! let at = v.as_ptr() as *const u8;
//! let a = Array::from_records(v)?;                       // no copy
//! assert_eq!((a.ty().to_string(), a.data_ptr()), ("2 * {x: float64, y: float64}".into(), at));
//! assert_eq!(a.field("y")?.to_string(), "[2, 4]");
//! assert_eq!(a.as_records::<Point>()?[1], Point { x: 3.0, y: 4.0 });
//!
//! #[derive(Record, Clone, Debug, PartialEq)]
//! struct Visit {
//!     name: String,
//!     at: Point,
//!     rating: Option<i8>,
//! }
//! let visits = Array::from_records(vec![
//!     Visit { name: "Lyon".into(), at: Point { x: 4.8, y: 45.7 }, rating: Some(5) },
//!     Visit { name: "Orsay".into(), at: Point { x: 2.2, y: 48.7 }, rating: None },
//! ])?;
//! assert_eq!(visits.ty().to_string(), "2 * {name: string, at: {x: float64, y: float64}, rating: ?int8}");
//! assert_eq!(visits.field("rating")?.to_string(), "[5, null]");
//! assert_eq!(visits.to_records::<Visit>()?[1].name, "Orsay");
//! # Ok::<(), dynd::Error>(())
//! ```

use std::sync::Arc;

use dynd_types::{Dim, Type, TypeKind};

use crate::array::Array;
use crate::element::{Complex, Element, F16};
use crate::error::Error;
use crate::memory::MemoryBlock;
use crate::text::Strings;
use crate::time::{Date, DateTime, Time, TimeDelta, Unit};

/// A Rust type a record's field may have: its values read from and
/// written to arrays one column at a time.
///
/// Implemented for the numbers, `bool`, [`F16`], [`Complex`], the time
/// elements ([`Date`], [`DateTime`], [`Time`], [`TimeDelta`]), `Option`s
/// of them, `String`, `Option<String>`, `[T; N]` of fields, and records
/// (`#[derive(Record)]`), and their options.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a type a record's field may have",
    label = "not a record field type",
    note = "fields are numbers, bool, F16, Complex, Date, DateTime, Time, TimeDelta, String, Option of those, [T; N] of fields, and #[derive(Record)] structs"
)]
pub trait Field: Sized + Send + Sync + 'static {
    /// Whether values of this type are plain bytes laid out as dynd lays
    /// out its type: no padding, no pointers, every dynd value a valid
    /// value (numbers, `bool`, arrays of them, plain records).
    const PLAIN: bool;
    /// The values of one column, read from an array.
    type Store;
    /// The values of a [`Field::Store`], borrowed.
    type View<'a>;
    /// The data type of one value.
    fn dtype() -> Type;
    /// A value for the place of an NA record's field (zero, empty).
    fn zero() -> Self;
    /// The values of `a` (`K * T`, `T` this type's data type).
    ///
    /// # Errors
    ///
    /// [`Error::DtypeMismatch`] if `a` holds another type.
    fn store(a: &Array) -> Result<Self::Store, Error>;
    /// The store's values, borrowed.
    ///
    /// # Errors
    ///
    /// None for a store [`Field::store`] made.
    fn view(s: &Self::Store) -> Result<Self::View<'_>, Error>;
    /// Value `i` of a view (its store had at least `i + 1`).
    fn get(v: &Self::View<'_>, i: usize) -> Self;
    /// A copy of `v` (a clone, without asking the struct for `Clone`).
    fn duplicate(v: &Self) -> Self;
    /// The view's values as one slice of `Self`, where they lie so
    /// (numbers; plain records borrowed from an interleaved array): the
    /// loops over them then read the slice.
    fn plain<'a>(v: &Self::View<'a>) -> Option<&'a [Self]> {
        let _ = v;
        None
    }
    /// The array `K * T` of `values`.
    ///
    /// # Errors
    ///
    /// An allocation error.
    fn column(values: Vec<Self>) -> Result<Array, Error>;
    /// The array `K * T` of `f(0)`, …, `f(n - 1)` (numbers are written
    /// straight into the array's block).
    ///
    /// # Errors
    ///
    /// An allocation error.
    fn column_with(n: usize, f: impl FnMut(usize) -> Self) -> Result<Array, Error> {
        Self::column((0..n).map(f).collect())
    }
}

/// A Rust struct that is a dynd record: `#[derive(Record)]` implements
/// it (and [`Field`], so records nest), checking at compile time that
/// every field is a [`Field`] type.
///
/// # Safety
///
/// [`Field::PLAIN`] is true only for a `#[repr(C)]` struct without padding
/// whose fields are all plain and whose layout is dynd's for
/// [`Record::DATASHAPE`] (the derive checks each); [`Record::OFFSETS`]
/// are the fields' byte offsets.
pub unsafe trait Record: Field {
    /// The datashape of one record, `{x: float64, y: float64}`.
    const DATASHAPE: &'static str;
    /// The fields' byte offsets in the struct, in field order.
    const OFFSETS: &'static [usize];
}

fn mismatch(a: &Array, requested: Type) -> Error {
    Error::DtypeMismatch {
        actual: a.dtype().clone(),
        requested,
    }
}

/// `a` (`K * T`) with its `K` elements side by side: itself, or a copy.
fn contiguous(a: &Array) -> Result<Array, Error> {
    if a.ndim() != 1 || a.ty().has_var_dim() {
        return Err(Error::NeedsArray {
            op: "a record field".into(),
            expected: "one fixed dimension",
            found: a.ty().clone(),
        });
    }
    a.compact()
}

macro_rules! plain_field {
    ($($t:ty => $zero:expr),* $(,)?) => {$(
        plain_field!(@one [] $t => $zero);
    )*};
    (@one [$($g:tt)*] $t:ty => $zero:expr) => {
        impl<$($g)*> Field for $t {
            const PLAIN: bool = true;
            type Store = Array;
            type View<'a> = &'a [$t];
            fn dtype() -> Type {
                <$t as Element>::SCALAR.into()
            }
            fn zero() -> Self {
                $zero
            }
            fn store(a: &Array) -> Result<Array, Error> {
                if a.dtype().as_scalar() != Some(<$t as Element>::SCALAR) {
                    return Err(mismatch(a, Self::dtype()));
                }
                contiguous(a)
            }
            fn view(s: &Array) -> Result<&[$t], Error> {
                s.as_slice::<$t>()
            }
            #[inline(always)]
            fn get(v: &&[$t], i: usize) -> $t {
                v[i]
            }
            #[inline(always)]
            fn duplicate(v: &$t) -> $t {
                *v
            }
            #[inline(always)]
            fn plain<'a>(v: &Self::View<'a>) -> Option<&'a [$t]> {
                Some(*v)
            }
            fn column(values: Vec<$t>) -> Result<Array, Error> {
                Ok(Array::from_vec(values))
            }
            fn column_with(n: usize, f: impl FnMut(usize) -> $t) -> Result<Array, Error> {
                Array::from_fn(n, f)
            }
        }

        impl<$($g)*> Field for Option<$t> {
            const PLAIN: bool = false;
            type Store = Vec<Option<$t>>;
            type View<'a> = &'a [Option<$t>];
            fn dtype() -> Type {
                Type::option(<$t as Element>::SCALAR.into())
                    .unwrap_or_else(|_| unreachable!("?scalar is a type"))
            }
            fn zero() -> Self {
                None
            }
            fn store(a: &Array) -> Result<Vec<Option<$t>>, Error> {
                contiguous(a)?.to_vec::<Option<$t>>()
            }
            fn view(s: &Vec<Option<$t>>) -> Result<&[Option<$t>], Error> {
                Ok(s)
            }
            #[inline(always)]
            fn get(v: &&[Option<$t>], i: usize) -> Option<$t> {
                v[i]
            }
            #[inline(always)]
            fn duplicate(v: &Option<$t>) -> Option<$t> {
                *v
            }
            fn column(values: Vec<Option<$t>>) -> Result<Array, Error> {
                let valid: Vec<bool> = values.iter().map(Option::is_some).collect();
                let plain: Vec<$t> = values.into_iter().map(|v| v.unwrap_or($zero)).collect();
                Array::optional(&Array::from_vec(plain), &Array::from_vec(valid))
            }
        }
    };
}

plain_field! {
    bool => false,
    i8 => 0, i16 => 0, i32 => 0, i64 => 0, i128 => 0,
    u8 => 0, u16 => 0, u32 => 0, u64 => 0, u128 => 0,
    f32 => 0.0, f64 => 0.0,
    F16 => F16::from_f64(0.0),
    Complex<f32> => Complex::new(0.0, 0.0),
    Complex<f64> => Complex::new(0.0, 0.0),
}

// The time elements: their ticks, laid out as the naive types store them.
plain_field!(@one [] Date => Date::from_days(0));
plain_field!(@one [U: Unit] DateTime<U> => DateTime::from_ticks(0));
plain_field!(@one [U: Unit] TimeDelta<U> => TimeDelta::from_ticks(0));
plain_field!(@one [U: Unit] Time<U> => Time::from_ticks(U::TimeTicks::default()));

/// The strings of `values` as `K * string`, one text block.
fn strings<'a>(values: impl Iterator<Item = &'a str>) -> Result<Array, Error> {
    let mut text = String::new();
    let mut spans = Vec::new();
    for s in values {
        spans.push((text.len(), s.len()));
        text.push_str(s);
    }
    Array::from_text_spans(text, &spans)
}

impl Field for String {
    const PLAIN: bool = false;
    type Store = Array;
    type View<'a> = Strings<'a>;
    fn dtype() -> Type {
        dynd_types::Scalar::String.into()
    }
    fn zero() -> Self {
        String::new()
    }
    fn store(a: &Array) -> Result<Array, Error> {
        if a.dtype().as_scalar() != Some(dynd_types::Scalar::String) {
            return Err(mismatch(a, Self::dtype()));
        }
        contiguous(a)
    }
    fn view(s: &Array) -> Result<Strings<'_>, Error> {
        Strings::of(s).ok_or_else(|| mismatch(s, Self::dtype()))
    }
    fn get(v: &Strings<'_>, i: usize) -> String {
        v.str(i).unwrap_or_default().to_string()
    }
    fn duplicate(v: &String) -> String {
        v.clone()
    }
    fn column(values: Vec<String>) -> Result<Array, Error> {
        strings(values.iter().map(String::as_str))
    }
}

impl Field for Option<String> {
    const PLAIN: bool = false;
    type Store = (Array, Vec<bool>);
    type View<'a> = (Strings<'a>, &'a [bool]);
    fn dtype() -> Type {
        Type::option(dynd_types::Scalar::String.into())
            .unwrap_or_else(|_| unreachable!("?string is a type"))
    }
    fn zero() -> Self {
        None
    }
    fn store(a: &Array) -> Result<(Array, Vec<bool>), Error> {
        if *a.dtype() != Self::dtype() {
            return Err(mismatch(a, Self::dtype()));
        }
        let c = contiguous(a)?;
        // The value and the flag of each element, as views.
        let (values, valid) =
            crate::record::option_parts_view(&c).ok_or_else(|| mismatch(a, Self::dtype()))?;
        let valid = valid.to_vec::<bool>()?;
        Ok((values, valid))
    }
    fn view(s: &(Array, Vec<bool>)) -> Result<(Strings<'_>, &[bool]), Error> {
        let strings = Strings::of(&s.0).ok_or_else(|| mismatch(&s.0, Self::dtype()))?;
        Ok((strings, &s.1))
    }
    fn get(v: &(Strings<'_>, &[bool]), i: usize) -> Option<String> {
        v.1[i].then(|| v.0.str(i).unwrap_or_default().to_string())
    }
    fn duplicate(v: &Option<String>) -> Option<String> {
        v.clone()
    }
    fn column(values: Vec<Option<String>>) -> Result<Array, Error> {
        let valid: Vec<bool> = values.iter().map(Option::is_some).collect();
        let s = strings(values.iter().map(|v| v.as_deref().unwrap_or("")))?;
        Array::optional(&s, &Array::from_vec(valid))
    }
}

impl<T: Field, const N: usize> Field for [T; N] {
    const PLAIN: bool = T::PLAIN;
    type Store = T::Store;
    type View<'a> = T::View<'a>;
    fn dtype() -> Type {
        Type::dim(Dim::Fixed(N), T::dtype()).unwrap_or_else(|_| unreachable!("N * T is a type"))
    }
    fn zero() -> Self {
        std::array::from_fn(|_| T::zero())
    }
    fn store(a: &Array) -> Result<T::Store, Error> {
        let c = contiguous_2d(a, N)?;
        T::store(&c)
    }
    fn view(s: &T::Store) -> Result<T::View<'_>, Error> {
        T::view(s)
    }
    fn get(v: &T::View<'_>, i: usize) -> [T; N] {
        std::array::from_fn(|j| T::get(v, i * N + j))
    }
    fn duplicate(v: &[T; N]) -> [T; N] {
        std::array::from_fn(|j| T::duplicate(&v[j]))
    }
    fn column(values: Vec<[T; N]>) -> Result<Array, Error> {
        let k = values.len();
        let flat: Vec<T> = values.into_iter().flatten().collect();
        T::column(flat)?.split_first(k, N)
    }
}

/// `a` (`K * N * T`) as `K·N * T`, elements side by side.
fn contiguous_2d(a: &Array, n: usize) -> Result<Array, Error> {
    let bad = || Error::NeedsArray {
        op: "a record field".into(),
        expected: "one fixed dimension over a fixed-size array",
        found: a.ty().clone(),
    };
    let (dims, _) = a.ty().split_dims();
    match dims[..] {
        [Dim::Fixed(k), Dim::Fixed(m)] if *m == n => {
            let c = a.compact()?;
            c.reshape(&[(k * n) as i64][..])
        }
        _ => Err(bad()),
    }
    .map_err(|_| bad())
}

impl<R: Record> Field for Option<R> {
    const PLAIN: bool = false;
    type Store = (R::Store, Vec<bool>);
    type View<'a> = (R::View<'a>, &'a [bool]);
    fn dtype() -> Type {
        Type::option(R::dtype()).unwrap_or_else(|_| unreachable!("?record is a type"))
    }
    fn zero() -> Self {
        None
    }
    fn store(a: &Array) -> Result<(R::Store, Vec<bool>), Error> {
        check_dtype(a, &Self::dtype())?;
        let c = contiguous(a)?;
        let (values, valid) =
            crate::record::option_parts_view(&c).ok_or_else(|| mismatch(a, Self::dtype()))?;
        Ok((R::store(&values)?, valid.to_vec::<bool>()?))
    }
    fn view(s: &(R::Store, Vec<bool>)) -> Result<(R::View<'_>, &[bool]), Error> {
        Ok((R::view(&s.0)?, &s.1))
    }
    fn get(v: &(R::View<'_>, &[bool]), i: usize) -> Option<R> {
        v.1[i].then(|| R::get(&v.0, i))
    }
    fn duplicate(v: &Option<R>) -> Option<R> {
        v.as_ref().map(R::duplicate)
    }
    fn column(values: Vec<Option<R>>) -> Result<Array, Error> {
        Array::from_optional_records(values)
    }
}

/// `a`'s data type is `want`, or the mismatch error.
#[doc(hidden)]
pub fn check_dtype(a: &Array, want: &Type) -> Result<(), Error> {
    if a.dtype() == want {
        Ok(())
    } else {
        Err(mismatch(a, want.clone()))
    }
}

impl Array {
    /// The array `N * {...}` of `records` (see the [module docs](self)):
    /// their memory itself for a `#[repr(C)]` struct of plain fields
    /// without padding, otherwise records held as columns.
    ///
    /// # Errors
    ///
    /// An allocation error.
    pub fn from_records<R: Record>(records: Vec<R>) -> Result<Array, Error> {
        if plain_layout::<R>()? {
            let n = records.len();
            let ty = Type::dim(Dim::Fixed(n), R::dtype())?;
            let meta = crate::array::c_order_meta(
                &[n],
                std::mem::size_of::<R>(),
                crate::array::dtype_meta(&R::dtype())?,
            )?;
            // SAFETY: `plain_layout` checked that `R` is plain (the
            // `Record` contract: no padding, no pointers, plain fields)
            // and laid out as dynd lays out `R::dtype()`.
            let block = unsafe { MemoryBlock::from_plain_vec(records) };
            return Array::try_from_parts(ty, Arc::new(meta), block, 0);
        }
        R::column(records)
    }

    /// The array `N * ?{...}` of `records`, NA for `None`.
    ///
    /// # Errors
    ///
    /// An allocation error.
    pub fn from_optional_records<R: Record>(records: Vec<Option<R>>) -> Result<Array, Error> {
        let valid: Vec<bool> = records.iter().map(Option::is_some).collect();
        let values: Vec<R> = records
            .into_iter()
            .map(|r| r.unwrap_or_else(R::zero))
            .collect();
        let values = Array::from_records(values)?.interleaved()?;
        Array::optional(&values, &Array::from_vec(valid))
    }

    /// The records of an interleaved array, borrowed: a `#[repr(C)]`
    /// struct of plain fields (see the [module docs](self)) over an
    /// array of its data type whose records lie side by side (C order).
    ///
    /// # Errors
    ///
    /// [`Error::DtypeMismatch`] for another data type;
    /// [`Error::NeedsArray`] for a struct that is not plain, records held
    /// as columns or not side by side ([`Array::to_records`] copies any).
    pub fn as_records<R: Record>(&self) -> Result<&[R], Error> {
        if *self.dtype() != R::dtype() {
            return Err(mismatch(self, R::dtype()));
        }
        let refuse = |expected| Error::NeedsArray {
            op: "as_records".into(),
            expected,
            found: self.ty().clone(),
        };
        if !plain_layout::<R>()? {
            return Err(refuse(
                "a #[repr(C)] struct of plain fields without padding",
            ));
        }
        if self.is_columnar() || !self.is_c_contiguous() {
            return Err(refuse(
                "records side by side (to_records copies any layout)",
            ));
        }
        let n: usize = self.ty().fixed_shape().map_or(0, |s| s.iter().product());
        if n == 0 {
            return Ok(&[]);
        }
        let size = std::mem::size_of::<R>();
        let bytes = self
            .data_block()
            .bytes()
            .get(self.data_offset()..self.data_offset() + n * size)
            .ok_or_else(|| refuse("records inside their block"))?;
        if bytes.as_ptr() as usize % std::mem::align_of::<R>() != 0 {
            return Err(refuse("records aligned for the struct"));
        }
        // SAFETY: `R` is plain and laid out as this data type (checked
        // above, the `Record` contract): every byte pattern an array of
        // the type holds is a valid `R` (kernels write `bool`s as 0 or
        // 1); the bytes are `n` whole records, aligned, in a block that
        // lives as long as `self`.
        Ok(unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast::<R>(), n) })
    }

    /// The records of any array of `R`'s data type, copied out, its
    /// dimensions (fixed and `var`) flattened in C order.
    ///
    /// # Errors
    ///
    /// [`Error::DtypeMismatch`] for another data type.
    pub fn to_records<R: Record>(&self) -> Result<Vec<R>, Error> {
        if *self.dtype() != R::dtype() {
            return Err(mismatch(self, R::dtype()));
        }
        let flat = self.flat_values()?;
        let store = R::store(&flat)?;
        let view = R::view(&store)?;
        Ok((0..flat.len()).map(|i| R::get(&view, i)).collect())
    }

    /// The records of an array of `?R`, copied out (`None` for NA), its
    /// dimensions flattened in C order.
    ///
    /// # Errors
    ///
    /// [`Error::DtypeMismatch`] for another data type.
    pub fn to_optional_records<R: Record>(&self) -> Result<Vec<Option<R>>, Error> {
        let want = Type::option(R::dtype())?;
        if *self.dtype() != want {
            return Err(mismatch(self, want));
        }
        let flat = self.flat_values()?;
        let (values, valid) =
            crate::record::option_parts_view(&flat).ok_or_else(|| mismatch(self, want))?;
        let valid = valid.to_vec::<bool>()?;
        let records = values.to_records::<R>()?;
        Ok(records
            .into_iter()
            .zip(valid)
            .map(|(r, ok)| ok.then_some(r))
            .collect())
    }
}

/// Whether `R` is plain and laid out as dynd lays out its data type (the
/// same size and field offsets).
fn plain_layout<R: Record>() -> Result<bool, Error> {
    if !R::PLAIN {
        return Ok(false);
    }
    let t = R::dtype();
    Ok(t.data_layout()?.size == std::mem::size_of::<R>()
        && t.field_offsets().as_deref() == Some(R::OFFSETS))
}

/// The data type of a record's field type, for `#[derive(Record)]`.
#[doc(hidden)]
pub fn struct_type(fields: &[(&str, Type)]) -> Type {
    Type::new(TypeKind::Struct(dynd_types::Struct {
        fields: fields
            .iter()
            .map(|(n, t)| (Arc::from(*n), t.clone()))
            .collect(),
        variadic: false,
    }))
    .unwrap_or_else(|e| unreachable!("the derive checked the field names: {e}"))
}

/// A piece of a datashape built at compile time by `#[derive(Record)]`.
#[doc(hidden)]
pub enum Piece {
    /// Text.
    Str(&'static str),
    /// A number, written in decimal.
    Num(usize),
}

const fn digits(mut n: usize) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// The length of the pieces' text.
#[doc(hidden)]
pub const fn pieces_len(pieces: &[Piece]) -> usize {
    let mut len = 0;
    let mut i = 0;
    while i < pieces.len() {
        len += match pieces[i] {
            Piece::Str(s) => s.len(),
            Piece::Num(n) => digits(n),
        };
        i += 1;
    }
    len
}

/// The pieces' text, `N` bytes ([`pieces_len`]).
#[doc(hidden)]
pub const fn pieces_bytes<const N: usize>(pieces: &[Piece]) -> [u8; N] {
    let mut out = [0u8; N];
    let mut at = 0;
    let mut i = 0;
    while i < pieces.len() {
        match pieces[i] {
            Piece::Str(s) => {
                let b = s.as_bytes();
                let mut j = 0;
                while j < b.len() {
                    out[at] = b[j];
                    at += 1;
                    j += 1;
                }
            }
            Piece::Num(n) => {
                let d = digits(n);
                let mut k = 0;
                let mut m = n;
                while k < d {
                    out[at + d - 1 - k] = b'0' + (m % 10) as u8;
                    m /= 10;
                    k += 1;
                }
                at += d;
            }
        }
        i += 1;
    }
    out
}

/// Bytes made of `&str` pieces as a `&str`.
#[doc(hidden)]
pub const fn utf8(bytes: &'static [u8]) -> &'static str {
    match std::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(_) => panic!("datashape pieces are UTF-8"),
    }
}
