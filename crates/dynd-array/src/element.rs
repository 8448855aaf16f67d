//! Rust types that are dynd scalars: [`Element`], [`Complex`] and [`F16`].

use std::fmt;

use dynd_types::Scalar;

/// A Rust type whose values are the values of a builtin dynd scalar, stored
/// the same way.
///
/// # Safety
///
/// An implementor must be plain data laid out as its [`Element::SCALAR`]:
/// - `size_of::<Self>() == SCALAR.size()` and `align_of::<Self>() <= SCALAR.align()`;
/// - no padding bytes, no pointers, no drop glue (it is `Copy`);
/// - every value kernels may write is a valid `Self` (kernels write `bool`s
///   as 0 or 1 only);
/// - all-zero bytes are a valid `Self` (fresh arrays are zeroed, and NA
///   elements hold zero bytes).
pub unsafe trait Element: Copy + PartialEq + fmt::Debug + Send + Sync + 'static {
    /// The dynd scalar this type is.
    const SCALAR: Scalar;
}

macro_rules! element {
    ($($t:ty => $s:ident),* $(,)?) => {
        $(
            // SAFETY: a primitive with the size and alignment of the scalar
            // (`Scalar::size`/`align` list them), no padding.
            unsafe impl Element for $t {
                const SCALAR: Scalar = Scalar::$s;
            }
        )*
    };
}

element! {
    bool => Bool,
    i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64, i128 => Int128,
    u8 => UInt8, u16 => UInt16, u32 => UInt32, u64 => UInt64, u128 => UInt128,
    f32 => Float32, f64 => Float64,
}

/// A complex number: real part, then imaginary part.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Complex<T> {
    /// The real part.
    pub re: T,
    /// The imaginary part.
    pub im: T,
}

impl<T> Complex<T> {
    /// `re + im i`.
    pub fn new(re: T, im: T) -> Complex<T> {
        Complex { re, im }
    }
}

// SAFETY: repr(C) pair of f32, size 8, align 4, no padding.
unsafe impl Element for Complex<f32> {
    const SCALAR: Scalar = Scalar::Complex64;
}
// SAFETY: repr(C) pair of f64, size 16, align 8, no padding.
unsafe impl Element for Complex<f64> {
    const SCALAR: Scalar = Scalar::Complex128;
}

/// An IEEE 754 half-precision float (`float16`), stored as its bits.
/// Conversions round to nearest, ties to even.
///
/// ```
/// use dynd::nd::F16;
///
/// assert_eq!(F16::from_f64(1.5).to_f64(), 1.5);
/// assert_eq!(F16::from_f64(65520.0).to_f64(), f64::INFINITY); // past the largest half
/// assert_eq!(F16::from_f64(1.0 + 1.0 / 4096.0).to_f64(), 1.0); // a tie rounds to even
/// ```
#[derive(Clone, Copy, Default)]
#[repr(transparent)]
pub struct F16(pub u16);

/// Float equality, as for `f32`: `-0 == 0`, and NaN equals nothing.
impl PartialEq for F16 {
    fn eq(&self, other: &F16) -> bool {
        self.to_f32() == other.to_f32()
    }
}

/// Float order, as for `f32` (NaN is unordered).
impl PartialOrd for F16 {
    fn partial_cmp(&self, other: &F16) -> Option<std::cmp::Ordering> {
        self.to_f32().partial_cmp(&other.to_f32())
    }
}

// SAFETY: repr(transparent) over u16, size 2, align 2.
unsafe impl Element for F16 {
    const SCALAR: Scalar = Scalar::Float16;
}

impl F16 {
    /// The nearest half to `x` (ties to even); out of range gives ±infinity.
    pub fn from_f64(x: f64) -> F16 {
        let bits = x.to_bits();
        let sign = ((bits >> 48) & 0x8000) as u16;
        let exp = ((bits >> 52) & 0x7ff) as i32;
        let man = bits & ((1u64 << 52) - 1);
        if exp == 0x7ff {
            let nan = if man != 0 {
                0x0200 | (man >> 42) as u16
            } else {
                0
            };
            return F16(sign | 0x7c00 | nan);
        }
        let e = exp - 1023 + 15;
        if e >= 0x1f {
            return F16(sign | 0x7c00);
        }
        let round = |value: u64, shift: u32| -> u64 {
            let rem = value & ((1u64 << shift) - 1);
            let half = 1u64 << (shift - 1);
            let r = value >> shift;
            if rem > half || (rem == half && r & 1 == 1) {
                r + 1
            } else {
                r
            }
        };
        if e <= 0 {
            if e < -10 {
                return F16(sign);
            }
            let m = man | (1u64 << 52);
            return F16(sign | round(m, (43 - e) as u32) as u16);
        }
        // A carry out of the mantissa correctly bumps the exponent (to
        // infinity at the top).
        F16(sign | round(((e as u64) << 52) | man, 42) as u16)
    }

