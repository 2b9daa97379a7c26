//! TPU memory holds arrays in tiles of 8 × 128 elements over their two most minor dimensions
//! (the compiler puts the larger one last), so a shard of `[32, 64]` takes as much memory as
//! one of `[32, 128]`. Where a plan may choose which dimension to split, it splits the one
//! whose shard wastes least; on ties, the first.

/// The elements a shard of `shape`, split `parts` ways along `dim`, occupies in tiles.
pub fn tiled_elements(shape: &[u64], dim: usize, parts: u64) -> u64 {
    let mut shard = shape.to_vec();
    shard[dim] /= parts;
    let up = |n: u64, to: u64| n.div_ceil(to) * to;
    match shard.as_slice() {
        [] => 1,
        [n] => up(*n, 128),
        [outer @ .., a, b] => {
            let tiles = (up(*a, 8) * up(*b, 128)).min(up(*b, 8) * up(*a, 128));
            outer.iter().product::<u64>() * tiles
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_that_fills_tiles_wastes_least() {
        // [128, 64] over 4: [128, 16] fills its tiles, [32, 64] pads 64 to 128.
        assert_eq!(tiled_elements(&[128, 64], 1, 4), 128 * 16);
        assert_eq!(tiled_elements(&[128, 64], 0, 4), 32 * 128);
        assert_eq!(tiled_elements(&[4096, 4096], 0, 4), 1024 * 4096);
        assert_eq!(tiled_elements(&[64], 0, 4), 128);
    }
}
