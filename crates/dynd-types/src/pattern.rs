//! Pattern matching, typevar binding and substitution.
//!
//! A pattern is a type with variables and kinds in it. Matching a pattern
//! against a (concrete or partly symbolic) candidate binds the variables in
//! one consistent map:
//!
//! * a data type variable `T` binds a whole data type (`?int32`, a struct, ...);
//! * a dimension variable `N` binds one dimension, and used again must meet
//!   the *same* dimension: `(M * N * T, N * R * T)` rejects
//!   `(2 * 3 * int32, 4 * 5 * int32)` because `N` would be both 3 and 4;
//! * `var` matches only `var`; `Fixed` matches any fixed size; `Dim` any one
//!   dimension; `Any` any type, dimensions included; `Scalar` any data type;
//! * `...` matches zero or more dimensions; a named ellipsis `Dims...` met
//!   in several places binds the broadcast of what it meets;
//! * a power `B**N` matches `N` dimensions that each match `B`, and `N` is
//!   the same variable as a dimension `N` (`4**N * N * int32` matches
//!   `4 * 4 * 2 * int32`);
//! * a time type's unit or zone may be a variable: `datetime[unit=U, tz=TZ]`
//!   binds the unit (`U = ns`) and the zone's name (`TZ = Europe/Paris`) of
//!   the datetime it meets, so `(datetime[tz=TZ], datetime[tz=TZ]) -> timedelta`
//!   takes two instants of one zone.
//!
//! ```
//! use dynd::ndt::Type;
//!
//! let sig: Type = "(M * N * T, N * R * T) -> M * R * T".parse()?;
//! let args: Vec<Type> = vec!["2 * 3 * float64".parse()?, "3 * 5 * float64".parse()?];
//! let out = sig.resolve(&args, &[])?;
//! assert_eq!(out.to_string(), "2 * 5 * float64");
//!
//! let bad: Vec<Type> = vec!["2 * 3 * int32".parse()?, "4 * 5 * int32".parse()?];
//! let err = sig.resolve(&bad, &[]).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "argument 1: dimension variable 'N' is bound to '3' but meets '4'"
//! );
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Borrow;

use crate::bindings::count;
pub use crate::bindings::{Binding, Bindings, Mismatch};
use crate::broadcast::broadcast_dim_lists;
use crate::error::Error;
use crate::scalar::TimeUnit;
use crate::ty::{Dim, Name, Signature, Type, TypeKind};

impl Bindings {
    fn bind_dims(&mut self, name: &Name, dims: &[&Dim]) -> Result<(), Mismatch> {
        let dims: Vec<Dim> = dims.iter().map(|d| (*d).clone()).collect();
        let merged = match self.map.get(name) {
            None => dims,
            Some(Binding::Dims(prev)) => {
                let symbolic = |ds: &[Dim]| ds.iter().any(|d| !d.is_concrete());
                let merged = if symbolic(prev) || symbolic(&dims) {
                    (*prev == dims).then(|| dims.clone())
                } else {
                    broadcast_dim_lists(prev, &dims).ok()
                };
                merged.ok_or_else(|| Mismatch::Ellipsis {
                    name: name.clone(),
                    first: Binding::Dims(prev.clone()).to_string(),
                    second: Binding::Dims(dims.clone()).to_string(),
                })?
            }
            Some(other) => {
                return Err(Mismatch::Inconsistent {
                    name: name.clone(),
                    kind: "ellipsis",
                    first: other.to_string(),
                    second: Binding::Dims(dims).to_string(),
                })
            }
        };
        self.map.insert(name.clone(), Binding::Dims(merged));
        Ok(())
    }
}

impl Type {
    /// Matches this pattern against `candidate`, returning the bindings.
    ///
    /// # Errors
    ///
    /// A [`Mismatch`] saying where and why the candidate does not fit.
    pub fn match_type(&self, candidate: &Type) -> Result<Bindings, Mismatch> {
        let mut bindings = Bindings::new();
        self.match_into(candidate, &mut bindings)?;
        Ok(bindings)
    }

    /// Matches this pattern against `candidate`, adding to `bindings` (so
    /// that several matches share their variables).
    ///
    /// # Errors
    ///
    /// A [`Mismatch`]; `bindings` may then hold part of the match.
    pub fn match_into(&self, candidate: &Type, bindings: &mut Bindings) -> Result<(), Mismatch> {
        Matcher { b: bindings }.types(self, candidate)
    }

