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
    /// `date`: days since 1970-01-01 as `int32` (Arrow's `Date32`).
    Date,
    /// `time[unit="s"]`: seconds since midnight as `int32` (Arrow's `Time32(s)`).
    TimeS,
    /// `time[unit="ms"]`: milliseconds since midnight as `int32`.
    TimeMs,
    /// `time` (`time[unit="us"]`): microseconds since midnight as `int64`
    /// (Arrow's `Time64(us)`).
    TimeUs,
    /// `time[unit="ns"]`: nanoseconds since midnight as `int64`.
    TimeNs,
    /// `datetime[unit="s"]`: seconds since the Unix epoch as `int64`,
    /// naive (a wall time; Arrow's `Timestamp(s)` without a zone).
    DateTimeS,
    /// `datetime[unit="ms"]`.
    DateTimeMs,
    /// `datetime` (`datetime[unit="us"]`).
    DateTimeUs,
    /// `datetime[unit="ns"]`.
    DateTimeNs,
    /// `timedelta[unit="s"]`: a duration in seconds as `int64` (Arrow's
    /// `Duration(s)`).
    TimeDeltaS,
    /// `timedelta[unit="ms"]`.
    TimeDeltaMs,
    /// `timedelta` (`timedelta[unit="us"]`).
    TimeDeltaUs,
    /// `timedelta[unit="ns"]`.
    TimeDeltaNs,
}

/// The unit of a `time`, `datetime` or `timedelta`: what one tick of its
/// integer counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TimeUnit {
    /// Seconds (`"s"`).
    Second,
    /// Milliseconds (`"ms"`).
    Milli,
    /// Microseconds (`"us"`), the default.
    Micro,
    /// Nanoseconds (`"ns"`).
    Nano,
}

impl TimeUnit {
    /// Every unit, coarsest first.
    pub const ALL: [TimeUnit; 4] = [
        TimeUnit::Second,
        TimeUnit::Milli,
        TimeUnit::Micro,
        TimeUnit::Nano,
    ];

    /// The name inside `unit="..."` (`"s"`, `"ms"`, `"us"`, `"ns"`).
    pub fn name(self) -> &'static str {
        match self {
            TimeUnit::Second => "s",
            TimeUnit::Milli => "ms",
            TimeUnit::Micro => "us",
            TimeUnit::Nano => "ns",
        }
    }

    /// The unit called `name` (`"s"`, `"ms"`, `"us"`, `"ns"`).
    pub fn from_name(name: &str) -> Option<TimeUnit> {
        Some(match name {
            "s" => TimeUnit::Second,
            "ms" => TimeUnit::Milli,
            "us" => TimeUnit::Micro,
            "ns" => TimeUnit::Nano,
            _ => return None,
        })
    }

    /// Ticks in one second (1, 10³, 10⁶, 10⁹).
    #[inline]
    pub fn per_second(self) -> i64 {
        match self {
            TimeUnit::Second => 1,
            TimeUnit::Milli => 1_000,
            TimeUnit::Micro => 1_000_000,
            TimeUnit::Nano => 1_000_000_000,
        }
    }

    /// Digits of a second's fraction this unit counts (0, 3, 6, 9).
    #[inline]
    pub fn digits(self) -> u32 {
        match self {
            TimeUnit::Second => 0,
            TimeUnit::Milli => 3,
            TimeUnit::Micro => 6,
            TimeUnit::Nano => 9,
        }
    }
}

/// Which of the time types a scalar is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Temporal {
    /// `date`.
    Date,
    /// `time[unit=…]`.
    Time(TimeUnit),
    /// `datetime[unit=…]` (naive; a zoned one is
    /// [`TypeKind::DateTimeTz`](crate::TypeKind::DateTimeTz)).
    DateTime(TimeUnit),
    /// `timedelta[unit=…]`.
    TimeDelta(TimeUnit),
}

impl Temporal {
    /// The unit (`None` for `date`, whose unit is the day).
    pub fn unit(self) -> Option<TimeUnit> {
        match self {
            Temporal::Date => None,
            Temporal::Time(u) | Temporal::DateTime(u) | Temporal::TimeDelta(u) => Some(u),
        }
    }

    /// The scalar of this time type.
    pub const fn scalar(self) -> Scalar {
        use TimeUnit::*;
        match self {
            Temporal::Date => Scalar::Date,
            Temporal::Time(Second) => Scalar::TimeS,
            Temporal::Time(Milli) => Scalar::TimeMs,
            Temporal::Time(Micro) => Scalar::TimeUs,
            Temporal::Time(Nano) => Scalar::TimeNs,
            Temporal::DateTime(Second) => Scalar::DateTimeS,
            Temporal::DateTime(Milli) => Scalar::DateTimeMs,
            Temporal::DateTime(Micro) => Scalar::DateTimeUs,
            Temporal::DateTime(Nano) => Scalar::DateTimeNs,
            Temporal::TimeDelta(Second) => Scalar::TimeDeltaS,
            Temporal::TimeDelta(Milli) => Scalar::TimeDeltaMs,
            Temporal::TimeDelta(Micro) => Scalar::TimeDeltaUs,
            Temporal::TimeDelta(Nano) => Scalar::TimeDeltaNs,
        }
    }

    /// The same kind of time in another unit (`date` stays `date`).
    pub fn with_unit(self, unit: TimeUnit) -> Temporal {
        match self {
            Temporal::Date => Temporal::Date,
            Temporal::Time(_) => Temporal::Time(unit),
            Temporal::DateTime(_) => Temporal::DateTime(unit),
            Temporal::TimeDelta(_) => Temporal::TimeDelta(unit),
        }
    }
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
    /// `date`, `time`, `datetime`, `timedelta`
    Temporal,
}

