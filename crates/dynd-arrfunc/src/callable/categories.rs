//! Calls with categorical arguments. An elementwise callable over one
//! categorical argument (every other argument 0-d) runs on the K
//! categories alone, not on the N values: a result of the categories'
//! own type keeps the codes (`upper(c)` is a categorical with the upper
//! categories, each string touched once), any other result is gathered
//! by the codes (`c == "a"` compares K strings, then reads N booleans).
//! Any other call decodes its categorical arguments first (the values
//! the codes name), unless its function takes categories as they are
//! ([`Callable::taking_categories`]).

use dynd_kernels::take::TakeMode;
use dynd_types::Dim;

use super::*;

/// The values of the categorical array `x`: each code's category, NA
/// where `x` is NA, under `x`'s dimensions (`dims * T`, or `dims * ?T`).
///
/// # Errors
///
/// An allocation error.
pub(crate) fn decode(x: &Array) -> Result<Array, Error> {
    let Some(categories) = x.categories() else {
        return Ok(x.clone());
    };
    gather(&categories, &x.codes()?)
}

/// `values[codes]`: for each code (of any dimensions, NA allowed) the
/// value it names, under the codes' dimensions.
fn gather(values: &Array, codes: &Array) -> Result<Array, Error> {
    let flat = codes.flat_values()?;
    let (ints, valid) = match flat.option_parts() {
        Some((v, ok)) => (v, Some(ok)),
        None => (flat, None),
    };
    let t = Type::dim(Dim::Fixed(ints.len()), Scalar::Int64.into())?;
    let mut ids = ints.cast(&t, ErrorMode::NoCheck)?.to_vec::<i64>()?;
    if let Some(ok) = &valid {
        // An NA element's code names nothing: the first category stands in.
        for (id, ok) in ids.iter_mut().zip(ok.to_vec::<bool>()?) {
            if !ok {
                *id = 0;
            }
        }
    }
    let mut taken = if values.is_empty() {
        // Every code is NA (a valid one would name a category).
        values.take(
            &Array::from_vec(Vec::<i64>::new()),
            Some(0),
            TakeMode::Raise,
        )?
    } else {
        values.take(&Array::from_vec(ids), Some(0), TakeMode::Raise)?
    };
    if let Some(ok) = valid {
        if taken.len() != ok.len() {
            let dtype = match values.dtype().kind() {
                TypeKind::Option(_) => values.dtype().clone(),
                _ => Type::option(values.dtype().clone())?,
            };
            let t = Type::dim(Dim::Fixed(ok.len()), dtype)?;
            return Array::regroup(&Array::zeros(&t)?, codes);
        }
        // Values that may be NA themselves: NA where either says so.
        let (inner, ok) = match taken.option_parts() {
            Some((v, vok)) => {
                let (a, b) = (ok.to_vec::<bool>()?, vok.to_vec::<bool>()?);
                let both: Vec<bool> = a.iter().zip(&b).map(|(x, y)| *x && *y).collect();
                (v, Array::from_vec(both))
            }
            None => (taken, ok),
        };
        taken = Array::optional(&inner, &ok)?;
    }
    Array::regroup(&taken, codes)
}

/// Whether `a` holds categorical elements.
fn categorical(a: &Array) -> bool {
    a.is_categorical()
}

impl Callable {
    /// The same function callable, given its categorical arguments as
    /// they are (not decoded first): for functions that read codes or
    /// categories themselves (`codes`, `cast`, `groupby`).
    #[must_use]
    pub(crate) fn taking_categories(mut self) -> Callable {
        if let Implementation::Function(f) = &mut self.implementation {
            f.categories = true;
        }
        self
    }

    /// The call of an elementwise callable with categorical arguments:
    /// see the module docs. `None` when no argument is categorical.
    pub(super) fn over_categories(&self, args: &[&Array]) -> Option<Result<Array, Error>> {
        if !args.iter().any(|a| categorical(a)) {
            return None;
        }
        Some(self.categories_call(args))
    }

    fn categories_call(&self, args: &[&Array]) -> Result<Array, Error> {
        elementwise(args, &|a: &[&Array]| self.call(a))
    }
}

/// `f` (an elementwise function) over `args`, the categorical ones
/// handled as the module docs say; `None` when no argument is
/// categorical. For the hand-written elementwise functions (strings,
/// times) to call first.
pub(crate) fn over_categories(
    args: &[&Array],
    f: &dyn Fn(&[&Array]) -> Result<Array, Error>,
) -> Option<Result<Array, Error>> {
    if !args.iter().any(|a| categorical(a)) {
        return None;
    }
    Some(elementwise(args, f))
}

fn elementwise(
    args: &[&Array],
    f: &dyn Fn(&[&Array]) -> Result<Array, Error>,
) -> Result<Array, Error> {
    let at: Vec<usize> = (0..args.len()).filter(|&i| categorical(args[i])).collect();
    if let [i] = at[..] {
        let c = args[i];
        let others_scalar = args
            .iter()
            .enumerate()
            .all(|(j, a)| j == i || a.ndim() == 0);
        if let (Some(categories), true) = (c.categories(), others_scalar) {
            let mut on: Vec<&Array> = args.to_vec();
            on[i] = &categories;
            let r = f(&on)?;
            let codes = c.codes()?;
            let plain = !matches!(c.dtype().kind(), TypeKind::Option(_));
            if r.ndim() == 1 && r.dtype() == categories.dtype() && plain {
                return Array::from_codes(&codes, &r);
            }
            if r.ndim() == 1 && !r.is_categorical() {
                return gather(&r, &codes);
            }
        }
    }
    let decoded = decoded(args)?;
    let refs: Vec<&Array> = decoded.iter().collect();
    f(&refs)
}

/// `x` decoded when it is categorical (see [`decode`]), else itself.
pub(crate) fn plain(x: &Array) -> Result<std::borrow::Cow<'_, Array>, Error> {
    Ok(match x.is_categorical() {
        true => std::borrow::Cow::Owned(decode(x)?),
        false => std::borrow::Cow::Borrowed(x),
    })
}

/// `args` with each categorical one decoded.
pub(super) fn decoded(args: &[&Array]) -> Result<Vec<Array>, Error> {
    args.iter()
        .map(|a| {
            if categorical(a) {
                decode(a)
            } else {
                Ok((*a).clone())
            }
        })
        .collect()
}
