//! The verifier: structure (blocks, terminators, use before def, dominance), per-op spec
//! constraints through [`crate::infer`], signatures of functions, calls and composites.

use std::collections::HashSet;

use crate::attr::{Attribute, NamedAttrs, TensorSharding};
use crate::error::{IrError, Result};
use crate::function::{BlockId, Function, OpId, RegionId, Value, ValueDef};
use crate::infer::{self, OpSig, RegionSig};
use crate::location::Location;
use crate::module::Module;
use crate::op::{OpKind, attr_name};
use crate::print::syntax::location_body;
use crate::types::Type;

/// Checks the whole module; returns the first problem found.
pub fn verify(module: &Module) -> Result<()> {
    let mut names = HashSet::new();
    for mesh in &module.meshes {
        if !names.insert(mesh.name.as_str()) {
            return Err(module_error(format!(
                "mesh `@{}` is declared twice",
                mesh.name
            )));
        }
        let mut axes = HashSet::new();
        for axis in &mesh.axes {
            if axis.size == 0 || !axes.insert(axis.name.as_str()) {
                return Err(module_error(format!(
                    "mesh `@{}`: axis \"{}\" is repeated or has size 0",
                    mesh.name, axis.name
                )));
            }
        }
    }
    let mut functions = HashSet::new();
    for function in &module.functions {
        if !functions.insert(function.name.as_str()) {
            return Err(module_error(format!(
                "function `@{}` is defined twice",
                function.name
            )));
        }
    }
    for function in &module.functions {
        Verifier::new(function, Some(module)).run()?;
    }
    Ok(())
}

/// Checks one function on its own (calls and composites are not resolved).
pub fn verify_function(function: &Function) -> Result<()> {
    Verifier::new(function, None).run()
}

fn module_error(message: String) -> IrError {
    IrError::InvalidModule { message }
}

struct Verifier<'a> {
    f: &'a Function,
    module: Option<&'a Module>,
    visible: Vec<bool>,
    defined: Vec<bool>,
    seen_ops: Vec<bool>,
    seen_regions: Vec<bool>,
    op_counter: usize,
}

impl<'a> Verifier<'a> {
    fn new(f: &'a Function, module: Option<&'a Module>) -> Self {
        Self {
            f,
            module,
            visible: vec![false; f.value_count()],
            defined: vec![false; f.value_count()],
            seen_ops: vec![false; f.op_count()],
            seen_regions: Vec::new(),
            op_counter: 0,
        }
    }

    fn error(&self, at: impl Into<String>, message: impl Into<String>) -> IrError {
        IrError::Verify {
            function: self.f.name.clone(),
            at: at.into(),
            message: message.into(),
        }
    }

    fn op_error(&self, index: usize, op: OpId, message: impl Into<String>) -> IrError {
        let data = self.f.op(op);
        let at = match &data.location {
            Location::Unknown => format!("op {index} `{}`", data.kind.name()),
            loc => format!(
                "op {index} `{}` at {}",
                data.kind.name(),
                location_body(loc)
            ),
        };
        self.error(at, message)
    }

