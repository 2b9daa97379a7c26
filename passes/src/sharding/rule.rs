//! Sharding rules in Shardy's factor form: every dimension of an op's operands and results
//! maps to a list of factors (major to minor), and a factor's sharding is shared by every
//! dimension that carries it. `([i, k], [k, j]) -> ([i, j])` is a matrix product with `k` a
//! reduction factor.

/// How sharding a factor along an axis affects the op.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FactorKind {
    /// The op computes each slice of the factor independently (batch, features, elementwise).
    PassThrough,
    /// The op sums over the factor: sharding it leaves partial results that need a reduction.
    Reduction,
    /// The op needs the whole factor on every device (a sorted, sliced or windowed dimension).
    NeedReplication,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Factor {
    pub size: u64,
    pub kind: FactorKind,
}

/// Per dimension of one tensor, its factors from major to minor; empty for a dimension no
/// factor describes (a broadcast size-1 dimension, an unrelated reshape group).
pub type TensorFactors = Vec<Vec<usize>>;

/// The sharding rule of one op.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OpRule {
    pub factors: Vec<Factor>,
    pub operands: Vec<TensorFactors>,
    pub results: Vec<TensorFactors>,
}

impl OpRule {
    /// A rule over `operands` and `results` tensors of the given ranks, with no factors yet.
    pub(crate) fn with_ranks(operands: &[usize], results: &[usize]) -> OpRule {
        OpRule {
            factors: Vec::new(),
            operands: operands
                .iter()
                .map(|&rank| vec![Vec::new(); rank])
                .collect(),
            results: results.iter().map(|&rank| vec![Vec::new(); rank]).collect(),
        }
    }

    /// Adds a factor and returns its index.
    pub(crate) fn factor(&mut self, size: u64, kind: FactorKind) -> usize {
        self.factors.push(Factor { size, kind });
        self.factors.len() - 1
    }

    /// Appends `factor` (as the most minor so far) to operand `operand`'s dimension `dim`.
    pub(crate) fn on_operand(&mut self, operand: usize, dim: usize, factor: usize) {
        self.operands[operand][dim].push(factor);
    }

    pub(crate) fn on_result(&mut self, result: usize, dim: usize, factor: usize) {
        self.results[result][dim].push(factor);
    }

    /// The tensors of the rule, operands first, then results.
    pub fn tensors(&self) -> impl Iterator<Item = &TensorFactors> {
        self.operands.iter().chain(&self.results)
    }
}
