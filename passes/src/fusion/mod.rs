//! `fuse`: recognises attention, norms, activations, rotary embeddings, softmax and top-k
//! routing on StableHLO and outlines each into a `stablehlo.composite` with a private
//! decomposition (see docs/fusion.md for the names, attributes and operand layouts).

mod activation;
mod attention;
mod attention_logits;
mod attention_mask;
mod inline;
mod kernels;
mod matcher;
mod norm;
mod outline;
mod rotary;
mod routing;
mod softmax;

use std::collections::{BTreeMap, HashMap, HashSet};

use tpuc_ir::{Function, Module, OpId, OpKind, PrintOptions};

use crate::error::PassError;
use crate::pass::{Pass, PassContext};
pub use inline::InlineComposites;
pub(crate) use inline::inline_calls;
pub use kernels::{Kernel, KernelLibrary, SubstituteKernels};
use outline::is_constant_expr;
use outline::{Match, outline};
use tpuc_ir::Program;

/// The composite names, with whose convention each follows (docs/fusion.md).
pub mod names {
    pub const ATTENTION: &str = "tpuc.scaled_dot_product_attention";
    pub const RMS_NORM: &str = "odml.rms_norm";
    pub const LAYER_NORM: &str = "tpuc.layer_norm";
    pub const GELU: &str = "tpuc.gelu";
    pub const SILU: &str = "tpuc.silu";
    pub const SWIGLU: &str = "tpuc.swiglu";
    pub const ROTARY: &str = "tpuc.rotary_embedding";
    pub const SOFTMAX: &str = "odml.softmax";
    pub const TOP_K_ROUTING: &str = "tpuc.top_k_routing";
}

type Pattern = fn(&Function, OpId) -> Option<Match>;

/// Tried at every op from the last to the first, in this order: a pattern that contains
/// another (attention ⊃ softmax, SwiGLU ⊃ SiLU, routing ⊃ softmax) comes first.
const PATTERNS: &[Pattern] = &[
    attention::attention,
    routing::top_k_routing,
    activation::swiglu,
    rotary::rotary_embedding,
    norm::rms_norm,
    norm::layer_norm,
    activation::gelu_tanh,
    activation::gelu_erf,
    activation::silu,
    softmax::softmax,
];

pub struct Fuse;

impl Pass for Fuse {
    fn name(&self) -> &'static str {
        "fuse"
    }

    fn run(&self, program: &mut Program, _: &mut PassContext) -> Result<(), PassError> {
        let module = &mut program.module;
        inline::inline_pure_helpers(module);
        let decompositions = decomposition_names(module);
        let mut taken: HashSet<String> = module.functions.iter().map(|f| f.name.clone()).collect();
        let mut outlined = Vec::new();
        for f in &mut module.functions {
            if decompositions.contains(&f.name) {
                continue;
            }
            fuse_function(f, &mut taken, &mut outlined);
        }
        let canonical = deduplicate(&mut outlined);
        for f in &mut module.functions {
            rename_decompositions(f, &canonical);
        }
        module.functions.extend(outlined);
        Ok(())
    }
}

fn fuse_function(f: &mut Function, taken: &mut HashSet<String>, outlined: &mut Vec<Function>) {
    let ops = f.walk();
    for &op in ops.iter().rev() {
        if f.parent_block(op).is_none() {
            continue;
        }
        for pattern in PATTERNS {
            let Some(m) = pattern(f, op) else { continue };
            let name = fresh_name(m.name, taken);
            if let Some(body) = outline(f, &m, &name) {
                taken.insert(name);
                outlined.push(body);
                break;
            }
        }
    }
}

/// `odml.rms_norm` → `odml_rms_norm_N`, the first N not taken.
fn fresh_name(kind: &str, taken: &HashSet<String>) -> String {
    let stem = kind.replace('.', "_");
    (0..)
        .map(|n| format!("{stem}_{n}"))
        .find(|name| !taken.contains(name))
        .expect("an unused name")
}

fn decomposition_names(module: &Module) -> HashSet<String> {
    let mut names = HashSet::new();
    for f in &module.functions {
        for op in f.walk() {
            if let OpKind::Composite { decomposition, .. } = &f.op(op).kind {
                names.insert(decomposition.clone());
            }
        }
    }
    names
}

/// Keeps one of each set of identical decompositions (the same layer repeated); returns
/// what each dropped name becomes.
fn deduplicate(outlined: &mut Vec<Function>) -> HashMap<String, String> {
    let mut first_by_text: HashMap<String, String> = HashMap::new();
    let mut canonical = HashMap::new();
    outlined.retain(|f| {
        let text = body_text(f);
        match first_by_text.get(&text) {
            Some(kept) => {
                canonical.insert(f.name.clone(), kept.clone());
                false
            }
            None => {
                first_by_text.insert(text, f.name.clone());
                true
            }
        }
    });
    canonical
}

/// The function's text without its name and locations.
fn body_text(f: &Function) -> String {
    let mut copy = f.clone();
    copy.name = String::new();
    let mut module = Module::new();
    module.functions.push(copy);
    tpuc_ir::print::generic(&module, &PrintOptions::default())
}

fn rename_decompositions(f: &mut Function, canonical: &HashMap<String, String>) {
    for op in f.walk() {
        if let OpKind::Composite { decomposition, .. } = f.kind_mut(op)
            && let Some(kept) = canonical.get(decomposition.as_str())
        {
            *decomposition = kept.clone();
        }
    }
}

/// Extends a match computed in f32 on narrower inputs to the converts around it: operands
/// converted up only for the match are taken with their converts, and the one convert back
/// of the result joins it.
fn widen_upcast(f: &Function, mut m: Match) -> Match {
    let [result] = m.results[..] else { return m };
    let [user] = f.uses(result) else { return m };
    let convert_back = user.op;
    if f.op(convert_back).kind != OpKind::Convert {
        return m;
    }
    let narrow = matcher::element(f, f.op(convert_back).results[0]);
    let mut inside: HashSet<OpId> = m.ops.iter().copied().collect();
    inside.insert(convert_back);
    let mut widened = false;
    let mut operands = m.operands.clone();
    let mut ops = m.ops.clone();
    for operand in &mut operands {
        let Some(op) = f.defining_op(operand.value) else {
            continue;
        };
        let convert = f.op(op);
        let only_here = f.uses(operand.value).iter().all(|u| inside.contains(&u.op));
        if convert.kind == OpKind::Convert
            && only_here
            && operand.is_plain()
            && matcher::element(f, convert.operands[0]) == narrow
        {
            operand.value = convert.operands[0];
            ops.push(op);
            widened = true;
        }
    }
    if !widened {
        return m;
    }
    ops.push(convert_back);
    m.ops = ops;
    m.operands = operands;
    m.results = vec![f.op(convert_back).results[0]];
    m
}

/// How many composites of each name the module's functions hold.
pub fn composite_counts(module: &Module) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for f in &module.functions {
        for op in f.walk() {
            if let OpKind::Composite { name, .. } = &f.op(op).kind {
                *counts.entry(name.clone()).or_insert(0) += 1;
            }
        }
    }
    counts
}
