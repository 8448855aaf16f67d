//! Encoding and decoding `fixed_string[N, 'enc']` elements: `N` code units
//! of the encoding, zero-padded at the end.

use dynd_types::Encoding;

/// Why text does not fit a fixed string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FitError {
    /// More code units than the size.
    TooLong { units: usize, size: usize },
    /// A character the encoding cannot hold (non-ASCII in `ascii`).
    Unencodable(char),
}

impl std::fmt::Display for FitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FitError::TooLong { units, size } => {
                write!(
                    f,
                    "needs {units} code units but the fixed string holds {size}"
                )
            }
            FitError::Unencodable(c) => write!(f, "{c:?} cannot be encoded in ASCII"),
        }
    }
}

/// Writes `text` into `out` (`size` code units of `enc`), zero-padding the
/// rest. With `truncate`, text that is too long is cut at a character
/// boundary and unencodable characters become `?`; otherwise both are errors.
pub fn encode(
    text: &str,
    enc: Encoding,
    size: usize,
    out: &mut [u8],
    truncate: bool,
) -> Result<(), FitError> {
    out.fill(0);
    let unit = enc.unit_size();
    let mut used = 0usize;
    for c in text.chars() {
        let mut buf = [0u8; 4];
        let mut units16 = [0u16; 2];
        let (bytes, n): (Vec<u8>, usize) = match enc {
            Encoding::Ascii => {
                let c = if c.is_ascii() {
                    c
                } else if truncate {
                    '?'
                } else {
                    return Err(FitError::Unencodable(c));
                };
                (vec![c as u8], 1)
            }
            Encoding::Utf8 => {
                let s = c.encode_utf8(&mut buf);
                (s.as_bytes().to_vec(), s.len())
            }
            Encoding::Utf16 => {
                let s = c.encode_utf16(&mut units16);
                (s.iter().flat_map(|u| u.to_ne_bytes()).collect(), s.len())
            }
            Encoding::Utf32 => ((c as u32).to_ne_bytes().to_vec(), 1),
        };
        if used + n > size {
            if truncate {
                return Ok(());
            }
            let total: usize = match enc {
                Encoding::Ascii | Encoding::Utf32 => text.chars().count(),
                Encoding::Utf8 => text.len(),
                Encoding::Utf16 => text.encode_utf16().count(),
            };
            return Err(FitError::TooLong { units: total, size });
        }
        out[used * unit..(used + n) * unit].copy_from_slice(&bytes);
        used += n;
    }
    Ok(())
}

/// The text of a fixed string element (up to the zero padding).
pub fn decode(bytes: &[u8], enc: Encoding) -> String {
    match enc {
        Encoding::Ascii | Encoding::Utf8 => {
            let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
            String::from_utf8_lossy(&bytes[..end]).into_owned()
        }
        Encoding::Utf16 => {
            let units: Vec<u16> = bytes
                .chunks_exact(2)
                .map(|c| u16::from_ne_bytes([c[0], c[1]]))
                .take_while(|u| *u != 0)
                .collect();
            String::from_utf16_lossy(&units)
        }
        Encoding::Utf32 => bytes
            .chunks_exact(4)
            .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
            .take_while(|u| *u != 0)
            .map(|u| char::from_u32(u).unwrap_or('\u{fffd}'))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_in_every_encoding() {
        for enc in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
            let mut out = vec![0u8; 8 * enc.unit_size()];
            encode("h\u{e9}llo", enc, 8, &mut out, false).unwrap();
            assert_eq!(decode(&out, enc), "h\u{e9}llo");
        }
        let mut out = [0u8; 4];
        encode("abc", Encoding::Ascii, 4, &mut out, false).unwrap();
        assert_eq!(decode(&out, Encoding::Ascii), "abc");
        assert_eq!(
            encode("\u{e9}", Encoding::Ascii, 4, &mut out, false),
            Err(FitError::Unencodable('\u{e9}'))
        );
        encode("\u{e9}t\u{e9}", Encoding::Ascii, 4, &mut out, true).unwrap();
        assert_eq!(decode(&out, Encoding::Ascii), "?t?");
        assert_eq!(
            encode("abcde", Encoding::Utf8, 4, &mut out, false),
            Err(FitError::TooLong { units: 5, size: 4 })
        );
        encode("ab\u{e9}", Encoding::Utf8, 3, &mut out[..3], true).unwrap();
        assert_eq!(decode(&out[..3], Encoding::Utf8), "ab");
    }
}
