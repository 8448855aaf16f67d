//! Comparisons of records, field by field: `equal` is true where every
//! field is equal, `not_equal` where some field differs (NumPy's
//! structured arrays). A field with fixed dimensions of its own compares
//! element by element; an NA field (or NA record) makes the comparison NA.

use dynd_kernels::elwise::map2;
use dynd_kernels::Index;
use dynd_types::Dim;

use super::*;

/// Whether `a` holds records or tuples (optional ones too).
fn is_record(a: &Array) -> bool {
    dynd_array::record::is_record(a.dtype())
}

/// The field names of a record (positions of a tuple), optional or not.
fn names(a: &Array) -> Option<Vec<Option<Arc<str>>>> {
    let t = match a.dtype().kind() {
        TypeKind::Option(t) => t,
        _ => a.dtype(),
    };
    match t.kind() {
        TypeKind::Struct(s) => Some(s.fields.iter().map(|(n, _)| Some(n.clone())).collect()),
        TypeKind::Tuple(t) => Some(t.fields.iter().map(|_| None).collect()),
        _ => None,
    }
}

impl Callable {
    /// This callable, comparing records by their fields as `rule` says
    /// (`equal` is true where every field is equal, `not_equal` where
    /// some field differs; a fixed-size field compares element by
    /// element, an NA field makes NA); every other argument as before.
    pub fn comparing_records(mut self, rule: RecordRule) -> Callable {
        self.records = Some(rule);
        self
    }

    /// The comparison of two arrays of records, when this callable
    /// compares records and one of `args` holds them.
    pub(super) fn compare_records(&self, args: &[&Array]) -> Option<Result<Array, Error>> {
        let rule = self.records?;
        if args.len() != 2 || !args.iter().any(|a| is_record(a)) {
            return None;
        }
        Some(self.fields_compared(rule, args[0], args[1]))
    }

    fn fields_compared(&self, rule: RecordRule, a: &Array, b: &Array) -> Result<Array, Error> {
        let (na, nb) = (names(a), names(b));
        if na.is_none() || na != nb {
            return Err(Error::NeedsArray {
                op: format!("{} of records", self.name()).into(),
                expected: "two arrays of records with the same fields, in the same order",
                found: if na.is_none() {
                    a.ty().clone()
                } else {
                    b.ty().clone()
                },
            });
        }
        let (fa, fb) = (a.fields()?, b.fields()?);
        let mut out: Option<Array> = None;
        for (x, y) in fa.iter().zip(&fb) {
            let c = self.pieces_compared(rule, x, a.ndim(), y, b.ndim())?;
            out = Some(match out {
                None => c,
                Some(prev) => combine(rule, &prev, &c)?,
            });
        }
        match out {
            Some(o) => Ok(o),
            // No fields: every record equals every other.
            None => {
                let t = Type::with_dims(a.shape(), Scalar::Bool.into())?;
                let same = Array::zeros(&t)?;
                match rule {
                    RecordRule::Every => map2(&same, &same, |_: bool, _: bool| true),
                    RecordRule::Some => Ok(same),
                }
            }
        }
    }

    /// Field arrays `x` (over `nx` record dimensions) and `y` compared:
    /// a field with fixed dimensions of its own element by element.
    fn pieces_compared(
        &self,
        rule: RecordRule,
        x: &Array,
        nx: usize,
        y: &Array,
        ny: usize,
    ) -> Result<Array, Error> {
        let inner = x.ndim() - nx;
        if inner == 0 {
            return self.call(&[x, y]);
        }
        let dims = x.ty().split_dims().0;
        let Dim::Fixed(n) = dims[nx] else {
            return Err(Error::Unsupported {
                operation: "comparing records with a var field",
                ty: x.ty().clone(),
            });
        };
        if y.ndim() - ny != inner || y.ty().split_dims().0[ny] != dims[nx] {
            return Err(Error::NeedsArray {
                op: format!("{} of records", self.name()).into(),
                expected: "two arrays of records with the same fields",
                found: y.ty().clone(),
            });
        }
        let mut out: Option<Array> = None;
        for j in 0..*n {
            let at = |a: &Array, k: usize| {
                let mut ix = vec![Index::ALL; k];
                ix.push(Index::At(j as i64));
                a.index(&ix)
            };
            let c = self.pieces_compared(rule, &at(x, nx)?, nx, &at(y, ny)?, ny)?;
            out = Some(match out {
                None => c,
                Some(prev) => combine(rule, &prev, &c)?,
            });
        }
        out.ok_or_else(|| Error::Unsupported {
            operation: "comparing records with an empty fixed-size field",
            ty: x.ty().clone(),
        })
    }
}

/// Two comparisons joined by `rule`; NA (an NA field) makes NA.
fn combine(rule: RecordRule, a: &Array, b: &Array) -> Result<Array, Error> {
    let optional = |x: &Array| matches!(x.dtype().kind(), TypeKind::Option(_));
    let join = move |p: bool, q: bool| match rule {
        RecordRule::Every => p && q,
        RecordRule::Some => p || q,
    };
    if optional(a) || optional(b) {
        let opt = |x: &Array| -> Result<Array, Error> {
            if optional(x) {
                return Ok(x.clone());
            }
            let t = Type::with_dims(x.shape(), Type::option(Scalar::Bool.into())?)?;
            x.cast(&t, ErrorMode::NoCheck)
        };
        let leaf = Leaf::map(move |p: Option<bool>, q: Option<bool>| Some(join(p?, q?)));
        Ok(dynd_kernels::elwise::apply(&[&opt(a)?, &opt(b)?], &leaf)?)
    } else {
        map2(a, b, join)
    }
}