    /// The nearest half to `x`.
    pub fn from_f32(x: f32) -> F16 {
        F16::from_f64(f64::from(x))
    }

    /// The exact value as an `f32`.
    pub fn to_f32(self) -> f32 {
        let h = u32::from(self.0);
        let sign = (h & 0x8000) << 16;
        let exp = (h >> 10) & 0x1f;
        let man = h & 0x3ff;
        let bits = if exp == 0 {
            if man == 0 {
                sign
            } else {
                let mut e: u32 = 127 - 14;
                let mut m = man;
                while m & 0x400 == 0 {
                    m <<= 1;
                    e -= 1;
                }
                sign | (e << 23) | ((m & 0x3ff) << 13)
            }
        } else if exp == 0x1f {
            sign | 0x7f80_0000 | (man << 13)
        } else {
            sign | ((exp + 127 - 15) << 23) | (man << 13)
        };
        f32::from_bits(bits)
    }

    /// The exact value as an `f64`.
    pub fn to_f64(self) -> f64 {
        f64::from(self.to_f32())
    }
}

impl fmt::Debug for F16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_f32())
    }
}

impl fmt::Display for F16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.to_f32())
    }
}

/// What an array's elements read out as and are made from: an
/// [`Element`] `T` for a `T` array, or `Option<T>` for a `?T` array
/// (`None` where the element is NA). [`Array::to_vec`](crate::Array::to_vec),
/// [`Array::to_nested`](crate::Array::to_nested) and
/// [`Array::from_nested`](crate::Array::from_nested) take either.
///
/// ```
/// use dynd::nd::Array;
///
/// let a = Array::from_nested(vec![vec![Some(1.5), None], vec![]])?;
/// assert_eq!(a.ty().to_string(), "2 * var * ?float64");
/// assert_eq!(a.to_nested::<Option<f64>>()?, vec![vec![Some(1.5), None], vec![]]);
/// // A `T` array reads as `Option<T>` too, every element there.
/// assert_eq!(Array::from_vec(vec![7i32]).to_vec::<Option<i32>>()?, [Some(7)]);
/// # Ok::<(), dynd::Error>(())
/// ```
pub trait Item: Copy + PartialEq + fmt::Debug + Send + Sync + 'static + item::Sealed {
    /// The number underneath (`T` for both `T` and `Option<T>`).
    type Number: Element;
    /// Whether this is `Option<T>`, whose arrays have data type `?T`.
    const OPTION: bool;
    /// The item of a value that is there (`true`) or NA.
    fn from_parts(value: Self::Number, there: bool) -> Self;
    /// The value (zero bytes where NA) and whether it is there.
    fn to_parts(self) -> (Self::Number, bool);
}

mod item {
    /// Implemented by [`Element`](super::Element) types and their options only.
    pub trait Sealed {}
    impl<T: super::Element> Sealed for T {}
    impl<T: super::Element> Sealed for Option<T> {}
}

impl<T: Element> Item for T {
    type Number = T;
    const OPTION: bool = false;
    #[inline(always)]
    fn from_parts(value: T, _: bool) -> T {
        value
    }
    #[inline(always)]
    fn to_parts(self) -> (T, bool) {
        (self, true)
    }
}

impl<T: Element> Item for Option<T> {
    type Number = T;
    const OPTION: bool = true;
    #[inline(always)]
    fn from_parts(value: T, there: bool) -> Option<T> {
        there.then_some(value)
    }
    #[inline(always)]
    fn to_parts(self) -> (T, bool) {
        match self {
            Some(v) => (v, true),
            None => (zero(), false),
        }
    }
}

/// The value of `T` whose bytes are all zero (`0`, `false`, `0 + 0i`),
/// which arrays of `T` hold where NA and in fresh zeroed blocks.
pub fn zero<T: Element>() -> T {
    const ZEROS: [u8; 32] = [0; 32];
    match read::<T>(&ZEROS) {
        Some(z) => z,
        None => match read::<T>(&vec![0u8; std::mem::size_of::<T>()]) {
            Some(z) => z,
            None => unreachable!("as many zero bytes as a T"),
        },
    }
}

/// The bytes of a value.
pub fn bytes_of<T: Element>(v: &T) -> &[u8] {
    // SAFETY: `T: Element` is plain data without padding (the trait's
    // contract), so all `size_of::<T>()` bytes of `*v` are initialised; the
    // slice borrows `v`.
    unsafe { std::slice::from_raw_parts((v as *const T).cast::<u8>(), std::mem::size_of::<T>()) }
}

