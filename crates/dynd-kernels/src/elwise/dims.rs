//! Building the dimension records of an elementwise kernel: the sources
//! aligned to the destination (right-aligned, as NumPy broadcasts), then
//! handed to the loop engine ([`crate::loops`]).

use smallvec::SmallVec;

use dynd_types::Type;

use super::*;
use crate::arrmeta::Arrmeta;
use crate::error::Error;
use crate::kernel::{Child, KernelBuilder};
use crate::loops::{push_dims, Aligned, Builds, Operands};

pub(super) use crate::arrmeta::Levels;

/// The dimension levels of a type with their arrmeta records.
pub(super) fn levels<'a>(ty: &'a Type, meta: &'a Arrmeta) -> Levels<'a> {
    crate::arrmeta::levels(ty, meta).0
}

/// Pushes the dimension kernels of an elementwise operation and, under
/// them, the leaf that `leaf` pushes. The destination is an output
/// allocated for the broadcast result ([`alloc_broadcast`] gives its `var`
/// rows their lengths); sources broadcast to it, with `var` rows checked
/// against the destination's at run time.
///
/// # Errors
///
/// [`Error::Broadcast`] for a source dimension that does not broadcast,
/// [`Error::Unsupported`] for a `var` destination dimension, and whatever
/// `leaf` returns. Any number of sources is fine.
pub fn push_elwise<'a>(
    b: &mut KernelBuilder<'a>,
    dst: (&'a Type, &'a Arrmeta),
    srcs: &[(&'a Type, &'a Arrmeta)],
    leaf: &mut dyn FnMut(&mut KernelBuilder<'a>) -> Result<Child, Error>,
) -> Result<Child, Error> {
    push_lifted(b, dst, 0, srcs, &[], leaf)
}

