//! `inline-composites`: replaces every composite by the body of its decomposition (what XLA
//! does with composites it does not keep) and drops decompositions no longer referenced.
//! Also the inlining `fuse` does first: calls of small pure helpers (JAX writes `jnp.where` as
//! `call @_where`), so that patterns read across them.

use std::collections::{HashMap, HashSet};

use tpuc_ir::{Function, InsertPoint, Module, OpKind, Value, Visibility};

use super::outline::copy_op;
use crate::error::PassError;
use crate::pass::{Pass, PassContext};
use tpuc_ir::Program;

pub struct InlineComposites;

impl Pass for InlineComposites {
    fn name(&self) -> &'static str {
        "inline-composites"
    }

    fn run(&self, program: &mut Program, _: &mut PassContext) -> Result<(), PassError> {
        let module = &mut program.module;
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
        Ok(())
    }
}

/// Inlines the composites of `f` (and those the inlined bodies bring along).
fn inline_in(f: &mut Function, bodies: &HashMap<String, Function>, inlined: &mut HashSet<String>) {
    inline_where(f, bodies, inlined, |kind| match kind {
        OpKind::Composite { decomposition, .. } => Some(decomposition.clone()),
        _ => None,
    });
}

/// Inlines each `func.call` of a private function that is one block of pure ops without
/// regions (none of them a call), then drops the helpers nothing calls any more.
pub fn inline_pure_helpers(module: &mut Module) {
    inline_calls_to(module, is_pure_helper);
}

/// Inlines every `func.call` of a private function of one block (its ops may have regions),
/// then drops the functions nothing calls any more: differentiation reads one function.
pub(crate) fn inline_calls(module: &mut Module) {
    inline_calls_to(module, |f| f.region(f.body()).blocks.len() == 1);
}

/// Inlines the calls of the private functions `inlinable` accepts, then drops those nothing
/// calls any more.
fn inline_calls_to(module: &mut Module, inlinable: impl Fn(&Function) -> bool) {
    let callees_here: HashMap<String, Function> = module
        .functions
        .iter()
        .filter(|f| f.visibility == Visibility::Private && inlinable(f))
        .map(|f| (f.name.clone(), f.clone()))
        .collect();
    if callees_here.is_empty() {
        return;
    }
    let mut inlined = HashSet::new();
    for f in &mut module.functions {
        inline_where(f, &callees_here, &mut inlined, |kind| match kind {
            OpKind::Call { callee } if callees_here.contains_key(callee) => Some(callee.clone()),
            _ => None,
        });
    }
    let still_called = callees(module);
    module
        .functions
        .retain(|f| !inlined.contains(&f.name) || still_called.contains(&f.name));
}

fn is_pure_helper(f: &Function) -> bool {
    f.region(f.body()).blocks.len() == 1
        && f.block(f.entry_block()).ops.iter().all(|&op| {
            let op = f.op(op);
            op.kind == OpKind::Return
                || (op.kind.is_pure()
                    && op.regions.is_empty()
                    && !matches!(op.kind, OpKind::Call { .. }))
        })
}

/// Every function some call or composite names.
fn callees(module: &Module) -> HashSet<String> {
    let mut names = super::decomposition_names(module);
    for f in &module.functions {
        for op in f.walk() {
            if let OpKind::Call { callee } = &f.op(op).kind {
                names.insert(callee.clone());
            }
        }
    }
    names
}

/// Replaces each op `target` names a function of `bodies` for by that function's body, until
/// none is left.
fn inline_where(
    f: &mut Function,
    bodies: &HashMap<String, Function>,
    inlined: &mut HashSet<String>,
    target: impl Fn(&OpKind) -> Option<String>,
) {
    while let Some((op, decomposition)) = f
        .walk()
        .into_iter()
        .find_map(|op| Some((op, target(&f.op(op).kind)?)))
    {
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
