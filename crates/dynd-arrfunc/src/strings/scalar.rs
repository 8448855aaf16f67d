//! The string functions on one string, as Python's `str` methods define
//! them (code point indexes, Python's slice bounds, Python's whitespace);
//! the builtins run them elementwise. Where Rust's Unicode tables and
//! Python's differ, the doc of the function says so.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use dynd_kernels::elwise::TextSink;
use dynd_kernels::KernelError;
use unicode_general_category::{get_general_category, GeneralCategory as G};

/// Python's `str.isspace` of one character: Rust's `White_Space`
/// characters and the four information separators `\x1c`..`\x1f`.
pub(super) fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Whether `c` is cased (an upper-, lower- or titlecase letter).
fn is_cased(c: char) -> bool {
    c.is_lowercase() || c.is_uppercase() || is_title(c)
}

/// Whether `c` is a titlecase letter (`ǅ`, `ᾈ`).
fn is_title(c: char) -> bool {
    get_general_category(c) == G::TitlecaseLetter
}

/// The titlecase of `c` (Unicode's `Titlecase_Mapping`): the uppercase,
/// except for the digraphs, the ligatures and `ß` (`"Ss"`), and the Greek
/// letters with iota subscript, whose titlecase differs from their
/// uppercase.
fn push_title(c: char, out: &mut TextSink<'_>) {
    let s: &str = match c {
        'Ǆ' | 'ǅ' | 'ǆ' => "ǅ",
        'Ǉ' | 'ǈ' | 'ǉ' => "ǈ",
        'Ǌ' | 'ǋ' | 'ǌ' => "ǋ",
        'Ǳ' | 'ǲ' | 'ǳ' => "ǲ",
        'ß' => "Ss",
        'ﬀ' => "Ff",
        'ﬁ' => "Fi",
        'ﬂ' => "Fl",
        'ﬃ' => "Ffi",
        'ﬄ' => "Ffl",
        'ﬅ' | 'ﬆ' => "St",
        'և' => "Եւ",
        'ﬓ' => "Մն",
        'ﬔ' => "Մե",
        'ﬕ' => "Մի",
        'ﬖ' => "Վն",
        'ﬗ' => "Մխ",
        '\u{1F80}'..='\u{1F87}' | '\u{1F90}'..='\u{1F97}' | '\u{1FA0}'..='\u{1FA7}' => {
            out.push(char::from_u32(c as u32 + 8).unwrap_or(c));
            return;
        }
        '\u{1F88}'..='\u{1F8F}'
        | '\u{1F98}'..='\u{1F9F}'
        | '\u{1FA8}'..='\u{1FAF}'
        | '\u{1FBC}'
        | '\u{1FCC}'
        | '\u{1FFC}' => {
            out.push(c);
            return;
        }
        '\u{1FB3}' => "\u{1FBC}",
        '\u{1FC3}' => "\u{1FCC}",
        '\u{1FF3}' => "\u{1FFC}",
        _ => {
            for u in c.to_uppercase() {
                out.push(u);
            }
            return;
        }
    };
    out.push_str(s);
}

/// `str.upper`: full case mapping (`"ß"` → `"SS"`).
pub(super) fn upper(s: &str, out: &mut TextSink<'_>) {
    map_case(
        s,
        out,
        &UPPER,
        |out, s| out.push_ascii_uppercase(s),
        char::to_uppercase,
    );
}

/// `str.lower`: full case mapping, a final sigma as `ς`.
pub(super) fn lower(s: &str, out: &mut TextSink<'_>) {
    if s.contains('Σ') {
        // A final sigma needs the whole string.
        out.push_str(&s.to_lowercase());
        return;
    }
    map_case(
        s,
        out,
        &LOWER,
        |out, s| out.push_ascii_lowercase(s),
        char::to_lowercase,
    );
}

/// The characters of the first two planes (every script in use, and the
/// emoji) with their case mapping (upper or lower), filled as they are
/// met: `0` not looked up yet, else the one to three characters it maps
/// to, 21 bits each, each plus one (so an absent one is 0). The tables
/// Rust's `char` methods search (a binary search per character) are read
/// once per character, not once per occurrence; the values are Rust's,
/// whatever its Unicode version.
type CaseCache = [AtomicU64; 0x2_0000];

static UPPER: CaseCache = [const { AtomicU64::new(0) }; 0x2_0000];
static LOWER: CaseCache = [const { AtomicU64::new(0) }; 0x2_0000];

