use super::*;

/// Folding block by block gives the pairwise fold's bits, at every
/// length (full and partial last blocks, odd splits).
#[test]
fn pairwise_from_blocks_is_pairwise() {
    let xs: Vec<f64> = (0..CHUNK)
        .map(|i| ((i as f64) * 0.7316).sin() * 1e3)
        .collect();
    let add = |x: f64, y: f64| x + y;
    let lens = (0..1200).chain([4095, 4096, 4097, 30_001, CHUNK - 1, CHUNK]);
    for len in lens {
        let xs = &xs[..len];
        let blocks: Vec<Option<f64>> = xs.chunks(BLOCK).map(|b| fold8(b, &add)).collect();
        let want = fold_pairwise(xs, &add).map(f64::to_bits);
        assert_eq!(
            fold_pairwise_blocks(&blocks, len, &add).map(f64::to_bits),
            want,
            "{len}"
        );
    }
}
