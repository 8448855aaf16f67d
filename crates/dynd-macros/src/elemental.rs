//! `#[elemental]`: parse the attribute and the fn, check them (collecting
//! every problem with its span), and expand to the fn unchanged plus a
//! module of the same name holding the callable.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::{FnArg, GenericParam, Ident, ItemFn, LitStr, Pat, ReturnType, Token};

use dynd_types::{Dim, Scalar, Type, TypeKind};

/// Every problem found, each with its span, reported together.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    /// A problem spanning `node`'s tokens (first to last).
    fn push<T: ToTokens + ?Sized>(&mut self, node: &T, message: impl std::fmt::Display) {
        self.add(syn::Error::new_spanned(node, message));
    }

    /// A problem syn found.
    fn add(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }
}

/// The attribute's options.
#[derive(Default)]
struct Options {
    /// Generic parameters and the types each is expanded over.
    generics: Vec<(Ident, Vec<syn::Type>)>,
    /// An explicit signature, parsed.
    signature: Option<(LitStr, Type)>,
    /// SlangPy's strict broadcasting.
    strict: bool,
    /// `reduce` (with an identity, if given).
    reduce: Option<Option<syn::Lit>>,
    /// The path of the facade crate (`::dynd` by default).
    krate: Option<syn::Path>,
}

const SUPPORTED: &str = "bool, i8, i16, i32, i64, i128, u8, u16, u32, u64, u128, f32, f64, F16, Complex<f32>, Complex<f64>";

/// The most parameters (keywords included) a fn may take: the kernel
/// crate's `ElementFn` and `CoreFn` are implemented up to 16 (its
/// `MAX_LEAF_ARGS`).
const MAX_ARGS: usize = 16;

fn parse_options(attr: TokenStream, errors: &mut Errors) -> Options {
    let mut opts = Options::default();
    let parser = syn::meta::parser(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(Ident::to_string)
            .unwrap_or_default();
        match key.as_str() {
            "signature" => {
                let lit: LitStr = meta.value()?.parse()?;
                match Type::parse(&lit.value()) {
                    Ok(t) if matches!(t.kind(), TypeKind::Callable(_)) => {
                        opts.signature = Some((lit, t));
                    }
                    Ok(t) => errors.push(&lit,
                        format!("the signature `{t}` is not a function type; write e.g. \"(N * float64, N * float64) -> float64\""),
                    ),
                    Err(e) => errors.push(&lit, format!("the signature does not parse: {e}")),
                }
                Ok(())
            }
            "strict" => {
                opts.strict = true;
                Ok(())
            }
            "crate" => {
                let lit: LitStr = meta.value()?.parse()?;
                opts.krate = Some(lit.parse()?);
                Ok(())
            }
            "reduce" => {
                let mut identity = None;
                if meta.input.peek(syn::token::Paren) {
                    meta.parse_nested_meta(|inner| {
                        if inner.path.is_ident("identity") {
                            let v: syn::Expr = inner.value()?.parse()?;
                            identity = Some(
                                literal(&v)
                                    .filter(|l| matches!(l, syn::Lit::Int(_) | syn::Lit::Float(_) | syn::Lit::Bool(_)))
                                    .ok_or_else(|| syn::Error::new_spanned(&v, "the identity is a number or `true`/`false` (e.g. `identity = 0`)"))?,
                            );
                            Ok(())
                        } else {
                            Err(inner.error("`reduce` takes `identity = LITERAL` (or nothing, for an operation without identity)"))
                        }
                    })?;
                }
                opts.reduce = Some(identity);
                Ok(())
            }
            _ if meta.path.get_ident().is_some_and(|i| i.to_string().starts_with(|c: char| c.is_ascii_uppercase())) => {
                let ident = meta.path.get_ident().cloned().unwrap_or_else(|| format_ident!("T"));
                let content: ParseStream<'_> = meta.value()?;
                let list;
                syn::bracketed!(list in content);
                let types = Punctuated::<syn::Type, Token![,]>::parse_terminated(&list)?;
                if types.is_empty() {
                    errors.push(
                        &ident,
                        format!("`{ident} = []` lists no types; list the types to expand over (`{ident} = [f32, f64]`)"),
                    );
                }
                opts.generics.push((ident, types.into_iter().collect()));
                Ok(())
            }
            _ => Err(meta.error(
                "unknown #[elemental] option; the options are `T = [types...]` for a generic parameter, `signature = \"...\"`, `strict`, `reduce` / `reduce(identity = ...)` and `crate = \"path\"`",
            )),
        }
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, attr) {
        errors.add(e);
    }
    opts
}

