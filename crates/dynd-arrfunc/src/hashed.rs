//! Hash tables of distinct keys: each key's id in order of first
//! appearance, for grouping ([`crate::groups`]) and dictionary encoding
//! ([`mod@crate::categories`]). A table slot holds the key itself with its
//! hash and id, so a lookup that finds its key reads one slot; strings
//! hash their first eight bytes with one masked load where the text
//! block allows it.

use std::ops::Range;

use dynd_array::text::Strings;

/// A 64-bit mix (murmur3's finaliser): every input bit reaches the low
/// bits a table indexes by.
#[inline(always)]
pub(crate) fn mix(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// Slots below which a table grows at a quarter full (a table this size
/// stays in the L2 cache).
const SMALL: usize = 1 << 14;

/// The id NA keys are given while scanning (their group is put last).
pub(crate) const NA_ID: u32 = u32::MAX;

/// An open-addressing table of the distinct keys seen so far, each with
/// its id (ids count up in order of first appearance). A slot holds the
/// key itself with its hash and id, so a lookup that finds its key reads
/// one slot.
pub(crate) struct Table<K> {
    /// Per slot: the key's hash, its id + 1 (0 for an empty slot), the key.
    slots: Vec<(u64, u32, K)>,
    /// The distinct keys by id.
    keys: Vec<K>,
    /// Each id's first index.
    first: Vec<usize>,
}

impl<K: Copy + Default> Table<K> {
    pub(crate) fn new() -> Table<K> {
        Table {
            slots: vec![(0, 0, K::default()); 64],
            keys: Vec::new(),
            first: Vec::new(),
        }
    }

    /// The number of distinct keys.
    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Each id's first index (the index of the key that made it).
    pub(crate) fn first(&self) -> &[usize] {
        &self.first
    }

    /// The id of `key` (hash `h`), seen at index `i`: the one it has, or
    /// a new one.
    #[inline(always)]
    pub(crate) fn id(&mut self, key: K, h: u64, i: usize, eq: impl Fn(&K, &K) -> bool) -> u32 {
        let mask = self.slots.len() - 1;
        let mut at = h as usize & mask;
        loop {
            let (sh, id, k) = &self.slots[at];
            if *id == 0 {
                return self.insert(key, h, i, at);
            }
            if *sh == h && eq(k, &key) {
                return id - 1;
            }
            at = (at + 1) & mask;
        }
    }

    #[inline(never)]
    fn insert(&mut self, key: K, h: u64, i: usize, at: usize) -> u32 {
        let id = self.keys.len() as u32;
        self.keys.push(key);
        self.first.push(i);
        self.slots[at] = (h, id + 1, key);
        let full = if self.slots.len() < SMALL { 4 } else { 2 };
        if self.keys.len() * full > self.slots.len() {
            // A quarter full while the table is small (a lookup then
            // mostly finds its key in the first slot it reads), half full
            // past that: twice the slots, every key placed again.
            let n = self.slots.len() * 2;
            let mut slots = vec![(0, 0, K::default()); n];
            for s in self.slots.iter().filter(|s| s.1 != 0) {
                let mut at = s.0 as usize & (n - 1);
                while slots[at].1 != 0 {
                    at = (at + 1) & (n - 1);
                }
                slots[at] = *s;
            }
            self.slots = slots;
        }
        id
    }

    /// The ids in key order (`cmp` orders keys), the first NA key's index
    /// if any: the [`Ranking`] of a scan.
    pub(crate) fn rank(
        self,
        cmp: impl Fn(&K, &K) -> std::cmp::Ordering,
        na: Option<usize>,
    ) -> Ranking {
        let mut order: Vec<u32> = (0..self.keys.len() as u32).collect();
        order.sort_unstable_by(|&a, &b| cmp(&self.keys[a as usize], &self.keys[b as usize]));
        let mut rank_of = vec![0u32; self.keys.len()];
        for (r, &id) in order.iter().enumerate() {
            rank_of[id as usize] = r as u32;
        }
        let mut first: Vec<usize> = order.iter().map(|&id| self.first[id as usize]).collect();
        first.extend(na);
        Ranking { rank_of, first }
    }
}

/// The order of the ids a scan gave: each id's rank (its group), and
/// each group's first index (NA's last, where there were NA keys).
pub(crate) struct Ranking {
    /// Each id's rank.
    pub(crate) rank_of: Vec<u32>,
    /// Each group's first index.
    pub(crate) first: Vec<usize>,
}

impl Ranking {
    /// The group of an id a scan gave (NA's is the last).
    #[inline(always)]
    pub(crate) fn group(&self, id: u32) -> u32 {
        if id == NA_ID {
            self.rank_of.len() as u32
        } else {
            self.rank_of[id as usize]
        }
    }
}

/// Keys past which a scan of them runs in parts on rayon's threads.
pub(crate) const PART: usize = 1 << 18;

/// Each key's id by first appearance written to `ids` (NA keys
/// [`NA_ID`]), and the table of the distinct keys (ids, first indexes):
/// `scan(start, part)` scans keys `start..start + part.len()` into their
/// part of `ids`, with a table of its own. With more than one thread and
/// enough keys the parts run on rayon's threads, and each part's table is
/// then merged into the ones before it (its keys looked up there, in its
/// own order of first appearance, which keeps the order over all keys)
/// and its ids mapped to theirs.
pub(crate) fn par_ids<K: Copy + Default + Send>(
    ids: &mut [u32],
    scan: &(dyn Fn(usize, &mut [u32]) -> Table<K> + Sync),
    hash: &(dyn Fn(&K) -> u64 + Sync),
    eq: &(dyn Fn(&K, &K) -> bool + Sync),
) -> Table<K> {
    let n = ids.len();
    let parts = dynd_kernels::par::threads().min(n / PART).max(1);
    if parts == 1 {
        return scan(0, ids);
    }
    let per = n.div_ceil(parts);
    let chunks: Vec<&mut [u32]> = ids.chunks_mut(per).collect();
    let mut tables =
        dynd_kernels::par::map_parts(chunks, &|p, part| scan(p * per, part)).into_iter();
    let mut all = tables.next().unwrap_or_else(Table::new);
    let mut maps: Vec<Vec<u32>> = vec![Vec::new()];
    for t in tables {
        let map = t
            .keys
            .iter()
            .zip(&t.first)
            .map(|(k, &first)| all.id(*k, hash(k), first, eq))
            .collect();
        maps.push(map);
    }
    let chunks: Vec<&mut [u32]> = ids.chunks_mut(per).collect();
    dynd_kernels::par::map_parts(chunks, &|p, part| {
        if let Some(map) = maps.get(p).filter(|m| !m.is_empty()) {
            for id in part.iter_mut().filter(|id| **id != NA_ID) {
                *id = map[*id as usize];
            }
        }
    });
    all
}

/// The ids of `words` by first appearance (see [`par_ids`]).
pub(crate) fn word_ids(words: &[u64], valid: Option<&[bool]>, ids: &mut [u32]) -> Table<u64> {
    par_ids(
        ids,
        &|start, part| {
            let range = start..start + part.len();
            words_table_in(words, valid, range, |i, id| part[i - start] = id).0
        },
        &|w| mix(*w),
        &|a, b| a == b,
    )
}

/// The ids of the strings of `s` by first appearance (see [`par_ids`]).
pub(crate) fn text_ids<'a>(
    s: &'a Strings<'_>,
    valid: Option<&[bool]>,
    ids: &mut [u32],
) -> TextTable<'a> {
    par_ids(
        ids,
        &|start, part| {
            let range = start..start + part.len();
            text_table_in(s, valid, range, |i, id| part[i - start] = id).0
        },
        &|k| text_hash_bytes(k.0).0,
        &text_eq,
    )
}

