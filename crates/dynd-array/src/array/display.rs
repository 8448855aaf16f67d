//! Reading an array back: `Value` trees, and the `Display`/`Debug` text (summarised past [`SUMMARY_THRESHOLD`] elements).

use super::*;

pub(super) fn read_value(ty: &Type, meta: &Arrmeta, data: &[u8], offset: isize) -> Value {
    let at = offset as usize;
    match (ty.kind(), meta) {
        (TypeKind::Dim(_, elem), Arrmeta::Fixed { .. } | Arrmeta::Var { .. }) => {
            let Some((n, element, entries, first, stride)) = dim_entries(meta, data, offset) else {
                unreachable!("a fixed or var record is a dimension")
            };
            Value::List(
                (0..n)
                    .map(|i| read_value(elem, element, entries, first + i as isize * stride))
                    .collect(),
            )
        }
        (TypeKind::Tuple(_) | TypeKind::Struct(_), Arrmeta::Fields { offsets, fields }) => {
            let items = field_types(ty)
                .into_iter()
                .zip(fields)
                .zip(offsets)
                .map(|((t, m), off)| read_value(t, m, data, offset + *off as isize));
            match ty.kind() {
                TypeKind::Struct(s) => Value::Object(
                    s.fields
                        .iter()
                        .map(|(n, _)| n.to_string())
                        .zip(items)
                        .collect(),
                ),
                _ => Value::List(items.collect()),
            }
        }
        (TypeKind::FixedString { size, encoding }, _) => Value::Str(crate::fixed_string::decode(
            &data[at..at + size * encoding.unit_size()],
            *encoding,
        )),
        (TypeKind::Option(inner), Arrmeta::Option(m)) => {
            let size = inner.data_layout().map_or(0, |l| l.size);
            if data[at + size] == 0 {
                Value::Null
            } else {
                read_value(inner, m, data, offset)
            }
        }
        (TypeKind::Scalar(s), Arrmeta::Text { block }) => {
            let (start, len) = read_pair(&data[at..at + PAIR_SIZE]);
            let bytes = &block.bytes()[start as usize..(start + len) as usize];
            match s {
                Scalar::String => Value::Str(String::from_utf8_lossy(bytes).into_owned()),
                _ => Value::List(bytes.iter().map(|b| Value::Int(i128::from(*b))).collect()),
            }
        }
        (TypeKind::Categorical { values, index }, Arrmeta::Categories { categories }) => {
            // The code was checked in range where the array was made.
            let code = crate::validate::code_at(&data[at..], *index) as isize;
            let categories = super::column(&categories.parts);
            let (meta, block, offset) = categories.raw();
            match &**meta {
                Arrmeta::Fixed {
                    stride, element, ..
                } => read_value(
                    values,
                    element,
                    block.bytes(),
                    offset as isize + code * stride,
                ),
                _ => Value::Null,
            }
        }
        (TypeKind::Scalar(s), _) if s.is_temporal() => time_value(*s, data, at, false),
        (TypeKind::DateTimeTz { unit, .. }, _) => {
            time_value(Temporal::DateTime(*unit).scalar(), data, at, true)
        }
        (TypeKind::Scalar(s), _) => {
            // A float of less than double precision reads as the shortest
            // decimal that is the same float at its own precision, so it
            // prints as written (`1.1`, not `1.100000023841858`).
            let short = |x: f64| match s {
                Scalar::Float32 | Scalar::Complex64 => shortest_f32(x),
                Scalar::Float16 => shortest_f16(x),
                _ => x,
            };
            match read_num(*s, &data[at..]) {
                Num::Bool(b) => Value::Bool(b),
                Num::Int(i) => Value::Int(i),
                Num::UInt(u) => i128::try_from(u).map_or(Value::UInt(u), Value::Int),
                Num::Float(x) => Value::Float(short(x)),
                Num::Complex(re, im) => {
                    Value::List(vec![Value::Float(short(re)), Value::Float(short(im))])
                }
            }
        }
        _ => Value::Null,
    }
}

/// A value of a time type: ISO 8601 text, or a `timedelta`'s count.
fn time_value(s: Scalar, data: &[u8], at: usize, zoned: bool) -> Value {
    let ticks = match s.size() {
        4 => i64::from(i32::from_ne_bytes(
            data[at..at + 4].try_into().unwrap_or([0; 4]),
        )),
        _ => i64::from_ne_bytes(data[at..at + 8].try_into().unwrap_or([0; 8])),
    };
    match s.temporal() {
        Some(Temporal::TimeDelta(_)) => Value::Int(i128::from(ticks)),
        Some(t) => Value::Str(crate::time::to_text(t, ticks, zoned)),
        None => Value::Null,
    }
}