/// A literal, allowing a leading minus (`-1`).
fn literal(e: &syn::Expr) -> Option<syn::Lit> {
    match e {
        syn::Expr::Lit(l) => Some(l.lit.clone()),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match literal(&u.expr)? {
            syn::Lit::Int(i) => Some(syn::Lit::Int(syn::LitInt::new(
                &format!("-{}", i.base10_digits()),
                i.span(),
            ))),
            syn::Lit::Float(f) => Some(syn::Lit::Float(syn::LitFloat::new(
                &format!("-{}", f.base10_digits()),
                f.span(),
            ))),
            _ => None,
        },
        _ => None,
    }
}

/// A type as the user wrote it, without the token stream's spaces.
fn pretty(ty: &impl ToTokens) -> String {
    ty.to_token_stream()
        .to_string()
        .replace("& ", "&")
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace(" ;", ";")
        .replace("[ ", "[")
        .replace(" ]", "]")
}

/// What a parameter or the result is.
#[derive(Clone)]
enum Shape {
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
struct Param {
    name: Ident,
    /// The element type as written (a generic parameter or a scalar type).
    elem: syn::Type,
    shape: Shape,
    /// Taken as `Option<T>` (a `?T` element).
    option: bool,
    /// `#[kw]`, with its default.
    keyword: Option<Option<syn::Lit>>,
}

/// The checked function.
struct Model {
    params: Vec<Param>,
    /// The result's element type and shape (`None`: `()`, with an `Out`
    /// parameter).
    ret: Option<(syn::Type, Shape)>,
    /// Whether the fn returns `Option<T>` (the result is `?T`).
    ret_option: bool,
}

/// The `T` of an `Option<T>` type.
fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
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
fn ok_type(ty: &syn::Type) -> Option<&syn::Type> {
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
fn classify(ty: &syn::Type, errors: &mut Errors, what: &str) -> Option<(syn::Type, Shape)> {
    match ty {
        syn::Type::Reference(r) => match &*r.elem {
            syn::Type::Slice(s) if r.mutability.is_some() => Some(((*s.elem).clone(), Shape::Out)),
            syn::Type::Slice(s) => Some(((*s.elem).clone(), Shape::Slice)),
            syn::Type::TraitObject(_) | syn::Type::ImplTrait(_) => {
                errors.push(&ty, format!("`#[elemental]` needs concrete scalar types, not trait objects or `impl Trait`; the scalar types are {SUPPORTED}"));
                None
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
fn scalar_of(ty: &syn::Type) -> Option<Scalar> {
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

fn analyze(
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
    if let Some(t) = &sig.unsafety {
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
    let optional = ret_option || params.iter().any(|p| p.option);
    if optional && core {
        errors.push(&sig.output, "`Option` parameters and results are supported in fns of scalars only (not with core dimensions)");
        ok = false;
    }
    ok.then_some(Model {
        params,
        ret,
        ret_option,
    })
}

/// The element types of one expansion: each generic parameter replaced.
fn substitute(ty: &syn::Type, bind: &[(Ident, syn::Type)]) -> syn::Type {
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
fn signature_of(model: &Model, bind: &[(Ident, syn::Type)]) -> Option<String> {
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
fn check_signature(sig: &Type, model: &Model, bind: &[(Ident, syn::Type)]) -> Result<(), String> {
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
fn bindings(generics: &[(Ident, Vec<syn::Type>)]) -> Vec<Vec<(Ident, syn::Type)>> {
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

/// The fn as written, without the `#[kw]` attributes on its parameters.
fn cleaned(func: &ItemFn) -> ItemFn {
    let mut f = func.clone();
    for arg in &mut f.sig.inputs {
        if let FnArg::Typed(pt) = arg {
            pt.attrs.retain(|a| !a.path().is_ident("kw"));
        }
    }
    f
}

/// The expansion of `#[elemental(attr)] item`.
pub(crate) fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(e) => {
            let e = syn::Error::new(e.span(), "`#[elemental]` goes on a fn");
            let err = e.to_compile_error();
            return quote!(#err #item);
        }
    };
    let mut errors = Errors::default();
    let opts = parse_options(attr, &mut errors);
    let model = analyze(&func, &opts.generics, &mut errors);
    let user_fn = cleaned(&func);
    let Some(model) = model.filter(|_| errors.0.is_none()) else {
        let err = errors.0.map(|e| e.to_compile_error()).unwrap_or_default();
        return quote!(#err #user_fn);
    };
    let binds = bindings(&opts.generics);
    let mut signatures = Vec::new();
    for bind in &binds {
        match &opts.signature {
            Some((lit, sig)) => {
                if let Err(why) = check_signature(sig, &model, bind) {
                    let types: Vec<String> = bind
                        .iter()
                        .map(|(g, t)| format!("{g} = {}", quote!(#t)))
                        .collect();
                    let with = if types.is_empty() {
                        String::new()
                    } else {
                        format!(" (with {})", types.join(", "))
                    };
                    errors.push(
                        &lit,
                        format!("the signature `{sig}` does not match the fn{with}: {why}"),
                    );
                }
                signatures.push(sig.to_string());
            }
            None => match signature_of(&model, bind) {
                Some(s) => signatures.push(s),
                None => errors.push(&func.sig.ident, "an element type is not a supported scalar"),
            },
        }
    }
    // A generic list naming one type twice gives two identical overloads.
    for (i, a) in signatures.iter().enumerate() {
        if signatures[..i].contains(a) && opts.signature.is_none() {
            errors.push(
                &func.sig.ident,
                format!("two expansions have the signature `{a}`; list each type once"),
            );
        }
    }
    if let Some(e) = errors.0 {
        let err = e.to_compile_error();
        return quote!(#err #user_fn);
    }
    let krate = opts
        .krate
        .clone()
        .map_or_else(|| quote!(::dynd), |p| quote!(#p));
    let name = &func.sig.ident;
    let name_str = name.to_string();
    let vis = &func.vis;
    let core = model
        .params
        .iter()
        .any(|p| !matches!(p.shape, Shape::Scalar))
        || matches!(model.ret, Some((_, Shape::Array(_))));
    let overloads: Vec<TokenStream> = binds
        .iter()
        .zip(&signatures)
        .map(|(bind, sig)| overload(&model, bind, sig, name, core, &krate))
        .collect();
    // The leaf takes every parameter; keywords are the trailing ones.
    let keywords: Vec<TokenStream> = model
        .params
        .iter()
        .filter_map(|p| {
            let default = p.keyword.as_ref()?;
            let kw = p.name.to_string();
            let scalar = scalar_tokens(scalar_of(&substitute(&p.elem, &binds[0]))?, &krate);
            Some(match default {
                None if p.option => quote!(#krate::func::Keyword::optional(#kw, #scalar, #krate::__private::na(#scalar))),
                None => quote!(#krate::func::Keyword::required(#kw, #scalar)),
                Some(lit) => {
                    let elem = substitute(&p.elem, &binds[0]);
                    quote!(#krate::func::Keyword::optional(#kw, #scalar, #krate::nd::Array::from_scalar::<#elem>(#lit)))
                }
            })
        })
        .collect();
    let with_keywords = (!keywords.is_empty()).then(|| {
        quote! {
            let c = match c.with_keywords(::std::vec![#(#keywords),*]) {
                ::core::result::Result::Ok(c) => c,
                ::core::result::Result::Err(e) => ::core::unreachable!("#[elemental] checked the keywords at compile time: {e}"),
            };
        }
    });
    let strict = opts.strict.then(|| quote!(let c = c.strict();));
    let reduce_decl = opts.reduce.as_ref().map(|identity| {
        let value = match identity {
            None => quote!(::core::option::Option::None),
            Some(syn::Lit::Bool(b)) => quote!(::core::option::Option::Some(#krate::nd::Value::Bool(#b))),
            Some(syn::Lit::Float(f)) => quote!(::core::option::Option::Some(#krate::nd::Value::Float(#f))),
            Some(lit) => quote!(::core::option::Option::Some(#krate::nd::Value::Int(#lit))),
        };
        quote! {
            let c = match c.associative(#value) {
                ::core::result::Result::Ok(c) => c,
                ::core::result::Result::Err(e) => ::core::unreachable!("#[elemental] checked the arity at compile time: {e}"),
            };
        }
    });
    let positional: Vec<&Param> = model
        .params
        .iter()
        .filter(|p| p.keyword.is_none() && !matches!(p.shape, Shape::Out))
        .collect();
    let kw_params: Vec<&Param> = model
        .params
        .iter()
        .filter(|p| p.keyword.is_some())
        .collect();
    let pos_names: Vec<&Ident> = positional.iter().map(|p| &p.name).collect();
    let kw_names: Vec<&Ident> = kw_params.iter().map(|p| &p.name).collect();
    let kw_strs: Vec<String> = kw_names.iter().map(|n| n.to_string()).collect();
    let call_doc = format!("Calls `{name_str}` on arrays (anything [`IntoArray`]({}::nd::IntoArray)), broadcasting them together.", krate.to_string().replace(' ', ""));
    let reduce_fn = opts.reduce.as_ref().map(|_| {
        quote! {
            /// Reduces `array` with this associative operation over `axis`
            /// (`None`: every axis; negative ones count from the end).
            ///
            /// # Errors
            ///
            /// As the reduction callable (an axis out of range or repeated,
            /// an empty reduction without identity, …).
            #vis fn reduce(
                array: impl #krate::nd::IntoArray,
                axis: ::core::option::Option<&[i64]>,
                keepdims: bool,
            ) -> ::core::result::Result<#krate::nd::Array, #krate::Error> {
                static REDUCTION: #krate::__private::LazyLock<#krate::func::Callable> =
                    #krate::__private::LazyLock::new(|| match #name::__callable().reduce() {
                        ::core::result::Result::Ok(r) => r,
                        ::core::result::Result::Err(e) => ::core::unreachable!("#[elemental] declared the reduction: {e}"),
                    });
                #krate::__private::reduce(&*REDUCTION, array, axis, keepdims)
            }

            /// Scans `array` with this associative operation along `axis`
            /// (negative from the end; along a `var` dimension, each
            /// ragged row): element `i` combines elements `0..=i` in order.
            ///
            /// # Errors
            ///
            /// As the scan callable (an axis out of range, a fixed axis
            /// with `var` dimensions inside it, …).
            #vis fn accumulate(
                array: impl #krate::nd::IntoArray,
                axis: i64,
            ) -> ::core::result::Result<#krate::nd::Array, #krate::Error> {
                static SCAN: #krate::__private::LazyLock<#krate::func::Callable> =
                    #krate::__private::LazyLock::new(|| match #name::__callable().accumulate() {
                        ::core::result::Result::Ok(r) => r,
                        ::core::result::Result::Err(e) => ::core::unreachable!("#[elemental] declared the operation associative: {e}"),
                    });
                #krate::__private::accumulate(&*SCAN, array, axis)
            }
        }
    });
    let sig_list = &signatures;
    let single = (signatures.len() == 1).then(|| {
        let s = &signatures[0];
        quote! {
            /// The datashape signature.
            #vis const SIGNATURE: &'static str = #s;
        }
    });
    let call_body = if kw_names.is_empty() {
        quote!(__callable.call(&[#(&*#pos_names),*]))
    } else {
        quote!(__callable.call_kw(&[#(&*#pos_names),*], &[#((#kw_strs, &*#kw_names)),*]))
    };
    let mod_doc =
        format!("The callable made by `#[elemental]` from [`{name_str}`](fn@{name_str}).");
    let span = name.span();
    // An uninhabited enum of the fn's name holds the items: it lives in
    // the type namespace only, beside the fn in the value namespace, and
    // unlike a module it sees the fn wherever the fn is declared (inside a
    // function body too).
    let module = quote_spanned! {span=>
        #[doc = #mod_doc]
        #[allow(non_camel_case_types, clippy::all)]
        #vis enum #name {}

        #[allow(clippy::all, dead_code)]
        impl #name {
            #single
            /// The datashape signature of each overload.
            #vis const SIGNATURES: &'static [&'static str] = &[#(#sig_list),*];

            /// The datashape signatures, as types.
            #vis fn signatures() -> ::std::vec::Vec<#krate::ndt::Type> {
                Self::SIGNATURES
                    .iter()
                    .map(|s| #krate::__private::parse_checked(s))
                    .collect()
            }

            /// The callable, built once.
            #[doc(hidden)]
            #vis fn __callable() -> &'static #krate::func::Callable {
                static CALLABLE: #krate::__private::LazyLock<#krate::func::Callable> =
                    #krate::__private::LazyLock::new(|| {
                        let c = #krate::__private::callable(#name_str, ::std::vec![#(#overloads),*]);
                        #with_keywords
                        #strict
                        #reduce_decl
                        c
                    });
                &*CALLABLE
            }

            /// The callable (built once; this is a cheap clone), for
            /// composition: `outer`, reductions, registries.
            #vis fn callable() -> #krate::func::Callable {
                ::core::clone::Clone::clone(Self::__callable())
            }

            #[doc = #call_doc]
            ///
            /// # Errors
            ///
            /// An argument that is not an array, arguments that do not
            /// broadcast, or data types no overload takes.
            #vis fn call(
                #(#pos_names: impl #krate::nd::IntoArray,)*
                #(#kw_names: impl #krate::nd::IntoArray,)*
            ) -> ::core::result::Result<#krate::nd::Array, #krate::Error> {
                // The callable first: making it installs the evaluation of
                // expression arguments.
                let __callable = Self::__callable();
                #(let #pos_names = #krate::nd::IntoArray::into_arg(#pos_names)?;)*
                #(let #kw_names = #krate::nd::IntoArray::into_arg(#kw_names)?;)*
                #call_body
            }

            /// This function as a node of an expression, fused with the
            /// rest of it when evaluated (`dynd::func::Eval`): arguments
            /// are arrays, Rust numbers or expressions.
            #vis fn expr<'__e>(
                #(#pos_names: impl ::core::convert::Into<#krate::nd::expr::Expr<'__e>>,)*
                #(#kw_names: impl ::core::convert::Into<#krate::nd::expr::Expr<'__e>>,)*
            ) -> #krate::nd::expr::Expr<'__e> {
                let args: ::std::vec::Vec<#krate::nd::expr::Expr<'__e>> = ::std::vec![
                    #(::core::convert::Into::into(#pos_names),)*
                    #(::core::convert::Into::into(#kw_names),)*
                ];
                Self::__callable().expr(args)
            }

            #reduce_fn
        }
    };
    quote! {
        #user_fn
        #module
    }
}

fn scalar_tokens(s: Scalar, krate: &TokenStream) -> TokenStream {
    let v = format_ident!("{}", format!("{s:?}"));
    quote!(#krate::ndt::Scalar::#v)
}

/// One overload: the fn for one binding of the generic parameters.
fn overload(
    model: &Model,
    bind: &[(Ident, syn::Type)],
    sig: &str,
    name: &Ident,
    core: bool,
    krate: &TokenStream,
) -> TokenStream {
    let turbofish = if bind.is_empty() {
        quote!()
    } else {
        let types = bind.iter().map(|(_, t)| t);
        quote!(::<#(#types),*>)
    };
    let f = quote!(#name #turbofish);
    if !core {
        // One constructor for every arity and flavour: the function's
        // type says whether it takes `?T` or can fail.
        return quote!(#krate::func::Overload::new(#krate::func::Leaf::map(#f)));
    }
    let mut closure_params = Vec::new();
    let mut call_args = Vec::new();
    let mut prelude = Vec::new();
    for (i, p) in model.params.iter().enumerate() {
        let elem = substitute(&p.elem, bind);
        let v = format_ident!("__arg{}", i);
        match p.shape {
            Shape::Scalar => {
                closure_params.push(quote!(#v: #krate::func::CoreSlice<'_, #elem>));
                prelude.push(quote! {
                    let ::core::option::Option::Some(&#v) = #v.as_slice().first() else { return };
                });
                call_args.push(quote!(#v));
            }
            Shape::Slice => {
                closure_params.push(quote!(#v: #krate::func::CoreSlice<'_, #elem>));
                call_args.push(quote!(#v.as_slice()));
            }
            Shape::Array(n) => {
                closure_params.push(quote!(#v: #krate::func::CoreSlice<'_, #elem>));
                prelude.push(quote! {
                    let ::core::result::Result::Ok(#v) = <[#elem; #n] as ::core::convert::TryFrom<&[#elem]>>::try_from(#v.as_slice()) else { return };
                });
                call_args.push(quote!(#v));
            }
            Shape::Out => {}
        }
    }
    let out_elem = match (
        &model.ret,
        model.params.iter().find(|p| matches!(p.shape, Shape::Out)),
    ) {
        (Some((t, _)), _) => substitute(t, bind),
        (None, Some(p)) => substitute(&p.elem, bind),
        (None, None) => unreachable!("checked: a result or a result parameter"),
    };
    let body = match &model.ret {
        Some((_, Shape::Scalar)) => quote! {
            let __r = #f(#(#call_args),*);
            if let ::core::option::Option::Some(__o) = __out.as_mut_slice().first_mut() {
                *__o = __r;
            }
        },
        Some(_) => quote! {
            let __r = #f(#(#call_args),*);
            for (__o, __v) in __out.as_mut_slice().iter_mut().zip(__r) {
                *__o = __v;
            }
        },
        None => quote! {
            #f(#(#call_args,)* __out.as_mut_slice());
        },
    };
    quote! {
        #krate::func::Overload::core(
            match #krate::func::CoreLeaf::map(
                #sig,
                |#(#closure_params,)* mut __out: #krate::func::CoreSliceMut<'_, #out_elem>| {
                    #(#prelude)*
                    #body
                },
            ) {
                ::core::result::Result::Ok(leaf) => leaf,
                ::core::result::Result::Err(e) => ::core::unreachable!("#[elemental] checked this signature at compile time: {e}"),
            }
        )
    }
}