    /// Matches this callable signature against argument types (positional
    /// and keyword), returning the bindings. Positional arguments may be
    /// given as `&[Type]` or `&[&Type]`. An optional keyword `k: ?T`
    /// accepts an argument of type `T` or `?T`, and may be left out.
    ///
    /// # Errors
    ///
    /// A [`Mismatch`]: wrong arity, an unknown, duplicated or missing
    /// keyword, or an argument that does not match (named by position).
    pub fn match_args<T: Borrow<Type>>(
        &self,
        positional: &[T],
        keywords: &[(Name, Type)],
    ) -> Result<Bindings, Mismatch> {
        let TypeKind::Callable(sig) = self.kind() else {
            return Err(Mismatch::NotCallable { ty: self.clone() });
        };
        let mut bindings = Bindings::new();
        Matcher { b: &mut bindings }.args(sig, positional, keywords)?;
        Ok(bindings)
    }

    /// Matches this callable signature against argument types and returns
    /// its return type with the bindings substituted.
    ///
    /// # Errors
    ///
    /// A [`ResolveError`] holding the
    /// [`Mismatch`], or the substitution [`Error`] (an unbound variable).
    pub fn resolve<T: Borrow<Type>>(
        &self,
        positional: &[T],
        keywords: &[(Name, Type)],
    ) -> Result<Type, ResolveError> {
        let bindings = self.match_args(positional, keywords)?;
        let TypeKind::Callable(sig) = self.kind() else {
            unreachable!("match_args checked that this is a callable")
        };
        Ok(sig.ret.substitute(&bindings)?)
    }

    /// Replaces the bound variables of this type with their bindings.
    ///
    /// `N` becomes its dimension, `Dims...` its dimensions, `B**N` `N`
    /// copies of `B`, `T` its type (`?T` with `T` bound to `?int32` stays
    /// `?int32`). The kinds `Fixed`, `Dim`, `Any`, `Scalar` stay as they are.
    ///
    /// # Errors
    ///
    /// [`Error::Unbound`] naming a variable (or `...`) with no binding, or a
    /// variable bound to the wrong sort of thing; [`Error::Invalid`] if the
    /// result breaks a type rule (too many dimensions).
    pub fn substitute(&self, bindings: &Bindings) -> Result<Type, Error> {
        Subst {
            b: bindings,
            root: self,
        }
        .ty(self)
    }
}

/// A signature resolution failure.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// The arguments do not match the signature.
    #[error(transparent)]
    Mismatch(#[from] Mismatch),
    /// The return type could not be built from the bindings.
    #[error(transparent)]
    Substitute(#[from] Error),
}

struct Matcher<'b> {
    b: &'b mut Bindings,
}

