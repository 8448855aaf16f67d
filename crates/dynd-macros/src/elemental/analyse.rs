//! Stage 2, analyse: the fn's parameters and result classified into a
//! [`Model`] (element types, shapes, options, keywords), every problem
//! collected.

use super::*;

/// What a parameter or the result is.
#[derive(Clone)]
pub(super) enum Shape {
    /// A scalar, by value.
    Scalar,
    /// `&[T]`: one core dimension of any size.
    Slice,
    /// `[T; N]`: one core dimension of size `N`.
    Array(usize),
    /// `&mut [T]`: the result's core, written in place.
    Out,
}

/// One parameter.
pub(super) struct Param {
    pub(super) name: Ident,
    /// The element type as written (a generic parameter or a scalar type).
    pub(super) elem: syn::Type,
    pub(super) shape: Shape,
    /// Taken as `Option<T>` (a `?T` element).
    pub(super) option: bool,
    /// `#[kw]`, with its default.
    pub(super) keyword: Option<Option<syn::Lit>>,
}

/// The checked function.
pub(super) struct Model {
    pub(super) params: Vec<Param>,
    /// The result's element type and shape (`None`: `()`, with an `Out`
    /// parameter).
    pub(super) ret: Option<(syn::Type, Shape)>,
    /// Whether the fn returns `Option<T>` (the result is `?T`).
    pub(super) ret_option: bool,
    /// Whether the fn returns `Result<_, E>` (an `Err` fails the call).
    pub(super) fallible: bool,
}

/// The `T` of an `Option<T>` type.
pub(super) fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(t) if args.args.len() == 1 => Some(t),
        _ => None,
    }
}

/// The `T` of a `Result<T, E>` result type.
pub(super) fn ok_type(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    match args.args.first()? {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    }
}

/// The element of a `&[T]`, `&mut [T]` or `[T; N]`, with the shape.
pub(super) fn classify(
    ty: &syn::Type,
    errors: &mut Errors,
    what: &str,
) -> Option<(syn::Type, Shape)> {
    match ty {
        syn::Type::Reference(r) => match &*r.elem {
            syn::Type::Slice(s) if r.mutability.is_some() => Some(((*s.elem).clone(), Shape::Out)),
            syn::Type::Slice(s) => Some(((*s.elem).clone(), Shape::Slice)),
            syn::Type::TraitObject(_) | syn::Type::ImplTrait(_) => {
                errors.push(&ty, format!("`#[elemental]` needs concrete scalar types, not trait objects or `impl Trait`; the scalar types are {SUPPORTED}"));
                None
            }
            // Text: `&str` (a `string` element, read in place).
            syn::Type::Path(p) if p.path.is_ident("str") => {
                Some(((*r.elem).clone(), Shape::Scalar))
            }
            inner => {
                errors.push(&ty,
                    format!(
                        "`#[elemental]` takes {what} by value; found `{}`, use `{}` (references are only `&[T]` and `&mut [T]`, for core dimensions)",
                        pretty(ty),
                        pretty(inner)
                    ),
                );
                None
            }
        },
        syn::Type::Array(a) => match &a.len {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) => match n.base10_parse::<usize>() {
                Ok(n) => Some(((*a.elem).clone(), Shape::Array(n))),
                Err(e) => {
                    errors.add(e);
                    None
                }
            },
            len => {
                errors.push(
                    &len,
                    "a fixed-size core dimension needs a literal length (`[f64; 3]`)",
                );
                None
            }
        },
        syn::Type::TraitObject(_) | syn::Type::ImplTrait(_) => {
            errors.push(&ty, format!("`#[elemental]` needs concrete scalar types, not trait objects or `impl Trait`; the scalar types are {SUPPORTED}"));
            None
        }
        syn::Type::Paren(p) => classify(&p.elem, errors, what),
        _ => Some((ty.clone(), Shape::Scalar)),
    }
}

