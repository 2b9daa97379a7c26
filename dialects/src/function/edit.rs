//! Editing a function in place: inserting, moving, erasing and cloning ops, rewriting operands
//! and uses. Every method keeps use lists and parent links exact.

use std::collections::HashMap;

use super::{BlockId, Function, InsertPoint, NewOp, OpId, RegionId, Use, Value, ValueDef};
use crate::attr::NamedAttrs;
use crate::location::Location;
use crate::op::OpKind;
use crate::types::Type;

impl Function {
    /// The uses of `value`, in no particular order.
    pub fn uses(&self, value: Value) -> &[Use] {
        &self.uses[value.index()]
    }

    pub fn has_uses(&self, value: Value) -> bool {
        !self.uses[value.index()].is_empty()
    }

    /// Whether any result of `op` is used.
    pub fn op_is_used(&self, op: OpId) -> bool {
        self.op(op).results.iter().any(|&r| self.has_uses(r))
    }

    /// The op defining `value`, if it is an op result.
    pub fn defining_op(&self, value: Value) -> Option<OpId> {
        match self.value(value).def {
            ValueDef::OpResult { op, .. } => Some(op),
            ValueDef::BlockArg { .. } => None,
        }
    }

    /// The block holding `op` (`None` once erased).
    pub fn parent_block(&self, op: OpId) -> Option<BlockId> {
        self.op(op).parent
    }

    /// The region holding `block`.
    pub fn parent_region(&self, block: BlockId) -> Option<RegionId> {
        self.block(block).parent
    }

    /// The op carrying `region` (`None` for the body).
    pub fn parent_op(&self, region: RegionId) -> Option<OpId> {
        self.region(region).parent
    }

    /// The op whose region holds `op`, if `op` is nested.
    pub fn enclosing_op(&self, op: OpId) -> Option<OpId> {
        let block = self.parent_block(op)?;
        self.parent_op(self.parent_region(block)?)
    }

    pub fn kind_mut(&mut self, op: OpId) -> &mut OpKind {
        &mut self.ops[op.index()].kind
    }

    pub fn attrs_mut(&mut self, op: OpId) -> &mut NamedAttrs {
        &mut self.ops[op.index()].attrs
    }

    pub fn set_op_location(&mut self, op: OpId, location: Location) {
        self.ops[op.index()].location = location;
    }

    /// Changes the type of a value (its users are not rechecked: verify afterwards).
    pub fn set_value_type(&mut self, value: Value, ty: Type) {
        self.values[value.index()].ty = ty;
    }

    /// Makes operand `index` of `op` use `value`.
    pub fn set_operand(&mut self, op: OpId, index: usize, value: Value) {
        let old = self.ops[op.index()].operands[index];
        self.remove_use(old, Use { op, operand: index });
        self.ops[op.index()].operands[index] = value;
        self.uses[value.index()].push(Use { op, operand: index });
    }

    /// Replaces all operands of `op`.
    pub fn set_operands(&mut self, op: OpId, operands: Vec<Value>) {
        self.drop_operand_uses(op);
        for (operand, &value) in operands.iter().enumerate() {
            self.uses[value.index()].push(Use { op, operand });
        }
        self.ops[op.index()].operands = operands;
    }

    /// Makes every use of `from` use `to` instead.
    pub fn replace_all_uses_with(&mut self, from: Value, to: Value) {
        if from == to {
            return;
        }
        let uses = std::mem::take(&mut self.uses[from.index()]);
        for u in &uses {
            self.ops[u.op.index()].operands[u.operand] = to;
        }
        self.uses[to.index()].extend(uses);
    }

    /// Replaces every use of each result of `op` with the matching value, then erases `op`.
    pub fn replace_op(&mut self, op: OpId, values: &[Value]) {
        let results = self.op(op).results.clone();
        assert_eq!(
            results.len(),
            values.len(),
            "replace_op: {} needs {} values",
            self.op(op).kind.name(),
            results.len()
        );
        for (&from, &to) in results.iter().zip(values) {
            self.replace_all_uses_with(from, to);
        }
        self.erase_op(op);
    }

    /// Detaches `op` and everything nested in it, and drops their operand uses. Its results
    /// must be unused.
    pub fn erase_op(&mut self, op: OpId) {
        assert!(
            !self.op_is_used(op),
            "erase_op: a result of {} is still used",
            self.op(op).kind.name()
        );
        self.detach(op);
        self.drop_nested(op);
    }

    fn drop_nested(&mut self, op: OpId) {
        self.drop_operand_uses(op);
        for region in self.ops[op.index()].regions.clone() {
            for block in self.regions[region.index()].blocks.clone() {
                for inner in std::mem::take(&mut self.blocks[block.index()].ops) {
                    self.ops[inner.index()].parent = None;
                    self.drop_nested(inner);
                }
            }
        }
    }

