//! The verifier: structure (blocks, terminators, use before def, dominance), per-op spec
//! constraints through [`crate::infer`], signatures of functions, calls and composites.
//!
//! It keeps going after an error wherever the rest can still be checked soundly, and returns
//! every error it found: each op is checked on its own, a region that is missing or attached
//! twice is not entered, and an op whose operands or regions are broken is not type-checked.

mod errors;
#[cfg(test)]
mod size_tests;
mod sources;

use std::collections::HashSet;

pub use errors::{OpRef, Site, VerifyError, VerifyErrors};

use crate::attr::{Attribute, NamedAttrs, TensorSharding};
use crate::error::{IrError, Result};
use crate::function::{BlockId, Function, OpId, RegionId, Value, ValueDef};
use crate::infer::{self, OpSig, RegionSig};
use crate::module::Module;
use crate::op::{OpKind, attr_name};
use crate::size_limit;
use crate::types::Type;

/// Checks the whole module; an error holds every problem found ([`IrError::Verify`]).
pub fn verify(module: &Module) -> Result<()> {
    let mut errors = Vec::new();
    let mut meshes = HashSet::new();
    for mesh in &module.meshes {
        if !meshes.insert(mesh.name.as_str()) {
            errors.push(
                VerifyError::in_module(format!("mesh `@{}` is declared twice", mesh.name))
                    .with_help("give each `sdy.mesh` its own name"),
            );
        }
        let mut axes = HashSet::new();
        for axis in &mesh.axes {
            if axis.size == 0 || !axes.insert(axis.name.as_str()) {
                errors.push(
                    VerifyError::in_module(format!(
                        "mesh `@{}`: axis \"{}\" is repeated or has size 0",
                        mesh.name, axis.name
                    ))
                    .with_help("the axes of a mesh need unique names and sizes > 0"),
                );
            }
        }
    }
    let mut functions = HashSet::new();
    for function in &module.functions {
        if !functions.insert(function.name.as_str()) {
            errors.push(
                VerifyError::in_module(format!("function `@{}` is defined twice", function.name))
                    .with_help("rename one of them, and the calls to it"),
            );
        }
    }
    for function in &module.functions {
        errors.extend(Verifier::new(function, Some(module)).run());
    }
    into_result(errors)
}

/// Checks one function on its own (calls and composites are not resolved).
pub fn verify_function(function: &Function) -> Result<()> {
    into_result(Verifier::new(function, None).run())
}

fn into_result(errors: Vec<VerifyError>) -> Result<()> {
    match VerifyErrors::new(errors) {
        Some(errors) => Err(IrError::Verify(errors)),
        None => Ok(()),
    }
}

/// What an error is reported at.
#[derive(Clone, Copy)]
enum At {
    /// A part of the function that is not an op, such as "signature".
    Part(&'static str),
    Block(BlockId),
    /// Op `.1`, number `.0` in walk order.
    Op(usize, OpId),
}

const SIGNATURE_HELP: &str = "a function has one attribute list and one location per argument, \
                              and one attribute list per result";

const SIZE_HELP: &str = "a tensor may take at most 2^40 bytes (tpuc_ir::size_limit::MAX_TENSOR_BYTES); \
                         shard or split it";

struct Verifier<'a> {
    f: &'a Function,
    module: Option<&'a Module>,
    visible: Vec<bool>,
    defined: Vec<bool>,
    seen_ops: Vec<bool>,
    seen_regions: Vec<bool>,
    op_counter: usize,
    errors: Vec<VerifyError>,
}

impl<'a> Verifier<'a> {
    fn new(f: &'a Function, module: Option<&'a Module>) -> Self {
        Self {
            f,
            module,
            visible: vec![false; f.value_count()],
            defined: vec![false; f.value_count()],
            seen_ops: vec![false; f.op_count()],
            seen_regions: vec![false; f.region_count()],
            op_counter: 0,
            errors: Vec::new(),
        }
    }