/// `f(i, id)` for every key `i` of `words` (NA where `valid` is false:
/// [`NA_ID`]), ids by first appearance; then their ranking.
pub(crate) fn scan_words(
    words: &[u64],
    valid: Option<&[bool]>,
    f: impl FnMut(usize, u32),
) -> Ranking {
    let (t, na) = words_table(words, valid, f);
    t.rank(|a, b| a.cmp(b), na)
}

/// As [`scan_words`], giving the table of distinct keys (ids by first
/// appearance) and the first NA key's index instead of their ranking.
pub(crate) fn words_table(
    words: &[u64],
    valid: Option<&[bool]>,
    f: impl FnMut(usize, u32),
) -> (Table<u64>, Option<usize>) {
    words_table_in(words, valid, 0..words.len(), f)
}

/// As [`words_table`], over the keys of `range` alone (their indexes as
/// they are in `words`).
pub(crate) fn words_table_in(
    words: &[u64],
    valid: Option<&[bool]>,
    range: Range<usize>,
    mut f: impl FnMut(usize, u32),
) -> (Table<u64>, Option<usize>) {
    let mut t: Table<u64> = Table::new();
    let mut na = None;
    let start = range.start;
    for (i, &w) in words[range].iter().enumerate() {
        let i = start + i;
        if valid.is_some_and(|v| !v[i]) {
            na.get_or_insert(i);
            f(i, NA_ID);
            continue;
        }
        let id = t.id(w, mix(w), i, |a, b| a == b);
        f(i, id);
    }
    (t, na)
}

