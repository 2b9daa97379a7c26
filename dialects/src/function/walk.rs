//! Visiting the ops of a function, nested regions included.

use super::{Function, OpId, RegionId};
use crate::op::{BinaryOp, OpKind};

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

    /// The binary op `op`'s single region applies to its two block arguments (a `reduce` or
    /// `reduce_window` of `add`, `maximum`, ...), if that is all the region does.
    pub fn single_binary_body(&self, op: OpId) -> Option<BinaryOp> {
        let [region] = self.op(op).regions.as_slice() else {
            return None;
        };
        let [block] = self.region(*region).blocks.as_slice() else {
            return None;
        };
        let block = self.block(*block);
        let [combine, ret] = block.ops.as_slice() else {
            return None;
        };
        let (combine, ret) = (self.op(*combine), self.op(*ret));
        let OpKind::Binary(binary) = combine.kind else {
            return None;
        };
        let args = &block.args;
        (args.len() == 2
            && (combine.operands == *args || combine.operands == [args[1], args[0]])
            && ret.operands == combine.results)
            .then_some(binary)
    }
}