    fn run(mut self) -> Result<()> {
        let f = self.f;
        let args = f.args();
        if f.arg_attrs.len() != args.len() {
            return Err(self.error(
                "signature",
                format!(
                    "{} argument attribute lists for {} arguments",
                    f.arg_attrs.len(),
                    args.len()
                ),
            ));
        }
        if f.arg_locations.len() != args.len() {
            return Err(self.error(
                "signature",
                format!(
                    "{} argument locations for {} arguments",
                    f.arg_locations.len(),
                    args.len()
                ),
            ));
        }
        if f.result_attrs.len() != f.result_types.len() {
            return Err(self.error(
                "signature",
                format!(
                    "{} result attribute lists for {} results",
                    f.result_attrs.len(),
                    f.result_types.len()
                ),
            ));
        }
        for attrs in f.arg_attrs.iter().chain(&f.result_attrs) {
            self.check_sharding_attrs(attrs, "signature")?;
        }
        self.seen_regions = vec![false; f.region_count()];
        let body = f.body();
        let blocks = &f.region(body).blocks;
        if blocks.len() != 1 {
            return Err(self.error("body", format!("has {} blocks, expected 1", blocks.len())));
        }
        self.walk_region(body, true)?;
        let entry = f.entry_block();
        let Some(ret) = f
            .terminator(entry)
            .filter(|t| matches!(t.kind, OpKind::Return))
        else {
            return Err(self.error("body", "does not end with `func.return`"));
        };
        let returned: Vec<Type> = ret
            .operands
            .iter()
            .map(|&v| f.value_type(v).clone())
            .collect();
        if returned != f.result_types {
            return Err(self.error(
                OpKind::Return.name(),
                format!(
                    "returns ({}), the signature says ({})",
                    infer::list(&returned),
                    infer::list(&f.result_types)
                ),
            ));
        }
        Ok(())
    }

    /// Walks a region: its values are visible inside it and unmarked when it is left.
    fn walk_region(&mut self, region: RegionId, is_body: bool) -> Result<()> {
        let f = self.f;
        if !f.contains_region(region) {
            return Err(self.error(
                "region",
                format!("region {} does not exist", region.index()),
            ));
        }
        if std::mem::replace(&mut self.seen_regions[region.index()], true) {
            return Err(self.error(
                "region",
                format!("region {} is attached twice", region.index()),
            ));
        }
        let mut scope = Vec::new();
        for &block in &f.region(region).blocks {
            for &arg in &f.block(block).args {
                self.define(arg, block, &mut scope)?;
            }
            let ops = &f.block(block).ops;
            for (position, &op) in ops.iter().enumerate() {
                let last = position + 1 == ops.len();
                self.check_op(op, block, last, is_body, &mut scope)?;
            }
        }
        for value in scope {
            self.visible[value.index()] = false;
        }
        Ok(())
    }

    fn define(&mut self, value: Value, block: BlockId, scope: &mut Vec<Value>) -> Result<()> {
        let index = value.index();
        if index >= self.defined.len() || std::mem::replace(&mut self.defined[index], true) {
            return Err(self.error(
                format!("block {}", block.index()),
                format!("value {index} is defined twice"),
            ));
        }
        self.visible[index] = true;
        scope.push(value);
        Ok(())
    }

