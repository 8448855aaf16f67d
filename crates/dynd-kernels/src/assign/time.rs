//! Casts of the time types: between units (to a coarser unit rounds
//! toward −∞; to a finer one is checked for overflow under the checked
//! modes), `date` ↔ `datetime`, `datetime` → `time` (the time of day),
//! between zones (the same instant: the integer is kept, as pyarrow's
//! cast keeps it), ↔ integer ticks, and ↔ ISO 8601 text.
//!
//! A zoned datetime's date and time of day are its wall time in the zone.

use dynd_array::time::{self as cal, zone::Zone, DAY_SECONDS};
use dynd_types::{Scalar, Temporal, TimeUnit, Type, TypeKind};

use super::scalar::push_scalar;
use super::text::{read_text, ArenaPtr};
use crate::convert::ErrorMode;
use crate::error::{Error, KernelError, KernelErrorKind};
use crate::kernel::{Child, KernelBuilder, KernelCtx, KernelData};
use crate::loops::BlockPtr;

/// A time type as a cast sees it: which, and its zone if it has one.
#[derive(Clone, Debug)]
pub(crate) struct TimeType {
    pub(crate) t: Temporal,
    pub(crate) tz: Option<dynd_types::Name>,
}

/// The time type `ty` is, if it is one (`datetime[tz=…]` included).
pub(crate) fn time_type(ty: &Type) -> Option<TimeType> {
    match ty.kind() {
        TypeKind::Scalar(s) => s.temporal().map(|t| TimeType { t, tz: None }),
        TypeKind::DateTimeTz { unit, tz } => Some(TimeType {
            t: Temporal::DateTime(*unit),
            tz: Some(tz.clone()),
        }),
        _ => None,
    }
}

/// The zone called `name`, or the error saying there is none.
pub(crate) fn zone(name: &str) -> Result<Zone, Error> {
    dynd_array::time::zone::get(name)
        .map_err(|why| Error::Invalid(Box::new(dynd_types::TypeRule::ZoneName(why))))
}

/// What a [`TimeCast`] does to the ticks it reads.
#[derive(Clone, Copy, Debug)]
enum Step {
    /// Multiply (a finer unit; checked), then floor-divide (a coarser one).
    Scale { mul: i64, div: i64 },
    /// The day (floor division by the ticks of a day).
    Day { per_day: i64 },
    /// The time of day (in the source unit), then scaled.
    TimeOfDay { per_day: i64, mul: i64, div: i64 },
}

/// One time type to another: read (`i32` or `i64`), step, write.
struct TimeCast {
    src_wide: bool,
    dst_wide: bool,
    step: Step,
    /// The source's zone and unit, for a zoned source read as wall time
    /// (its date or time of day).
    local: Option<(Zone, i64)>,
    checked: bool,
    src: Type,
    dst: Type,
}

impl TimeCast {
    #[inline]
    fn convert(&self, mut v: i64) -> Result<i64, KernelError> {
        if let Some((z, per)) = &self.local {
            let offset = i64::from(z.offset_at(v.div_euclid(*per)));
            v = v.wrapping_add(offset * per);
        }
        let scale = |v: i64, mul: i64, div: i64| -> Result<i64, KernelError> {
            let m = if self.checked {
                v.checked_mul(mul).ok_or_else(|| self.overflow(v))?
            } else {
                v.wrapping_mul(mul)
            };
            Ok(m.div_euclid(div))
        };
        let out = match self.step {
            Step::Scale { mul, div } => scale(v, mul, div)?,
            Step::Day { per_day } => v.div_euclid(per_day),
            Step::TimeOfDay { per_day, mul, div } => scale(v.rem_euclid(per_day), mul, div)?,
        };
        if !self.dst_wide && i32::try_from(out).is_err() {
            if self.checked {
                return Err(self.overflow(v));
            }
            return Ok(i64::from(out as i32));
        }
        Ok(out)
    }

    fn overflow(&self, v: i64) -> KernelError {
        KernelError::new(KernelErrorKind::Overflow {
            value: ticks_text(&self.src, v),
            src: self.src.clone(),
            dst: self.dst.clone(),
        })
    }
}

/// A value of a time type as text, for errors.
fn ticks_text(ty: &Type, v: i64) -> String {
    match time_type(ty) {
        Some(tt) => cal::to_text(tt.t, v, tt.tz.is_some()),
        None => v.to_string(),
    }
}

