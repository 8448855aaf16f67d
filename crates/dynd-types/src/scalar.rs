//! Builtin scalar types.

use std::fmt;

/// A builtin scalar type.
///
/// The discriminant order is the order of [`Scalar::ALL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Scalar {
    /// `bool`
    Bool,
    /// `int8`
    Int8,
    /// `int16`
    Int16,
    /// `int32` (alias `int`)
    Int32,
    /// `int64` (alias `intptr`)
    Int64,
    /// `int128`
    Int128,
    /// `uint8`
    UInt8,
    /// `uint16`
    UInt16,
    /// `uint32`
    UInt32,
    /// `uint64` (aliases `uintptr`, `size`)
    UInt64,
    /// `uint128`
    UInt128,
    /// `float16`
    Float16,
    /// `float32`
    Float32,
    /// `float64` (alias `real`)
    Float64,
    /// `complex[float32]` (alias `complex64`)
    Complex64,
    /// `complex[float64]` (aliases `complex`, `complex128`)
    Complex128,
    /// `string`: variable-length UTF-8 text.
    String,
    /// `bytes`: variable-length bytes.
    Bytes,
}

/// The broad category of a [`Scalar`], in promotion order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarCategory {
    /// `bool`
    Bool,
    /// `uint8` ... `uint128`
    UnsignedInt,
    /// `int8` ... `int128`
    SignedInt,
    /// `float16`, `float32`, `float64`
    Float,
    /// `complex[float32]`, `complex[float64]`
    Complex,
    /// `string`
    String,
    /// `bytes`
    Bytes,
}

impl Scalar {
    /// Every builtin scalar, in declaration order.
    pub const ALL: [Scalar; 18] = [
        Scalar::Bool,
        Scalar::Int8,
        Scalar::Int16,
        Scalar::Int32,
        Scalar::Int64,
        Scalar::Int128,
        Scalar::UInt8,
        Scalar::UInt16,
        Scalar::UInt32,
        Scalar::UInt64,
        Scalar::UInt128,
        Scalar::Float16,
        Scalar::Float32,
        Scalar::Float64,
        Scalar::Complex64,
        Scalar::Complex128,
        Scalar::String,
        Scalar::Bytes,
    ];

    /// The canonical datashape name (`"complex[float32]"`, `"int32"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::Int8 => "int8",
            Scalar::Int16 => "int16",
            Scalar::Int32 => "int32",
            Scalar::Int64 => "int64",
            Scalar::Int128 => "int128",
            Scalar::UInt8 => "uint8",
            Scalar::UInt16 => "uint16",
            Scalar::UInt32 => "uint32",
            Scalar::UInt64 => "uint64",
            Scalar::UInt128 => "uint128",
            Scalar::Float16 => "float16",
            Scalar::Float32 => "float32",
            Scalar::Float64 => "float64",
            Scalar::Complex64 => "complex[float32]",
            Scalar::Complex128 => "complex[float64]",
            Scalar::String => "string",
            Scalar::Bytes => "bytes",
        }
    }

    /// Looks up a scalar by a plain name or alias (`int`, `real`, `complex`,
    /// `complex64`, `complex128`, `intptr`, `uintptr`, `size`). The bracketed
    /// spelling `complex[float32]` is the parser's business.
    pub fn from_name(name: &str) -> Option<Scalar> {
        Some(match name {
            "bool" => Scalar::Bool,
            "int8" => Scalar::Int8,
            "int16" => Scalar::Int16,
            "int32" | "int" => Scalar::Int32,
            "int64" | "intptr" => Scalar::Int64,
            "int128" => Scalar::Int128,
            "uint8" => Scalar::UInt8,
            "uint16" => Scalar::UInt16,
            "uint32" => Scalar::UInt32,
            "uint64" | "uintptr" | "size" => Scalar::UInt64,
            "uint128" => Scalar::UInt128,
            "float16" => Scalar::Float16,
            "float32" => Scalar::Float32,
            "float64" | "real" => Scalar::Float64,
            "complex64" => Scalar::Complex64,
            "complex128" | "complex" => Scalar::Complex128,
            "string" => Scalar::String,
            "bytes" => Scalar::Bytes,
            _ => return None,
        })
    }

    /// The category, which orders scalars for promotion.
    #[inline]
    pub fn category(self) -> ScalarCategory {
        use Scalar::*;
        match self {
            Bool => ScalarCategory::Bool,
            Int8 | Int16 | Int32 | Int64 | Int128 => ScalarCategory::SignedInt,
            UInt8 | UInt16 | UInt32 | UInt64 | UInt128 => ScalarCategory::UnsignedInt,
            Float16 | Float32 | Float64 => ScalarCategory::Float,
            Complex64 | Complex128 => ScalarCategory::Complex,
            String => ScalarCategory::String,
            Bytes => ScalarCategory::Bytes,
        }
    }

    /// Whether this is a boolean, integer, float or complex type.
    #[inline]
    pub fn is_numeric(self) -> bool {
        !matches!(self, Scalar::String | Scalar::Bytes)
    }

    /// Size of one element in bytes. `string` and `bytes` hold a
    /// (start, length) reference into a memory block: two 64-bit words.
    #[inline]
    pub fn size(self) -> usize {
        use Scalar::*;
        match self {
            Bool | Int8 | UInt8 => 1,
            Int16 | UInt16 | Float16 => 2,
            Int32 | UInt32 | Float32 => 4,
            Int64 | UInt64 | Float64 | Complex64 => 8,
            Int128 | UInt128 | Complex128 | String | Bytes => 16,
        }
    }

    /// Alignment of one element in bytes.
    #[inline]
    pub fn align(self) -> usize {
        match self {
            Scalar::Complex64 => 4,
            Scalar::Complex128 | Scalar::String | Scalar::Bytes => 8,
            s => s.size(),
        }
    }

    /// For integer types: the number of value bits (excluding the sign).
    pub(crate) fn int_bits(self) -> Option<(bool, u32)> {
        use Scalar::*;
        Some(match self {
            Int8 => (true, 8),
            Int16 => (true, 16),
            Int32 => (true, 32),
            Int64 => (true, 64),
            Int128 => (true, 128),
            UInt8 => (false, 8),
            UInt16 => (false, 16),
            UInt32 => (false, 32),
            UInt64 => (false, 64),
            UInt128 => (false, 128),
            _ => return None,
        })
    }

    /// The signed integer type of `bits` bits, if there is one.
    pub(crate) fn signed_of_bits(bits: u32) -> Option<Scalar> {
        Some(match bits {
            8 => Scalar::Int8,
            16 => Scalar::Int16,
            32 => Scalar::Int32,
            64 => Scalar::Int64,
            128 => Scalar::Int128,
            _ => return None,
        })
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
