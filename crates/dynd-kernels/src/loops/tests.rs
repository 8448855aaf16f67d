//! The engine against a naive walk: for random shapes, strides (negative,
//! zero, spaced) and axis permutations, a plan visits exactly the elements
//! a C-order walk of the caller's index visits, each once, with the same
//! sources; an error comes back with the naive walk's index.

use std::sync::Mutex;

use proptest::prelude::*;
use smallvec::SmallVec;

use super::*;
use crate::error::KernelErrorKind;

/// A tiny deterministic generator for the layouts of one case.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Where an operand's elements (8 bytes each) lie in its buffer.
#[derive(Clone, Debug)]
struct Layout {
    strides: Vec<isize>,
    /// Byte offset of the element at index 0.
    start: isize,
    /// Buffer length in u64 words.
    words: usize,
}

/// A layout over `shape`: the axes in a random order of nesting, each
/// forward or backward, with gaps between elements; a source's axes may
/// also broadcast (stride 0).
fn layout(shape: &[usize], rng: &mut Rng, source: bool) -> Layout {
    let n = shape.len();
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.below(i as u64 + 1) as usize);
    }
    let gap = 1 + rng.below(2) as isize;
    let mut strides = vec![0isize; n];
    let mut step = 8 * gap;
    for &axis in order.iter().rev() {
        if source && rng.below(5) == 0 {
            continue; // broadcasts along this axis
        }
        strides[axis] = step;
        step *= shape[axis].max(1) as isize;
    }
    let mut start = 0isize;
    for (axis, s) in strides.iter_mut().enumerate() {
        if rng.below(3) == 0 {
            start += (shape[axis].max(1) as isize - 1) * *s;
            *s = -*s;
        }
    }
    Layout {
        strides,
        start,
        words: (step / 8) as usize + 1,
    }
}

/// Every index of `shape` in C order.
fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let total: usize = shape.iter().product();
    (0..total)
        .map(|mut flat| {
            let mut ix = vec![0; shape.len()];
            for (k, &n) in shape.iter().enumerate().rev() {
                ix[k] = flat % n;
                flat /= n;
            }
            ix
        })
        .collect()
}

fn offset(l: &Layout, ix: &[usize]) -> isize {
    l.start
        + ix.iter()
            .zip(&l.strides)
            .map(|(&i, &s)| i as isize * s)
            .sum::<isize>()
}

/// (destination offset, source values) of each element visited.
type Visits = Vec<(isize, Vec<u64>)>;

/// One case: a destination and sources over one shape.
struct Case {
    shape: Vec<usize>,
    dst: Layout,
    src: Vec<Layout>,
}

impl Case {
    fn random(shape: Vec<usize>, nsrc: usize, seed: u64) -> Case {
        let mut rng = Rng(seed | 1);
        let dst = layout(&shape, &mut rng, false);
        let src = (0..nsrc).map(|_| layout(&shape, &mut rng, true)).collect();
        Case { shape, dst, src }
    }

    fn plan(&self, parallel: bool) -> Plan {
        let axes: Vec<Axis> = (0..self.shape.len())
            .map(|a| Axis {
                size: self.shape[a],
                dst: self.dst.strides[a],
                src: self.src.iter().map(|l| l.strides[a]).collect(),
            })
            .collect();
        Plan::new(&axes, self.src.len(), Order::Memory)
            .with_elem(&vec![8; self.src.len()])
            .with_threads(parallel)
    }

    /// Source buffers whose every word holds its own byte offset.
    fn sources(&self) -> Vec<Vec<u64>> {
        self.src
            .iter()
            .map(|l| (0..l.words as u64).map(|w| w * 8).collect())
            .collect()
    }

    /// (destination offset, source offsets) of every element, from the
    /// plan, and the error `fail_at` (a destination offset) raised.
    fn walk(&self, plan: &Plan, fail_at: Option<isize>) -> (Visits, Result<(), KernelError>) {
        let srcs = self.sources();
        let dst = vec![0u64; self.dst.words];
        let base = dst.as_ptr() as isize;
        let seen = Mutex::new(Vec::new());
        let ptrs: Vec<*const u8> = srcs
            .iter()
            .zip(&self.src)
            .map(|(b, l)| b.as_ptr().cast::<u8>().wrapping_offset(l.start))
            .collect();
        let inner = |d: *mut u8, ds: isize, s: &[*const u8], ss: &[isize], n: usize| {
            for i in 0..n {
                let off = d as isize + i as isize * ds - base;
                if Some(off) == fail_at {
                    return Err(KernelError::new(KernelErrorKind::RaggedRow {
                        len: 7,
                        expected: 9,
                    })
                    .at(99)
                    .at(i));
                }
                let vals = s
                    .iter()
                    .zip(ss)
                    // SAFETY: the plan hands over elements of the buffers.
                    .map(|(p, st)| unsafe {
                        p.wrapping_offset(i as isize * st)
                            .cast::<u64>()
                            .read_unaligned()
                    })
                    .collect();
                seen.lock().unwrap().push((off, vals));
            }
            Ok(())
        };
        let d0 = dst
            .as_ptr()
            .cast::<u8>()
            .cast_mut()
            .wrapping_offset(self.dst.start);
        // SAFETY: every index's offsets lie inside the buffers.
        let r = unsafe { plan.run(d0, &ptrs, &inner) };
        (seen.into_inner().unwrap(), r)
    }

    /// What a C-order walk sees.
    fn naive(&self) -> Visits {
        indices(&self.shape)
            .iter()
            .map(|ix| {
                let srcs = self.src.iter().map(|l| offset(l, ix) as u64).collect();
                (offset(&self.dst, ix), srcs)
            })
            .collect()
    }

