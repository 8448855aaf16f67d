//! Sorting along an axis: stable, ascending or descending, NaN last;
//! floats in IEEE total order among themselves (`-0` before `0`).
//!
//! ```
//! use dynd::nd::array;
//!
//! let mut a = array![[3.0, f64::NAN, 1.0], [2.0, 2.0, -1.0]];
//! a.sort(-1, false)?;
//! assert_eq!(a.to_string(), "[[1, 3, NaN], [-1, 2, 2]]");
//! let mut rows = array![[3, 1, 2], [], [9, 7]];
//! rows.sort(1, true)?;
//! assert_eq!(rows.to_string(), "[[3, 2, 1], [], [9, 7]]");
//! # Ok::<(), dynd::Error>(())
//! ```

use dynd_types::{Dim, Scalar};

use crate::array::Array;
use crate::arrmeta::Arrmeta;
use crate::element::{Element, F16};
use crate::error::Error;

/// Elements with a total order for sorting: NaN after every number, and
/// `-0` equal to `0`.
trait SortKey: Element {
    /// Sorts a line, ascending or descending, stably.
    fn sort_line(xs: &mut [Self], reverse: bool);
}

macro_rules! int_key {
    ($($t:ty),*) => {$(
        impl SortKey for $t {
            fn sort_line(xs: &mut [Self], reverse: bool) {
                if reverse {
                    xs.sort_by(|a, b| b.cmp(a));
                } else {
                    xs.sort();
                }
            }
        }
    )*};
}
int_key!(bool, i8, i16, i32, i64, i128, u8, u16, u32, u64, u128);

macro_rules! float_key {
    ($($t:ty),*) => {$(
        impl SortKey for $t {
            fn sort_line(xs: &mut [Self], reverse: bool) {
                let body = nan_last(xs, |x| x.is_nan());
                // IEEE total order (-0 before 0), branch-free.
                if reverse {
                    body.sort_by(|a, b| b.total_cmp(a));
                } else {
                    body.sort_by(|a, b| a.total_cmp(b));
                }
            }
        }
    )*};
}
float_key!(f32, f64);

impl SortKey for F16 {
    fn sort_line(xs: &mut [Self], reverse: bool) {
        let body = nan_last(xs, |x| x.to_f32().is_nan());
        let key = |x: &F16| x.to_f32();
        if reverse {
            body.sort_by(|a, b| key(b).total_cmp(&key(a)));
        } else {
            body.sort_by(|a, b| key(a).total_cmp(&key(b)));
        }
    }
}

/// Moves the NaNs of `xs` to its end, keeping the order of the rest and of
/// the NaNs; the numbers, to be sorted.
fn nan_last<T: Copy>(xs: &mut [T], is_nan: impl Fn(&T) -> bool) -> &mut [T] {
    let nans = xs.iter().filter(|x| is_nan(x)).count();
    let n = xs.len() - nans;
    if nans > 0 {
        let (numbers, nan): (Vec<T>, Vec<T>) = xs.iter().partition(|x| !is_nan(x));
        xs[..n].copy_from_slice(&numbers);
        xs[n..].copy_from_slice(&nan);
    }
    &mut xs[..n]
}

