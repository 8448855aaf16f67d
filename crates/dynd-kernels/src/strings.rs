//! String functions over arrays of `string`: splitting into views of the
//! same characters, and lengths.
//!
//! ```
//! use dynd::nd::{array, ArrayOps};
//!
//! let a = array!["a,b", "", "c,,d"];
//! let parts = a.split_strings(Some(","))?;
//! assert_eq!(parts.to_string(), r#"[["a", "b"], [""], ["c", "", "d"]]"#);
//! assert_eq!(parts.ty().to_string(), "3 * var * string");
//! assert_eq!(a.string_lengths()?.to_string(), "[3, 0, 4]");
//! # Ok::<(), dynd::Error>(())
//! ```

use std::sync::Arc;

use dynd_types::{Dim, Scalar, Type};

use crate::array::Array;
use crate::arrmeta::{write_pair, Arrmeta, PAIR_SIZE};
use crate::error::{Error, KernelError, KernelErrorKind};
use crate::memory::MemoryBlock;
use dynd_array::text::Strings;

/// The strings of `this` (fixed dimensions over `string`), or the error
/// naming `what` for any other array.
fn strings<'a>(this: &'a Array, what: &'static str) -> Result<Strings<'a>, Error> {
    Strings::of(this)
        .filter(|s| s.element_type().as_scalar() == Some(Scalar::String))
        .ok_or_else(|| Error::Unsupported {
            operation: what,
            ty: this.ty().clone(),
        })
}

/// The error of a string whose pair lies outside its block (never, for a
/// validated array), in operation `op`.
fn outside(op: &str) -> Error {
    Error::Layout(Box::new(dynd_types::LayoutProblem::Read {
        op: op.into(),
        part: "a string",
    }))
}

/// [`ArrayOps::split_strings`](crate::ops::ArrayOps::split_strings).
pub(crate) fn split_strings(this: &Array, sep: Option<&str>) -> Result<Array, Error> {
    if sep == Some("") {
        return Err(Error::Argument {
            op: "split",
            what: "the separator",
            expected: "a non-empty string",
            found: "\"\"".into(),
        });
    }
    split_with(
        this,
        "split",
        &|s: &str, piece: &mut Pieces<'_>| match sep {
            // One byte (an ASCII character): a loop over the bytes, which
            // for strings of tens of bytes beats a search call per piece.
            Some(sep) if sep.len() == 1 => {
                let sep = sep.as_bytes()[0];
                let mut at = 0;
                for (i, &b) in s.as_bytes().iter().enumerate() {
                    if b == sep {
                        piece.push(at, i - at);
                        at = i + 1;
                    }
                }
                piece.push(at, s.len() - at);
            }
            Some(sep) => {
                let mut at = 0;
                for p in s.split(sep) {
                    piece.push(at, p.len());
                    at += p.len() + sep.len();
                }
            }
            // Python's `str.split()`: the runs of characters between runs of
            // whitespace (none for a blank string).
            None => {
                let space = |c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c);
                let mut word: Option<usize> = None;
                for (i, c) in s.char_indices() {
                    match (space(c), word) {
                        (true, Some(w)) => {
                            piece.push(w, i - w);
                            word = None;
                        }
                        (false, None) => word = Some(i),
                        _ => {}
                    }
                }
                if let Some(w) = word {
                    piece.push(w, s.len() - w);
                }
            }
        },
    )
}

/// Each string of `this` (fixed dimensions over `string`) cut into the
/// pieces `pieces` names (it calls `piece(start, len)` with byte ranges
/// of the string, in order), in a `var` row per string: views that share
/// this array's characters. `op` names the function in errors.
///
/// (`regex_split` is this with the matches of a pattern.)
///
/// # Errors
///
/// [`Error::Unsupported`] for data types other than `string` and for `var`
/// dimensions; a string that is not UTF-8 (naming it); a piece that is
/// not a part of its string on character boundaries.
#[allow(clippy::type_complexity)]
pub fn split_by(
    this: &Array,
    op: &str,
    pieces: &dyn Fn(&str, &mut dyn FnMut(usize, usize)),
) -> Result<Array, Error> {
    split_with(this, op, &|s: &str, p: &mut Pieces<'_>| {
        pieces(s, &mut |at, len| p.push(at, len))
    })
}

/// Where the pieces of one string go: each checked as a part of the
/// string on character boundaries, then written as a pair into the rows'
/// values.
struct Pieces<'a> {
    s: &'a str,
    /// The string's start in the text block.
    start: usize,
    /// The pairs, two words each.
    out: &'a mut Vec<u64>,
    /// The first piece that is not a part of the string.
    bad: Option<(usize, usize)>,
}