    fn check(&self, parallel: bool, fail: u64) {
        let plan = self.plan(parallel);
        let (mut got, r) = self.walk(&plan, None);
        assert!(r.is_ok());
        let naive = self.naive();
        got.sort();
        let mut want = naive.clone();
        want.sort();
        assert_eq!(got, want, "{:?} {:?} {:?}", self.shape, self.dst, self.src);
        // An error at one element names that element's index.
        if naive.is_empty() {
            return;
        }
        let k = (fail as usize) % naive.len();
        let (_, r) = self.walk(&plan, Some(naive[k].0));
        let e = r.expect_err("the failing element was visited");
        let mut want: Vec<usize> = indices(&self.shape)[k].clone();
        want.push(99);
        assert_eq!(e.path(), &want[..], "{plan:?}");
    }
}

/// 300 cases, or `PROPTEST_CASES` (fewer under valgrind).
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    #[test]
    fn small_plans_visit_what_a_naive_walk_visits(
        shape in prop::collection::vec(0usize..5, 0..=5),
        nsrc in 0usize..4,
        seed in any::<u64>(),
        fail in any::<u64>(),
    ) {
        Case::random(shape, nsrc, seed).check(false, fail);
    }

    #[test]
    fn tiled_plans_visit_what_a_naive_walk_visits(
        rows in 60usize..100,
        cols in 60usize..100,
        extra in 1usize..3,
        nsrc in 1usize..3,
        seed in any::<u64>(),
        fail in any::<u64>(),
    ) {
        Case::random(vec![extra, rows, cols], nsrc, seed).check(false, fail);
    }
}

#[test]
fn a_transposed_source_goes_through_strips_and_tiles() {
    // Destination C order, the source transposed: tiles, and a strip
    // buffer since the source is contiguous along the outer loop.
    let case = Case {
        shape: vec![70, 90],
        dst: Layout {
            strides: vec![90 * 8, 8],
            start: 0,
            words: 70 * 90,
        },
        src: vec![Layout {
            strides: vec![8, 70 * 8],
            start: 0,
            words: 70 * 90,
        }],
    };
    assert!(case.plan(false).blocked);
    case.check(false, 4321);
}

#[test]
fn large_plans_split_among_threads_and_report_the_first_failing_part() {
    let shape = vec![400, 2, 200];
    for seed in [3, 11, 12345] {
        let case = Case::random(shape.clone(), 2, seed);
        case.check(true, seed * 7919);
    }
    // Two failing elements: the one in the earlier part is reported, as
    // a serial walk would.
    let case = Case::random(vec![1000, 200], 1, 5);
    let plan = case.plan(true);
    let naive = case.naive();
    let srcs = case.sources();
    let dst = vec![0u64; case.dst.words];
    let base = dst.as_ptr() as isize;
    let targets = [naive[150_000].0, naive[10].0];
    let inner = |d: *mut u8, ds: isize, _: &[*const u8], _: &[isize], n: usize| {
        for i in 0..n {
            if targets.contains(&(d as isize + i as isize * ds - base)) {
                return Err(KernelError::new(KernelErrorKind::RaggedRow {
                    len: 1,
                    expected: 2,
                })
                .at(i));
            }
        }
        Ok(())
    };
    let ptrs: SmallVec<[*const u8; 4]> = srcs
        .iter()
        .zip(&case.src)
        .map(|(b, l)| b.as_ptr().cast::<u8>().wrapping_offset(l.start))
        .collect();
    let d0 = dst
        .as_ptr()
        .cast::<u8>()
        .cast_mut()
        .wrapping_offset(case.dst.start);
    // SAFETY: inside the buffers; the closure writes nothing.
    let e = unsafe { plan.run(d0, &ptrs, &inner) }.unwrap_err();
    // Which of the two comes first depends on the memory order the plan
    // chose; either way it is the one a serial walk of the plan meets.
    let serial = case.plan(false);
    // SAFETY: as above.
    let e1 = unsafe { serial.run(d0, &ptrs, &inner) }.unwrap_err();
    assert_eq!(e.path(), e1.path());
}

#[test]
fn size_one_axes_are_dropped_and_neighbours_merged() {
    let axes = [
        Axis {
            size: 3,
            dst: 96,
            src: [0].into_iter().collect(),
        },
        Axis {
            size: 1,
            dst: 96,
            src: [8].into_iter().collect(),
        },
        Axis {
            size: 4,
            dst: 24,
            src: [0].into_iter().collect(),
        },
        Axis {
            size: 3,
            dst: 8,
            src: [8].into_iter().collect(),
        },
    ];
    let plan = Plan::new(&axes, 1, Order::Memory);
    // The first and third merge (the source broadcasts along both).
    assert_eq!(plan.loops.len(), 2);
    assert_eq!((plan.loops[0].size, plan.loops[0].dst), (12, 24));
    assert_eq!(&plan.loops[0].axes[..], &[0, 2]);
    // An F-order destination is walked with its smallest stride inside.
    let f = [
        Axis {
            size: 5,
            dst: 8,
            src: [8].into_iter().collect(),
        },
        Axis {
            size: 6,
            dst: 40,
            src: [40].into_iter().collect(),
        },
    ];
    let plan = Plan::new(&f, 1, Order::Memory);
    assert_eq!(plan.loops.len(), 1);
    assert_eq!(&plan.loops[0].axes[..], &[1, 0]);
    assert_eq!(plan.index_of(&[13]).as_slice(), &[3, 2]);
}