/// A string's hash and its first eight bytes (zero-padded) as a word,
/// `b` lying in `text` (a text block): the first word is one load from
/// the block, masked, where the block has eight bytes from `b`'s start.
#[inline(always)]
pub(crate) fn text_hash(b: &[u8], text: &[u8]) -> (u64, u64) {
    let start = (b.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    if b.len() <= 8 {
        if let Some(w) = text.get(start..start.wrapping_add(8)) {
            let w = u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
            let head = if b.len() == 8 {
                w
            } else {
                w & ((1u64 << (8 * b.len())) - 1)
            };
            let h = head ^ (b.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            return (mix(h), head);
        }
    }
    text_hash_bytes(b)
}

/// [`text_hash`] of bytes anywhere.
#[inline(always)]
pub(crate) fn text_hash_bytes(b: &[u8]) -> (u64, u64) {
    // Up to eight bytes as a little-endian word: a whole load, or the
    // bytes one by one (a copy of unknown length is a call, and reading
    // its result back stalls).
    let word = |c: &[u8]| match <[u8; 8]>::try_from(c) {
        Ok(w) => u64::from_le_bytes(w),
        Err(_) => c
            .iter()
            .enumerate()
            .fold(0u64, |w, (k, &x)| w | u64::from(x) << (8 * k)),
    };
    let head = word(&b[..b.len().min(8)]);
    let mut h = head ^ (b.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    if b.len() > 8 {
        for c in b[8..].chunks(8) {
            h = (h ^ word(c))
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .rotate_left(29);
        }
    }
    (mix(h), head)
}

/// [`scan_words`] for strings (or bytes): `s`'s strings, by their bytes.
pub(crate) fn scan_text(
    s: &Strings<'_>,
    valid: Option<&[bool]>,
    f: impl FnMut(usize, u32),
) -> Ranking {
    let (t, na) = text_table(s, valid, f);
    t.rank(|a, b| a.0.cmp(b.0), na)
}

/// Whether two strings (each with its first eight bytes) are equal, their
/// hashes equal: equal lengths and first words, the rest compared only
/// past eight bytes.
#[inline(always)]
pub(crate) fn text_eq(x: &(&[u8], u64), y: &(&[u8], u64)) -> bool {
    x.0.len() == y.0.len() && x.1 == y.1 && (x.0.len() <= 8 || x.0 == y.0)
}

/// A table of the distinct strings, each with its first eight bytes.
pub(crate) type TextTable<'a> = Table<(&'a [u8], u64)>;

/// As [`scan_text`], giving the table of distinct strings (ids by first
/// appearance) and the first NA key's index instead of their ranking.
pub(crate) fn text_table<'a>(
    s: &'a Strings<'_>,
    valid: Option<&[bool]>,
    f: impl FnMut(usize, u32),
) -> (TextTable<'a>, Option<usize>) {
    text_table_in(s, valid, 0..s.len(), f)
}

/// As [`text_table`], over the strings of `range` alone (their indexes as
/// they are in `s`).
pub(crate) fn text_table_in<'a>(
    s: &'a Strings<'_>,
    valid: Option<&[bool]>,
    range: Range<usize>,
    mut f: impl FnMut(usize, u32),
) -> (TextTable<'a>, Option<usize>) {
    let mut t: TextTable<'a> = Table::new();
    let mut na = None;
    let text = s.text_block().bytes();
    let start = range.start;
    for (i, b) in s.iter_range(range).enumerate() {
        let i = start + i;
        if valid.is_some_and(|v| !v[i]) {
            na.get_or_insert(i);
            f(i, NA_ID);
            continue;
        }
        let b = b.unwrap_or_default();
        let (h, head) = text_hash(b, text);
        // Equal hashes, lengths and first words; the rest compared only
        // past eight bytes.
        let id = t.id((b, head), h, i, text_eq);
        f(i, id);
    }
    (t, na)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A string's hash is the same read from its block (one load) or
    /// byte by byte, whatever its length and place.
    #[test]
    fn text_hashes_agree() {
        let text = b"abcdefghijklmnopqrstuvwxyz0123456789".to_vec();
        for start in 0..text.len() {
            for len in 0..=(text.len() - start).min(20) {
                let b = &text[start..start + len];
                assert_eq!(text_hash(b, &text), text_hash_bytes(b), "{start} {len}");
            }
        }
    }
}