/// A mapping of at most three characters packed as a [`CaseCache`] holds
/// it, or `None` for a longer one (Rust's have at most three).
fn pack(m: impl Iterator<Item = char>) -> Option<u64> {
    let mut packed = 0u64;
    for (k, c) in m.enumerate() {
        if k == 3 {
            return None;
        }
        packed |= (u64::from(c) + 1) << (21 * k);
    }
    Some(packed)
}

/// `s` case-mapped into `out`: runs of ASCII by `ascii`, the other
/// characters through `cache` (filled by `map`).
#[inline]
fn map_case<I: Iterator<Item = char>>(
    s: &str,
    out: &mut TextSink<'_>,
    cache: &CaseCache,
    ascii: impl Fn(&mut TextSink<'_>, &str),
    map: impl Fn(char) -> I,
) {
    let mut rest = s;
    while !rest.is_empty() {
        let run = rest
            .bytes()
            .position(|b| !b.is_ascii())
            .unwrap_or(rest.len());
        ascii(out, &rest[..run]);
        rest = &rest[run..];
        let mut chars = rest.chars();
        let Some(c) = chars.next() else { break };
        rest = chars.as_str();
        let mut packed = match cache.get(c as usize) {
            Some(slot) => match slot.load(Relaxed) {
                0 => {
                    let p = pack(map(c)).unwrap_or(0);
                    // Relaxed: every thread that fills the slot writes
                    // the same value.
                    slot.store(p, Relaxed);
                    p
                }
                p => p,
            },
            None => 0,
        };
        if packed == 0 {
            // Past the cache's planes (or a mapping it cannot hold).
            map(c).for_each(|m| out.push(m));
            continue;
        }
        while packed != 0 {
            let m = ((packed & 0x1F_FFFF) as u32).wrapping_sub(1);
            out.push(char::from_u32(m).unwrap_or(c));
            packed >>= 21;
        }
    }
}

/// `str.swapcase`: uppercase letters to lowercase and the others to
/// uppercase, character by character (a capital sigma becomes `σ` even at
/// the end of a word, where Python writes `ς`).
pub(super) fn swapcase(s: &str, out: &mut TextSink<'_>) {
    for c in s.chars() {
        if c.is_uppercase() {
            c.to_lowercase().for_each(|l| out.push(l));
        } else if c.is_lowercase() {
            c.to_uppercase().for_each(|u| out.push(u));
        } else {
            out.push(c);
        }
    }
}

/// `str.capitalize`: the first character in titlecase, the rest in
/// lowercase.
pub(super) fn capitalize(s: &str, out: &mut TextSink<'_>) {
    let mut chars = s.chars();
    if let Some(c) = chars.next() {
        push_title(c, out);
        out.push_str(&chars.as_str().to_lowercase());
    }
}

/// `str.title`: each character after a cased one in lowercase, the
/// others in titlecase (so `"they're"` → `"They'Re"`, as in Python).
pub(super) fn title(s: &str, out: &mut TextSink<'_>) {
    let mut prev_cased = false;
    for c in s.chars() {
        if prev_cased {
            c.to_lowercase().for_each(|l| out.push(l));
        } else {
            push_title(c, out);
        }
        prev_cased = is_cased(c);
    }
}

/// `str.isalpha`: not empty, and every character a letter (general
/// category `L*`).
pub(super) fn isalpha(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_alpha)
}

fn is_alpha(c: char) -> bool {
    matches!(
        get_general_category(c),
        G::UppercaseLetter
            | G::LowercaseLetter
            | G::TitlecaseLetter
            | G::ModifierLetter
            | G::OtherLetter
    )
}

fn is_decimal(c: char) -> bool {
    c.is_ascii_digit() || get_general_category(c) == G::DecimalNumber
}

/// Digits that are not decimal (`Numeric_Type=Digit`): the superscripts,
/// subscripts, circled and parenthesised digits.
fn is_digit(c: char) -> bool {
    is_decimal(c)
        || matches!(c,
            '²' | '³' | '¹' | '⁰' | '⁴'..='⁹' | '₀'..='₉'
            | '\u{2460}'..='\u{2468}' | '\u{2474}'..='\u{247C}' | '\u{2488}'..='\u{2490}'
            | '\u{24EA}' | '\u{24F5}'..='\u{24FD}' | '\u{24FF}'
            | '\u{2776}'..='\u{277E}' | '\u{2780}'..='\u{2788}' | '\u{278A}'..='\u{2792}'
            | '\u{1369}'..='\u{1371}' | '\u{19DA}' | '\u{10A40}'..='\u{10A43}'
            | '\u{1F100}'..='\u{1F10A}')
}