/// As [`push_elwise`], over all but the last `dst_core` dimensions of the
/// destination and the last `src_core[i]` of source `i`: the leaf is
/// called with pointers to the first element of each operand's *core*
/// (the sub-array those trailing dimensions span).
pub(crate) fn push_lifted<'a, C: Builds<'a>>(
    b: &mut C,
    dst: (&'a Type, &'a Arrmeta),
    dst_core: usize,
    srcs: &[(&'a Type, &'a Arrmeta)],
    src_core: &[usize],
    leaf: &mut dyn FnMut(&mut C) -> Result<Child, Error>,
) -> Result<Child, Error> {
    let mut dst_levels = levels(dst.0, dst.1);
    dst_levels.truncate(dst_levels.len().saturating_sub(dst_core));
    let nd = dst_levels.len();
    let src_levels: SmallVec<[Levels<'_>; INLINE_ARGS]> = srcs
        .iter()
        .enumerate()
        .map(|(i, (t, m))| {
            let core = src_core.get(i).copied().unwrap_or(0);
            let mut l = levels(t, m);
            l.truncate(l.len().saturating_sub(core));
            l
        })
        .collect();
    for (i, l) in src_levels.iter().enumerate() {
        if l.len() > nd {
            return Err(Error::AssignBroadcast {
                axis: 0,
                dims: Box::new((l[0].0.clone(), None)),
                src: srcs[i].0.clone(),
                dst: dst.0.clone(),
            });
        }
    }
    // Source level `k` of argument `i` meets destination level `k + shift_i`.
    let aligned: SmallVec<[Aligned<'_>; INLINE_ARGS]> = src_levels
        .iter()
        .map(|l| {
            let shift = nd - l.len();
            (0..nd)
                .map(|i| i.checked_sub(shift).map(|k| l[k]))
                .collect()
        })
        .collect();
    // The byte size of each source's scalar element, where the leaf reads one.
    let elem: SmallVec<[usize; INLINE_ARGS]> = srcs
        .iter()
        .enumerate()
        .map(|(i, (t, _))| {
            if src_core.get(i).copied().unwrap_or(0) == 0 {
                t.dtype().data_layout().map_or(0, |l| l.size)
            } else {
                0
            }
        })
        .collect();
    let src_ty: SmallVec<[&Type; INLINE_ARGS]> = srcs.iter().map(|(t, _)| *t).collect();
    let ops = Operands {
        dst_ty: dst.0,
        dst: &dst_levels,
        src_ty: &src_ty,
        src: &aligned,
        elem: &elem,
    };
    push_dims(b, &ops, 0, leaf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::Array;
    use crate::kernel::{KernelCtx, KernelData};
    use crate::KernelError;

    /// The sum of however many `f64` sources it is given.
    struct SumAll;

    impl KernelData for SumAll {
        unsafe fn single(
            &self,
            _: &KernelCtx<'_>,
            dst: *mut u8,
            src: &[*const u8],
        ) -> Result<(), KernelError> {
            // SAFETY: the loops hand the leaf one f64 per source and one
            // for the destination.
            unsafe {
                let s: f64 = src.iter().map(|p| p.cast::<f64>().read_unaligned()).sum();
                dst.cast::<f64>().write_unaligned(s);
            }
            Ok(())
        }
        fn describe(&self) -> String {
            "sum all".into()
        }
    }

    /// `srcs` summed elementwise by a kernel from [`push_elwise`].
    fn sum_all(srcs: &[&Array]) -> Result<Array, Error> {
        let ty = result_type::<f64>(srcs)?;
        let mut out = alloc_broadcast(&ty, srcs)?;
        let (ty, meta) = (out.ty().clone(), out.arrmeta_arc());
        let pairs: Vec<(&Type, &Arrmeta)> = srcs.iter().map(|a| (a.ty(), a.arrmeta())).collect();
        let mut b = KernelBuilder::new();
        push_elwise(&mut b, (&ty, &meta), &pairs, &mut |b| Ok(b.push(SumAll)))?;
        let kernel = b.finish()?;
        // SAFETY: built just above for `out` and `srcs`, all of f64.
        unsafe { super::super::run_into(&mut out, &kernel, srcs) }?;
        Ok(out)
    }

    #[test]
    fn any_number_of_dense_sources() {
        let seq = |shape: &[usize], k: f64| {
            let n = shape.iter().product::<usize>();
            Array::from_shape_vec(shape, (0..n).map(|i| k * (i as f64 + 1.0)).collect()).unwrap()
        };
        let big = seq(&[3, 5, 4], 1.0);
        let t = seq(&[4, 5, 3], 1000.0).permute_axes(&[2, 1, 0]).unwrap();
        let srcs = [
            big.clone(),
            seq(&[5, 1], 10.0),
            seq(&[4], 100.0),
            seq(&[1], 0.5),
            seq(&[3, 1, 1], 0.25),
            t.clone(),
            big.clone(),
        ];
        let refs: Vec<&Array> = srcs.iter().collect();
        let out = sum_all(&refs).unwrap();
        assert_eq!(out.ty().to_string(), "3 * 5 * 4 * float64");
        let got = out.to_vec::<f64>().unwrap();
        for i in 0..3 {
            for j in 0..5 {
                for k in 0..4 {
                    let flat = (i * 5 + j) * 4 + k;
                    let want = 2.0 * (flat as f64 + 1.0)
                        + 10.0 * (j as f64 + 1.0)
                        + 100.0 * (k as f64 + 1.0)
                        + 0.5
                        + 0.25 * (i as f64 + 1.0)
                        + 1000.0 * (((k * 5 + j) * 3 + i) as f64 + 1.0);
                    assert_eq!(got[flat], want, "at [{i}, {j}, {k}]");
                }
            }
        }
        // A source that does not broadcast names itself among many.
        let bad = seq(&[2], 1.0);
        let mut refs = refs;
        refs.push(&bad);
        let e = sum_all(&refs).unwrap_err().to_string();
        assert!(e.contains("2 * float64"), "{e}");
    }

    #[test]
    fn any_number_of_ragged_sources() {
        let rows = |k: f64, lens: &[usize]| {
            Array::from_nested(
                lens.iter()
                    .enumerate()
                    .map(|(r, &n)| {
                        (0..n)
                            .map(|j| k * (10 * r + j) as f64)
                            .collect::<Vec<f64>>()
                    })
                    .collect::<Vec<_>>(),
            )
            .unwrap()
        };
        let lens = [3, 0, 1, 4, 2];
        let srcs = [
            rows(1.0, &lens),
            rows(2.0, &lens),
            rows(3.0, &[1, 0, 1, 1, 2]),
            rows(4.0, &lens),
            Array::from_shape_vec(&[5, 1], vec![0.5; 5]).unwrap(),
            rows(5.0, &lens),
        ];
        let refs: Vec<&Array> = srcs.iter().collect();
        let out = sum_all(&refs).unwrap();
        let want: Vec<Vec<f64>> = lens
            .iter()
            .enumerate()
            .map(|(r, &n)| {
                (0..n)
                    .map(|j| {
                        let v = (10 * r + j) as f64;
                        let third = if r == 4 { v } else { (10 * r) as f64 };
                        12.0 * v + 3.0 * third + 0.5
                    })
                    .collect()
            })
            .collect();
        assert_eq!(out.ty().to_string(), "5 * var * float64");
        assert_eq!(
            out.to_string(),
            Array::from_nested(want).unwrap().to_string()
        );
        // A row of length 2 against 3 fails, naming the row.
        let odd = rows(1.0, &[2, 0, 1, 4, 2]);
        let mut refs = refs;
        refs.push(&odd);
        let e = sum_all(&refs).unwrap_err().to_string();
        assert!(e.contains("[0]"), "{e}");
    }
}