/// The datashape scalar of a Rust element type.
pub(super) fn scalar_of(ty: &syn::Type) -> Option<Scalar> {
    let syn::Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let last = p.path.segments.last()?;
    let name = last.ident.to_string();
    let simple = matches!(last.arguments, syn::PathArguments::None);
    Some(match name.as_str() {
        "bool" if simple => Scalar::Bool,
        "i8" if simple => Scalar::Int8,
        "i16" if simple => Scalar::Int16,
        "i32" if simple => Scalar::Int32,
        "i64" if simple => Scalar::Int64,
        "i128" if simple => Scalar::Int128,
        "u8" if simple => Scalar::UInt8,
        "u16" if simple => Scalar::UInt16,
        "u32" if simple => Scalar::UInt32,
        "u64" if simple => Scalar::UInt64,
        "u128" if simple => Scalar::UInt128,
        "f32" if simple => Scalar::Float32,
        "f64" if simple => Scalar::Float64,
        "F16" if simple => Scalar::Float16,
        // `&str` parameters and results, `String` results.
        "str" | "String" if simple => Scalar::String,
        // The time types (`dynd::nd::Date`, `DateTime<Ns>`, …): the unit
        // from the parameter, microseconds without one.
        "Date" if simple => Scalar::Date,
        "DateTime" | "Time" | "TimeDelta" => {
            use dynd_types::{Temporal, TimeUnit};
            let unit = match &last.arguments {
                syn::PathArguments::None => TimeUnit::Micro,
                syn::PathArguments::AngleBracketed(args) if args.args.len() == 1 => {
                    let syn::GenericArgument::Type(syn::Type::Path(u)) = args.args.first()? else {
                        return None;
                    };
                    match u.path.segments.last()?.ident.to_string().as_str() {
                        "S" => TimeUnit::Second,
                        "Ms" => TimeUnit::Milli,
                        "Us" => TimeUnit::Micro,
                        "Ns" => TimeUnit::Nano,
                        _ => return None,
                    }
                }
                _ => return None,
            };
            match name.as_str() {
                "DateTime" => Temporal::DateTime(unit),
                "Time" => Temporal::Time(unit),
                _ => Temporal::TimeDelta(unit),
            }
            .scalar()
        }
        "Complex" => {
            let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
                return None;
            };
            match args.args.first()? {
                syn::GenericArgument::Type(t) => match scalar_of(t)? {
                    Scalar::Float32 => Scalar::Complex64,
                    Scalar::Float64 => Scalar::Complex128,
                    _ => return None,
                },
                _ => return None,
            }
        }
        _ => return None,
    })
}