impl Array {
    /// Sorts this array along `axis` (negative counts from the end) in
    /// place: stable, ascending or (with `reverse`) descending, NaN last
    /// either way; floats in IEEE total order (`-0` before `0`). Shared memory is copied first, so views of the old
    /// values keep them. Along an innermost `var` axis each row is sorted.
    ///
    /// # Errors
    ///
    /// [`Error::AxisOutOfBounds`] for an axis out of range; [`Error::ReadOnly`];
    /// [`Error::Unsupported`] for data types without an order (complex,
    /// strings, structures) and `var` dimensions other than an innermost
    /// one sorted along.
    pub fn sort(&mut self, axis: i64, reverse: bool) -> Result<(), Error> {
        let ndim = self.ndim();
        let axis = crate::reduce::normalize_axes(Some(&[axis]), ndim, "sort")?[0];
        let ty = self.ty().clone();
        let unsupported = |what: &'static str| Error::Unsupported {
            operation: what,
            ty: ty.clone(),
        };
        let s = self
            .dtype()
            .as_scalar()
            .filter(|s| {
                !matches!(
                    s,
                    Scalar::Complex64 | Scalar::Complex128 | Scalar::String | Scalar::Bytes
                )
            })
            .ok_or_else(|| unsupported("sorting this data type (it has no order)"))?;
        let shape = self.shape();
        let var_at = shape.iter().position(|d| matches!(d, Dim::Var));
        match var_at {
            Some(v)
                if v + 1 == ndim
                    && axis == v
                    && shape[..v].iter().all(|d| matches!(d, Dim::Fixed(_))) => {}
            Some(_) => {
                return Err(unsupported(
                    "sorting with var dimensions other than an innermost one sorted along",
                ))
            }
            None => {}
        }
        self.make_unique()?;
        with_numeric!(ordered s, T => self.sort_typed::<T>(axis, reverse, var_at.is_some()),
            Err(unsupported("sorting this data type (it has no order)")))
    }

    /// The sort, for element type `T`, of an array that owns its memory.
    fn sort_typed<T: SortKey>(
        &mut self,
        axis: usize,
        reverse: bool,
        ragged: bool,
    ) -> Result<(), Error> {
        // The lines: (first element's byte address, length, byte stride).
        let mut lines: Vec<(*mut u8, usize, isize)> = Vec::new();
        let base = self.data_mut_ptr()?;
        let (fixed, m) = self.arrmeta().fixed_dims();
        if ragged {
            let Arrmeta::Var {
                values,
                offset,
                stride,
                ..
            } = m
            else {
                unreachable!("checked: an innermost var dimension")
            };
            let vals = values.as_ptr().wrapping_add(*offset) as *mut u8;
            let data = self.data_block().bytes();
            let at0 = self.data_offset();
            let mut offs = Vec::new();
            crate::loops::for_each_offset(&fixed, |o| offs.push(o));
            for o in offs {
                let at = (at0 as isize + o) as usize;
                let (start, len) =
                    crate::arrmeta::read_pair(&data[at..at + crate::arrmeta::PAIR_SIZE]);
                lines.push((
                    vals.wrapping_offset(start as i64 as isize),
                    len as usize,
                    *stride,
                ));
            }
        } else {
            let (len, stride) = fixed[axis];
            let others: Vec<(usize, isize)> = (0..fixed.len())
                .filter(|k| *k != axis)
                .map(|k| fixed[k])
                .collect();
            crate::loops::for_each_offset(&others, |o| {
                lines.push((base.wrapping_offset(o), len, stride))
            });
        }
        let size = std::mem::size_of::<T>() as isize;
        let mut scratch: Vec<T> = Vec::new();
        for (p, len, stride) in lines {
            if stride == size && p as usize % std::mem::align_of::<T>() == 0 {
                // SAFETY: `len` contiguous, aligned, valid `T`s of memory this
                // array owns alone (made unique above), not otherwise borrowed.
                let xs = unsafe { std::slice::from_raw_parts_mut(p.cast::<T>(), len) };
                T::sort_line(xs, reverse);
            } else {
                scratch.clear();
                for i in 0..len as isize {
                    // SAFETY: element `i` of the line.
                    scratch.push(unsafe {
                        p.wrapping_offset(i * stride).cast::<T>().read_unaligned()
                    });
                }
                T::sort_line(&mut scratch, reverse);
                for (i, x) in scratch.iter().enumerate() {
                    // SAFETY: as above, written back.
                    unsafe {
                        p.wrapping_offset(i as isize * stride)
                            .cast::<T>()
                            .write_unaligned(*x)
                    };
                }
            }
        }
        Ok(())
    }
}