impl Pieces<'_> {
    /// Adds the piece of `len` bytes at byte `at` of the string.
    #[inline]
    fn push(&mut self, at: usize, len: usize) {
        if at
            .checked_add(len)
            .and_then(|end| self.s.get(at..end))
            .is_none()
        {
            self.bad.get_or_insert((at, len));
            return;
        }
        self.out
            .extend_from_slice(&[(self.start + at) as u64, len as u64]);
    }
}

/// [`split_by`] with the pieces' function inline (one copy per caller).
fn split_with(
    this: &Array,
    op: &str,
    pieces: &impl Fn(&str, &mut Pieces<'_>),
) -> Result<Array, Error> {
    let strs = strings(this, "splitting strings")?;
    let text = strs.text_block().bytes();
    // A string of a UTF-8 block is UTF-8 when its ends are character
    // boundaries: two byte tests instead of a check of every byte.
    let utf8 = strs.text_block().is_utf8();
    let boundary = |at: usize| at >= text.len() || (text[at] as i8) >= -64;
    // Room for two pieces a string, to start with.
    let mut out: Vec<u64> = Vec::with_capacity(strs.len().saturating_mul(4));
    let mut rows: Vec<u8> = vec![0; strs.len() * PAIR_SIZE];
    for k in 0..strs.len() {
        let ((start, _), bytes) = strs.span(k).zip(strs.bytes(k)).ok_or_else(|| outside(op))?;
        let s = if utf8 && boundary(start) && boundary(start + bytes.len()) {
            // SAFETY: `bytes` lie between two character boundaries of
            // the block's text, which is UTF-8 (checked above, once).
            unsafe { std::str::from_utf8_unchecked(bytes) }
        } else {
            std::str::from_utf8(bytes).map_err(|e| {
                Error::Kernel(Box::new(
                    KernelError::new(KernelErrorKind::Utf8 {
                        valid_up_to: e.valid_up_to(),
                    })
                    .at(k),
                ))
            })?
        };
        let first = out.len() as u64 / 2;
        let mut piece = Pieces {
            s,
            start,
            out: &mut out,
            bad: None,
        };
        pieces(s, &mut piece);
        let bad = piece.bad;
        let count = out.len() as u64 / 2;
        if let Some((at, len)) = bad {
            return Err(Error::Kernel(Box::new(
                KernelError::message(format!(
                    "{op}: a piece at bytes {at}..{} of a string of {} bytes",
                    at.saturating_add(len),
                    s.len()
                ))
                .at(k),
            )));
        }
        write_pair(
            &mut rows[k * PAIR_SIZE..(k + 1) * PAIR_SIZE],
            first * PAIR_SIZE as u64,
            count - first,
        );
    }
    let element = Arrmeta::Var {
        values: MemoryBlock::from_vec(out),
        offset: 0,
        stride: PAIR_SIZE as isize,
        packed: true,
        element: Box::new(Arrmeta::Text {
            block: strs.text_block().clone(),
        }),
    };
    let shape = strs.shape();
    let meta = crate::array::c_order_meta(shape, PAIR_SIZE, element)?;
    let ty = Type::with_dims(
        shape.iter().map(|n| Dim::Fixed(*n)).chain([Dim::Var]),
        Scalar::String.into(),
    )?;
    let data = MemoryBlock::from_vec(rows);
    // SAFETY: checked as the parts were made: each piece is a part of its
    // string (tested above), which lies inside the text block (read
    // through the validated view), and each row's pieces follow one
    // another in `out` from its first; the rows are C order over the
    // input's fixed dimensions, one pair each, in `data`.
    Ok(unsafe { Array::from_parts_unchecked(ty, Arc::new(meta), data, 0) })
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
    let strs = strings(this, "string lengths")?;
    // Code points: the bytes that do not continue one (for UTF-8 text,
    // `str::chars().count()` without decoding).
    let lens = strs
        .iter()
        .map(|b| {
            let b = b.ok_or_else(|| outside("string_length"))?;
            Ok(b.iter().filter(|&&c| (c as i8) >= -0x40).count() as i64)
        })
        .collect::<Result<Vec<i64>, Error>>()?;
    match strs.shape() {
        [] => Ok(Array::from_scalar(lens[0])),
        shape => Array::from_shape_vec(shape, lens),
    }
}