pub(super) fn analyze(
    func: &ItemFn,
    generics: &[(Ident, Vec<syn::Type>)],
    errors: &mut Errors,
) -> Option<Model> {
    let sig = &func.sig;
    if let Some(t) = &sig.asyncness {
        errors.push(
            &t,
            "`#[elemental]` fns run inside array loops and cannot be `async`",
        );
    }
    if let syn::Safety::Unsafe(t) = &sig.safety {
        errors.push(&t, "`#[elemental]` fns cannot be `unsafe fn`: the loops call them on every element without a safety contract");
    }
    if let Some(v) = &sig.variadic {
        errors.push(&v, "`#[elemental]` fns cannot be variadic");
    }
    for g in &sig.generics.params {
        match g {
            GenericParam::Type(t) if generics.iter().any(|(i, _)| *i == t.ident) => {}
            GenericParam::Type(t) => errors.push(&t.ident,
                format!("generic parameter `{0}` has no list of types; add `{0} = [f32, f64]` (the types to expand over) to #[elemental(...)]", t.ident),
            ),
            GenericParam::Lifetime(l) => errors.push(&l, "`#[elemental]` fns take scalars by value and need no lifetime parameters"),
            GenericParam::Const(c) => errors.push(&c, "`#[elemental]` does not expand const generics; write the size (`[f64; 3]`)"),
        }
    }
    for (ident, _) in generics {
        let declared = sig
            .generics
            .params
            .iter()
            .any(|g| matches!(g, GenericParam::Type(t) if t.ident == *ident));
        if !declared {
            errors.push(
                &ident,
                format!("`{ident}` is not a generic parameter of `{}`", sig.ident),
            );
        }
    }
    let known = |ty: &syn::Type| -> bool {
        if scalar_of(ty).is_some() {
            return true;
        }
        let declared = |i: &Ident| {
            sig.generics
                .params
                .iter()
                .any(|g| matches!(g, GenericParam::Type(t) if t.ident == *i))
        };
        matches!(ty, syn::Type::Path(p) if p.qself.is_none() && p.path.get_ident().is_some_and(declared))
    };
    let mut params = Vec::new();
    let mut ok = true;
    let mut seen_kw = false;
    for arg in &sig.inputs {
        let pt = match arg {
            FnArg::Receiver(r) => {
                errors.push(
                    &r,
                    "`#[elemental]` fns are free functions of scalars; `self` is not supported",
                );
                ok = false;
                continue;
            }
            FnArg::Typed(pt) => pt,
        };
        let name = match &*pt.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => p.ident.clone(),
            other => {
                errors.push(
                    &other,
                    "`#[elemental]` parameters are plain names (`x: f64`), not patterns",
                );
                ok = false;
                continue;
            }
        };
        let mut keyword = None;
        for a in &pt.attrs {
            if a.path().is_ident("kw") {
                let mut default = None;
                if !matches!(a.meta, syn::Meta::Path(_)) {
                    if let Err(e) = a.parse_nested_meta(|m| {
                        if m.path.is_ident("default") {
                            let v: syn::Expr = m.value()?.parse()?;
                            default = Some(literal(&v).ok_or_else(|| {
                                syn::Error::new_spanned(&v, "a keyword's default is a literal")
                            })?);
                            Ok(())
                        } else {
                            Err(m.error("`#[kw]` takes `default = LITERAL`"))
                        }
                    }) {
                        errors.add(e);
                    }
                }
                keyword = Some(default);
            }
        }
        match (&keyword, seen_kw) {
            (Some(_), _) => seen_kw = true,
            (None, true) => {
                errors.push(&name, "positional parameters come before `#[kw]` ones");
                ok = false;
            }
            _ => {}
        }
        let option = option_inner(&pt.ty).is_some();
        let Some((elem, shape)) =
            classify(option_inner(&pt.ty).unwrap_or(&pt.ty), errors, "arguments")
        else {
            ok = false;
            continue;
        };
        if !known(&elem) {
            errors.push(&elem, format!("`#[elemental]` supports the scalar types {SUPPORTED} (or a generic parameter listed in the attribute); found `{}`", pretty(&elem)));
            ok = false;
            continue;
        }
        if keyword.is_some() && !matches!(shape, Shape::Scalar) {
            errors.push(&pt.ty, "a `#[kw]` parameter is a scalar");
            ok = false;
        }
        if option && !matches!(shape, Shape::Scalar) {
            errors.push(
                &pt.ty,
                "`Option` wraps a scalar (`Option<f64>`), not a core dimension",
            );
            ok = false;
        }
        params.push(Param {
            name,
            elem,
            shape,
            option,
            keyword,
        });
    }
    let outs = params
        .iter()
        .filter(|p| matches!(p.shape, Shape::Out))
        .count();
    if outs > 1 {
        errors.push(
            &sig.inputs,
            "at most one `&mut [T]` parameter (the result's core)",
        );
        ok = false;
    }
    if let Some(p) = params.iter().position(|p| matches!(p.shape, Shape::Out)) {
        if p + 1 != params.iter().filter(|q| q.keyword.is_none()).count() {
            errors.push(
                &params[p].name,
                "the `&mut [T]` result parameter comes last among the positional ones",
            );
            ok = false;
        }
    }
    let mut fallible = false;
    let mut ret_option = false;
    let ret = match &sig.output {
        ReturnType::Default if outs == 1 => None,
        ReturnType::Default => {
            errors.push(
                &sig.ident,
                "`#[elemental]` fns return a scalar (or `()` with a `&mut [T]` result parameter)",
            );
            ok = false;
            None
        }
        ReturnType::Type(_, ty) => match classify(
            {
                let t = ok_type(ty).inspect(|_| fallible = true).unwrap_or(ty);
                option_inner(t).inspect(|_| ret_option = true).unwrap_or(t)
            },
            errors,
            "results",
        ) {
            Some((elem, shape @ (Shape::Scalar | Shape::Array(_)))) if known(&elem) => {
                if outs == 1 {
                    errors.push(&ty, "a fn with a `&mut [T]` result parameter returns `()`");
                    ok = false;
                }
                Some((elem, shape))
            }
            Some((elem, _)) => {
                errors.push(&ty, format!("`#[elemental]` fns return a scalar ({SUPPORTED}), `[T; N]` or `()`; found `{}`", pretty(&elem)));
                ok = false;
                None
            }
            None => {
                ok = false;
                None
            }
        },
    };
    let arrays = params
        .iter()
        .filter(|p| !matches!(p.shape, Shape::Out))
        .count();
    if sig.inputs.is_empty() {
        errors.push(&sig.ident, "`#[elemental]` fns take at least one argument");
        ok = false;
    }
    let core = params.iter().any(|p| !matches!(p.shape, Shape::Scalar))
        || matches!(ret, Some((_, Shape::Array(_))));
    if arrays > MAX_ARGS {
        errors.push(&sig.inputs, format!("`#[elemental]` fns take at most {MAX_ARGS} arguments (keywords included); this one takes {arrays}"));
        ok = false;
    }
    if core && params.iter().any(|p| p.keyword.is_some()) {
        errors.push(&sig.inputs, "`#[kw]` parameters are not supported together with core dimensions (slices and arrays)");
        ok = false;
    }
    if fallible && core {
        errors.push(&sig.output, "a fn returning `Result` takes scalars only (fallible fns with core dimensions are not supported)");
        ok = false;
    }
    let text =
        params.iter().any(|p| is_text(&p.elem)) || matches!(&ret, Some((t, _)) if is_text(t));
    if text && !check_text(func, &params, errors) {
        ok = false;
    }
    let optional = ret_option || params.iter().any(|p| p.option);
    if optional && core {
        errors.push(&sig.output, "`Option` parameters and results are supported in fns of scalars only (not with core dimensions)");
        ok = false;
    }
    ok.then_some(Model {
        params,
        ret,
        ret_option,
        fallible,
    })
}