    fn check_op(
        &mut self,
        op: OpId,
        block: BlockId,
        last: bool,
        in_body: bool,
        scope: &mut Vec<Value>,
    ) -> Result<()> {
        let f = self.f;
        let index = self.op_counter;
        self.op_counter += 1;
        if std::mem::replace(&mut self.seen_ops[op.index()], true) {
            return Err(self.op_error(index, op, "appears in two blocks"));
        }
        let data = f.op(op);
        for (i, &operand) in data.operands.iter().enumerate() {
            if !f.contains_value(operand) {
                return Err(self.op_error(index, op, format!("operand {i} does not exist")));
            }
            if !self.visible[operand.index()] {
                let reason = if self.defined[operand.index()] {
                    "is defined in a region that does not enclose this op"
                } else {
                    "is used before it is defined"
                };
                return Err(self.op_error(index, op, format!("operand {i} {reason}")));
            }
        }
        match (&data.kind, last) {
            (OpKind::Return, _) if !in_body || !last => {
                return Err(self.op_error(index, op, "must be the last op of the function body"));
            }
            (OpKind::RegionReturn, _) if in_body || !last => {
                return Err(self.op_error(index, op, "must be the last op of an op's region"));
            }
            (kind, true) if !kind.is_terminator() => {
                let expected = if in_body {
                    OpKind::Return.name()
                } else {
                    OpKind::RegionReturn.name()
                };
                return Err(self.op_error(
                    index,
                    op,
                    format!("the block must end with `{expected}`"),
                ));
            }
            _ => {}
        }
        let mut region_sigs = Vec::with_capacity(data.regions.len());
        for &region in &data.regions {
            self.walk_region(region, false)?;
            let blocks = &f.region(region).blocks;
            if blocks.len() != 1 {
                return Err(self.op_error(
                    index,
                    op,
                    format!("a region has {} blocks, expected 1", blocks.len()),
                ));
            }
            region_sigs.push(RegionSig::of_block(f, blocks[0]));
        }
        let operand_types: Vec<Type> = data
            .operands
            .iter()
            .map(|&v| f.value_type(v).clone())
            .collect();
        let result_types: Vec<Type> = data
            .results
            .iter()
            .map(|&v| f.value_type(v).clone())
            .collect();
        let sig = OpSig {
            kind: &data.kind,
            operands: &operand_types,
            regions: &region_sigs,
            declared: Some(&result_types),
        };
        infer::result_types(&sig).map_err(|m| self.op_error(index, op, m))?;
        self.check_symbols(index, op, &operand_types, &result_types)?;
        self.check_sharding_attrs(&data.attrs, &format!("op {index}"))?;
        for &result in &data.results {
            if !matches!(f.value(result).def, ValueDef::OpResult { op: def, .. } if def == op) {
                return Err(self.op_error(index, op, "a result is not defined by this op"));
            }
            self.define(result, block, scope)?;
        }
        Ok(())
    }

    /// Calls and composites against the functions they name.
    fn check_symbols(
        &self,
        index: usize,
        op: OpId,
        operands: &[Type],
        results: &[Type],
    ) -> Result<()> {
        let Some(module) = self.module else {
            return Ok(());
        };
        let (callee, what) = match &self.f.op(op).kind {
            OpKind::Call { callee } => (callee, attr_name::CALLEE),
            OpKind::Composite { decomposition, .. } => (decomposition, attr_name::DECOMPOSITION),
            OpKind::ShardingConstraint(sharding) => {
                return self.check_mesh(sharding, &format!("op {index}"));
            }
            _ => return Ok(()),
        };
        let Some(target) = module.function(callee) else {
            return Err(self.op_error(index, op, format!("{what} `@{callee}` is not defined")));
        };
        if target.arg_types() != operands || target.result_types != results {
            return Err(self.op_error(
                index,
                op,
                format!(
                    "types ({}) -> ({}) do not match {what} `@{callee}`: ({}) -> ({})",
                    infer::list(operands),
                    infer::list(results),
                    infer::list(&target.arg_types()),
                    infer::list(&target.result_types)
                ),
            ));
        }
        Ok(())
    }

    fn check_sharding_attrs(&self, attrs: &NamedAttrs, at: &str) -> Result<()> {
        for (_, attr) in attrs.iter() {
            match attr {
                Attribute::Sharding(sharding) => self.check_mesh(sharding, at)?,
                Attribute::ShardingPerValue(shardings) => {
                    for sharding in shardings {
                        self.check_mesh(sharding, at)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn check_mesh(&self, sharding: &TensorSharding, at: &str) -> Result<()> {
        let Some(module) = self.module else {
            return Ok(());
        };
        let Some(mesh) = module.mesh(&sharding.mesh) else {
            return Err(self.error(
                at,
                format!(
                    "sharding names mesh `@{}`, which is not declared",
                    sharding.mesh
                ),
            ));
        };
        let axes = sharding
            .dims
            .iter()
            .flat_map(|d| &d.axes)
            .chain(&sharding.replicated);
        for axis in axes {
            if !mesh.axes.iter().any(|a| &a.name == axis) {
                return Err(self.error(
                    at,
                    format!(
                        "sharding uses axis \"{axis}\", which mesh `@{}` lacks",
                        mesh.name
                    ),
                ));
            }
        }
        Ok(())
    }
}
