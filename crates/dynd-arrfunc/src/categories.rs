//! Dictionary encoding: [`dictionary_encode`] makes a `categorical[T]`
//! array of any array of numbers, `bool`, strings, times or records (its
//! categories in order of first appearance, as Arrow's
//! `dictionary_encode` gives them), and [`encode_as`] the encoding a
//! `cast` to a categorical type asks for. Decoding, and functions over
//! categorical arrays, are the callable's (see `callable::categories`).
//!
//! The codes come from a hash table of the distinct values (the one
//! grouping uses): one pass over the values, each looked up once.
//!
//! ```
//! use dynd::func::{categories, codes, dictionary_encode};
//! use dynd::nd::array;
//!
//! let c = dictionary_encode(&array!["b", "a", "b", "c"])?;
//! assert_eq!(c.ty().to_string(), "4 * categorical[string]");
//! assert_eq!(codes(&c)?.to_string(), "[0, 1, 0, 2]");
//! assert_eq!(categories(&c)?.to_string(), r#"["b", "a", "c"]"#);
//! # Ok::<(), dynd::Error>(())
//! ```

use dynd_array::text::Strings;
use dynd_kernels::take::TakeMode;
use dynd_kernels::{Array, ArrayOps, ErrorMode};
use dynd_types::{Dim, Scalar, ScalarCategory, Type, TypeKind};

use crate::error::Error;
use crate::hashed::{mix, text_ids, word_ids, Table, NA_ID};
use crate::ticks;

/// The codes of a flat array's values by first appearance, and the index
/// of each id's first value; `None` in the codes for NA.
struct Ids {
    ids: Vec<u32>,
    first: Vec<usize>,
}

fn unsupported(x: &Array) -> Error {
    Error::Unsupported {
        operation: "dictionary encoding (of values without equality: complex numbers, dimensions)",
        ty: x.ty().clone(),
    }
}

/// Words equal exactly where the values `flat` (`K * T`, numbers or
/// `bool`, no NA) are equal: NaNs one word, `-0.0` that of `0.0`.
fn words(flat: &Array) -> Result<Option<Vec<u64>>, Error> {
    let Some(s) = flat.dtype().as_scalar() else {
        return Ok(None);
    };
    let n = flat.len();
    Ok(Some(match s.category() {
        ScalarCategory::Bool | ScalarCategory::SignedInt | ScalarCategory::UnsignedInt => {
            let t = Type::dim(Dim::Fixed(n), Scalar::Int64.into())?;
            let v = flat.cast(&t, ErrorMode::NoCheck)?;
            v.as_slice::<i64>()?.iter().map(|&x| x as u64).collect()
        }
        ScalarCategory::Float => {
            let t = Type::dim(Dim::Fixed(n), Scalar::Float64.into())?;
            let v = flat.cast(&t, ErrorMode::NoCheck)?;
            v.as_slice::<f64>()?
                .iter()
                .map(|&x| {
                    if x.is_nan() {
                        u64::MAX
                    } else if x == 0.0 {
                        0
                    } else {
                        x.to_bits()
                    }
                })
                .collect()
        }
        _ => return Ok(None),
    }))
}

/// [`Ids`] of `flat` (`K * T`), NA ids [`NA_ID`].
fn ids_of(flat: &Array) -> Result<Ids, Error> {
    if let Some(t) = ticks::as_ticks(flat)? {
        return ids_of(&t);
    }
    if let TypeKind::FixedString { .. } = flat.dtype().kind() {
        let t = Type::dim(Dim::Fixed(flat.len()), Scalar::String.into())?;
        return ids_of(&flat.cast(&t, ErrorMode::NoCheck)?);
    }
    let (values, valid) = match flat.option_parts() {
        Some((v, ok)) => (v, Some(ok.to_vec::<bool>()?)),
        None => (flat.clone(), None),
    };
    let valid = valid.as_deref();
    // Every id is written by the scan (NA ones too).
    let mut ids = vec![0u32; values.len()];
    if let Some(s) = Strings::of(&values) {
        let first = text_ids(&s, valid, &mut ids).first().to_vec();
        return Ok(Ids { ids, first });
    }
    if let Some(w) = words(&values)? {
        let first = word_ids(&w, valid, &mut ids).first().to_vec();
        return Ok(Ids { ids, first });
    }
    if dynd_array::record::is_record(values.dtype()) {
        return record_ids(&values, valid);
    }
    Err(unsupported(flat))
}

/// [`Ids`] of records: each field's ids, combined field by field (a pair
/// of ids is one word, itself given an id).
fn record_ids(values: &Array, valid: Option<&[bool]>) -> Result<Ids, Error> {
    let n = values.len();
    let fields = values.fields()?;
    let mut ids = vec![0u32; n];
    for f in &fields {
        let fi = ids_of(f)?;
        let mut t: Table<u64> = Table::new();
        for (i, (id, &g)) in ids.iter_mut().zip(&fi.ids).enumerate() {
            let w = (u64::from(*id) << 32) | u64::from(g);
            *id = t.id(w, mix(w), i, |a, b| a == b);
        }
    }
    // The combined ids count up in first appearance already; NA records
    // are set apart.
    let mut t: Table<u64> = Table::new();
    for (i, id) in ids.iter_mut().enumerate() {
        if valid.is_some_and(|v| !v[i]) {
            *id = NA_ID;
        } else {
            let w = u64::from(*id);
            *id = t.id(w, mix(w), i, |a, b| a == b);
        }
    }
    let first = t.first().to_vec();
    Ok(Ids { ids, first })
}

