//! The house's floors, checked: inside every crate of the workspace, no
//! import runs back up and no module cycle closes.
//!
//! Each crate's root doc comment holds a `Layering` table that puts every
//! top-level module on a floor:
//!
//! ```text
//! | floor | modules |
//! |---|---|
//! | 2 | `loops` |
//! | 1 | `array`, `memory` |
//! ```
//!
//! A module may name items of modules on lower floors only (not its own
//! floor, not above). Below the top level, the children of each module
//! must not import each other in a cycle. Paths are read with `syn` from
//! the source: `use` trees and every `crate::`/`super::`/`self::` path in
//! code and macro bodies, through the re-exports modules declare.
//! `#[cfg(test)]` items are left out: a test may reach anything.
//!
//! `LAYERING=print cargo test --test it layering -- --nocapture` prints each
//! crate's module graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::{Item, UseTree};

/// A module's path inside its crate (`[]` is the crate root).
type ModPath = Vec<String>;

/// What the walk learns about one crate.
#[derive(Default)]
struct Crate {
    /// Every module, from its path to its re-exports (name → module path
    /// the name was imported from).
    modules: BTreeMap<ModPath, BTreeMap<String, ModPath>>,
    /// Raw references: the module that names a path, and the path
    /// (already made absolute from `crate`, `super` or `self`).
    refs: Vec<(ModPath, Vec<String>)>,
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta.require_list().is_ok_and(|l| {
                l.tokens.to_string().split_whitespace().collect::<String>() == "test"
            })
    })
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Makes `segments` (as written in module `at`) absolute, or `None` for a
/// path into another crate or a local name.
fn absolute(at: &ModPath, segments: &[String]) -> Option<Vec<String>> {
    let mut base = at.clone();
    let mut rest = segments;
    match rest.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &rest[1..];
        }
        Some("self") => rest = &rest[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The flattened paths of a `use` tree, with the name each binds.
fn use_leaves(tree: &UseTree, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    match tree {
        UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_leaves(&p.tree, prefix, out);
            prefix.pop();
        }
        UseTree::Name(n) => {
            let mut path = prefix.clone();
            let name = n.ident.to_string();
            if name != "self" {
                path.push(name.clone());
            }
            let bound = if name == "self" {
                prefix.last().cloned().unwrap_or_default()
            } else {
                name
            };
            out.push((path, bound));
        }
        UseTree::Rename(r) => {
            let mut path = prefix.clone();
            path.push(r.ident.to_string());
            out.push((path, r.rename.to_string()));
        }
        UseTree::Glob(_) => out.push((prefix.clone(), "*".into())),
        UseTree::Group(g) => {
            for t in &g.items {
                use_leaves(t, prefix, out);
            }
        }
    }
}

