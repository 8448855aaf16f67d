//! The number types dynd shares with NumPy, the buffer protocol, DLPack
//! and NumPy's ufunc loops: one table, read by every crossing of the
//! boundary, and the byte span of a strided block of them.

use std::ffi::CStr;

use dynd::ndt::{Scalar, Type};
use numpy::npyffi::NPY_TYPES;

/// A number type (or `bool`) with the same memory layout on both sides.
pub(crate) struct Numeric {
    /// dynd's scalar.
    pub(crate) scalar: Scalar,
    /// NumPy's dtype kind (`b`, `i`, `u`, `f`, `c`).
    pub(crate) kind: u8,
    /// The buffer protocol's format.
    pub(crate) format: &'static CStr,
    /// DLPack's type code.
    pub(crate) dlpack_code: u8,
    /// NumPy's type number (for ufunc loops).
    pub(crate) npy: NPY_TYPES,
}

macro_rules! numeric {
    ($($scalar:ident $kind:literal $format:literal $code:literal $npy:ident),* $(,)?) => {
        [$(Numeric {
            scalar: Scalar::$scalar,
            kind: $kind,
            format: $format,
            dlpack_code: $code,
            npy: NPY_TYPES::$npy,
        }),*]
    };
}

static TABLE: [Numeric; 14] = numeric![
    Bool b'b' c"?" 6 NPY_BOOL,
    Int8 b'i' c"b" 0 NPY_BYTE,
    Int16 b'i' c"h" 0 NPY_SHORT,
    Int32 b'i' c"i" 0 NPY_INT,
    Int64 b'i' c"q" 0 NPY_LONG,
    UInt8 b'u' c"B" 1 NPY_UBYTE,
    UInt16 b'u' c"H" 1 NPY_USHORT,
    UInt32 b'u' c"I" 1 NPY_UINT,
    UInt64 b'u' c"Q" 1 NPY_ULONG,
    Float16 b'f' c"e" 2 NPY_HALF,
    Float32 b'f' c"f" 2 NPY_FLOAT,
    Float64 b'f' c"d" 2 NPY_DOUBLE,
    Complex64 b'c' c"Zf" 5 NPY_CFLOAT,
    Complex128 b'c' c"Zd" 5 NPY_CDOUBLE,
];

impl Numeric {
    /// The entry of a dynd type, if it is one of these scalars.
    pub(crate) fn of_type(t: &Type) -> Option<&'static Numeric> {
        let s = t.as_scalar()?;
        TABLE.iter().find(|n| n.scalar == s)
    }

    /// The entry of a NumPy dtype's kind and item size.
    pub(crate) fn of_numpy(kind: u8, size: usize) -> Option<&'static Numeric> {
        TABLE.iter().find(|n| n.kind == kind && n.size() == size)
    }

    /// Bytes per element.
    pub(crate) fn size(&self) -> usize {
        self.scalar.size()
    }

    /// NumPy's type string (`<f8`, `|b1`).
    pub(crate) fn typestr(&self) -> String {
        let order = match (self.size(), cfg!(target_endian = "little")) {
            (1, _) => '|',
            (_, true) => '<',
            (_, false) => '>',
        };
        format!("{order}{}{}", self.kind as char, self.size())
    }
}

/// Where the elements of a strided block lie, from its first element's
/// address: the byte offset of the lowest one (0 or negative) and the
/// bytes from there to the end of the highest, for `shape` (size, byte
/// stride) over elements of `size` bytes. `Ok(None)` for an empty block;
/// `Err(())` if the span overflows `isize`.
#[allow(clippy::result_unit_err)]
pub(crate) fn span(shape: &[(usize, isize)], size: usize) -> Result<Option<(isize, usize)>, ()> {
    let (mut low, mut high) = (0isize, 0isize);
    for &(n, s) in shape {
        if n == 0 {
            return Ok(None);
        }
        let reach = isize::try_from(n - 1)
            .ok()
            .and_then(|m| m.checked_mul(s))
            .ok_or(())?;
        if reach < 0 {
            low = low.checked_add(reach).ok_or(())?;
        } else {
            high = high.checked_add(reach).ok_or(())?;
        }
    }
    let len = high
        .checked_sub(low)
        .and_then(|d| usize::try_from(d).ok())
        .and_then(|d| d.checked_add(size))
        .ok_or(())?;
    Ok(Some((low, len)))
}