/// Reads a time value of `wide` (8 bytes) or 4.
///
/// # Safety
///
/// `p` points at a readable `i64` (`wide`) or `i32`.
#[inline(always)]
unsafe fn read(p: *const u8, wide: bool) -> i64 {
    // SAFETY: by the contract; unaligned reads (array data need not be aligned).
    unsafe {
        if wide {
            (p as *const i64).read_unaligned()
        } else {
            i64::from((p as *const i32).read_unaligned())
        }
    }
}

/// Writes a time value as `i64` (`wide`) or `i32` (which it fits: checked
/// by the caller).
///
/// # Safety
///
/// `p` points at writable room for an `i64` (`wide`) or `i32`.
#[inline(always)]
unsafe fn write(p: *mut u8, wide: bool, v: i64) {
    // SAFETY: by the contract.
    unsafe {
        if wide {
            (p as *mut i64).write_unaligned(v)
        } else {
            (p as *mut i32).write_unaligned(v as i32)
        }
    }
}

impl KernelData for TimeCast {
    unsafe fn single(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: by the kernel contract `src[0]` holds a value of the
        // source type and `dst` has room for one of the destination's.
        unsafe {
            write(
                dst,
                self.dst_wide,
                self.convert(read(src[0], self.src_wide))?,
            )
        };
        Ok(())
    }

    fn describe(&self) -> String {
        format!("assign {} <- {} ({:?})", self.dst, self.src, self.step)
    }
}

/// Text read as a time type.
struct TextToTime {
    src_text: BlockPtr,
    t: Temporal,
    zone: Option<Zone>,
    dst: Type,
}

impl KernelData for TextToTime {
    unsafe fn single(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: `src[0]` is a string element of the source text block.
        let bytes = unsafe { read_text(self.src_text, src[0]) };
        let text = String::from_utf8_lossy(bytes);
        let v = cal::parse_ticks(self.t, self.zone.as_ref(), &text).map_err(|reason| {
            KernelError::new(KernelErrorKind::DoesNotFit {
                text: crate::error::excerpt(&text).into_owned(),
                dst: self.dst.clone(),
                reason,
            })
        })?;
        // SAFETY: `dst` has room for a value of the destination type.
        unsafe { write(dst, self.t.scalar().size() == 8, v) };
        Ok(())
    }

    fn describe(&self) -> String {
        format!("assign {} <- string (ISO 8601)", self.dst)
    }
}

/// A time type written as text.
struct TimeToText {
    t: Temporal,
    zoned: bool,
    arena: ArenaPtr,
}

impl KernelData for TimeToText {
    unsafe fn single(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: `src[0]` holds a value of the source type; `dst` is a
        // string element; the arena lives for the call.
        unsafe {
            let v = read(src[0], self.t.scalar().size() == 8);
            let text = cal::to_text(self.t, v, self.zoned);
            self.arena.store(dst, text.as_bytes());
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!("assign string <- {} (ISO 8601)", self.t.scalar())
    }
}

/// Ticks of `from` in one tick of `to`, as (multiply, divide).
fn ratio(from: TimeUnit, to: TimeUnit) -> (i64, i64) {
    let (f, t) = (from.per_second(), to.per_second());
    if t >= f {
        (t / f, 1)
    } else {
        (1, f / t)
    }
}

/// The cast kernel from the time type `src` to `dst`, if either is a
/// time type: `None` when neither is.
pub(crate) fn time_leaf<'a>(
    b: &mut KernelBuilder<'a>,
    dst: &Type,
    src: &Type,
    src_text: Option<BlockPtr>,
    arena: Option<ArenaPtr>,
    mode: ErrorMode,
) -> Option<Result<Child, Error>> {
    let (d, s) = (time_type(dst), time_type(src));
    // Options and dimensions are the plan's, around this leaf.
    let plain = |t: &Type| matches!(t.kind(), TypeKind::Scalar(_) | TypeKind::DateTimeTz { .. });
    if (d.is_none() && s.is_none()) || !plain(dst) || !plain(src) {
        return None;
    }
    Some(build(b, dst, src, d, s, src_text, arena, mode))
}