    fn report(&mut self, at: At, message: impl Into<String>, help: Option<String>) {
        let function = &self.f.name;
        let error = match at {
            At::Part(part) => VerifyError::in_part(function, part, message.into()),
            At::Block(block) => {
                let part = format!("block {}", block.index());
                VerifyError::in_part(function, part, message.into())
            }
            At::Op(index, op) => {
                let data = self.f.op(op);
                let op_ref = OpRef {
                    id: op,
                    index,
                    name: data.kind.name(),
                };
                VerifyError::at_op(function, op_ref, &data.location, message.into())
            }
        };
        self.errors.push(match help {
            Some(help) => error.with_help(help),
            None => error,
        });
    }

    fn run(mut self) -> Vec<VerifyError> {
        let f = self.f;
        let args = f.args().len();
        if f.arg_attrs.len() != args {
            let message = format!(
                "{} argument attribute lists for {args} arguments",
                f.arg_attrs.len()
            );
            self.report(
                At::Part("signature"),
                message,
                Some(SIGNATURE_HELP.to_owned()),
            );
        }
        if f.arg_locations.len() != args {
            let message = format!(
                "{} argument locations for {args} arguments",
                f.arg_locations.len()
            );
            self.report(
                At::Part("signature"),
                message,
                Some(SIGNATURE_HELP.to_owned()),
            );
        }
        if f.result_attrs.len() != f.result_types.len() {
            let message = format!(
                "{} result attribute lists for {} results",
                f.result_attrs.len(),
                f.result_types.len()
            );
            self.report(
                At::Part("signature"),
                message,
                Some(SIGNATURE_HELP.to_owned()),
            );
        }
        for attrs in f.arg_attrs.iter().chain(&f.result_attrs) {
            self.check_sharding_attrs(attrs, At::Part("signature"));
        }
        let arg_types = f.arg_types();
        let signature = arg_types
            .iter()
            .enumerate()
            .map(|(i, ty)| (format!("argument {i}"), ty))
            .chain(
                f.result_types
                    .iter()
                    .enumerate()
                    .map(|(i, ty)| (format!("result {i}"), ty)),
            );
        for (what, ty) in signature {
            if let Err(message) = size_limit::check(ty) {
                let message = format!("{what}: {message}");
                self.report(At::Part("signature"), message, Some(SIZE_HELP.to_owned()));
            }
        }
        let body = f.body();
        let blocks = &f.region(body).blocks;
        if blocks.len() != 1 {
            let message = format!("has {} blocks, expected 1", blocks.len());
            let help = "a function body is one block".to_owned();
            self.report(At::Part("body"), message, Some(help));
            return self.errors;
        }
        self.walk_region(body, true, At::Part("body"));
        let ends_with_return = f
            .terminator(f.entry_block())
            .is_some_and(|t| matches!(t.kind, OpKind::Return));
        if !ends_with_return {
            let help = "end the body with `func.return` of the function's results".to_owned();
            self.report(
                At::Part("body"),
                "does not end with `func.return`",
                Some(help),
            );
        }
        self.errors
    }

    /// Walks a region: its values are visible inside it and unmarked when it is left. Returns
    /// whether the region could be walked (it exists and is attached once).
    fn walk_region(&mut self, region: RegionId, is_body: bool, at: At) -> bool {
        let f = self.f;
        if !f.contains_region(region) {
            let message = format!("region {} does not exist", region.index());
            self.report(at, message, None);
            return false;
        }
        if std::mem::replace(&mut self.seen_regions[region.index()], true) {
            let message = format!("region {} is attached twice", region.index());
            self.report(at, message, None);
            return false;
        }
        let mut scope = Vec::new();
        for &block in &f.region(region).blocks {
            for &arg in &f.block(block).args {
                self.define(arg, block, &mut scope);
            }
            let ops = &f.block(block).ops;
            for (position, &op) in ops.iter().enumerate() {
                let last = position + 1 == ops.len();
                self.check_op(op, last, is_body, block, &mut scope);
            }
        }
        for value in scope {
            self.visible[value.index()] = false;
        }
        true
    }

