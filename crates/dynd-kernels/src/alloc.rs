//! Allocating a broadcast result whose `var` rows take their lengths from
//! the arguments' rows.

use smallvec::SmallVec;

use dynd_types::{Dim, Type};

use crate::array::Array;
use crate::arrmeta::Arrmeta;
use crate::arrmeta::Levels;
use crate::error::{Error, KernelError, KernelErrorKind};
use crate::loops::INLINE_ARGS;

/// One argument's row at a level: its length, and element `j` at byte
/// `base + j * stride` of `data`.
pub(crate) type Row<'a> = (usize, &'a [u8], isize, isize);

/// Where one argument is while the result's structure is walked: its
/// remaining levels, and the bytes and offset of its current element.
#[derive(Clone, Copy)]
pub(crate) struct ArgAt<'a> {
    levels: &'a [(&'a Dim, &'a Arrmeta)],
    data: &'a [u8],
    offset: isize,
}

impl<'a> ArgAt<'a> {
    /// This argument's row at the current level, or `None` if it has no
    /// dimension here.
    fn row(&self) -> Option<Row<'a>> {
        let (_, meta) = self.levels.first()?;
        match meta {
            Arrmeta::Fixed { size, stride, .. } => Some((*size, self.data, self.offset, *stride)),
            Arrmeta::Var {
                values,
                offset,
                stride,
                ..
            } => {
                let at = self.offset as usize;
                let (start, len) =
                    crate::arrmeta::read_pair(&self.data[at..at + crate::arrmeta::PAIR_SIZE]);
                Some((
                    len as usize,
                    values.bytes(),
                    *offset as isize + start as i64 as isize,
                    *stride,
                ))
            }
            _ => None,
        }
    }
}

/// Each argument's place, or `None` before it joins the walk.
type ArgsAt<'a> = SmallVec<[Option<ArgAt<'a>>; INLINE_ARGS]>;

/// The output levels' element sizes and the values being built for var levels.
pub(crate) struct Alloc {
    /// Per result level: `Some(element size)` for var levels.
    var_elem: Vec<Option<usize>>,
    /// Per result level: `Some(element size)` for fixed levels.
    fixed: Vec<Option<(usize, usize)>>,
    /// Per result level: the row values built so far (only the `var`
    /// levels above the innermost one need their bytes: those hold the
    /// rows' pairs; the innermost one's values stay zero until the kernel
    /// writes them, so only its length is counted, in `innermost_len`).
    values: Vec<Vec<u8>>,
    innermost_len: usize,
    last_var: usize,
}

/// A zeroed array of the broadcast result type `ty` of `args`, whose `var`
/// rows have the broadcast lengths of the arguments' rows (a pass over
/// rows, not elements, when `var` is innermost).
///
/// # Errors
///
/// A ragged-row error naming the row where the arguments' lengths do not
/// broadcast; [`Error::Unsupported`] for data types arrays do not hold.
pub fn alloc_broadcast(ty: &Type, args: &[&Array]) -> Result<Array, Error> {
    alloc_lifted(ty, 0, args, &[])
}

/// As [`alloc_broadcast`], where the last `out_core` dimensions of `ty`
/// and the last `arg_core[i]` of argument `i` are core dimensions (fixed,
/// not broadcast): only the leading dimensions take part.
pub(crate) fn alloc_lifted(
    ty: &Type,
    out_core: usize,
    args: &[&Array],
    arg_core: &[usize],
) -> Result<Array, Error> {
    if !ty.has_var_dim() {
        return Array::zeros(ty);
    }
    let (dims, dtype) = ty.split_dims();
    let nd_all = dims.len();
    if dims[nd_all.saturating_sub(out_core)..]
        .iter()
        .any(|d| !matches!(d, Dim::Fixed(_)))
    {
        return Err(Error::Unsupported {
            operation: "a core dimension that is not fixed",
            ty: ty.clone(),
        });
    }
    let nd = nd_all.saturating_sub(out_core);
    // Element sizes below each level.
    let mut sizes = vec![0usize; nd_all + 1];
    sizes[nd_all] = dtype.data_layout()?.size;
    for k in (0..nd_all).rev() {
        sizes[k] = match dims[k] {
            Dim::Fixed(n) => n * sizes[k + 1],
            _ => crate::arrmeta::PAIR_SIZE,
        };
    }
    let last_var = dims[..nd]
        .iter()
        .rposition(|d| matches!(d, Dim::Var))
        .unwrap_or(0);
    let mut alloc = Alloc {
        var_elem: dims[..nd]
            .iter()
            .enumerate()
            .map(|(k, d)| matches!(d, Dim::Var).then_some(sizes[k + 1]))
            .collect(),
        fixed: dims[..nd]
            .iter()
            .enumerate()
            .map(|(k, d)| match d {
                Dim::Fixed(n) => Some((*n, sizes[k + 1])),
                _ => None,
            })
            .collect(),
        values: vec![Vec::new(); nd_all],
        innermost_len: 0,
        last_var,
    };
    let arg_levels: Vec<Levels<'_>> = args
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let core = arg_core.get(i).copied().unwrap_or(0);
            let mut l = crate::arrmeta::levels(a.ty(), a.arrmeta()).0;
            l.truncate(l.len().saturating_sub(core));
            l
        })
        .collect();
    let arg_levels = arg_levels.as_slice();
    let start: ArgsAt<'_> = args
        .iter()
        .zip(arg_levels)
        .map(|(a, l)| {
            (l.len() >= nd).then(|| ArgAt {
                levels: l,
                data: a.data_block().bytes(),
                offset: a.data_offset() as isize,
            })
        })
        .collect();
    let mut data = crate::memory::MemoryBlock::zeroed(sizes[0])?;
    let Some(bytes) = std::sync::Arc::get_mut(&mut data) else {
        unreachable!("a new block has one owner")
    };
    // Arguments with fewer dimensions join at their first level.
    alloc.fill_shifted(
        0,
        bytes.bytes_mut(),
        &start,
        args,
        arg_levels,
        nd,
        &mut Vec::new(),
    )?;
    // Arrmeta, innermost first.
    let mut meta = crate::array::dtype_meta(dtype)?;
    for k in (0..nd_all).rev() {
        meta = match dims[k] {
            Dim::Fixed(n) => Arrmeta::Fixed {
                size: *n,
                stride: sizes[k + 1] as isize,
                element: Box::new(meta),
            },
            _ => Arrmeta::Var {
                values: if k == alloc.last_var {
                    crate::memory::MemoryBlock::zeroed(alloc.innermost_len)?
                } else {
                    crate::memory::MemoryBlock::from_bytes(&alloc.values[k])
                },
                offset: 0,
                stride: sizes[k + 1] as isize,
                packed: true,
                element: Box::new(meta),
            },
        };
    }
    Array::try_from_parts(ty.clone(), std::sync::Arc::new(meta), data, 0)
}