/// Numbers (general category `N*`) and the Han numerals.
fn is_numeric(c: char) -> bool {
    c.is_numeric()
        || matches!(
            c,
            '零' | '一'
                | '二'
                | '三'
                | '四'
                | '五'
                | '六'
                | '七'
                | '八'
                | '九'
                | '十'
                | '百'
                | '千'
                | '万'
                | '萬'
                | '億'
                | '亿'
                | '兆'
                | '壹'
                | '贰'
                | '貳'
                | '叁'
                | '參'
                | '肆'
                | '伍'
                | '陆'
                | '陸'
                | '柒'
                | '捌'
                | '玖'
                | '拾'
                | '佰'
                | '仟'
                | '廿'
                | '卅'
                | '卌'
        )
}

/// `str.isdecimal`: not empty, every character a decimal digit (`Nd`, in
/// any script: `"٣"` is).
pub(super) fn isdecimal(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_decimal)
}

/// `str.isdigit`: decimal digits and the digits that are not decimal
/// (superscripts, subscripts, circled digits).
pub(super) fn isdigit(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_digit)
}

/// `str.isnumeric`: digits, other numbers (`½`, Roman numerals) and the
/// common Han numerals (`三`, `万`).
pub(super) fn isnumeric(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_numeric)
}

/// `str.isalnum`: every character a letter or a number.
pub(super) fn isalnum(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| is_alpha(c) || is_digit(c) || is_numeric(c))
}

/// `str.isspace`.
pub(super) fn isspace(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_space)
}

/// `str.islower`: at least one cased character, and no upper- or
/// titlecase one.
pub(super) fn islower(s: &str) -> bool {
    let mut cased = false;
    for c in s.chars() {
        if c.is_uppercase() || is_title(c) {
            return false;
        }
        cased |= c.is_lowercase();
    }
    cased
}

/// `str.isupper`: at least one cased character, and no lower- or
/// titlecase one.
pub(super) fn isupper(s: &str) -> bool {
    let mut cased = false;
    for c in s.chars() {
        if c.is_lowercase() || is_title(c) {
            return false;
        }
        cased |= c.is_uppercase();
    }
    cased
}

/// `str.istitle`: upper- and titlecase characters only after uncased
/// ones, lowercase ones only after cased ones, and at least one cased.
pub(super) fn istitle(s: &str) -> bool {
    let (mut cased, mut prev_cased) = (false, false);
    for c in s.chars() {
        if c.is_uppercase() || is_title(c) {
            if prev_cased {
                return false;
            }
            (prev_cased, cased) = (true, true);
        } else if c.is_lowercase() {
            if !prev_cased {
                return false;
            }
            (prev_cased, cased) = (true, true);
        } else {
            prev_cased = false;
        }
    }
    cased
}

/// The number of code points: the bytes less the continuation bytes
/// (`0b10xx_xxxx`), counted eight at a time (the short strings of real
/// data are below the length where `chars().count()` does so).
pub(super) fn str_len(s: &str) -> i64 {
    /// Ones in the bytes of `w` that continue a character.
    #[inline(always)]
    fn continuations(w: u64) -> u32 {
        const LOW: u64 = 0x0101_0101_0101_0101;
        // Bit 7 set and bit 6 clear: a 1 in the low bit of such a
        // byte; the multiplication sums the eight bytes into the top one
        // (at most 8: no carries).
        (((w >> 7) & !(w >> 6) & LOW).wrapping_mul(LOW) >> 56) as u32
    }
    let bytes = s.as_bytes();
    let word = |c: &[u8]| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
    if bytes.len() < 8 {
        let cont = bytes.iter().filter(|&&b| (b as i8) < -64).count();
        return (bytes.len() - cont) as i64;
    }
    let mut chunks = bytes.chunks_exact(8);
    let mut cont = 0u32;
    for c in &mut chunks {
        cont += continuations(word(c));
    }
    // The last eight bytes, less those the chunks counted (the low ones).
    let rest = chunks.remainder().len();
    if rest > 0 {
        let last = word(&bytes[bytes.len() - 8..]) & (!0u64 << (8 * (8 - rest)));
        cont += continuations(last);
    }
    (bytes.len() - cont as usize) as i64
}