/// The shortest decimal (as an `f64`) that rounds to the same `f32` as `x`.
pub(super) fn shortest_f32(x: f64) -> f64 {
    let f = x as f32;
    if !f.is_finite() {
        return x;
    }
    f.to_string().parse().unwrap_or(x)
}

/// The shortest decimal (as an `f64`) that rounds to the same half as `x`.
pub(super) fn shortest_f16(x: f64) -> f64 {
    let h = crate::element::F16::from_f64(x);
    if !x.is_finite() {
        return x;
    }
    (1..=5)
        .filter_map(|digits| format!("{:.*e}", digits - 1, x).parse::<f64>().ok())
        .find(|y| crate::element::F16::from_f64(*y).0 == h.0)
        .unwrap_or(x)
}

/// Arrays of more elements than this print as a summary (NumPy's
/// threshold): each dimension longer than `2 * SUMMARY_EDGE` shows its
/// first and last [`SUMMARY_EDGE`] entries around `...`.
pub const SUMMARY_THRESHOLD: usize = 1000;

/// Entries shown at each end of a summarised dimension.
pub const SUMMARY_EDGE: usize = 3;

impl Array {
    /// The number of elements and of lists (dimension entries above the
    /// innermost level) the value holds, each counted up to `cap` (a
    /// ragged array's rows are walked only that far).
    fn census(&self, cap: usize) -> (usize, usize) {
        fn walk(meta: &Arrmeta, data: &[u8], offset: isize, cap: usize) -> (usize, usize) {
            if let Some((size, _, element)) = meta.as_fixed() {
                if !element.has_var() {
                    // Every entry holds the same: multiply, saturating.
                    let (leaves, lists) = walk(element, data, offset, cap);
                    let is_list = usize::from(element.as_fixed().is_some());
                    return (
                        size.saturating_mul(leaves).min(cap),
                        size.saturating_mul(lists.saturating_add(is_list)).min(cap),
                    );
                }
            }
            let Some((n, element, data, first, stride)) = dim_entries(meta, data, offset) else {
                return (1, 0);
            };
            let is_list = usize::from(matches!(
                element,
                Arrmeta::Fixed { .. } | Arrmeta::Var { .. }
            ));
            let (mut leaves, mut lists) = (0usize, 0usize);
            for i in 0..n {
                let (l, d) = walk(element, data, first + i as isize * stride, cap);
                leaves = leaves.saturating_add(l);
                lists = lists.saturating_add(d).saturating_add(is_list);
                if leaves >= cap || lists >= cap {
                    break;
                }
            }
            (leaves.min(cap), lists.min(cap))
        }
        walk(
            self.arrmeta(),
            self.data_block().bytes(),
            self.data_offset() as isize,
            cap,
        )
    }

    /// The array as a [`Value`] tree, or [`Error::Alloc`] if the tree would
    /// not fit in memory (a `2147483648 * 0 * int8` array holds no element
    /// but 2^31 empty lists). [`Array::to_value`] is this without the check.
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`] with the bytes the tree needs.
    pub fn try_to_value(&self) -> Result<Value, Error> {
        let (leaves, lists) = self.census(usize::MAX);
        let bytes = (leaves as u128 + lists as u128 + 1) * std::mem::size_of::<Value>() as u128;
        let mut probe: Vec<u8> = Vec::new();
        usize::try_from(bytes)
            .ok()
            .and_then(|b| probe.try_reserve_exact(b).ok())
            .ok_or_else(|| Error::alloc(bytes))?;
        drop(probe);
        Ok(self.to_value())
    }

    /// The array as JSON text, or [`Error::Alloc`] as
    /// [`Array::try_to_value`] gives it.
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`] with the bytes the value tree needs.
    pub fn try_to_json(&self) -> Result<String, Error> {
        Ok(self.try_to_value()?.to_json())
    }

    /// Writes the value as [`Display`](fmt::Display) does: in full up to
    /// [`SUMMARY_THRESHOLD`] elements, summarised beyond.
    fn write_text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (leaves, lists) = self.census(SUMMARY_THRESHOLD + 1);
        if leaves <= SUMMARY_THRESHOLD && lists <= SUMMARY_THRESHOLD {
            return f.write_str(&self.to_value().to_text_styled(f.precision(), f.width()));
        }
        let mut budget = SUMMARY_THRESHOLD;
        write_summary(
            f,
            &self.ty,
            self.arrmeta(),
            self.data_block().bytes(),
            self.data_offset() as isize,
            &mut budget,
        )
    }
}