impl Alloc {
    /// Fills the result element `out` at `level` from the arguments'
    /// current elements (arguments with fewer dimensions than the result
    /// enter at their own first level): a `var` level's row length is the
    /// broadcast of the arguments' row lengths (equal, or 1).
    #[allow(clippy::too_many_arguments)]
    fn fill_shifted<'a: 'l, 'l>(
        &mut self,
        level: usize,
        out: &mut [u8],
        args: &[Option<ArgAt<'l>>],
        arrays: &[&'a Array],
        arg_levels: &'l [Levels<'a>],
        nd: usize,
        path: &mut Vec<usize>,
    ) -> Result<(), Error> {
        // Enter arguments whose first level is this one.
        let entered: ArgsAt<'l> = args
            .iter()
            .enumerate()
            .map(|(k, a)| {
                a.or_else(|| {
                    let (arr, l) = (arrays[k], &arg_levels[k]);
                    (nd - l.len() == level).then(|| ArgAt {
                        levels: l,
                        data: arr.data_block().bytes(),
                        offset: arr.data_offset() as isize,
                    })
                })
            })
            .collect();
        if level > self.last_var {
            return Ok(());
        }
        let rows: SmallVec<[Option<Row<'_>>; INLINE_ARGS]> =
            entered.iter().map(|a| a.as_ref()?.row()).collect();
        let (n, esz, is_var) = match (self.fixed[level], self.var_elem[level]) {
            (Some((n, esz)), _) => (n, esz, false),
            (None, Some(esz)) => {
                let len = rows
                    .iter()
                    .flatten()
                    .map(|r| r.0)
                    .find(|&l| l != 1)
                    .unwrap_or(1);
                (len, esz, true)
            }
            _ => unreachable!("a result level is fixed or var"),
        };
        // Every argument's row here has the result's length or 1: a var
        // row is checked here, and so is a fixed one (the result's fixed
        // size may come from a type the caller chose, as `cast`'s does,
        // not from broadcasting the arguments' types).
        for &(m, ..) in rows.iter().flatten() {
            if m != 1 && m != n {
                let kind = if is_var {
                    KernelErrorKind::RaggedRow {
                        len: m,
                        expected: n,
                    }
                } else {
                    KernelErrorKind::DimSize {
                        len: m,
                        expected: n,
                    }
                };
                let mut e = KernelError::new(kind);
                for &i in path.iter().rev() {
                    e = e.at(i);
                }
                return Err(e.into());
            }
        }
        let innermost = level == self.last_var;
        let row_start = if innermost {
            self.innermost_len
        } else {
            self.values[level].len()
        };
        if is_var {
            crate::arrmeta::write_pair(out, row_start as u64, n as u64);
            if innermost {
                self.innermost_len += n * esz;
            } else {
                self.values[level].resize(row_start + n * esz, 0);
            }
        }
        if level + 1 > self.last_var {
            // Nothing below this level needs lengths: the zeroed elements
            // are the result's until the kernel writes them.
            return Ok(());
        }
        for j in 0..n {
            let next: ArgsAt<'l> = entered
                .iter()
                .zip(&rows)
                .map(|(a, row)| {
                    let a = (*a)?;
                    Some(match *row {
                        Some((m, data, base, stride)) => {
                            let j = if m == 1 { 0 } else { j };
                            ArgAt {
                                levels: &a.levels[1..],
                                data,
                                offset: base + j as isize * stride,
                            }
                        }
                        None => a,
                    })
                })
                .collect();
            path.push(j);
            if is_var {
                let mut elem = vec![0u8; esz];
                self.fill_shifted(level + 1, &mut elem, &next, arrays, arg_levels, nd, path)?;
                let at = row_start + j * esz;
                self.values[level][at..at + esz].copy_from_slice(&elem);
            } else {
                self.fill_shifted(
                    level + 1,
                    &mut out[j * esz..(j + 1) * esz],
                    &next,
                    arrays,
                    arg_levels,
                    nd,
                    path,
                )?;
            }
            path.pop();
        }
        Ok(())
    }
}
