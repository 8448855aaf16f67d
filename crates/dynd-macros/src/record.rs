//! `#[derive(Record)]`: a Rust struct as a dynd record (see
//! `dynd::nd::structs`).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, GenericArgument, PathArguments, Type};

/// The derive's expansion, or its compile errors.
pub(crate) fn expand(input: TokenStream) -> TokenStream {
    match derive(input) {
        Ok(t) => t,
        Err(e) => e.to_compile_error(),
    }
}

fn derive(input: TokenStream) -> syn::Result<TokenStream> {
    let input: DeriveInput = syn::parse2(input)?;
    let name = &input.ident;
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "#[derive(Record)] takes a struct without generic parameters: a record's field types are fixed",
        ));
    }
    let fields = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(f) => &f.named,
            Fields::Unnamed(f) => return Err(syn::Error::new(
                f.span(),
                "#[derive(Record)] takes a struct with named fields: a record's fields have names",
            )),
            Fields::Unit => {
                return Err(syn::Error::new(
                    name.span(),
                    "#[derive(Record)] takes a struct with at least one field",
                ))
            }
        },
        Data::Enum(e) => {
            return Err(syn::Error::new(
                e.enum_token.span(),
                "#[derive(Record)] takes a struct, not an enum",
            ))
        }
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span(),
                "#[derive(Record)] takes a struct, not a union",
            ))
        }
    };
    if fields.is_empty() {
        return Err(syn::Error::new(
            name.span(),
            "#[derive(Record)] takes a struct with at least one field",
        ));
    }
    let repr_c = input.attrs.iter().any(|a| {
        a.path().is_ident("repr")
            && a.parse_args_with(
                syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            )
            .is_ok_and(|m| m.iter().any(|m| m.path().is_ident("C")))
    });
    let root = quote!(::dynd);
    let idents: Vec<&syn::Ident> = fields.iter().filter_map(|f| f.ident.as_ref()).collect();
    let types: Vec<&Type> = fields.iter().map(|f| &f.ty).collect();
    let labels: Vec<String> = idents
        .iter()
        .map(|i| i.to_string().trim_start_matches("r#").to_string())
        .collect();
    // Each field type proven a `Field` where it is written.
    let checks = types.iter().map(|t| {
        quote_spanned! {t.span()=>
            const _: fn() = || {
                fn field<T: #root::nd::Field>() {}
                field::<#t>();
            };
        }
    });
    let as_field = |t: &Type| quote_spanned!(t.span()=> <#t as #root::nd::Field>);
    let f: Vec<TokenStream> = types.iter().map(|t| as_field(t)).collect();
    let store = format_ident!("__{}Store", name);
    // Pattern bindings that no field name can shadow a parameter with.
    let binds: Vec<syn::Ident> = (0..idents.len())
        .map(|k| format_ident!("__f{}", k))
        .collect();
    let view = format_ident!("__{}View", name);
    let mut pieces = vec![quote!(#root::nd::structs::Piece::Str("{"))];
    for (k, (label, t)) in labels.iter().zip(&types).enumerate() {
        let sep = if k == 0 {
            format!("{label}: ")
        } else {
            format!(", {label}: ")
        };
        pieces.push(quote!(#root::nd::structs::Piece::Str(#sep)));
        shape_pieces(t, &root, &mut pieces);
    }
    pieces.push(quote!(#root::nd::structs::Piece::Str("}")));
    let sizes = types.iter().map(|t| quote!(::core::mem::size_of::<#t>()));
    let plain = quote! {
        #repr_c #(&& #f::PLAIN)* && ::core::mem::size_of::<#name>() == 0 #(+ #sizes)*
    };
    let vis = &input.vis;
    Ok(quote! {
        #(#checks)*
        const _: () = {
            #[doc(hidden)]
            #vis enum #store {
                /// Interleaved plain records, borrowed as `&[Self]`.
                Plain(#root::nd::Array),
                /// Field by field.
                Fields { #(#idents: #f::Store,)* },
            }
            #[doc(hidden)]
            #vis enum #view<'a> {
                /// Interleaved plain records.
                Plain(&'a [#name]),
                /// Field by field.
                Fields { #(#idents: #f::View<'a>,)* },
            }
            const __PIECES: &[#root::nd::structs::Piece] = &[#(#pieces),*];
            const __LEN: usize = #root::nd::structs::pieces_len(__PIECES);
            const __BYTES: [u8; __LEN] = #root::nd::structs::pieces_bytes::<__LEN>(__PIECES);

            impl #root::nd::Field for #name {
                const PLAIN: bool = #plain;
                type Store = #store;
                type View<'a> = #view<'a>;
                fn dtype() -> #root::ndt::Type {
                    #root::nd::structs::struct_type(&[#((#labels, #f::dtype())),*])
                }
                fn zero() -> Self {
                    #name { #(#idents: #f::zero(),)* }
                }
                fn store(a: &#root::nd::Array) -> ::core::result::Result<#store, #root::Error> {
                    #root::nd::structs::check_dtype(a, &<Self as #root::nd::Field>::dtype())?;
                    if <Self as #root::nd::Field>::PLAIN && a.as_records::<Self>().is_ok() {
                        return ::core::result::Result::Ok(#store::Plain(::core::clone::Clone::clone(a)));
                    }
                    ::core::result::Result::Ok(#store::Fields {
                        #(#idents: #f::store(&a.field(#labels)?)?,)*
                    })
                }
                fn view(s: &#store) -> ::core::result::Result<#view<'_>, #root::Error> {
                    ::core::result::Result::Ok(match s {
                        #store::Plain(a) => #view::Plain(a.as_records::<Self>()?),
                        #store::Fields { #(#idents: #binds),* } => #view::Fields {
                            #(#idents: #f::view(#binds)?,)*
                        },
                    })
                }
                #[inline(always)]
                fn get(v: &#view<'_>, i: usize) -> Self {
                    match v {
                        #view::Plain(s) => <Self as #root::nd::Field>::duplicate(&s[i]),
                        #view::Fields { #(#idents: #binds),* } => #name { #(#idents: #f::get(#binds, i),)* },
                    }
                }
                #[inline(always)]
                fn plain<'a>(v: &<Self as #root::nd::Field>::View<'a>) -> ::core::option::Option<&'a [Self]> {
                    match v {
                        #view::Plain(s) => ::core::option::Option::Some(*s),
                        _ => ::core::option::Option::None,
                    }
                }
                #[inline(always)]
                fn duplicate(v: &Self) -> Self {
                    #name { #(#idents: #f::duplicate(&v.#idents),)* }
                }
                fn column(values: ::std::vec::Vec<Self>) -> ::core::result::Result<#root::nd::Array, #root::Error> {
                    #(let mut #idents = ::std::vec::Vec::with_capacity(values.len());)*
                    for v in values {
                        #(#idents.push(v.#idents);)*
                    }
                    #root::nd::Array::from_columns_at(1, [
                        #((#labels, #f::column(#idents)?)),*
                    ])
                }
            }

            // SAFETY: `PLAIN` holds only for a `#[repr(C)]` struct whose
            // fields are all plain and whose size is the sum of theirs (no
            // padding); `from_records` and `as_records` also check that
            // the size and these offsets are the dynd layout's.
            unsafe impl #root::nd::Record for #name {
                const DATASHAPE: &'static str = #root::nd::structs::utf8(&__BYTES);
                const OFFSETS: &'static [usize] = &[#(::core::mem::offset_of!(#name, #idents)),*];
            }
        };
    })
}

/// The datashape of Rust type `t` as compile-time pieces: the scalars by
/// name, `Option`, `[T; N]`, `String`, and any other type as a record's
/// `DATASHAPE`.
pub(crate) fn shape_pieces(t: &Type, root: &TokenStream, out: &mut Vec<TokenStream>) {
    let str_piece = |s: &str| quote!(#root::nd::structs::Piece::Str(#s));
    match t {
        Type::Array(a) => {
            let len = &a.len;
            out.push(quote!(#root::nd::structs::Piece::Num(#len)));
            out.push(str_piece(" * "));
            shape_pieces(&a.elem, root, out);
        }
        Type::Paren(p) => shape_pieces(&p.elem, root, out),
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return out.push(record_shape(t, root));
            };
            let name = last.ident.to_string();
            let scalar = match name.as_str() {
                "bool" => Some("bool"),
                "i8" => Some("int8"),
                "i16" => Some("int16"),
                "i32" => Some("int32"),
                "i64" => Some("int64"),
                "i128" => Some("int128"),
                "u8" => Some("uint8"),
                "u16" => Some("uint16"),
                "u32" => Some("uint32"),
                "u64" => Some("uint64"),
                "u128" => Some("uint128"),
                "f32" => Some("float32"),
                "f64" => Some("float64"),
                "F16" => Some("float16"),
                "String" => Some("string"),
                _ => None,
            };
            if let (Some(s), PathArguments::None) = (scalar, &last.arguments) {
                return out.push(str_piece(s));
            }
            if let Some(shape) = time_shape(&name, &last.arguments) {
                return out.push(str_piece(&shape));
            }
            if let PathArguments::AngleBracketed(args) = &last.arguments {
                let inner = args.args.iter().find_map(|a| match a {
                    GenericArgument::Type(t) => Some(t),
                    _ => None,
                });
                match (name.as_str(), inner) {
                    ("Option", Some(inner)) => {
                        out.push(str_piece("?"));
                        return shape_pieces(inner, root, out);
                    }
                    ("Complex", Some(Type::Path(inner))) if inner.path.is_ident("f32") => {
                        return out.push(str_piece("complex[float32]"));
                    }
                    ("Complex", Some(Type::Path(inner))) if inner.path.is_ident("f64") => {
                        return out.push(str_piece("complex[float64]"));
                    }
                    _ => {}
                }
            }
            out.push(record_shape(t, root));
        }
        _ => out.push(record_shape(t, root)),
    }
}

/// The datashape of a time element named `name` with generic arguments
/// `args`: `Date` is `date`; `DateTime`, `Time` and `TimeDelta` take the
/// unit type `S`, `Ms`, `Us` or `Ns` (`Us` when not given, as their
/// default is).
fn time_shape(name: &str, args: &PathArguments) -> Option<String> {
    let kind = match name {
        "Date" if matches!(args, PathArguments::None) => return Some("date".into()),
        "DateTime" => "datetime",
        "Time" => "time",
        "TimeDelta" => "timedelta",
        _ => return None,
    };
    let unit = match args {
        PathArguments::None => "Us".to_string(),
        PathArguments::AngleBracketed(a) if a.args.len() == 1 => match a.args.first()? {
            GenericArgument::Type(Type::Path(p)) => p.path.segments.last()?.ident.to_string(),
            _ => return None,
        },
        _ => return None,
    };
    let unit = match unit.as_str() {
        "S" => "s",
        "Ms" => "ms",
        "Us" => return Some(kind.into()),
        "Ns" => "ns",
        _ => return None,
    };
    Some(format!("{kind}[unit=\"{unit}\"]"))
}

/// A nested record's datashape piece.
fn record_shape(t: &Type, root: &TokenStream) -> TokenStream {
    let span: Span = t.span();
    quote_spanned! {span=> #root::nd::structs::Piece::Str(<#t as #root::nd::Record>::DATASHAPE) }
}