/// The largest code of an index type.
fn max_code(index: Scalar) -> u64 {
    match index {
        Scalar::Int8 => i8::MAX as u64,
        Scalar::Int16 => i16::MAX as u64,
        Scalar::Int32 => i32::MAX as u64,
        Scalar::UInt8 => u8::MAX as u64,
        Scalar::UInt16 => u16::MAX as u64,
        _ => u64::MAX,
    }
}

/// `x` dictionary-encoded with codes of `index`: see the module docs.
///
/// # Errors
///
/// Values without equality; more distinct values than `index` counts.
pub(crate) fn encode_as(x: &Array, index: Scalar) -> Result<Array, Error> {
    if x.is_categorical() {
        return Ok(x.clone());
    }
    let op = "dictionary_encode";
    crate::rows::at_least_1d(op, x)?;
    let flat = x.flat_values()?;
    let Ids { ids, first } = ids_of(&flat)?;
    if first.len() as u64 > max_code(index).saturating_add(1) {
        return Err(Error::Argument {
            op,
            what: "the number of categories",
            expected: "as many as the index type counts",
            found: format!("{} distinct values for codes of {index}", first.len()).into(),
        });
    }
    let (values, optional) = match flat.option_parts() {
        Some((v, _)) => (v, true),
        None => (flat.clone(), false),
    };
    let categories = values.take(
        &Array::from_vec(first.iter().map(|&i| i as i64).collect::<Vec<_>>()),
        Some(0),
        TakeMode::Raise,
    )?;
    let code = |id: u32| if id == NA_ID { 0 } else { id };
    let valid: Option<Vec<bool>> = optional.then(|| ids.iter().map(|&id| id != NA_ID).collect());
    // The ids become the codes in their own memory where the sizes agree.
    macro_rules! codes_of {
        ($($s:ident => $t:ty),*) => {
            match index {
                $(Scalar::$s => Array::from_vec(ids.into_iter().map(|id| code(id) as $t).collect::<Vec<$t>>()),)*
                _ => return Err(Error::Argument {
                    op,
                    what: "the index type",
                    expected: "an integer type (int8 … int64, uint8 … uint64)",
                    found: index.to_string().into(),
                }),
            }
        };
    }
    let codes = codes_of!(Int8 => i8, Int16 => i16, Int32 => i32, Int64 => i64,
        UInt8 => u8, UInt16 => u16, UInt32 => u32, UInt64 => u64);
    let codes = match valid {
        Some(valid) => Array::optional(&codes, &Array::from_vec(valid))?,
        None => codes,
    };
    let codes = Array::regroup(&codes, x)?;
    Array::from_codes(&codes, &categories)
}

/// The values of `x` as a dictionary-encoded array (`categorical[T]`,
/// `int32` codes): its distinct values as the categories, in order of
/// first appearance (Arrow's `dictionary_encode`), and each value's code;
/// NA stays NA (`?categorical[T]`). Any dimensions are kept, ragged ones
/// too. A categorical `x` is returned as it is.
///
/// ```
/// let x = dynd::nd::Array::from_json(r#"["x", null, "y", "x"]"#, None)?;
/// let c = dynd::func::dictionary_encode(&x)?;
/// assert_eq!(c.ty().to_string(), "4 * ?categorical[string]");
/// assert_eq!(c.to_string(), r#"["x", null, "y", "x"]"#);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// A scalar; values without equality (complex numbers); more than 2^31
/// distinct values.
pub fn dictionary_encode(x: &Array) -> Result<Array, Error> {
    encode_as(x, Scalar::Int32)
}

fn not_categorical(op: &'static str, x: &Array) -> Error {
    Error::NeedsArray {
        op: op.into(),
        expected: "a categorical array (dims * categorical[T])",
        found: x.ty().clone(),
    }
}

/// The codes of a categorical array: a view of its data as integers
/// (`dims * int32` for `categorical[T]`, the type's index otherwise;
/// optional where the array is).
///
/// ```
/// let c = dynd::func::dictionary_encode(&dynd::nd::array![2.5, 1.0, 2.5])?;
/// assert_eq!(dynd::func::codes(&c)?.to_string(), "[0, 1, 0]");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// An array that is not categorical.
pub fn codes(c: &Array) -> Result<Array, Error> {
    if !c.is_categorical() {
        return Err(not_categorical("codes", c));
    }
    c.codes()
}

/// The categories of a categorical array (`K * T`), as it holds them.
///
/// # Errors
///
/// An array that is not categorical.
pub fn categories(c: &Array) -> Result<Array, Error> {
    c.categories()
        .ok_or_else(|| not_categorical("categories", c))
}
