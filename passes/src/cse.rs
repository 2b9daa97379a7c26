//! Common-subexpression elimination: a pure op equal to an earlier one in the same block
//! (same kind, attributes, operands and result types; regions compared structurally) is
//! replaced by it. Constants are ops like any other, so equal constants become one.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::hash::{DefaultHasher, Hash, Hasher};

use tpuc_ir::{Function, OpId, OpKind, RegionId, Value};

use crate::error::PassError;
use crate::pass::{Pass, PassContext};
use tpuc_ir::Program;

pub(crate) struct Cse;

impl Pass for Cse {
    fn name(&self) -> &'static str {
        "cse"
    }

    fn run(&self, program: &mut Program, _: &mut PassContext) -> Result<(), PassError> {
        let module = &mut program.module;
        for function in &mut module.functions {
            let body = function.body();
            eliminate_in_region(function, body);
        }
        Ok(())
    }
}

/// Each block of a region is its own scope: values of enclosing blocks are not reused inside
/// regions, so bodies of reductions never capture values from outside.
fn eliminate_in_region(f: &mut Function, region: RegionId) {
    for block in f.region(region).blocks.clone() {
        let mut seen: HashMap<u64, Vec<OpId>> = HashMap::new();
        for op in f.block(block).ops.clone() {
            for nested in f.op(op).regions.clone() {
                eliminate_in_region(f, nested);
            }
            let operation = f.op(op);
            if !operation.kind.is_pure()
                || operation.kind.is_terminator()
                || operation.results.is_empty()
            {
                continue;
            }
            let key = fingerprint(f, op);
            let candidates = seen.entry(key).or_default();
            match candidates
                .iter()
                .find(|&&earlier| equivalent(f, earlier, op))
            {
                Some(&earlier) => {
                    let results = f.op(earlier).results.clone();
                    f.replace_op(op, &results);
                }
                None => candidates.push(op),
            }
        }
    }
}

/// A hash that equal ops share.
fn fingerprint(f: &Function, op: OpId) -> u64 {
    let mut hasher = HashWriter(DefaultHasher::new());
    let operation = f.op(op);
    // Constant data (inlined weights can be gigabytes) is hashed as bytes, not formatted.
    match &operation.kind {
        OpKind::Constant(data) => data.hash(&mut hasher.0),
        kind => {
            let _ = write!(hasher, "{kind:?}|");
        }
    }
    let _ = write!(hasher, "{:?}|{:?}|", operation.operands, operation.attrs);
    for &result in &operation.results {
        let _ = write!(hasher, "{}|", f.value_type(result));
    }
    for &region in &operation.regions {
        let mut nested = Vec::new();
        f.walk_region(region, &mut nested);
        for inner in nested {
            let _ = write!(hasher, "{:?}/", f.op(inner).kind);
        }
    }
    hasher.0.finish()
}

struct HashWriter(DefaultHasher);

impl std::fmt::Write for HashWriter {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.write(s.as_bytes());
        Ok(())
    }
}

fn equivalent(f: &Function, a: OpId, b: OpId) -> bool {
    let mut map = HashMap::new();
    ops_equal(f, a, b, &mut map)
}

/// Whether `a` and `b` compute the same thing, where `map` pairs values local to the regions
/// being compared.
fn ops_equal(f: &Function, a: OpId, b: OpId, map: &mut HashMap<Value, Value>) -> bool {
    let (x, y) = (f.op(a), f.op(b));
    let same_operands = x.operands.len() == y.operands.len()
        && x.operands
            .iter()
            .zip(&y.operands)
            .all(|(p, q)| map.get(p).unwrap_or(p) == q);
    let same_types = x.results.len() == y.results.len()
        && x.results
            .iter()
            .zip(&y.results)
            .all(|(&p, &q)| f.value_type(p) == f.value_type(q));
    if !(same_operands
        && same_types
        && x.kind == y.kind
        && x.attrs == y.attrs
        && x.regions.len() == y.regions.len())
    {
        return false;
    }
    map.extend(x.results.iter().copied().zip(y.results.iter().copied()));
    x.regions
        .iter()
        .zip(&y.regions)
        .all(|(&p, &q)| regions_equal(f, p, q, map))
}

fn regions_equal(f: &Function, a: RegionId, b: RegionId, map: &mut HashMap<Value, Value>) -> bool {
    let (ra, rb) = (f.region(a), f.region(b));
    ra.blocks.len() == rb.blocks.len()
        && ra.blocks.iter().zip(&rb.blocks).all(|(&p, &q)| {
            let (ba, bb) = (f.block(p), f.block(q));
            if ba.args.len() != bb.args.len() || ba.ops.len() != bb.ops.len() {
                return false;
            }
            for (&x, &y) in ba.args.iter().zip(&bb.args) {
                if f.value_type(x) != f.value_type(y) {
                    return false;
                }
                map.insert(x, y);
            }
            ba.ops
                .iter()
                .zip(&bb.ops)
                .all(|(&x, &y)| ops_equal(f, x, y, map))
        })
}