/// Every `crate::a::b`, `super::a`, `self::a` path in `tokens`.
fn token_paths(tokens: TokenStream, out: &mut Vec<Vec<String>>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < trees.len() {
        match &trees[i] {
            TokenTree::Group(g) => token_paths(g.stream(), out),
            TokenTree::Ident(id)
                if matches!(id.to_string().as_str(), "crate" | "super" | "self") =>
            {
                // Not `$crate`: a macro's own crate root.
                let after_dollar =
                    i > 0 && matches!(&trees[i - 1], TokenTree::Punct(p) if p.as_char() == '$');
                let mut segs = vec![id.to_string()];
                let mut j = i + 1;
                loop {
                    let colons = matches!(trees.get(j), Some(TokenTree::Punct(p)) if p.as_char() == ':')
                        && matches!(trees.get(j + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                    match (colons, trees.get(j + 2)) {
                        (true, Some(TokenTree::Ident(next))) => {
                            segs.push(next.to_string());
                            j += 3;
                        }
                        (true, Some(TokenTree::Group(g))) => {
                            // `crate::a::{b, c}` in a macro body: take
                            // each name of the group.
                            for t in g.stream() {
                                if let TokenTree::Ident(n) = t {
                                    let mut s = segs.clone();
                                    s.push(n.to_string());
                                    out.push(s);
                                }
                            }
                            j += 3;
                            break;
                        }
                        _ => break,
                    }
                }
                if segs.len() > 1 && !after_dollar {
                    out.push(segs);
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
}

impl Crate {
    fn read(root: &Path) -> Crate {
        let mut c = Crate::default();
        c.file(root, &[], true);
        c
    }

    fn file(&mut self, file: &Path, at: &[String], owns_dir: bool) {
        let text = std::fs::read_to_string(file)
            .unwrap_or_else(|e| panic!("reading {}: {e}", file.display()));
        let parsed =
            syn::parse_file(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", file.display()));
        // The directory this module's child files live in.
        let dir = if owns_dir {
            file.parent().unwrap().to_path_buf()
        } else {
            file.with_extension("")
        };
        self.items(&parsed.items, at.to_vec(), &dir);
    }

    fn items(&mut self, items: &[Item], at: ModPath, dir: &Path) {
        self.modules.entry(at.clone()).or_default();
        for item in items {
            match item {
                Item::Mod(m) if is_cfg_test(&m.attrs) => {}
                Item::Mod(m) => {
                    let mut child = at.clone();
                    child.push(m.ident.to_string());
                    match (&m.content, path_attr(&m.attrs)) {
                        (Some((_, inner)), _) => {
                            self.items(inner, child, &dir.join(m.ident.to_string()))
                        }
                        (None, Some(p)) => self.file(&dir.join(p), &child, false),
                        (None, None) => {
                            let flat = dir.join(format!("{}.rs", m.ident));
                            let nested = dir.join(m.ident.to_string()).join("mod.rs");
                            if flat.exists() {
                                self.file(&flat, &child, false)
                            } else {
                                self.file(&nested, &child, true)
                            }
                        }
                    }
                }
                Item::Use(u) if is_cfg_test(&u.attrs) => {}
                Item::Use(u) => {
                    let mut leaves = Vec::new();
                    use_leaves(&u.tree, &mut Vec::new(), &mut leaves);
                    for (path, bound) in leaves {
                        // In the crate root a bare path names a child module.
                        let abs = absolute(&at, &path).or_else(|| {
                            let first = path.first()?;
                            let mut child = at.clone();
                            child.push(first.clone());
                            self.modules.contains_key(&child).then(|| {
                                let mut p = at.clone();
                                p.extend(path.iter().cloned());
                                p
                            })
                        });
                        let Some(abs) = abs else { continue };
                        if !matches!(u.vis, syn::Visibility::Inherited) && bound != "*" {
                            self.modules
                                .entry(at.clone())
                                .or_default()
                                .insert(bound, abs.clone());
                        }
                        self.refs.push((at.clone(), abs));
                    }
                }
                other => {
                    let attrs: &[syn::Attribute] = match other {
                        Item::Fn(f) => &f.attrs,
                        Item::Impl(i) => &i.attrs,
                        Item::Const(c) => &c.attrs,
                        Item::Static(s) => &s.attrs,
                        Item::Struct(s) => &s.attrs,
                        Item::Enum(e) => &e.attrs,
                        Item::Trait(t) => &t.attrs,
                        Item::Type(t) => &t.attrs,
                        Item::Macro(m) => &m.attrs,
                        _ => &[],
                    };
                    if is_cfg_test(attrs) {
                        continue;
                    }
                    let mut paths = Vec::new();
                    token_paths(quote::ToTokens::to_token_stream(other), &mut paths);
                    for p in paths {
                        if let Some(abs) = absolute(&at, &p) {
                            self.refs.push((at.clone(), abs));
                        }
                    }
                }
            }
        }
    }

    /// The module an absolute path lands in: the longest module prefix,
    /// followed through re-exports (a bounded number of times).
    fn target(&self, path: &[String]) -> ModPath {
        let mut path = path.to_vec();
        for _ in 0..8 {
            let mut k = path.len();
            while k > 0 && !self.modules.contains_key(&path[..k]) {
                k -= 1;
            }
            let module = path[..k].to_vec();
            let Some(name) = path.get(k) else {
                return module;
            };
            match self.modules[&module].get(name) {
                Some(origin) if origin != &path[..=k] => {
                    let mut next = origin.clone();
                    next.extend(path[k + 1..].iter().cloned());
                    path = next;
                }
                _ => return module,
            }
        }
        path
    }

    /// Edges between sibling modules, grouped by their parent.
    fn edges(&self) -> BTreeMap<ModPath, BTreeSet<(String, String)>> {
        let mut out: BTreeMap<ModPath, BTreeSet<(String, String)>> = BTreeMap::new();
        for (from, path) in &self.refs {
            let to = self.target(path);
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            if common == from.len() || common == to.len() {
                // A module and its ancestor or descendant.
                continue;
            }
            out.entry(from[..common].to_vec())
                .or_default()
                .insert((from[common].clone(), to[common].clone()));
        }
        out
    }
}

/// The strongly connected components with more than one member.
fn cycles(edges: &BTreeSet<(String, String)>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    let reach = |start: &String| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![start.clone()];
        while let Some(n) = stack.pop() {
            for (a, b) in edges {
                if a == &n && seen.insert(b.clone()) {
                    stack.push(b.clone());
                }
            }
        }
        seen
    };
    let reach: BTreeMap<&String, BTreeSet<String>> = nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for n in &nodes {
        if done.contains(*n) {
            continue;
        }
        let comp: Vec<String> = nodes
            .iter()
            .filter(|m| reach[*n].contains(**m) && reach[**m].contains(*n))
            .map(|m| (*m).clone())
            .collect();
        done.extend(comp.iter().cloned());
        if comp.len() > 1 {
            out.push(comp);
        }
    }
    out
}

/// The `| floor | modules |` table of the crate root's docs.
fn floors(root: &Path) -> BTreeMap<String, u32> {
    let text = std::fs::read_to_string(root).unwrap();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let Some(row) = line.trim().strip_prefix("//! |") else {
            continue;
        };
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let Some(floor) = cells.first().and_then(|c| c.parse::<u32>().ok()) else {
            continue;
        };
        for name in cells.get(1).unwrap_or(&"").split(',') {
            let name = name.trim().trim_matches('`');
            if !name.is_empty() {
                out.insert(name.to_string(), floor);
            }
        }
    }
    out
}

fn crates() -> Vec<(&'static str, PathBuf)> {
    let ws = Path::new(env!("CARGO_MANIFEST_DIR"));
    [
        ("dynd-types", "crates/dynd-types/src/lib.rs"),
        ("dynd-array", "crates/dynd-array/src/lib.rs"),
        ("dynd-math", "crates/dynd-math/src/lib.rs"),
        ("dynd-kernels", "crates/dynd-kernels/src/lib.rs"),
        ("dynd-arrfunc", "crates/dynd-arrfunc/src/lib.rs"),
        ("dynd-macros", "crates/dynd-macros/src/lib.rs"),
        ("dynd", "crates/dynd/src/lib.rs"),
        ("dynd-cli", "crates/dynd-cli/src/main.rs"),
        ("dynd-datafusion", "crates/dynd-datafusion/src/lib.rs"),
    ]
    .into_iter()
    .map(|(n, p)| (n, ws.join(p)))
    .filter(|(_, p)| p.exists())
    .collect()
}

#[test]
fn no_import_runs_back_up() {
    let print = std::env::var("LAYERING").is_ok_and(|v| v == "print");
    let mut problems = Vec::new();
    for (name, root) in crates() {
        let c = Crate::read(&root);
        let edges = c.edges();
        let floors = floors(&root);
        if print {
            println!("== {name}");
            for (parent, es) in &edges {
                for (a, b) in es {
                    let at = |m: &String| {
                        let f = if parent.is_empty() {
                            floors.get(m)
                        } else {
                            None
                        };
                        f.map(|f| format!("{m}@{f}")).unwrap_or_else(|| m.clone())
                    };
                    println!("  {}: {} -> {}", parent.join("::"), at(a), at(b));
                }
            }
        }
        for (parent, es) in &edges {
            for cycle in cycles(es) {
                let within = if parent.is_empty() {
                    String::new()
                } else {
                    format!(" inside `{}`", parent.join("::"))
                };
                let links: Vec<String> = es
                    .iter()
                    .filter(|(a, b)| cycle.contains(a) && cycle.contains(b))
                    .map(|(a, b)| format!("{a} -> {b}"))
                    .collect();
                problems.push(format!(
                    "{name}: modules {{{}}}{within} import each other in a cycle ({})",
                    cycle.join(", "),
                    links.join(", ")
                ));
            }
        }
        // The top level against the declared floors.
        let top: BTreeSet<&String> = c
            .modules
            .keys()
            .filter(|m| m.len() == 1)
            .map(|m| &m[0])
            .collect();
        for m in &top {
            if !floors.contains_key(*m) {
                problems.push(format!(
                    "{name}: module `{m}` is on no floor of the crate docs' layering table"
                ));
            }
        }
        for (a, b) in edges.get(&Vec::new()).into_iter().flatten() {
            if let (Some(fa), Some(fb)) = (floors.get(a), floors.get(b)) {
                if fb >= fa {
                    problems.push(format!(
                        "{name}: `{a}` (floor {fa}) imports `{b}` (floor {fb}); \
                         a module imports only from floors below its own"
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}\n", problems.join("\n"));
}

/// The checker itself: a cycle and an upward import are found.
#[test]
fn the_check_sees_cycles_and_upward_imports() {
    let mut edges = BTreeSet::new();
    edges.insert(("a".to_string(), "b".to_string()));
    edges.insert(("b".to_string(), "c".to_string()));
    assert!(cycles(&edges).is_empty());
    edges.insert(("c".to_string(), "a".to_string()));
    assert_eq!(cycles(&edges), vec![vec!["a", "b", "c"]]);

    let file: syn::File = syn::parse_str(
        "mod a { pub use super::b::Thing; fn f() { crate::c::g(); } }
         mod b { pub struct Thing; fn h() { let _ = super::a::Thing; } }
         mod c { pub fn g() {} }
         #[cfg(test)] mod tests { use crate::b::Thing; }",
    )
    .unwrap();
    let mut c = Crate::default();
    c.items(&file.items, Vec::new(), Path::new("."));
    let edges = &c.edges()[&Vec::<String>::new()];
    let pairs: Vec<(&str, &str)> = edges
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    // `super::a::Thing` is `b`'s own item re-exported by `a`: b -> b,
    // which is no edge.
    assert_eq!(pairs, [("a", "b"), ("a", "c")]);
}

/// Every `tests/*.rs` file (and `tests/*/mod.rs` directory) of a package
/// that sets `autotests = false` is compiled: a module of its
/// `tests/main.rs`, or a `[[test]]` of its own. A file named nowhere would
/// never build or run, and nothing else would notice.
#[test]
fn every_test_file_is_compiled() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut packages = vec![root.to_path_buf()];
    let mut members: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    members.sort();
    packages.extend(members);
    let mut checked = 0;
    for package in packages {
        let Ok(manifest) = std::fs::read_to_string(package.join("Cargo.toml")) else {
            continue;
        };
        if !manifest.contains("autotests = false") {
            continue;
        }
        let tests = package.join("tests");
        let main = std::fs::read_to_string(tests.join("main.rs")).unwrap_or_default();
        for entry in std::fs::read_dir(&tests).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let file = path.extension().is_some_and(|e| e == "rs") && name != "main";
            let dir = path.join("mod.rs").exists();
            if !(file || dir) {
                continue;
            }
            let module = main.contains(&format!("\nmod {name};"));
            let target = manifest.contains(&format!("path = \"tests/{name}.rs\""));
            assert!(
                module || (file && target),
                "{} is compiled by nothing: add `mod {name};` to tests/main.rs or a [[test]] to {}",
                path.display(),
                package.join("Cargo.toml").display()
            );
            checked += 1;
        }
    }
    assert!(checked > 30, "only {checked} test files found");
}