/// Views bytes as a slice of `T`, if the length and alignment allow.
///
/// Only used on bytes that hold values of `T` (the caller checked the data
/// type), which kernels and constructors only ever write as valid `T`s.
pub fn cast_slice<T: Element>(bytes: &[u8]) -> Option<&[T]> {
    let size = std::mem::size_of::<T>();
    if size == 0
        || bytes.len() % size != 0
        || bytes.as_ptr() as usize % std::mem::align_of::<T>() != 0
    {
        return None;
    }
    // SAFETY: length and alignment are checked above; `T: Element` is plain
    // data without padding, and the bytes hold values written as `T` (the
    // callers check the array's data type), so each is a valid `T`.
    Some(unsafe { std::slice::from_raw_parts(bytes.as_ptr() as *const T, bytes.len() / size) })
}

/// Views bytes as a mutable slice of `T`, if the length and alignment
/// allow; as [`cast_slice`], whose callers' checks these are too (and a
/// `T` written through the slice is a valid `T` of the array).
pub fn cast_slice_mut<T: Element>(bytes: &mut [u8]) -> Option<&mut [T]> {
    let size = std::mem::size_of::<T>();
    if size == 0
        || bytes.len() % size != 0
        || bytes.as_mut_ptr() as usize % std::mem::align_of::<T>() != 0
    {
        return None;
    }
    // SAFETY: as in `cast_slice`; the slice borrows `bytes` mutably, so
    // nothing else reads or writes them meanwhile, and every `T` is plain
    // data whose bytes are valid `u8`s again afterwards.
    Some(unsafe {
        std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast::<T>(), bytes.len() / size)
    })
}

/// Writes `v` to the first `size_of::<T>()` bytes, if there are that many
/// (any alignment); `false` otherwise.
#[inline(always)]
pub fn write<T: Element>(bytes: &mut [u8], v: T) -> bool {
    match bytes.get_mut(..std::mem::size_of::<T>()) {
        Some(b) => {
            b.copy_from_slice(bytes_of(&v));
            true
        }
        None => false,
    }
}

/// Reads a `T` from the first `size_of::<T>()` bytes, if there are that
/// many (any alignment).
///
/// Only used on bytes that hold a value of `T`, as [`cast_slice`].
#[inline(always)]
pub fn read<T: Element>(bytes: &[u8]) -> Option<T> {
    let bytes = bytes.get(..std::mem::size_of::<T>())?;
    // SAFETY: `bytes` holds `size_of::<T>()` initialised bytes, read
    // unaligned; `T: Element` is plain data, and the bytes hold a value
    // written as `T` (the callers check the array's data type).
    Some(unsafe { bytes.as_ptr().cast::<T>().read_unaligned() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_half_round_trips_through_f32_and_f64() {
        for bits in 0..=u16::MAX {
            let h = F16(bits);
            let f = h.to_f32();
            if f.is_nan() {
                assert!(F16::from_f32(f).to_f32().is_nan());
                continue;
            }
            assert_eq!(F16::from_f32(f).0, bits, "{bits:#06x}");
            assert_eq!(F16::from_f64(h.to_f64()).0, bits, "{bits:#06x}");
        }
    }

    #[test]
    fn rounding_is_to_nearest_even() {
        // Halfway between 1 and the next half (1 + 2^-10) rounds to 1 (even).
        assert_eq!(F16::from_f64(1.0 + 2f64.powi(-11)).to_f64(), 1.0);
        // Just above halfway rounds up.
        assert_eq!(
            F16::from_f64(1.0 + 2f64.powi(-11) + 2f64.powi(-20)).to_f64(),
            1.0 + 2f64.powi(-10)
        );
        // Halfway between 1 + 2^-10 (odd) and 1 + 2^-9 rounds up to even.
        assert_eq!(
            F16::from_f64(1.0 + 3.0 * 2f64.powi(-11)).to_f64(),
            1.0 + 2f64.powi(-9)
        );
        // Subnormals and underflow.
        assert_eq!(F16::from_f64(2f64.powi(-24)).0, 1);
        assert_eq!(F16::from_f64(2f64.powi(-25)).0, 0); // a tie, to even (0)
        assert_eq!(F16::from_f64(1.5 * 2f64.powi(-25)).0, 1);
        assert_eq!(F16::from_f64(-1e-30).0, 0x8000);
        // Overflow and the largest half.
        assert_eq!(F16::from_f64(65504.0).0, 0x7bff);
        assert_eq!(F16::from_f64(65519.0).0, 0x7bff);
        assert_eq!(F16::from_f64(1e10).0, 0x7c00);
        assert_eq!(F16::from_f64(f64::NEG_INFINITY).0, 0xfc00);
    }
}
