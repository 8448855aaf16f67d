//! Strings made from parts: every (start, length) pair is checked against
//! its text block where the array is made, on the one-pass path for a
//! contiguous run of pairs as on the general walk.

use std::sync::Arc;

use dynd_array::arrmeta::{write_pair, Arrmeta, PAIR_SIZE};
use dynd_array::memory::MemoryBlock;
use dynd_array::Array;

/// `pairs.len() * string` over `text`, with the pairs `stride` bytes apart.
fn strings(text: &str, pairs: &[(u64, u64)], stride: usize) -> Result<Array, dynd_array::Error> {
    let mut data = vec![0u8; pairs.len().max(1) * stride];
    for (i, &(start, len)) in pairs.iter().enumerate() {
        write_pair(&mut data[i * stride..i * stride + PAIR_SIZE], start, len);
    }
    let meta = Arrmeta::Fixed {
        size: pairs.len(),
        stride: stride as isize,
        element: Box::new(Arrmeta::Text {
            block: MemoryBlock::from_bytes(text.as_bytes()),
        }),
    };
    let ty = format!("{} * string", pairs.len()).parse().unwrap();
    Array::try_from_parts(ty, Arc::new(meta), MemoryBlock::from_bytes(&data), 0)
}

#[test]
fn pairs_inside_the_text_are_accepted() {
    for stride in [PAIR_SIZE, 2 * PAIR_SIZE] {
        let a = strings("naïve日本", &[(0, 2), (2, 4), (6, 6), (12, 0)], stride).unwrap();
        assert_eq!(a.to_string(), r#"["na", "ïve", "日本", ""]"#);
    }
}

#[test]
fn a_pair_past_the_text_is_refused_naming_it() {
    let bad = [
        vec![(0, 1), (3, 10)],       // ends past the text
        vec![(0, 1), (13, 0)],       // starts past it
        vec![(5, u64::MAX), (0, 1)], // start + length wraps
        vec![(u64::MAX, 2)],
    ];
    for pairs in &bad {
        for stride in [PAIR_SIZE, 2 * PAIR_SIZE] {
            let e = strings("naïve日本", pairs, stride).unwrap_err().to_string();
            assert!(e.contains("text"), "{pairs:?}: {e}");
        }
    }
}
