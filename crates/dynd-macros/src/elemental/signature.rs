//! Between analysis and expansion: the datashape signature of each binding
//! of the generic parameters, and the check of a written one against it.

use super::*;

/// The element types of one expansion: each generic parameter replaced.
pub(super) fn substitute(ty: &syn::Type, bind: &[(Ident, syn::Type)]) -> syn::Type {
    if let syn::Type::Path(p) = ty {
        if let Some(i) = p.path.get_ident() {
            if let Some((_, t)) = bind.iter().find(|(g, _)| g == i) {
                return t.clone();
            }
        }
    }
    ty.clone()
}

/// The datashape signature of one expansion, from the Rust types; core
/// dimensions share the size variable `N` (a `[T; K]` has size `K`).
pub(super) fn signature_of(model: &Model, bind: &[(Ident, syn::Type)]) -> Option<String> {
    let s = |t: &syn::Type| scalar_of(&substitute(t, bind));
    let dims = |shape: &Shape| match shape {
        Shape::Scalar => String::new(),
        Shape::Slice | Shape::Out => "N * ".into(),
        Shape::Array(n) => format!("{n} * "),
    };
    let mut args = Vec::new();
    for p in &model.params {
        if matches!(p.shape, Shape::Out) {
            continue;
        }
        let q = if p.option { "?" } else { "" };
        let t = format!("{}{q}{}", dims(&p.shape), s(&p.elem)?);
        args.push(match &p.keyword {
            Some(_) => format!("{}: {t}", p.name),
            None => t,
        });
    }
    let ret = match &model.ret {
        Some((t, shape)) => format!(
            "{}{}{}",
            dims(shape),
            if model.ret_option { "?" } else { "" },
            s(t)?
        ),
        None => {
            let out = model
                .params
                .iter()
                .find(|p| matches!(p.shape, Shape::Out))?;
            format!("N * {}", s(&out.elem)?)
        }
    };
    Some(format!("({}) -> {ret}", args.join(", ")))
}

/// Checks an explicit signature against the Rust types of one expansion.
pub(super) fn check_signature(
    sig: &Type,
    model: &Model,
    bind: &[(Ident, syn::Type)],
) -> Result<(), String> {
    let TypeKind::Callable(c) = sig.kind() else {
        return Err("not a function type".into());
    };
    let inputs: Vec<&Param> = model
        .params
        .iter()
        .filter(|p| !matches!(p.shape, Shape::Out) && p.keyword.is_none())
        .collect();
    let keywords: Vec<&Param> = model
        .params
        .iter()
        .filter(|p| p.keyword.is_some())
        .collect();
    if c.positional.len() != inputs.len() {
        return Err(format!(
            "it has {} positional parameter(s), the fn has {}",
            c.positional.len(),
            inputs.len()
        ));
    }
    let names: Vec<String> = c.keywords.iter().map(|(n, _)| n.to_string()).collect();
    let want: Vec<String> = keywords.iter().map(|p| p.name.to_string()).collect();
    if names != want {
        return Err(format!(
            "its keywords are [{}], the fn's `#[kw]` parameters are [{}]",
            names.join(", "),
            want.join(", ")
        ));
    }
    let fits = |t: &Type,
                elem: &syn::Type,
                shape: &Shape,
                option: bool,
                what: &str|
     -> Result<(), String> {
        let rust = scalar_of(&substitute(elem, bind))
            .ok_or_else(|| format!("{what}: unknown element type"))?;
        let (dims, dtype) = t.split_dims();
        let (dtype, is_option) = match dtype.kind() {
            TypeKind::Option(inner) => (inner.clone(), true),
            _ => (dtype.clone(), false),
        };
        if is_option != option {
            let rust_ty = if option {
                format!("Option<{}>", pretty(elem))
            } else {
                pretty(elem)
            };
            return Err(format!("{what} is {t}, but the Rust type is {rust_ty}"));
        }
        let generic = matches!(dtype.kind(), TypeKind::TypeVar(_));
        if !generic && dtype.as_scalar() != Some(rust) {
            return Err(format!(
                "{what} is {t}, but the Rust type is {}",
                quote!(#elem)
            ));
        }
        let ok = match shape {
            Shape::Scalar => dims.is_empty(),
            Shape::Slice | Shape::Out => {
                dims.len() == 1
                    && matches!(dims[0], Dim::Fixed(_) | Dim::AnyFixed | Dim::TypeVar(_))
            }
            Shape::Array(n) => dims.len() == 1 && matches!(dims[0], Dim::Fixed(m) if m == n),
        };
        if !ok {
            let rust_shape = match shape {
                Shape::Scalar => "a scalar (no dimensions)".to_string(),
                Shape::Slice => "a slice (one core dimension)".to_string(),
                Shape::Out => "a result slice (one core dimension)".to_string(),
                Shape::Array(n) => format!("an array of {n} (the core dimension `{n}`)"),
            };
            return Err(format!("{what} is {t}, but the Rust type is {rust_shape}"));
        }
        Ok(())
    };
    for (i, (t, p)) in c.positional.iter().zip(&inputs).enumerate() {
        fits(
            t,
            &p.elem,
            &p.shape,
            p.option,
            &format!("parameter {i} (`{}`)", p.name),
        )?;
    }
    for ((_, t), p) in c.keywords.iter().zip(&keywords) {
        fits(
            t,
            &p.elem,
            &p.shape,
            p.option,
            &format!("keyword `{}`", p.name),
        )?;
    }
    match (
        &model.ret,
        model.params.iter().find(|p| matches!(p.shape, Shape::Out)),
    ) {
        (Some((t, shape)), _) => fits(&c.ret, t, shape, model.ret_option, "the result"),
        (None, Some(out)) => fits(&c.ret, &out.elem, &out.shape, false, "the result"),
        (None, None) => Ok(()),
    }
}

/// Every binding of the generic parameters (the cartesian product of
/// their type lists).
pub(super) fn bindings(generics: &[(Ident, Vec<syn::Type>)]) -> Vec<Vec<(Ident, syn::Type)>> {
    let mut out: Vec<Vec<(Ident, syn::Type)>> = vec![Vec::new()];
    for (g, types) in generics {
        out = out
            .into_iter()
            .flat_map(|b| {
                types.iter().map(move |t| {
                    let mut b = b.clone();
                    b.push((g.clone(), t.clone()));
                    b
                })
            })
            .collect();
    }
    out
}