    /// Moves an attached op to `at`.
    pub fn move_op(&mut self, op: OpId, at: InsertPoint) {
        self.detach(op);
        self.attach(op, at);
    }

    /// A copy of `op` at `at`: operands are mapped through `map` (unmapped ones are kept),
    /// regions are cloned, and each result of `op` maps to the copy's in `map`.
    pub fn clone_op(&mut self, op: OpId, at: InsertPoint, map: &mut HashMap<Value, Value>) -> OpId {
        let source = self.op(op).clone();
        let regions = source
            .regions
            .iter()
            .map(|&region| self.clone_region(region, map))
            .collect();
        let new = self.insert_op(
            at,
            NewOp {
                kind: source.kind,
                operands: source
                    .operands
                    .iter()
                    .map(|v| *map.get(v).unwrap_or(v))
                    .collect(),
                result_types: source
                    .results
                    .iter()
                    .map(|&r| self.value_type(r).clone())
                    .collect(),
                regions,
                attrs: source.attrs,
                location: source.location,
            },
        );
        let results = self.op(new).results.clone();
        map.extend(source.results.iter().copied().zip(results));
        new
    }

    /// A detached copy of `region`, its block arguments and ops mapped in `map`.
    pub fn clone_region(&mut self, region: RegionId, map: &mut HashMap<Value, Value>) -> RegionId {
        let new_region = self.add_region();
        for block in self.region(region).blocks.clone() {
            let new_block = self.add_block(new_region);
            for arg in self.block(block).args.clone() {
                let ty = self.value_type(arg).clone();
                let new_arg = self.add_block_arg(new_block, ty);
                map.insert(arg, new_arg);
            }
            for inner in self.block(block).ops.clone() {
                self.clone_op(inner, InsertPoint::End(new_block), map);
            }
        }
        new_region
    }

    /// Removes the unused function arguments at `indices` (with their attributes and
    /// locations); the remaining arguments keep their order.
    pub fn remove_args(&mut self, indices: &[usize]) {
        let entry = self.entry_block();
        let args = self.block(entry).args.clone();
        for &i in indices {
            assert!(
                !self.has_uses(args[i]),
                "remove_args: argument {i} of `@{}` is used",
                self.name
            );
        }
        let keep = |i: &usize| !indices.contains(i);
        let kept: Vec<usize> = (0..args.len()).filter(keep).collect();
        self.blocks[entry.index()].args = kept.iter().map(|&i| args[i]).collect();
        self.arg_attrs = kept.iter().map(|&i| self.arg_attrs[i].clone()).collect();
        self.arg_locations = kept
            .iter()
            .map(|&i| self.arg_locations[i].clone())
            .collect();
        for (index, &i) in kept.iter().enumerate() {
            self.values[args[i].index()].def = ValueDef::BlockArg {
                block: entry,
                index,
            };
        }
    }

    /// Puts a detached op at `at`.
    pub(super) fn attach(&mut self, op: OpId, at: InsertPoint) {
        let (block, position) = match at {
            InsertPoint::End(block) => (block, self.block(block).ops.len()),
            InsertPoint::Start(block) => (block, 0),
            InsertPoint::Before(anchor) | InsertPoint::After(anchor) => {
                let block = self
                    .parent_block(anchor)
                    .expect("insertion point: the anchor op is not in a block");
                let index = self.position(block, anchor);
                let after = matches!(at, InsertPoint::After(_));
                (block, index + usize::from(after))
            }
        };
        self.blocks[block.index()].ops.insert(position, op);
        self.ops[op.index()].parent = Some(block);
    }

    fn detach(&mut self, op: OpId) {
        if let Some(block) = self.ops[op.index()].parent.take() {
            let index = self.position(block, op);
            self.blocks[block.index()].ops.remove(index);
        }
    }

    fn position(&self, block: BlockId, op: OpId) -> usize {
        self.block(block)
            .ops
            .iter()
            .position(|&o| o == op)
            .expect("an op's parent block lists it")
    }

    fn drop_operand_uses(&mut self, op: OpId) {
        let operands = self.ops[op.index()].operands.clone();
        for (operand, value) in operands.into_iter().enumerate() {
            self.remove_use(value, Use { op, operand });
        }
    }

    fn remove_use(&mut self, value: Value, u: Use) {
        let uses = &mut self.uses[value.index()];
        if let Some(i) = uses.iter().position(|&x| x == u) {
            uses.swap_remove(i);
        }
    }
}