impl Matcher<'_> {
    fn types(&mut self, p: &Type, c: &Type) -> Result<(), Mismatch> {
        let (pdims, pdt) = p.split_dims();
        let (cdims, cdt) = c.split_dims();
        if matches!(pdt.kind(), TypeKind::Any) {
            // `Any` takes whatever dimensions the pattern's own leave over.
            let has_variadic = pdims.iter().any(|d| d.is_variadic());
            if has_variadic || cdims.len() < pdims.len() {
                return self.dims(&pdims, &cdims, c);
            }
            return self.dims(&pdims, &cdims[..pdims.len()], c);
        }
        if pdims.is_empty() && !cdims.is_empty() {
            return Err(Mismatch::Type {
                pattern: p.clone(),
                candidate: c.clone(),
            });
        }
        self.dims(&pdims, &cdims, c)?;
        self.dtype(pdt, cdt)
    }

    fn dims(&mut self, p: &[&Dim], c: &[&Dim], candidate: &Type) -> Result<(), Mismatch> {
        let variadic = p.iter().position(|d| d.is_variadic());
        let fixed_count = p.len() - usize::from(variadic.is_some());
        let count_error = || Mismatch::DimCount {
            expected: count(fixed_count, variadic.is_some()),
            found: c.iter().filter(|d| !d.is_variadic()).count(),
            candidate: candidate.clone(),
        };
        let Some(vi) = variadic else {
            if c.len() != p.len() {
                return Err(count_error());
            }
            return p.iter().zip(c).try_for_each(|(p, c)| self.dim(p, c));
        };
        if c.len() < fixed_count {
            return Err(count_error());
        }
        let suffix = p.len() - vi - 1;
        let (c_prefix, rest) = c.split_at(vi);
        let (middle, c_suffix) = rest.split_at(rest.len() - suffix);
        for (p, c) in p[..vi].iter().zip(c_prefix) {
            self.dim(p, c)?;
        }
        self.variadic(p[vi], middle)?;
        for (p, c) in p[vi + 1..].iter().zip(c_suffix) {
            self.dim(p, c)?;
        }
        Ok(())
    }

    fn variadic(&mut self, p: &Dim, middle: &[&Dim]) -> Result<(), Mismatch> {
        match p {
            Dim::Ellipsis(None) => Ok(()),
            Dim::Ellipsis(Some(name)) => self.b.bind_dims(name, middle),
            Dim::Power(base, exp) => {
                self.b.bind_dim(exp, &Dim::Fixed(middle.len()))?;
                middle.iter().try_for_each(|c| self.dim(base, c))
            }
            _ => unreachable!("only ellipses and powers are variadic"),
        }
    }

    fn dim(&mut self, p: &Dim, c: &Dim) -> Result<(), Mismatch> {
        let ok = match (p, c) {
            (_, Dim::Ellipsis(_) | Dim::Power(..)) => false,
            (Dim::AnyDim, _) => true,
            (Dim::TypeVar(name), c) => return self.b.bind_dim(name, c),
            (Dim::AnyFixed, Dim::Fixed(_) | Dim::AnyFixed) => true,
            (p, c) => p == c,
        };
        if ok {
            Ok(())
        } else {
            Err(Mismatch::Dim {
                pattern: p.clone(),
                candidate: c.clone(),
            })
        }
    }

    fn dtype(&mut self, p: &Type, c: &Type) -> Result<(), Mismatch> {
        let mismatch = || Mismatch::Type {
            pattern: p.clone(),
            candidate: c.clone(),
        };
        match (p.kind(), c.kind()) {
            // The kind patterns: only the fixed-size kinds.
            (TypeKind::TypeVar(name), TypeKind::FixedString { .. }) if &**name == "FixedString" => {
                self.b.bind_dtype(name, c)
            }
            (TypeKind::TypeVar(name), TypeKind::FixedBytes { .. }) if &**name == "FixedBytes" => {
                self.b.bind_dtype(name, c)
            }
            (TypeKind::TypeVar(name), _) if matches!(&**name, "FixedString" | "FixedBytes") => {
                Err(mismatch())
            }
            // A data type variable stands for a data type; `Any` may hold
            // dimensions, so `T` never matches it.
            (TypeKind::TypeVar(_), TypeKind::Any) => Err(mismatch()),
            (TypeKind::TypeVar(name), _) => self.b.bind_dtype(name, c),
            (TypeKind::TimeVar { of, unit, tz }, _) => {
                use crate::ZoneParam;
                let (cof, ctz) = match c.kind() {
                    TypeKind::Scalar(s) => match s.temporal() {
                        Some(t) => (t, None),
                        None => return Err(mismatch()),
                    },
                    TypeKind::DateTimeTz { unit, tz } => {
                        (crate::Temporal::DateTime(*unit), Some(tz))
                    }
                    _ => return Err(mismatch()),
                };
                let Some(cunit) = cof.unit() else {
                    return Err(mismatch());
                };
                if cof.with_unit(TimeUnit::Micro) != of.with_unit(TimeUnit::Micro) {
                    return Err(mismatch());
                }
                match unit {
                    Some(var) => self.b.bind_param(var, "unit", Binding::Unit(cunit))?,
                    None if Some(cunit) != of.unit() => return Err(mismatch()),
                    None => {}
                }
                match (tz, ctz) {
                    (None, None) => Ok(()),
                    (Some(ZoneParam::Zone(z)), Some(cz)) if z == cz => Ok(()),
                    (Some(ZoneParam::Var(var)), Some(cz)) => {
                        self.b.bind_param(var, "zone", Binding::Zone(cz.clone()))
                    }
                    _ => Err(mismatch()),
                }
            }
            (TypeKind::AnyScalar, TypeKind::Any) => Err(mismatch()),
            (TypeKind::AnyScalar, _) => Ok(()),
            (TypeKind::Option(pi), TypeKind::Option(ci)) => self.types(pi, ci),
            (
                TypeKind::Categorical {
                    values: pv,
                    index: pi,
                },
                TypeKind::Categorical {
                    values: cv,
                    index: ci,
                },
            ) if pi == ci => self.types(pv, cv),
            (TypeKind::Tuple(pt), TypeKind::Tuple(ct)) => {
                self.fields("field(s)", &pt.fields, pt.variadic, &ct.fields, ct.variadic)?;
                pt.fields
                    .iter()
                    .zip(&ct.fields)
                    .try_for_each(|(p, c)| self.types(p, c))
            }
            (TypeKind::Struct(ps), TypeKind::Struct(cs)) => {
                self.fields("field(s)", &ps.fields, ps.variadic, &cs.fields, cs.variadic)?;
                for ((pn, pt), (cn, ct)) in ps.fields.iter().zip(&cs.fields) {
                    if pn != cn {
                        return Err(Mismatch::FieldName {
                            expected: pn.clone(),
                            found: cn.clone(),
                        });
                    }
                    self.types(pt, ct)?;
                }
                Ok(())
            }
            (TypeKind::Callable(pc), TypeKind::Callable(cc)) => {
                let kws: Vec<(Name, Type)> = cc.keywords.clone();
                if cc.variadic_positional && !pc.variadic_positional
                    || cc.variadic_keywords && !pc.variadic_keywords
                {
                    return Err(mismatch());
                }
                self.args(pc, &cc.positional, &kws)?;
                self.types(&pc.ret, &cc.ret)
            }
            _ if p == c => Ok(()),
            _ => Err(mismatch()),
        }
    }

    fn fields<T>(
        &mut self,
        what: &'static str,
        p: &[T],
        p_variadic: bool,
        c: &[T],
        c_variadic: bool,
    ) -> Result<(), Mismatch> {
        let fits = if p_variadic {
            c.len() >= p.len()
        } else {
            !c_variadic && c.len() == p.len()
        };
        if fits {
            Ok(())
        } else {
            Err(Mismatch::Count {
                what,
                expected: count(p.len(), p_variadic),
                found: c.len(),
            })
        }
    }

    fn args<T: Borrow<Type>>(
        &mut self,
        sig: &Signature,
        positional: &[T],
        keywords: &[(Name, Type)],
    ) -> Result<(), Mismatch> {
        let arity_ok = if sig.variadic_positional {
            positional.len() >= sig.positional.len()
        } else {
            positional.len() == sig.positional.len()
        };
        if !arity_ok {
            return Err(Mismatch::Count {
                what: "positional argument(s)",
                expected: count(sig.positional.len(), sig.variadic_positional),
                found: positional.len(),
            });
        }
        for (index, (p, c)) in sig.positional.iter().zip(positional).enumerate() {
            self.types(p, c.borrow())
                .map_err(|inner| Mismatch::Argument {
                    index,
                    inner: Box::new(inner),
                })?;
        }
        let valid = || sig.keywords.iter().map(|(n, _)| n.clone()).collect();
        for (i, (name, c)) in keywords.iter().enumerate() {
            if keywords[..i].iter().any(|(n, _)| n == name) {
                return Err(Mismatch::DuplicateKeyword { name: name.clone() });
            }
            let Some((_, p)) = sig.keywords.iter().find(|(n, _)| n == name) else {
                // `(..., kw: T, ...)` takes more keywords; so does `(...)`,
                // the pattern of any arguments at all.
                let any_args =
                    sig.variadic_positional && sig.positional.is_empty() && sig.keywords.is_empty();
                if sig.variadic_keywords || any_args {
                    continue;
                }
                return Err(Mismatch::UnknownKeyword {
                    name: name.clone(),
                    valid: valid(),
                });
            };
            let p = match (p.kind(), c.kind()) {
                (TypeKind::Option(inner), k) if !matches!(k, TypeKind::Option(_)) => inner,
                _ => p,
            };
            self.types(p, c).map_err(|inner| Mismatch::Keyword {
                name: name.clone(),
                inner: Box::new(inner),
            })?;
        }
        for (name, p) in &sig.keywords {
            let given = keywords.iter().any(|(n, _)| n == name);
            if !given && !matches!(p.kind(), TypeKind::Option(_)) {
                return Err(Mismatch::MissingKeyword {
                    name: name.clone(),
                    valid: valid(),
                });
            }
        }
        Ok(())
    }
}