/// Whether an assignment from `src` to `dst` writes text of a time type
/// (and so needs the text arena).
pub(crate) fn writes_text(dst: &Type, src: &Type) -> bool {
    dst.as_scalar() == Some(Scalar::String) && time_type(src).is_some()
}

#[allow(clippy::too_many_arguments)]
fn build<'a>(
    b: &mut KernelBuilder<'a>,
    dst: &Type,
    src: &Type,
    d: Option<TimeType>,
    s: Option<TimeType>,
    src_text: Option<BlockPtr>,
    arena: Option<ArenaPtr>,
    mode: ErrorMode,
) -> Result<Child, Error> {
    let unsupported = || Error::Unsupported {
        operation: "assignment between these time types",
        ty: src.clone(),
    };
    let (d, s) = match (d, s) {
        (Some(d), Some(s)) => (d, s),
        // Text in and out.
        (Some(d), None) if src.as_scalar() == Some(Scalar::String) => {
            let src_text = src_text.ok_or_else(unsupported)?;
            let zone = d.tz.as_deref().map(zone).transpose()?;
            return Ok(b.push(TextToTime {
                src_text,
                t: d.t,
                zone,
                dst: dst.clone(),
            }));
        }
        (None, Some(s)) if dst.as_scalar() == Some(Scalar::String) => {
            let arena = arena.ok_or_else(unsupported)?;
            return Ok(b.push(TimeToText {
                t: s.t,
                zoned: s.tz.is_some(),
                arena,
            }));
        }
        // Integer ticks in and out: the integers, converted as integers.
        (Some(d), None) => {
            let from = src.as_scalar().filter(|x| {
                matches!(
                    x.category(),
                    dynd_types::ScalarCategory::SignedInt | dynd_types::ScalarCategory::UnsignedInt
                )
            });
            let from = from.ok_or_else(|| Error::Unsupported {
                operation:
                    "assignment to a time type (from text, integer ticks or another time type)",
                ty: src.clone(),
            })?;
            return push_scalar(b, d.t.scalar().storage(), from, mode).ok_or_else(unsupported);
        }
        (None, Some(s)) => {
            let to = dst.as_scalar().filter(|x| {
                matches!(
                    x.category(),
                    dynd_types::ScalarCategory::SignedInt
                        | dynd_types::ScalarCategory::UnsignedInt
                        | dynd_types::ScalarCategory::Float
                )
            });
            let to = to.ok_or_else(|| Error::Unsupported {
                operation:
                    "assignment from a time type (to text, numbers of ticks or another time type)",
                ty: dst.clone(),
            })?;
            return push_scalar(b, to, s.t.scalar().storage(), mode).ok_or_else(unsupported);
        }
        (None, None) => return Err(unsupported()),
    };
    let day = |u: TimeUnit| DAY_SECONDS * u.per_second();
    let step = match (s.t, d.t) {
        (Temporal::Date, Temporal::Date) => Step::Scale { mul: 1, div: 1 },
        (Temporal::Date, Temporal::DateTime(u)) => Step::Scale {
            mul: day(u),
            div: 1,
        },
        (Temporal::DateTime(u), Temporal::Date) => Step::Day { per_day: day(u) },
        (Temporal::DateTime(u), Temporal::Time(v)) => {
            let (mul, div) = ratio(u, v);
            Step::TimeOfDay {
                per_day: day(u),
                mul,
                div,
            }
        }
        (Temporal::DateTime(u), Temporal::DateTime(v))
        | (Temporal::Time(u), Temporal::Time(v))
        | (Temporal::TimeDelta(u), Temporal::TimeDelta(v)) => {
            let (mul, div) = ratio(u, v);
            Step::Scale { mul, div }
        }
        _ => return Err(unsupported()),
    };
    // A zoned source's date and time of day are its wall time.
    let local = match (&s.tz, step) {
        (Some(tz), Step::Day { .. } | Step::TimeOfDay { .. }) => {
            let unit = s.t.unit().unwrap_or(TimeUnit::Second);
            Some((zone(tz)?, unit.per_second()))
        }
        _ => None,
    };
    if let Some(tz) = &d.tz {
        zone(tz)?;
    }
    Ok(b.push(TimeCast {
        src_wide: s.t.scalar().size() == 8,
        dst_wide: d.t.scalar().size() == 8,
        step,
        local,
        checked: mode != ErrorMode::NoCheck,
        src: src.clone(),
        dst: dst.clone(),
    }))
}
