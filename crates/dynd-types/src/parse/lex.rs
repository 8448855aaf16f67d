//! The lexer: the input as tokens, in one pass.

use super::*;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Ident,
    Int(Option<usize>),
    Str(String),
    Star,
    Pow,
    Ellipsis,
    Comma,
    Colon,
    Question,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Arrow,
    Equals,
    Eof,
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) start: usize,
    pub(super) end: usize,
}

pub(super) fn lex(input: &str) -> Result<Vec<Token>, ParseError> {
    let bytes = input.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        let simple = |tok, len| (tok, start + len);
        let (tok, end) = match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'*' if bytes.get(i + 1) == Some(&b'*') => simple(Tok::Pow, 2),
            b'*' => simple(Tok::Star, 1),
            b'.' if bytes[i..].starts_with(b"...") => simple(Tok::Ellipsis, 3),
            b',' => simple(Tok::Comma, 1),
            b':' => simple(Tok::Colon, 1),
            b'?' => simple(Tok::Question, 1),
            b'(' => simple(Tok::LParen, 1),
            b')' => simple(Tok::RParen, 1),
            b'[' => simple(Tok::LBracket, 1),
            b']' => simple(Tok::RBracket, 1),
            b'{' => simple(Tok::LBrace, 1),
            b'}' => simple(Tok::RBrace, 1),
            b'=' => simple(Tok::Equals, 1),
            b'-' if bytes.get(i + 1) == Some(&b'>') => simple(Tok::Arrow, 2),
            b'0'..=b'9' => {
                let mut end = i;
                let mut value: Option<usize> = Some(0);
                while end < bytes.len() && bytes[end].is_ascii_digit() {
                    value = value
                        .and_then(|v| v.checked_mul(10))
                        .and_then(|v| v.checked_add(usize::from(bytes[end] - b'0')));
                    end += 1;
                }
                (Tok::Int(value), end)
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let mut end = i;
                while end < bytes.len()
                    && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_')
                {
                    end += 1;
                }
                (Tok::Ident, end)
            }
            b'\'' | b'"' => {
                let (text, end) = lex_string(input, i)?;
                (Tok::Str(text), end)
            }
            _ => {
                let ch = input[i..].chars().next().unwrap_or('\u{fffd}');
                return Err(ParseError::new(
                    input,
                    i,
                    ParseErrorKind::UnexpectedChar(ch),
                ));
            }
        };
        tokens.push(Token { tok, start, end });
        i = end;
    }
    tokens.push(Token {
        tok: Tok::Eof,
        start: input.len(),
        end: input.len(),
    });
    Ok(tokens)
}

/// Lexes a quoted string starting at `start` (the quote); returns its value
/// and the offset after the closing quote.
pub(super) fn lex_string(input: &str, start: usize) -> Result<(String, usize), ParseError> {
    let quote = input.as_bytes()[start] as char;
    let mut out = String::new();
    let mut chars = input[start + 1..].char_indices();
    let at = |off: usize| start + 1 + off;
    while let Some((off, c)) = chars.next() {
        match c {
            c if c == quote => return Ok((out, at(off) + 1)),
            '\\' => {
                let escape_err = || ParseError::new(input, at(off), ParseErrorKind::InvalidEscape);
                let (_, e) = chars.next().ok_or_else(escape_err)?;
                match e {
                    '\\' | '\'' | '"' => out.push(e),
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    'u' => {
                        let mut code = 0u32;
                        for _ in 0..4 {
                            let (_, h) = chars.next().ok_or_else(escape_err)?;
                            code = code * 16 + h.to_digit(16).ok_or_else(escape_err)?;
                        }
                        out.push(char::from_u32(code).ok_or_else(escape_err)?);
                    }
                    _ => return Err(escape_err()),
                }
            }
            c => out.push(c),
        }
    }
    Err(ParseError::new(
        input,
        start,
        ParseErrorKind::UnterminatedString,
    ))
}