impl Scalar {
    /// Every builtin scalar, in declaration order.
    pub const ALL: [Scalar; 31] = [
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
        Scalar::Date,
        Scalar::TimeS,
        Scalar::TimeMs,
        Scalar::TimeUs,
        Scalar::TimeNs,
        Scalar::DateTimeS,
        Scalar::DateTimeMs,
        Scalar::DateTimeUs,
        Scalar::DateTimeNs,
        Scalar::TimeDeltaS,
        Scalar::TimeDeltaMs,
        Scalar::TimeDeltaUs,
        Scalar::TimeDeltaNs,
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
            Scalar::Date => "date",
            Scalar::TimeS => "time[unit=\"s\"]",
            Scalar::TimeMs => "time[unit=\"ms\"]",
            Scalar::TimeUs => "time",
            Scalar::TimeNs => "time[unit=\"ns\"]",
            Scalar::DateTimeS => "datetime[unit=\"s\"]",
            Scalar::DateTimeMs => "datetime[unit=\"ms\"]",
            Scalar::DateTimeUs => "datetime",
            Scalar::DateTimeNs => "datetime[unit=\"ns\"]",
            Scalar::TimeDeltaS => "timedelta[unit=\"s\"]",
            Scalar::TimeDeltaMs => "timedelta[unit=\"ms\"]",
            Scalar::TimeDeltaUs => "timedelta",
            Scalar::TimeDeltaNs => "timedelta[unit=\"ns\"]",
        }
    }

    /// Looks up a scalar by a plain name or alias (`int`, `real`, `complex`,
    /// `complex64`, `complex128`, `intptr`, `uintptr`, `size`). The bracketed
    /// spelling `complex[float32]` and the time types' parameters
    /// (`datetime[unit="ns"]`) are the parser's business; the bare time
    /// names give their defaults (`datetime` is `datetime[unit="us"]`).
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
            "date" => Scalar::Date,
            "time" => Scalar::TimeUs,
            "datetime" => Scalar::DateTimeUs,
            "timedelta" => Scalar::TimeDeltaUs,
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
            _ => ScalarCategory::Temporal,
        }
    }

    /// Whether this is a boolean, integer, float or complex type.
    #[inline]
    pub fn is_numeric(self) -> bool {
        !matches!(self, Scalar::String | Scalar::Bytes) && !self.is_temporal()
    }

    /// Whether this is `date`, `time`, `datetime` or `timedelta`.
    #[inline]
    pub const fn is_temporal(self) -> bool {
        // The time types come last in the order of the discriminants.
        self as u8 >= Scalar::Date as u8
    }

    /// Which time type this is, with its unit.
    pub fn temporal(self) -> Option<Temporal> {
        use TimeUnit::*;
        Some(match self {
            Scalar::Date => Temporal::Date,
            Scalar::TimeS => Temporal::Time(Second),
            Scalar::TimeMs => Temporal::Time(Milli),
            Scalar::TimeUs => Temporal::Time(Micro),
            Scalar::TimeNs => Temporal::Time(Nano),
            Scalar::DateTimeS => Temporal::DateTime(Second),
            Scalar::DateTimeMs => Temporal::DateTime(Milli),
            Scalar::DateTimeUs => Temporal::DateTime(Micro),
            Scalar::DateTimeNs => Temporal::DateTime(Nano),
            Scalar::TimeDeltaS => Temporal::TimeDelta(Second),
            Scalar::TimeDeltaMs => Temporal::TimeDelta(Milli),
            Scalar::TimeDeltaUs => Temporal::TimeDelta(Micro),
            Scalar::TimeDeltaNs => Temporal::TimeDelta(Nano),
            _ => return None,
        })
    }

    /// The integer type a value is stored as: `int32` for `date` and
    /// `time` in seconds or milliseconds, `int64` for the other time
    /// types (Arrow's layouts); any other scalar is its own storage.
    #[inline]
    pub const fn storage(self) -> Scalar {
        use Scalar::*;
        match self {
            Date | TimeS | TimeMs => Int32,
            s if s.is_temporal() => Int64,
            s => s,
        }
    }

    /// Size of one element in bytes. `string` and `bytes` hold a
    /// (start, length) reference into a memory block: two 64-bit words.
    ///
    /// One load from a table made at compile time: every small call asks
    /// it (the match it is made from was a chain of compares, 44
    /// instructions of a 1-element `add`).
    #[inline]
    pub fn size(self) -> usize {
        SIZES[self as usize] as usize
    }

    /// [`Scalar::size`], worked out: what [`SIZES`] is made of.
    const fn size_of(self) -> usize {
        use Scalar::*;
        match self {
            Bool | Int8 | UInt8 => 1,
            Int16 | UInt16 | Float16 => 2,
            Int32 | UInt32 | Float32 => 4,
            Int64 | UInt64 | Float64 | Complex64 => 8,
            Int128 | UInt128 | Complex128 | String | Bytes => 16,
            s => s.storage().size_of(),
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

/// Each scalar's size in bytes ([`Scalar::size`]), by its discriminant,
/// which is its place in [`Scalar::ALL`] (checked here, as the table is
/// made).
const SIZES: [u8; Scalar::ALL.len()] = {
    let mut sizes = [0u8; Scalar::ALL.len()];
    let mut i = 0;
    while i < sizes.len() {
        let s = Scalar::ALL[i];
        assert!(
            s as usize == i,
            "Scalar::ALL is in the order of the discriminants"
        );
        sizes[i] = s.size_of() as u8;
        i += 1;
    }
    sizes
};
