//! The names a datashape may use: known type names, type variables, and
//! suggestions for a misspelt one.

/// Every lowercase name the parser knows, for "did you mean" suggestions.
pub(super) const KNOWN_NAMES: &[&str] = &[
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "int128",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uint128",
    "float16",
    "float32",
    "float64",
    "complex",
    "complex64",
    "complex128",
    "string",
    "bytes",
    "int",
    "real",
    "intptr",
    "uintptr",
    "size",
    "void",
    "type",
    "var",
    "fixed",
    "fixed_string",
    "fixed_bytes",
    "option",
    "Fixed",
    "Any",
    "Scalar",
    "Dim",
];

/// Type-variable names that are reserved for kinds.
pub(super) const RESERVED: &[&str] = &["Fixed", "Any", "Scalar", "Dim"];

/// Whether `name` can name a type variable: a capitalised identifier that is
/// not one of the kind names `Fixed`, `Any`, `Scalar`, `Dim`.
pub fn is_typevar_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !RESERVED.contains(&name)
}

/// Whether `name` prints without quotes as a field or keyword name.
pub(crate) fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Edits (insertions, deletions, substitutions and swaps of neighbours)
/// from `a` to `b`: the optimal-string-alignment distance.
pub(super) fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Rows i - 2, i - 1 and i of the table.
    let mut before: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j - 1] + cost).min(prev[j] + 1).min(cur[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                cur[j] = cur[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut prev, cur);
    }
    prev[b.len()]
}

pub(super) fn suggest(name: &str) -> Option<&'static str> {
    similar_names(name, KNOWN_NAMES.iter().copied())
        .first()
        .copied()
}

/// The candidates closest to `name` (ignoring case), within two edits (a
/// swap of neighbours is one), those that start with `name` first, for
/// "did you mean" messages; none for names over 32 characters.
///
/// ```
/// let names = ["sum", "sin", "sqrt", "mean", "min"];
/// assert_eq!(dynd::ndt::similar_names("summ", names), ["sum"]);
/// assert_eq!(dynd::ndt::similar_names("mena", names), ["mean"]);
/// assert_eq!(dynd::ndt::similar_names("sim", names), ["sin", "sum"]);
/// assert!(dynd::ndt::similar_names("zzzzzz", names).is_empty());
/// ```
pub fn similar_names<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Vec<&'a str> {
    if name.len() > 32 {
        return Vec::new();
    }
    let lower = name.to_ascii_lowercase();
    let mut close: Vec<(usize, bool, &str)> = candidates
        .into_iter()
        .map(|k| {
            (
                edit_distance(&lower, &k.to_ascii_lowercase()),
                !k.starts_with(name),
                k,
            )
        })
        .filter(|(d, _, k)| *d <= 2 && *d < k.len())
        .collect();
    close.sort();
    close.dedup_by_key(|c| c.2);
    let best = close.first().map_or(0, |c| c.0);
    close
        .into_iter()
        .take_while(|c| c.0 == best)
        .map(|(.., k)| k)
        .collect()
}