struct Subst<'a> {
    b: &'a Bindings,
    root: &'a Type,
}

impl Subst<'_> {
    fn unbound(&self, name: &str) -> Error {
        Error::Unbound {
            name: name.into(),
            ty: self.root.clone(),
        }
    }

    fn wrong_sort(&self, name: &str, wanted: &'static str, binding: &Binding) -> Error {
        Error::Invalid(Box::new(crate::TypeRule::WrongSort {
            name: name.into(),
            wanted,
            ty: self.root.clone(),
            binding: binding.clone(),
        }))
    }

    fn dim_of(&self, name: &Name) -> Result<Dim, Error> {
        match self.b.get(name) {
            Some(Binding::Dim(d)) => Ok(d.clone()),
            Some(other) => Err(self.wrong_sort(name, "a dimension", other)),
            None => Err(self.unbound(name)),
        }
    }

    fn push_dim(&self, d: &Dim, out: &mut Vec<Dim>) -> Result<(), Error> {
        match d {
            Dim::TypeVar(name) => out.push(self.dim_of(name)?),
            Dim::Ellipsis(None) => return Err(self.unbound("...")),
            Dim::Ellipsis(Some(name)) => match self.b.get(name) {
                Some(Binding::Dims(dims)) => out.extend(dims.iter().cloned()),
                Some(other) => return Err(self.wrong_sort(name, "an ellipsis", other)),
                None => return Err(self.unbound(name)),
            },
            Dim::Power(base, exp) => {
                let Dim::Fixed(n) = self.dim_of(exp)? else {
                    return Err(self.wrong_sort(
                        exp,
                        "an exponent",
                        &Binding::Dim(self.dim_of(exp)?),
                    ));
                };
                for _ in 0..n {
                    self.push_dim(base, out)?;
                    if out.len() > crate::MAX_DIMS {
                        break;
                    }
                }
            }
            d => out.push(d.clone()),
        }
        if out.len() > crate::MAX_DIMS {
            return Err(Error::Invalid(Box::new(crate::TypeRule::TooManyDims {
                max: crate::MAX_DIMS,
            })));
        }
        Ok(())
    }

    fn ty(&self, t: &Type) -> Result<Type, Error> {
        let (dims, dtype) = t.split_dims();
        if !dims.is_empty() {
            let mut out = Vec::with_capacity(dims.len());
            for d in dims {
                self.push_dim(d, &mut out)?;
            }
            return Type::with_dims(out, self.ty(dtype)?);
        }
        let kind = match t.kind() {
            TypeKind::TypeVar(name) => {
                return match self.b.get(name) {
                    Some(Binding::Dtype(t)) => Ok(t.clone()),
                    Some(other) => Err(self.wrong_sort(name, "a data type", other)),
                    None => Err(self.unbound(name)),
                }
            }
            TypeKind::TimeVar { of, unit, tz } => {
                let unit = match unit {
                    None => of.unit().unwrap_or(TimeUnit::Micro),
                    Some(var) => match self.b.get(var) {
                        Some(Binding::Unit(u)) => *u,
                        Some(other) => return Err(self.wrong_sort(var, "a time unit", other)),
                        None => return Err(self.unbound(var)),
                    },
                };
                let tz = match tz {
                    None => return Ok(of.with_unit(unit).scalar().into()),
                    Some(crate::ZoneParam::Zone(z)) => z.clone(),
                    Some(crate::ZoneParam::Var(var)) => match self.b.get(var) {
                        Some(Binding::Zone(z)) => z.clone(),
                        Some(other) => return Err(self.wrong_sort(var, "a time zone", other)),
                        None => return Err(self.unbound(var)),
                    },
                };
                TypeKind::DateTimeTz { unit, tz }
            }
            TypeKind::Categorical { values, index } => TypeKind::Categorical {
                values: self.ty(values)?,
                index: *index,
            },
            TypeKind::Option(inner) => {
                let inner = self.ty(inner)?;
                if matches!(inner.kind(), TypeKind::Option(_)) {
                    return Ok(inner);
                }
                TypeKind::Option(inner)
            }
            TypeKind::Tuple(tuple) => {
                let mut tuple = tuple.clone();
                for f in &mut tuple.fields {
                    *f = self.ty(f)?;
                }
                TypeKind::Tuple(tuple)
            }
            TypeKind::Struct(s) => {
                let mut s = s.clone();
                for (_, f) in &mut s.fields {
                    *f = self.ty(f)?;
                }
                TypeKind::Struct(s)
            }
            TypeKind::Callable(c) => {
                let mut c = c.clone();
                for p in &mut c.positional {
                    *p = self.ty(p)?;
                }
                for (_, k) in &mut c.keywords {
                    *k = self.ty(k)?;
                }
                c.ret = self.ty(&c.ret)?;
                TypeKind::Callable(c)
            }
            _ => return Ok(t.clone()),
        };
        Type::new(kind)
    }
}