/// The entries of the dimension level `meta` at byte `offset` of `data`:
/// their count, their record, the bytes they lie in, the first one's
/// offset there and the stride; `None` if `meta` is not a dimension.
pub(super) fn dim_entries<'a>(
    meta: &'a Arrmeta,
    data: &'a [u8],
    offset: isize,
) -> Option<(usize, &'a Arrmeta, &'a [u8], isize, isize)> {
    match meta {
        Arrmeta::Fixed {
            size,
            stride,
            element,
        } => Some((*size, element, data, offset, *stride)),
        Arrmeta::Var {
            values,
            offset: voff,
            stride,
            element,
            ..
        } => {
            let (start, len) = read_pair(&data[offset as usize..]);
            Some((
                len as usize,
                element,
                values.bytes(),
                *voff as isize + start as i64 as isize,
                *stride,
            ))
        }
        _ => None,
    }
}

/// Writes a dimension level with at most `2 * SUMMARY_EDGE` entries (and
/// `...` between them), and whatever is under the dimensions in full. At
/// most `budget` entries are written in all (so that many small dimensions
/// cannot multiply into a huge text); past it, a list ends with `...`.
pub(super) fn write_summary(
    f: &mut fmt::Formatter<'_>,
    ty: &Type,
    meta: &Arrmeta,
    data: &[u8],
    offset: isize,
    budget: &mut usize,
) -> fmt::Result {
    let leaf = |f: &mut fmt::Formatter<'_>| {
        let text = read_value(ty, meta, data, offset).to_text_styled(f.precision(), f.width());
        f.write_str(&text)
    };
    let TypeKind::Dim(_, elem) = ty.kind() else {
        return leaf(f);
    };
    let Some((n, element, data, first, stride)) = dim_entries(meta, data, offset) else {
        return leaf(f);
    };
    f.write_str("[")?;
    let shown: Vec<Option<usize>> = if n > 2 * SUMMARY_EDGE {
        (0..SUMMARY_EDGE)
            .map(Some)
            .chain([None])
            .chain((n - SUMMARY_EDGE..n).map(Some))
            .collect()
    } else {
        (0..n).map(Some).collect()
    };
    for (k, i) in shown.into_iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        if *budget == 0 {
            f.write_str("...")?;
            break;
        }
        *budget -= 1;
        match i {
            Some(i) => write_summary(f, elem, element, data, first + i as isize * stride, budget)?,
            None => f.write_str("...")?,
        }
    }
    f.write_str("]")
}

impl fmt::Display for Array {
    /// The value, as JSON-like text: `[[1, 2], [3]]`; an array of more than
    /// [`SUMMARY_THRESHOLD`] elements prints a summary
    /// (`[0, 1, 2, ..., 997, 998, 999]`), as NumPy does. [`Array::to_json`]
    /// always writes every element.
    ///
    /// A precision and width apply to each element, as ndarray's do:
    ///
    /// ```
    /// let a = dynd::nd::array![[0.1 + 0.2, 1.0], [f64::NAN, -2.5]];
    /// assert_eq!(format!("{a:.3}"), "[[0.300, 1.000], [NaN, -2.500]]");
    /// assert_eq!(format!("{a:7.2}"), "[[   0.30,    1.00], [    NaN,   -2.50]]");
    /// assert_eq!(format!("{:4}", dynd::nd::array![1, 22]), "[   1,   22]");
    /// // Summaries too.
    /// let long = dynd::nd::Array::from_vec((0..2000).map(f64::from).collect::<Vec<_>>());
    /// assert!(format!("{long:.1}").starts_with("[0.0, 1.0, 2.0, ..., 1997.0"));
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_text(f)
    }
}

impl fmt::Debug for Array {
    /// The value and the type: `Array([1, 2], type="2 * int64")`,
    /// summarised as [`Display`](fmt::Display) does.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Array(")?;
        self.write_text(f)?;
        write!(f, ", type=\"{}\")", self.ty)
    }
}