    fn define(&mut self, value: Value, block: BlockId, scope: &mut Vec<Value>) {
        let index = value.index();
        if index >= self.defined.len() || std::mem::replace(&mut self.defined[index], true) {
            let message = format!("value {index} is defined twice");
            self.report(At::Block(block), message, None);
            return;
        }
        self.visible[index] = true;
        scope.push(value);
    }

    fn check_op(
        &mut self,
        op: OpId,
        last: bool,
        in_body: bool,
        block: BlockId,
        scope: &mut Vec<Value>,
    ) {
        let f = self.f;
        let at = At::Op(self.op_counter, op);
        self.op_counter += 1;
        if std::mem::replace(&mut self.seen_ops[op.index()], true) {
            self.report(at, "appears in two blocks", None);
            return;
        }
        let data = f.op(op);
        let mut operands_exist = true;
        for (i, &operand) in data.operands.iter().enumerate() {
            if !f.contains_value(operand) {
                self.report(at, format!("operand {i} does not exist"), None);
                operands_exist = false;
            } else if !self.visible[operand.index()] {
                let (reason, help) = if self.defined[operand.index()] {
                    (
                        "is defined in a region that does not enclose this op",
                        "an op sees the values of its own region and the regions around it; \
                         pass the value in as an operand of the enclosing op",
                    )
                } else {
                    (
                        "is used before it is defined",
                        "move the op that defines the value before this one",
                    )
                };
                self.report(at, format!("operand {i} {reason}"), Some(help.to_owned()));
            }
        }
        self.check_placement(at, &data.kind, last, in_body);
        let mut region_sigs = Vec::with_capacity(data.regions.len());
        for &region in &data.regions {
            if !self.walk_region(region, false, at) {
                continue;
            }
            let blocks = &f.region(region).blocks;
            if blocks.len() != 1 {
                let message = format!("a region has {} blocks, expected 1", blocks.len());
                let help = "the regions of StableHLO ops are one block each".to_owned();
                self.report(at, message, Some(help));
                continue;
            }
            region_sigs.push(RegionSig::of_block(f, blocks[0]));
        }
        // An oversized operand was reported where it is defined; nothing computes with it.
        let operands_sized = operands_exist
            && data
                .operands
                .iter()
                .all(|&v| size_limit::check(f.value_type(v)).is_ok());
        if operands_sized && region_sigs.len() == data.regions.len() {
            self.check_types(at, op, &region_sigs, in_body);
        }
        self.check_sharding_attrs(&data.attrs, at);
        for (i, &result) in data.results.iter().enumerate() {
            if !f.contains_value(result) {
                continue;
            }
            if let Err(message) = size_limit::check(f.value_type(result)) {
                let message = format!("result {i}: {message}");
                self.report(at, message, Some(SIZE_HELP.to_owned()));
            }
        }
        for &result in &data.results {
            if !matches!(f.value(result).def, ValueDef::OpResult { op: def, .. } if def == op) {
                self.report(at, "a result is not defined by this op", None);
            }
            self.define(result, block, scope);
        }
    }

    /// Terminators end their blocks, and only those of their kind of region.
    fn check_placement(&mut self, at: At, kind: &OpKind, last: bool, in_body: bool) {
        let (message, help) = match (kind, last) {
            (OpKind::Return, _) if !in_body || !last => (
                "must be the last op of the function body".to_owned(),
                "`func.return` ends the function body; an op's region ends with `stablehlo.return`",
            ),
            (OpKind::RegionReturn, _) if in_body || !last => (
                "must be the last op of an op's region".to_owned(),
                "`stablehlo.return` ends an op's region; the function body ends with `func.return`",
            ),
            (kind, true) if !kind.is_terminator() => {
                let expected = if in_body {
                    OpKind::Return.name()
                } else {
                    OpKind::RegionReturn.name()
                };
                let message = format!("the block must end with `{expected}`");
                (message, "end the block with its terminator, after this op")
            }
            _ => return,
        };
        self.report(at, message, Some(help.to_owned()));
    }