/// Python's bounds `s[start:end]` for searching, in code points, of a
/// string of `n`: `end` past the string is its end, negative ones count
/// from the end; `None` where nothing can match (a `start` past the end,
/// an `end` before `start`).
fn search_bounds(n: usize, start: i64, end: Option<i64>) -> Option<(usize, usize)> {
    let n = n as i64;
    let from_end = |i: i64| if i < 0 { (i + n).max(0) } else { i };
    let start = from_end(start);
    let end = from_end(end.unwrap_or(n)).min(n);
    if start > n || end < start {
        return None;
    }
    Some((start as usize, end as usize))
}

/// The byte offset of code point `k` of `s` (its length past the end).
fn byte_at(s: &str, k: usize) -> usize {
    if s.is_ascii() {
        return k.min(s.len());
    }
    s.char_indices().nth(k).map_or(s.len(), |(b, _)| b)
}

/// The part of `s` that `[start:end]` (code points) searches, and where
/// it starts (in code points); `None` where nothing can match.
fn searched(s: &str, start: i64, end: Option<i64>) -> Option<(&str, usize)> {
    let n = str_len(s) as usize;
    let (a, b) = search_bounds(n, start, end)?;
    Some((&s[byte_at(s, a)..byte_at(s, b)], a))
}

/// The code point index of `byte` in `s`.
fn index_of(s: &str, byte: usize) -> i64 {
    str_len(&s[..byte])
}

/// `str.find`: the lowest index (in code points) where `sub` is found in
/// `s[start:end]`, or -1.
pub(super) fn find(s: &str, sub: &str, start: i64, end: Option<i64>) -> i64 {
    match searched(s, start, end) {
        Some((part, at)) => part.find(sub).map_or(-1, |b| at as i64 + index_of(part, b)),
        None => -1,
    }
}

/// `str.rfind`: the highest such index, or -1.
pub(super) fn rfind(s: &str, sub: &str, start: i64, end: Option<i64>) -> i64 {
    match searched(s, start, end) {
        Some((part, at)) => part
            .rfind(sub)
            .map_or(-1, |b| at as i64 + index_of(part, b)),
        None => -1,
    }
}

/// `str.count`: how many times `sub` occurs in `s[start:end]` without
/// overlapping (an empty `sub` is found between every two characters and
/// at both ends).
pub(super) fn count(s: &str, sub: &str, start: i64, end: Option<i64>) -> i64 {
    match searched(s, start, end) {
        Some((part, _)) if sub.is_empty() => str_len(part) + 1,
        Some((part, _)) => part.matches(sub).count() as i64,
        None => 0,
    }
}

/// `str.startswith` of `s[start:end]`.
pub(super) fn startswith(s: &str, prefix: &str, start: i64, end: Option<i64>) -> bool {
    searched(s, start, end).is_some_and(|(part, _)| part.starts_with(prefix))
}

/// `str.endswith` of `s[start:end]`.
pub(super) fn endswith(s: &str, suffix: &str, start: i64, end: Option<i64>) -> bool {
    searched(s, start, end).is_some_and(|(part, _)| part.ends_with(suffix))
}

/// `str.replace`: `old` replaced by `new`, the first `count` times (all
/// for a negative count); an empty `old` matches between every two
/// characters and at both ends.
pub(super) fn replace(s: &str, old: &str, new: &str, count: i64, out: &mut TextSink<'_>) {
    let mut rest = s;
    let mut n = 0i64;
    if old.is_empty() {
        let mut chars = s.chars();
        loop {
            if count >= 0 && n >= count {
                out.push_str(chars.as_str());
                return;
            }
            out.push_str(new);
            n += 1;
            match chars.next() {
                Some(c) => out.push(c),
                None => return,
            }
        }
    }
    while count < 0 || n < count {
        let Some(at) = rest.find(old) else { break };
        out.push_str(&rest[..at]);
        out.push_str(new);
        rest = &rest[at + old.len()..];
        n += 1;
    }
    out.push_str(rest);
}

/// Which characters `strip` removes: Python's whitespace, or those of
/// `chars`.
#[derive(Clone, Debug)]
pub(super) enum Strip {
    /// Whitespace ([`is_space`]).
    Space,
    /// The characters of a string.
    Chars(Vec<char>),
}

impl Strip {
    fn strips(&self, c: char) -> bool {
        match self {
            Strip::Space => is_space(c),
            Strip::Chars(set) => set.contains(&c),
        }
    }

