//! `inline-composites`: replaces every composite by the body of its decomposition (what XLA
//! does with composites it does not keep) and drops decompositions no longer referenced.

use std::collections::{HashMap, HashSet};

use tpuc_ir::{Function, InsertPoint, Module, OpKind, Value, Visibility};

use super::outline::copy_op;
use crate::pass::{Pass, PassContext};

pub struct InlineComposites;

impl Pass for InlineComposites {
    fn name(&self) -> &'static str {
        "inline-composites"
    }

    fn run(&self, module: &mut Module, _cx: &mut PassContext) {
        let bodies: HashMap<String, Function> = module
            .functions
            .iter()
            .map(|f| (f.name.clone(), f.clone()))
            .collect();
        let mut inlined = HashSet::new();
        for f in &mut module.functions {
            inline_in(f, &bodies, &mut inlined);
        }
        let still_used = super::decomposition_names(module);
        module.functions.retain(|f| {
            f.visibility == Visibility::Public
                || !inlined.contains(&f.name)
                || still_used.contains(&f.name)
        });
    }
}

/// Inlines the composites of `f` (and those the inlined bodies bring along).
fn inline_in(f: &mut Function, bodies: &HashMap<String, Function>, inlined: &mut HashSet<String>) {
    while let Some(op) = f
        .walk()
        .into_iter()
        .find(|&op| matches!(f.op(op).kind, OpKind::Composite { .. }))
    {
        let OpKind::Composite { decomposition, .. } = f.op(op).kind.clone() else {
            unreachable!("found as a composite")
        };
        let Some(body) = bodies.get(&decomposition) else {
            // The verifier guarantees the callee exists; nothing to inline otherwise.
            return;
        };
        let mut map: HashMap<Value, Value> = body
            .args()
            .iter()
            .copied()
            .zip(f.op(op).operands.clone())
            .collect();
        let entry = body.entry_block();
        let mut returned = Vec::new();
        for &inner in &body.block(entry).ops {
            if body.op(inner).kind == OpKind::Return {
                returned = body.op(inner).operands.iter().map(|v| map[v]).collect();
                continue;
            }
            copy_op(body, inner, f, InsertPoint::Before(op), &mut map);
        }
        f.replace_op(op, &returned);
        inlined.insert(decomposition);
    }
}