/// Whether `ty` is text (`str`, the element of a `&str`, or `String`).
pub(super) fn is_text(ty: &syn::Type) -> bool {
    scalar_of(ty) == Some(Scalar::String)
}

/// Whether `ty` is `String` (a result that owns its text).
pub(super) fn is_string(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.path.is_ident("String"))
}

/// The forms a fn over text may take: one to three parameters, each
/// `&str` or `Option<&str>`, returning `String`, `&str`, a scalar, or an
/// `Option` of one; no `Result`, keyword or generic. Pushes an error for
/// each other form.
fn check_text(func: &ItemFn, params: &[Param], errors: &mut Errors) -> bool {
    const FORMS: &str = "1 to 3 parameters, each `&str` or `Option<&str>`, returning `String`, `&str`, a scalar, or an `Option` or `Result` of one; `#[kw]` and mixing text with numbers are not supported with text yet";
    let mut ok = true;
    for p in params {
        if is_string(&p.elem) {
            errors.push(
                &p.elem,
                "a text parameter is `&str` (the string, read in place), not `String`",
            );
            ok = false;
        } else if !is_text(&p.elem) || p.keyword.is_some() {
            errors.push(&p.name, format!("`#[elemental]` over text takes {FORMS}"));
            ok = false;
        }
    }
    if !func.sig.generics.params.is_empty() {
        errors.push(
            &func.sig.generics,
            format!("`#[elemental]` over text takes {FORMS}"),
        );
        ok = false;
    }
    if params.len() > 3 {
        errors.push(
            &func.sig.inputs,
            format!(
                "`#[elemental]` over text takes {FORMS}; this one takes {}",
                params.len()
            ),
        );
        ok = false;
    }
    ok
}
