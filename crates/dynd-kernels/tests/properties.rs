//! Property tests: assignment through arbitrary views (slices with any
//! step, permutations, broadcasting) equals a naive element-by-element
//! reference; checked and unchecked modes agree on values that fit; the
//! kernel builder survives random push sequences.

use dynd_kernels::ArrayOps;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use dynd_kernels::kernel::{Child, KernelBuilder, KernelCtx, KernelData};
use dynd_kernels::{Array, ErrorMode, Index, KernelError};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256)
}

/// A view: a base shape, a slice (start, stop, step) per axis, and an axis
/// permutation.
type ViewSpec = (Vec<usize>, Vec<(i64, i64, i64)>, Vec<usize>);

fn view_strategy() -> impl Strategy<Value = ViewSpec> {
    prop::collection::vec(1usize..7, 1..4).prop_flat_map(|shape| {
        let n = shape.len();
        let slices = shape
            .iter()
            .map(|&len| {
                let len = len as i64;
                (
                    -len..len,
                    -len..=len,
                    prop_oneof![Just(1i64), Just(2), Just(-1), Just(-2), Just(3)],
                )
            })
            .collect::<Vec<_>>();
        (
            Just(shape),
            slices,
            Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
        )
    })
}

/// Every index of a shape, in C order.
fn indexes(shape: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for &n in shape {
        out = out
            .into_iter()
            .flat_map(|p| (0..n).map(move |i| [p.clone(), vec![i]].concat()))
            .collect();
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn assignment_through_views_matches_a_naive_copy((shape, slices, perm) in view_strategy(), transpose_dst in any::<bool>()) {
        let count: usize = shape.iter().product();
        let base = Array::from_shape_vec(&shape, (0..count as i32).collect()).unwrap();
        let idx: Vec<Index> = slices.iter().map(|&(a, b, s)| Index::slice(Some(a), Some(b), s)).collect();
        let view = base.index(&idx).unwrap().permute_axes(&perm).unwrap();
        let vshape = view.ty().fixed_shape().unwrap();
        let dst_ty = format!("{}float64", vshape.iter().map(|n| format!("{n} * ")).collect::<String>());
        let mut dst = Array::zeros(&dst_ty.parse().unwrap()).unwrap();
        if transpose_dst && vshape.len() > 1 {
            // An F-order destination: a transposed view of a reversed-shape array.
            let rev: Vec<String> = vshape.iter().rev().map(|n| n.to_string()).collect();
            dst = Array::zeros(&format!("{} * float64", rev.join(" * ")).parse().unwrap()).unwrap().transpose().unwrap();
        }
        dst.assign(&view, ErrorMode::Inexact).unwrap();
        for ix in indexes(&vshape) {
            let want = f64::from(view.get::<i32>(&ix).unwrap());
            prop_assert_eq!(dst.get::<f64>(&ix).unwrap(), want, "at {:?}", ix);
        }
    }

    #[test]
    fn broadcasting_a_row_matches_a_naive_copy(rows in 1usize..70, cols in 1usize..70, step in prop_oneof![Just(1i64), Just(-1)]) {
        let row = Array::from_vec((0..cols as i64).collect::<Vec<i64>>()).index(&[Index::slice(None, None, step)]).unwrap();
        let mut dst = Array::zeros(&format!("{rows} * {cols} * int16").parse().unwrap()).unwrap();
        dst.assign(&row, ErrorMode::Overflow).unwrap();
        for r in 0..rows {
            for c in 0..cols {
                prop_assert_eq!(i64::from(dst.get::<i16>(&[r, c]).unwrap()), row.get::<i64>(&[c]).unwrap());
            }
        }
    }

    #[test]
    fn checked_and_unchecked_agree_on_values_that_fit(values in prop::collection::vec(-128i64..128, 0..50)) {
        let src = Array::from_vec(values.clone());
        let ty = format!("{} * int8", values.len()).parse().unwrap();
        let a = src.cast(&ty, ErrorMode::NoCheck).unwrap();
        let b = src.cast(&ty, ErrorMode::Inexact).unwrap();
        prop_assert_eq!(a.to_vec::<i8>().unwrap(), b.to_vec::<i8>().unwrap());
    }

    #[test]
    fn values_out_of_range_fail_in_checked_modes_only(v in prop_oneof![-100_000i64..-129, 128i64..100_000]) {
        let src = Array::from_vec(vec![v]);
        let ty = "1 * int8".parse().unwrap();
        prop_assert!(src.cast(&ty, ErrorMode::Overflow).is_err());
        prop_assert_eq!(src.cast(&ty, ErrorMode::NoCheck).unwrap().to_vec::<i8>().unwrap(), vec![v as i8]);
    }

    #[test]
    fn random_builder_sequences_drop_each_record_once(sizes in prop::collection::vec(0usize..300, 0..40), fail_at in any::<prop::sample::Index>()) {
        let drops = Arc::new(AtomicUsize::new(0));
        let fail = if sizes.is_empty() { 0 } else { fail_at.index(sizes.len() + 1) };
        let pushed = {
            let mut b = KernelBuilder::new();
            let mut pushed = 0;
            let mut child = None;
            for (i, &size) in sizes.iter().enumerate() {
                if i == fail {
                    break;
                }
                let tag = i as u8;
                match size % 3 {
                    0 => child = Some(b.push(Blob::<8> { drops: drops.clone(), payload: [tag; 8], child })),
                    1 => child = Some(b.push(Blob::<56> { drops: drops.clone(), payload: [tag; 56], child })),
                    _ => child = Some(b.push(Blob::<200> { drops: drops.clone(), payload: [tag; 200], child })),
                }
                pushed += 1;
            }
            if pushed > 0 && fail == sizes.len() {
                let k = b.finish().unwrap();
                // SAFETY: Blob touches no memory.
                unsafe { k.single(std::ptr::null_mut(), &[]) }.unwrap();
            }
            pushed
        };
        prop_assert_eq!(drops.load(Ordering::SeqCst), pushed);
    }
}

/// A record with `N` bytes of inline data, all equal: a buffer move that
/// lost bytes would show.
struct Blob<const N: usize> {
    drops: Arc<AtomicUsize>,
    payload: [u8; N],
    child: Option<Child>,
}

impl<const N: usize> Drop for Blob<N> {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

impl<const N: usize> KernelData for Blob<N> {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        if !self.payload.iter().all(|b| *b == self.payload[0]) {
            return Err(KernelError::message("payload corrupted by a buffer move"));
        }
        match self.child {
            // SAFETY: Blobs touch no memory.
            Some(c) => unsafe { ctx.child(c).single(dst, src) },
            None => Ok(()),
        }
    }
    fn describe(&self) -> String {
        format!("blob of {N}")
    }
}
