//! The facade's public surface, pinned: every path a downstream crate can
//! name through `dynd` (modules, re-exports, items, the prelude), read
//! from the facade's source with `syn` and compared with
//! `tests/api/facade.txt`. A change to the surface shows here as a diff;
//! after an intended one, `UPDATE_API=1 cargo test --test it api_surface`
//! rewrites the file, and the diff goes in the commit.
//!
//! Also checked: no glob re-exports (each name is chosen).

use std::path::Path;

use syn::{Item, UseTree, Visibility};

/// The public names under `prefix` in `items`, one path per line.
fn walk(items: &[Item], prefix: &str, out: &mut Vec<String>, globs: &mut Vec<String>) {
    for item in items {
        let public = |v: &Visibility| matches!(v, Visibility::Public(_));
        let hidden = |attrs: &[syn::Attribute]| {
            attrs.iter().any(|a| {
                a.path().is_ident("doc")
                    && a.meta
                        .require_list()
                        .is_ok_and(|l| l.tokens.to_string() == "hidden")
            })
        };
        let cfg = |attrs: &[syn::Attribute]| {
            attrs
                .iter()
                .find(|a| a.path().is_ident("cfg"))
                .and_then(|a| a.meta.require_list().ok())
                .map(|l| format!("  [cfg({})]", l.tokens))
                .unwrap_or_default()
        };
        match item {
            Item::Mod(m) if public(&m.vis) && !hidden(&m.attrs) => {
                let path = format!("{prefix}::{}", m.ident);
                out.push(format!("mod {path}{}", cfg(&m.attrs)));
                if let Some((_, inner)) = &m.content {
                    walk(inner, &path, out, globs);
                }
            }
            Item::Use(u) if public(&u.vis) => {
                let mut leaves = Vec::new();
                leaves_of(&u.tree, "", &mut leaves);
                for leaf in leaves {
                    if leaf.ends_with('*') {
                        globs.push(format!("{prefix}: pub use {leaf}"));
                    }
                    let name = leaf.rsplit("::").next().unwrap_or(&leaf).to_string();
                    out.push(format!("use {prefix}::{name} = {leaf}{}", cfg(&u.attrs)));
                }
            }
            Item::Fn(f) if public(&f.vis) => out.push(format!("fn {prefix}::{}", f.sig.ident)),
            Item::Macro(m)
                if m.ident.is_some()
                    && m.attrs.iter().any(|a| a.path().is_ident("macro_export")) =>
            {
                out.push(format!("macro dynd::{}", m.ident.as_ref().unwrap()))
            }
            _ => {}
        }
    }
}

/// Every leaf of a use tree, as a `::`-joined path (renames as `a as b`).
fn leaves_of(tree: &UseTree, prefix: &str, out: &mut Vec<String>) {
    let join = |s: &str| {
        if prefix.is_empty() {
            s.to_string()
        } else {
            format!("{prefix}::{s}")
        }
    };
    match tree {
        UseTree::Path(p) => leaves_of(&p.tree, &join(&p.ident.to_string()), out),
        UseTree::Name(n) => out.push(join(&n.ident.to_string())),
        UseTree::Rename(r) => out.push(format!("{} as {}", join(&r.ident.to_string()), r.rename)),
        UseTree::Glob(_) => out.push(join("*")),
        UseTree::Group(g) => {
            for t in &g.items {
                leaves_of(t, prefix, out);
            }
        }
    }
}