    /// The byte range of `s` left after stripping the start (`left`) and
    /// the end (`right`).
    pub(super) fn range(&self, s: &str, left: bool, right: bool) -> Range<usize> {
        let start = if left {
            s.len() - s.trim_start_matches(|c| self.strips(c)).len()
        } else {
            0
        };
        let end = if right {
            s.trim_end_matches(|c| self.strips(c)).len()
        } else {
            s.len()
        };
        start..end.max(start)
    }
}

/// Where `pad` puts the fill: Python's `ljust`, `rjust` and `center`.
#[derive(Clone, Copy, Debug)]
pub(super) enum Align {
    /// The string first (`ljust`).
    Left,
    /// The string last (`rjust`).
    Right,
    /// The string in the middle (`center`; an odd fill leans left when
    /// the width is odd, as CPython's).
    Center,
}

/// `s` padded with `fill` to `width` code points (unchanged if as wide).
pub(super) fn pad(
    s: &str,
    width: i64,
    fill: char,
    align: Align,
    out: &mut TextSink<'_>,
) -> Result<(), KernelError> {
    let n = str_len(s);
    if width <= n {
        out.push_str(s);
        return Ok(());
    }
    let marg = width - n;
    let left = match align {
        Align::Left => 0,
        Align::Right => marg,
        Align::Center => marg / 2 + (marg & width & 1),
    };
    let total = usize::try_from(marg)
        .ok()
        .and_then(|m| m.checked_mul(fill.len_utf8()))
        .and_then(|m| m.checked_add(s.len()))
        .ok_or_else(|| {
            KernelError::message(format!("a width of {width} does not fit in memory"))
        })?;
    out.try_reserve(total)?;
    (0..left).for_each(|_| out.push(fill));
    out.push_str(s);
    (0..marg - left).for_each(|_| out.push(fill));
    Ok(())
}

/// `str.zfill`: `s` padded on the left with zeros to `width` code points,
/// after a leading sign.
pub(super) fn zfill(s: &str, width: i64, out: &mut TextSink<'_>) -> Result<(), KernelError> {
    let n = str_len(s);
    if width <= n {
        out.push_str(s);
        return Ok(());
    }
    let zeros = usize::try_from(width - n)
        .map_err(|_| KernelError::message(format!("a width of {width} does not fit in memory")))?;
    out.try_reserve(zeros.saturating_add(s.len()))?;
    let (sign, rest) = match s.as_bytes().first() {
        Some(b'+' | b'-') => s.split_at(1),
        _ => ("", s),
    };
    out.push_str(sign);
    (0..zeros).for_each(|_| out.push('0'));
    out.push_str(rest);
    Ok(())
}

/// `str.expandtabs`: each tab replaced by spaces to the next column that
/// is a multiple of `tabsize` (columns restart after `\n` and `\r`); a
/// `tabsize` of 0 or less removes the tabs.
pub(super) fn expandtabs(s: &str, tabsize: i64, out: &mut TextSink<'_>) -> Result<(), KernelError> {
    let mut col: i64 = 0;
    for c in s.chars() {
        match c {
            '\t' if tabsize > 0 => {
                let n = tabsize - col % tabsize;
                out.try_reserve(usize::try_from(n).unwrap_or(usize::MAX))?;
                (0..n).for_each(|_| out.push(' '));
                col += n;
            }
            '\t' => {}
            '\n' | '\r' => {
                out.push(c);
                col = 0;
            }
            c => {
                out.push(c);
                col += 1;
            }
        }
    }
    Ok(())
}

/// Python's slice `s[start:stop:step]` by code points: the indexes in
/// order (`step` not 0).
fn slice_indexes(
    n: usize,
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
) -> impl Iterator<Item = usize> {
    let n = n as i64;
    let (lower, upper) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let norm = |i: i64| {
        if i < 0 {
            (i + n).max(lower)
        } else {
            i.min(upper)
        }
    };
    let start = start.map_or(if step > 0 { lower } else { upper }, norm);
    let stop = stop.map_or(if step > 0 { upper } else { lower }, norm);
    let mut i = start;
    std::iter::from_fn(move || {
        let more = if step > 0 { i < stop } else { i > stop };
        more.then(|| {
            let at = i as usize;
            i += step;
            at
        })
    })
}

/// The byte range of `s[start:stop]` (step 1, code points).
pub(super) fn slice_range(s: &str, start: Option<i64>, stop: Option<i64>) -> Range<usize> {
    let n = str_len(s) as usize;
    let mut ix = slice_indexes(n, start, stop, 1);
    match ix.next() {
        Some(first) => {
            let last = ix.last().unwrap_or(first);
            byte_at(s, first)..byte_at(s, last + 1)
        }
        None => 0..0,
    }
}

