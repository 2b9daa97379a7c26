//! CHLO's rank broadcasting: how the operands of `chlo.broadcast_*` map onto their result.
//!
//! The lower-rank operand's dimension `i` maps to result dimension `broadcast_dimensions[i]`,
//! or, without `broadcast_dimensions`, its dimensions align with the trailing ones of the
//! result (numpy). The higher-rank operand maps identically. Mapped dimensions must be equal
//! or 1; a 1 stretches to the other size.

use crate::types::Dim;

/// Where each operand's dimensions land in the result, and the result's shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankBroadcast {
    /// Per operand, the result dimension of each of its dimensions.
    pub maps: Vec<Vec<i64>>,
    pub shape: Vec<Dim>,
}

/// Broadcasts operands of `shapes` together; `dims` applies to the lower-rank ones (empty:
/// numpy-style trailing alignment).
pub fn rank_broadcast(shapes: &[&[Dim]], dims: &[i64]) -> Result<RankBroadcast, String> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut maps = Vec::with_capacity(shapes.len());
    for shape in shapes {
        let map: Vec<i64> = if shape.len() == rank {
            (0..rank as i64).collect()
        } else if dims.is_empty() {
            ((rank - shape.len()) as i64..rank as i64).collect()
        } else {
            if dims.len() != shape.len() {
                return Err(format!(
                    "broadcast_dimensions has {} entries for an operand of rank {}",
                    dims.len(),
                    shape.len()
                ));
            }
            if dims.iter().any(|&d| d < 0 || d as usize >= rank) {
                return Err(format!(
                    "broadcast_dimensions {dims:?} must lie in [0, {rank})"
                ));
            }
            if dims.windows(2).any(|w| w[0] >= w[1]) {
                return Err(format!(
                    "broadcast_dimensions {dims:?} must be strictly increasing"
                ));
            }
            dims.to_vec()
        };
        maps.push(map);
    }
    let mut shape = vec![Dim::Static(1); rank];
    for (operand, map) in shapes.iter().zip(&maps) {
        for (&size, &d) in operand.iter().zip(map) {
            let slot = &mut shape[d as usize];
            *slot = match (*slot, size) {
                (Dim::Static(1), other) | (other, Dim::Static(1)) => other,
                (Dim::Static(a), Dim::Static(b)) if a == b => Dim::Static(a),
                (Dim::Static(a), Dim::Static(b)) => {
                    return Err(format!(
                        "dimension {d} cannot broadcast sizes {a} and {b} together"
                    ));
                }
                (Dim::Static(n), Dim::Dynamic) | (Dim::Dynamic, Dim::Static(n)) => Dim::Static(n),
                (Dim::Dynamic, Dim::Dynamic) => Dim::Dynamic,
            };
        }
    }
    Ok(RankBroadcast { maps, shape })
}