/// The facade's surface, sorted, plus the pub items of its `typed` module
/// (re-exported by name into `func`).
fn surface() -> (String, Vec<String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/dynd/src");
    let parse = |file: &str| {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        syn::parse_file(&text).unwrap()
    };
    let mut out = Vec::new();
    let mut globs = Vec::new();
    walk(&parse("lib.rs").items, "dynd", &mut out, &mut globs);
    // The methods of the extension trait, which the prelude brings in:
    // those written in `typed.rs` (inside `reduction_methods!`), and three
    // for each reduction its table marks `(method ...)`.
    for item in parse("typed.rs").items {
        if let Item::Macro(m) = item {
            if m.ident.as_ref().is_some_and(|i| i == "reduction_methods") {
                let tokens = m.mac.tokens.to_string();
                for n in tokens
                    .split("fn ")
                    .skip(1)
                    .filter_map(|s| s.split(['(', ' ']).next())
                {
                    out.push(format!("method dynd::func::ArrayExt::{}", n.trim()));
                }
            }
        }
    }
    for b in dynd::func::builtins::handles() {
        if let dynd::func::builtins::Kind::Method = b.kind() {
            for suffix in ["", "_axis", "_with"] {
                out.push(format!("method dynd::func::ArrayExt::{}{suffix}", b.name()));
            }
        }
    }
    // The typed functions made from the builtins' tables: one per
    // elementwise builtin of one to three arrays, function of one or two
    // arrays and reduction with options (`where` as `where_`), and the
    // hand-written ones the tables re-export.
    for b in dynd::func::builtins::handles() {
        use dynd::func::builtins::Kind;
        if let Kind::Elementwise(1..=3, _) | Kind::Function(1 | 2) | Kind::Reduction | Kind::Typed =
            b.kind()
        {
            let name = b.name();
            let name = if name == "where" { "where_" } else { name };
            out.push(format!("fn dynd::func::{name}  [generated]"));
        }
    }
    out.sort();
    out.dedup();
    (out.join("\n") + "\n", globs)
}

#[test]
fn the_facade_surface_is_the_pinned_one() {
    let (now, globs) = surface();
    assert!(globs.is_empty(), "glob re-exports in the facade: {globs:?}");
    let pinned = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/api/facade.txt");
    if std::env::var_os("UPDATE_API").is_some() {
        std::fs::write(&pinned, &now).unwrap();
        return;
    }
    let before = std::fs::read_to_string(&pinned).unwrap_or_default();
    if before != now {
        let old: Vec<&str> = before.lines().collect();
        let new: Vec<&str> = now.lines().collect();
        let gone: Vec<&&str> = old.iter().filter(|l| !new.contains(l)).collect();
        let added: Vec<&&str> = new.iter().filter(|l| !old.contains(l)).collect();
        panic!(
            "the facade's public surface changed (UPDATE_API=1 cargo test --test it api_surface pins the new one)\nremoved: {gone:#?}\nadded: {added:#?}"
        );
    }
}

/// Doc examples name the facade's paths (`dynd::nd::Array`), as its users
/// write them, not the inner crates'. The exceptions: modules the facade
/// does not re-export (the kernel builder, the typed reductions, the
/// kernel-level `apply` that the leaf examples run), the name suggester,
/// and the feature-gated interop modules (the inner crates' doc tests see
/// the facade without its features).
#[test]
fn doc_examples_use_the_facade_paths() {
    let allowed = [
        "crates/dynd-kernels/src/arrow_interop.rs",
        "crates/dynd-array/src/arrow.rs",
        "crates/dynd-kernels/src/kernel.rs",
        "crates/dynd-kernels/src/elwise/mod.rs",
        "crates/dynd-kernels/src/elwise/gufunc.rs",
        "crates/dynd-kernels/src/elwise/vector.rs",
        "crates/dynd-kernels/src/elwise/typed/float.rs",
        "crates/dynd-kernels/src/elwise/typed/int.rs",
        "crates/dynd-kernels/src/elwise/typed/predicate.rs",
        "crates/dynd-kernels/src/reduce/mod.rs",
        "crates/dynd-kernels/src/reduce/moments.rs",
        "crates/dynd-kernels/src/reduce/scan.rs",
        "crates/dynd-kernels/src/reduce/stateful.rs",
        "crates/dynd-types/src/parse/names.rs",
    ];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    let mut stack = vec![root.join("crates")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if !path.ends_with("target") {
                    stack.push(path);
                }
                continue;
            }
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if !rel.ends_with(".rs") || !rel.contains("/src/") || allowed.contains(&rel.as_str()) {
                continue;
            }
            let mut in_block = false;
            for (i, line) in std::fs::read_to_string(&path).unwrap().lines().enumerate() {
                let t = line.trim_start();
                let Some(doc) = t.strip_prefix("///").or_else(|| t.strip_prefix("//!")) else {
                    continue;
                };
                if doc.trim_start().starts_with("```") {
                    in_block = !in_block;
                } else if in_block
                    && [
                        "dynd_types::",
                        "dynd_array::",
                        "dynd_kernels::",
                        "dynd_arrfunc::",
                    ]
                    .iter()
                    .any(|c| doc.contains(c))
                {
                    found.push(format!("{rel}:{}: {}", i + 1, doc.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "doc examples naming inner crates:\n{}",
        found.join("\n")
    );
}