/// `s[start:stop:step]` by code points.
pub(super) fn slice(
    s: &str,
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
    out: &mut TextSink<'_>,
) {
    if s.is_ascii() {
        let b = s.as_bytes();
        for i in slice_indexes(s.len(), start, stop, step) {
            out.push(b[i] as char);
        }
        return;
    }
    let chars: Vec<char> = s.chars().collect();
    for i in slice_indexes(chars.len(), start, stop, step) {
        out.push(chars[i]);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn cached_case_maps_are_rusts_for_every_character() {
        // Every character, twice (the second time from the cache), in a
        // string with ASCII around it; lower's final sigma as Rust's.
        for round in 0..2 {
            for c in (0..0x11_0000)
                .filter_map(char::from_u32)
                .step_by(if round == 0 { 1 } else { 7 })
            {
                let s = format!("a{c}Z{c}");
                let (mut up, mut low) = (Vec::new(), Vec::new());
                super::upper(&s, &mut super::TextSink::new(&mut up));
                super::lower(&s, &mut super::TextSink::new(&mut low));
                assert_eq!(String::from_utf8(up).unwrap(), s.to_uppercase(), "{c:?}");
                assert_eq!(String::from_utf8(low).unwrap(), s.to_lowercase(), "{c:?}");
            }
        }
    }

    #[test]
    fn str_len_counts_code_points_at_every_length() {
        let parts = ["a", "é", "日", "😀", "ß", "z"];
        let mut s = String::new();
        for i in 0..80 {
            s.push_str(parts[i * 7 % parts.len()]);
            assert_eq!(super::str_len(&s), s.chars().count() as i64, "{s:?}");
            assert_eq!(super::str_len(&s[..0]), 0);
        }
    }

    use super::*;

    #[test]
    fn search_bounds_follow_python() {
        // Python: "abc".find("", 3), "abc".find("", 4), "abc".find("", 2, 1)
        assert_eq!(find("abc", "", 3, None), 3);
        assert_eq!(find("abc", "", 4, None), -1);
        assert_eq!(find("abc", "", 2, Some(1)), -1);
        // "日本語日本".find("本", 2), .rfind("本"), .find("本", -2)
        assert_eq!(find("日本語日本", "本", 2, None), 4);
        assert_eq!(rfind("日本語日本", "本", 0, None), 4);
        assert_eq!(find("日本語日本", "本", -2, None), 4);
        assert_eq!(find("日本語日本", "本", 0, Some(-4)), -1);
        assert_eq!(find("日本語日本", "本", 0, Some(-3)), 1);
        // "aaaa".count("aa"), "abc".count(""), "abc".count("", 1), "abc".count("", 5)
        assert_eq!(count("aaaa", "aa", 0, None), 2);
        assert_eq!(count("abc", "", 0, None), 4);
        assert_eq!(count("abc", "", 1, None), 3);
        assert_eq!(count("abc", "", 5, None), 0);
        // "abc".startswith("", 3), .startswith("", 4), .endswith("bc", 0, 3), .endswith("b", 0, -1)
        assert!(startswith("abc", "", 3, None));
        assert!(!startswith("abc", "", 4, None));
        assert!(endswith("abc", "bc", 0, Some(3)));
        assert!(endswith("abc", "b", 0, Some(-1)));
    }

    #[test]
    fn slices_follow_python() {
        let take = |s: &str, a, b, c| {
            let mut v = Vec::new();
            let mut out = TextSink::new(&mut v);
            slice(s, a, b, c, &mut out);
            String::from_utf8(v).unwrap()
        };
        // Python: "naïve"[1:4], "naïve"[::-1], "naïve"[-2:], "naïve"[4:1:-2], "abc"[5:]
        assert_eq!(take("naïve", Some(1), Some(4), 1), "aïv");
        assert_eq!(take("naïve", None, None, -1), "evïan");
        assert_eq!(take("naïve", Some(-2), None, 1), "ve");
        assert_eq!(take("naïve", Some(4), Some(1), -2), "eï");
        assert_eq!(take("abc", Some(5), None, 1), "");
        assert_eq!(slice_range("naïve", Some(1), Some(4)), 1..5);
        assert_eq!(slice_range("abc", Some(2), Some(1)), 0..0);
    }
}
