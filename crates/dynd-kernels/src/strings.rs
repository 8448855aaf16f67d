//! String functions over arrays of `string`: splitting into views of the
//! same characters, and lengths.
//!
//! ```
//! use dynd::nd::{array, ArrayOps};
//!
//! let a = array!["a,b", "", "c,,d"];
//! let parts = a.split_strings(",")?;
//! assert_eq!(parts.to_string(), r#"[["a", "b"], [""], ["c", "", "d"]]"#);
//! assert_eq!(parts.ty().to_string(), "3 * var * string");
//! assert_eq!(a.string_lengths()?.to_string(), "[3, 0, 4]");
//! # Ok::<(), dynd::Error>(())
//! ```

use std::sync::Arc;

use dynd_types::{Dim, Scalar, Type};

use crate::array::Array;
use crate::arrmeta::{read_pair, write_pair, Arrmeta, PAIR_SIZE};
use crate::error::{Error, KernelError, KernelErrorKind};
use crate::memory::MemoryBlock;

/// A string array's fixed shape, its character block, and each string's
/// (start, length) in the block, in C order.
type Strings = (Vec<usize>, Arc<MemoryBlock>, Vec<(usize, usize)>);

/// The fixed dimensions, the text block and each string's (start,
/// length) in it, in C order.
fn strings(this: &Array, what: &'static str) -> Result<Strings, Error> {
    let unsupported = || Error::Unsupported {
        operation: what,
        ty: this.ty().clone(),
    };
    if this.dtype().as_scalar() != Some(Scalar::String) {
        return Err(unsupported());
    }
    let shape = this.ty().fixed_shape().ok_or_else(unsupported)?;
    let (fixed, m) = this.arrmeta().fixed_dims();
    let Arrmeta::Text { block } = m else {
        return Err(unsupported());
    };
    let data = this.data_block().bytes();
    let mut offsets = Vec::new();
    dynd_array::offsets::for_each_offset(&fixed, |o| offsets.push(o));
    if fixed.is_empty() {
        offsets = vec![0];
    }
    let pairs = offsets
        .into_iter()
        .map(|o| {
            let at = (this.data_offset() as isize + o) as usize;
            let (s, l) = read_pair(&data[at..at + PAIR_SIZE]);
            (s as usize, l as usize)
        })
        .collect();
    Ok((shape, block.clone(), pairs))
}

/// [`ArrayOps::split_strings`](crate::ops::ArrayOps::split_strings).
pub(crate) fn split_strings(this: &Array, sep: &str) -> Result<Array, Error> {
    if sep.is_empty() {
        return Err(Error::Argument {
            op: "split",
            what: "the separator",
            expected: "a non-empty string",
            found: "\"\"".into(),
        });
    }
    let (shape, block, pairs) = strings(this, "splitting strings")?;
    let text = block.bytes();
    let mut pieces: Vec<u8> = Vec::new();
    let mut rows: Vec<u8> = vec![0; pairs.len() * PAIR_SIZE];
    let mut count = 0u64;
    for (k, &(start, len)) in pairs.iter().enumerate() {
        let s = std::str::from_utf8(&text[start..start + len]).map_err(|e| {
            Error::Kernel(Box::new(
                KernelError::new(KernelErrorKind::Utf8 {
                    valid_up_to: e.valid_up_to(),
                })
                .at(k),
            ))
        })?;
        let first = count;
        let mut at = start;
        for piece in s.split(sep) {
            let mut pair = [0u8; PAIR_SIZE];
            write_pair(&mut pair, at as u64, piece.len() as u64);
            pieces.extend_from_slice(&pair);
            at += piece.len() + sep.len();
            count += 1;
        }
        write_pair(
            &mut rows[k * PAIR_SIZE..(k + 1) * PAIR_SIZE],
            first * PAIR_SIZE as u64,
            count - first,
        );
    }
    let element = Arrmeta::Var {
        values: MemoryBlock::from_bytes(&pieces),
        offset: 0,
        stride: PAIR_SIZE as isize,
        packed: true,
        element: Box::new(Arrmeta::Text { block }),
    };
    let meta = crate::array::c_order_meta(&shape, PAIR_SIZE, element)?;
    let ty = Type::with_dims(
        shape.iter().map(|n| Dim::Fixed(*n)).chain([Dim::Var]),
        Scalar::String.into(),
    )?;
    Array::try_from_parts(ty, Arc::new(meta), MemoryBlock::from_bytes(&rows), 0)
}

/// [`ArrayOps::string_lengths`](crate::ops::ArrayOps::string_lengths).
pub(crate) fn string_lengths(this: &Array) -> Result<Array, Error> {
    if this.ty().has_var_dim() && this.dtype().as_scalar() == Some(Scalar::String) {
        // Ragged: through values, keeping the row structure.
        fn lengths(v: &crate::Value) -> crate::Value {
            match v {
                crate::Value::Str(s) => crate::Value::Int(s.chars().count() as i128),
                crate::Value::List(items) => {
                    crate::Value::List(items.iter().map(lengths).collect())
                }
                other => other.clone(),
            }
        }
        let (dims, _) = this.ty().split_dims();
        let ty = Type::with_dims(dims.into_iter().cloned(), Scalar::Int64.into())?;
        return Array::from_value(&lengths(&this.to_value()), Some(&ty));
    }
    let (shape, block, pairs) = strings(this, "string lengths")?;
    let text = block.bytes();
    let lens: Vec<i64> = pairs
        .iter()
        .map(|&(s, l)| String::from_utf8_lossy(&text[s..s + l]).chars().count() as i64)
        .collect();
    let shape_i: Vec<usize> = shape;
    if shape_i.is_empty() {
        return Ok(Array::from_scalar(lens[0]));
    }
    Array::from_shape_vec(&shape_i, lens)
}
