//! A datashape that did not parse: what was wrong, where, and an excerpt
//! of the input.

use super::*;

/// A datashape that did not parse: where, and what was expected there.
///
/// `Display` renders the message, the position and the offending line with
/// a caret under the problem:
///
/// ```
/// let err = dynd::ndt::Type::parse("3 * var * int3").unwrap_err();
/// assert_eq!(err.offset(), 10);
/// assert_eq!(
///     err.to_string(),
///     "unknown type 'int3' (did you mean 'int32'?) at line 1, column 11 (byte 10)\n  \
///      3 * var * int3\n            ^"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    kind: ParseErrorKind,
    offset: usize,
    line: usize,
    column: usize,
    line_text: String,
    caret_column: usize,
}

/// What went wrong in a [`ParseError`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A token other than the expected one.
    Expected {
        /// What the grammar allows here.
        expected: String,
        /// What was found instead (a token, or "end of input").
        found: String,
    },
    /// An identifier that names no type.
    UnknownName {
        /// The identifier.
        name: String,
        /// A known name within a small edit distance.
        suggestion: Option<&'static str>,
    },
    /// A character that starts no token.
    UnexpectedChar(char),
    /// A quoted string without its closing quote.
    UnterminatedString,
    /// A backslash escape other than `\\`, `\'`, `\"`, `\n`, `\t`, `\r` or `\uXXXX`.
    InvalidEscape,
    /// An integer that does not fit in `usize`.
    IntegerTooLarge,
    /// Nesting deeper than the parser allows.
    TooDeep {
        /// The nesting limit.
        limit: usize,
    },
    /// A rule of the type model was broken at this position.
    Invalid {
        /// The rule, in words.
        what: String,
    },
}

impl ParseError {
    pub(crate) fn new(input: &str, offset: usize, kind: ParseErrorKind) -> ParseError {
        let offset = offset.min(input.len());
        let before = &input[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line_end = input[offset..]
            .find('\n')
            .map_or(input.len(), |i| offset + i);
        let caret_column = input[line_start..offset].chars().count();
        ParseError {
            kind,
            offset,
            line,
            column: caret_column + 1,
            line_text: input[line_start..line_end]
                .trim_end_matches('\r')
                .to_string(),
            caret_column,
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ParseErrorKind {
        &self.kind
    }

    /// The byte offset of the problem in the input.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The 1-based line of the problem.
    pub fn line(&self) -> usize {
        self.line
    }

    /// The 1-based column (in characters) of the problem.
    pub fn column(&self) -> usize {
        self.column
    }

    /// The message alone, without position or caret.
    pub fn message(&self) -> String {
        self.kind.to_string()
    }
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseErrorKind::Expected { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            ParseErrorKind::UnknownName { name, suggestion } => {
                write!(f, "unknown type '{name}'")?;
                if let Some(s) = suggestion {
                    write!(f, " (did you mean '{s}'?)")?;
                }
                Ok(())
            }
            ParseErrorKind::UnexpectedChar(c) => write!(f, "unexpected character {c:?}"),
            ParseErrorKind::UnterminatedString => f.write_str("unterminated quoted string"),
            ParseErrorKind::InvalidEscape => f.write_str(
                "invalid escape in quoted string (expected \\\\, \\', \\\", \\n, \\t, \\r or \\uXXXX)",
            ),
            ParseErrorKind::IntegerTooLarge => f.write_str("integer is too large"),
            ParseErrorKind::TooDeep { limit } => {
                write!(f, "type is nested more than {limit} levels deep")
            }
            ParseErrorKind::Invalid { what } => f.write_str(what),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {}, column {} (byte {})\n  {}\n  {:width$}^",
            self.kind,
            self.line,
            self.column,
            self.offset,
            self.line_text,
            "",
            width = self.caret_column
        )
    }
}

impl std::error::Error for ParseError {}