    /// Result types against the spec, the callee or the function's signature.
    fn check_types(&mut self, at: At, op: OpId, region_sigs: &[RegionSig], in_body: bool) {
        let f = self.f;
        let data = f.op(op);
        let types = |values: &[Value]| -> Vec<Type> {
            values.iter().map(|&v| f.value_type(v).clone()).collect()
        };
        let operand_types = types(&data.operands);
        let result_types = types(&data.results);
        let sig = OpSig {
            kind: &data.kind,
            operands: &operand_types,
            regions: region_sigs,
            declared: Some(&result_types),
        };
        if let Err(message) = infer::result_types(&sig) {
            let help = format!(
                "the StableHLO spec's constraints for `{}` list what operand types and \
                 attributes it accepts",
                data.kind.name()
            );
            self.report(at, message, Some(help));
        }
        if in_body && matches!(data.kind, OpKind::Return) && operand_types != f.result_types {
            let message = format!(
                "returns ({}), the signature says ({})",
                infer::list(&operand_types),
                infer::list(&f.result_types)
            );
            let help = "return values of the function's result types, or change its signature";
            self.report(at, message, Some(help.to_owned()));
        }
        self.check_symbols(at, &data.kind, &operand_types, &result_types);
    }

    /// Calls and composites against the functions they name.
    fn check_symbols(&mut self, at: At, kind: &OpKind, operands: &[Type], results: &[Type]) {
        let Some(module) = self.module else {
            return;
        };
        let (callee, what) = match kind {
            OpKind::Call { callee } => (callee, attr_name::CALLEE),
            OpKind::Composite { decomposition, .. } => (decomposition, attr_name::DECOMPOSITION),
            OpKind::ShardingConstraint(sharding) => return self.check_mesh(sharding, at),
            _ => return,
        };
        let Some(target) = module.function(callee) else {
            let help = format!("define `@{callee}` in the module, or name a function it defines");
            self.report(at, format!("{what} `@{callee}` is not defined"), Some(help));
            return;
        };
        if target.arg_types() != operands || target.result_types != results {
            let message = format!(
                "types ({}) -> ({}) do not match {what} `@{callee}`: ({}) -> ({})",
                infer::list(operands),
                infer::list(results),
                infer::list(&target.arg_types()),
                infer::list(&target.result_types)
            );
            let help = format!("give the op the operand and result types of `@{callee}`");
            self.report(at, message, Some(help));
        }
    }

    fn check_sharding_attrs(&mut self, attrs: &NamedAttrs, at: At) {
        for (_, attr) in attrs.iter() {
            match attr {
                Attribute::Sharding(sharding) => self.check_mesh(sharding, at),
                Attribute::ShardingPerValue(shardings) => {
                    for sharding in shardings {
                        self.check_mesh(sharding, at);
                    }
                }
                _ => {}
            }
        }
    }

    fn check_mesh(&mut self, sharding: &TensorSharding, at: At) {
        let Some(module) = self.module else {
            return;
        };
        let Some(mesh) = module.mesh(&sharding.mesh) else {
            let message = format!(
                "sharding names mesh `@{}`, which is not declared",
                sharding.mesh
            );
            let help = format!(
                "declare the mesh in the module (`sdy.mesh @{} = <[\"x\"=2]>`) or name a declared one",
                sharding.mesh
            );
            self.report(at, message, Some(help));
            return;
        };
        let axes = sharding
            .dims
            .iter()
            .flat_map(|d| &d.axes)
            .chain(&sharding.replicated);
        for axis in axes {
            if !mesh.axes.iter().any(|a| &a.name == axis) {
                let message = format!(
                    "sharding uses axis \"{axis}\", which mesh `@{}` lacks",
                    mesh.name
                );
                let known: Vec<String> = mesh
                    .axes
                    .iter()
                    .map(|a| format!("\"{}\"", a.name))
                    .collect();
                let help = format!("mesh `@{}` has the axes {}", mesh.name, known.join(", "));
                self.report(at, message, Some(help));
            }
        }
    }
}
