//! Regular expressions over strings, through the `regex` crate (linear
//! time in the text, no backtracking; its syntax, which is Perl's without
//! look-around and back-references). A pattern is compiled once per
//! call, never per element; a pattern that does not compile is an error
//! quoting it, with the position of the problem.

use dynd_kernels::elwise::Leaf;
use dynd_kernels::strings::split_by;
use dynd_kernels::Array;
use regex::Regex;

use super::{run, text};
use crate::error::Error;

/// `pattern` compiled, or the error quoting it.
fn compile(op: &'static str, pattern: &str) -> Result<Regex, Error> {
    Regex::new(pattern).map_err(|e| Error::Argument {
        op,
        what: "the pattern",
        expected: "a regular expression (the `regex` crate's syntax)",
        found: format!("{pattern:?}: {e}").into(),
    })
}

/// Whether `pattern` matches anywhere in each string of `x` (anchor it
/// with `^` and `$` for a whole-string match).
///
/// ```
/// use dynd::func::regex_match;
/// use dynd::nd::array;
///
/// let r = regex_match(&array!["a1", "b", "日本2"], r"\d$")?;
/// assert_eq!(r.to_string(), "[true, false, true]");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// `x` not strings; a pattern that does not compile (quoted, with where).
pub fn regex_match(x: &Array, pattern: &str) -> Result<Array, Error> {
    let re = compile("regex_match", pattern)?;
    run("regex_match", &[x], &Leaf::text1(move |s| re.is_match(s)))
}

/// Each string of `x` with every match of `pattern` replaced by
/// `replacement`, in which `$1`, `${name}` are the groups (`$$` a `$`).
///
/// # Errors
///
/// As [`regex_match`].
pub fn regex_replace(x: &Array, pattern: &str, replacement: &str) -> Result<Array, Error> {
    let re = compile("regex_replace", pattern)?;
    let rep = replacement.to_string();
    run(
        "regex_replace",
        &[x],
        &Leaf::text_map1(move |s, out| out.push_str(&re.replace_all(s, rep.as_str()))),
    )
}

/// Group `group` (0, the whole match, without it) of the first match of
/// `pattern` in each string of `x`, as a view of its characters; NA
/// where nothing matches or the group took no part (`?string`).
///
/// # Errors
///
/// As [`regex_match`], and a group the pattern does not have.
pub fn regex_extract(x: &Array, pattern: &str, group: Option<i64>) -> Result<Array, Error> {
    let re = compile("regex_extract", pattern)?;
    let g = group.unwrap_or(0);
    let g = usize::try_from(g)
        .ok()
        .filter(|&g| g < re.captures_len())
        .ok_or_else(|| Error::Argument {
            op: "regex_extract",
            what: "group",
            expected: "a group of the pattern (0 is the whole match)",
            found: format!("{g}, of a pattern with {} groups", re.captures_len() - 1).into(),
        })?;
    run(
        "regex_extract",
        &[x],
        &Leaf::text_view1_or_na(move |s| re.captures(s)?.get(g).map(|m| m.range())),
    )
}

/// Each string of `x` split at every match of `pattern`: a `var` row of
/// views of its characters per string (an empty string gives one empty
/// piece, as `split` does).
///
/// # Errors
///
/// As [`regex_match`]; `x` with `var` dimensions.
pub fn regex_split(x: &Array, pattern: &str) -> Result<Array, Error> {
    let re = compile("regex_split", pattern)?;
    let x = text("regex_split", x)?;
    split_by(
        &x,
        "regex_split",
        &|s: &str, piece: &mut dyn FnMut(usize, usize)| {
            let mut last = 0;
            for m in re.find_iter(s) {
                piece(last, m.start() - last);
                last = m.end();
            }
            piece(last, s.len() - last);
        },
    )
}
