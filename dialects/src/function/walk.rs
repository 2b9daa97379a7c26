//! Visiting the ops of a function, nested regions included.

use super::{Function, OpId, RegionId};

impl Function {
    /// Every attached op, an op before the ops nested in its regions, in block order.
    pub fn walk(&self) -> Vec<OpId> {
        let mut out = Vec::with_capacity(self.op_count());
        self.walk_region(self.body(), &mut out);
        out
    }

    /// The ops of `region` and of the regions nested in it, as [`Function::walk`] orders them.
    pub fn walk_region(&self, region: RegionId, out: &mut Vec<OpId>) {
        for &block in &self.region(region).blocks {
            for &op in &self.block(block).ops {
                out.push(op);
                for &inner in &self.op(op).regions {
                    self.walk_region(inner, out);
                }
            }
        }
    }

    /// Number of attached ops, nested ones included.
    pub fn attached_op_count(&self) -> usize {
        self.walk().len()
    }
}
