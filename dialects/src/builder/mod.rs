//! [`FunctionBuilder`]: builds a function op by op, inferring result types and rejecting invalid
//! ops as it goes.

mod ops;

use crate::attr::{CustomCallApiVersion, NamedAttrs};
use crate::error::{IrError, Result};
use crate::function::{BlockId, Function, NewOp, OpId, RegionId, Value, ValueDef, Visibility};
use crate::infer::{self, OpSig, RegionSig};
use crate::location::Location;
use crate::op::OpKind;
use crate::types::{Dim, TensorType, Type};

/// A shape given as static sizes or as [`Dim`]s.
pub trait IntoShape {
    fn into_shape(self) -> Vec<Dim>;
}

impl IntoShape for Vec<Dim> {
    fn into_shape(self) -> Vec<Dim> {
        self
    }
}

impl IntoShape for &[Dim] {
    fn into_shape(self) -> Vec<Dim> {
        self.to_vec()
    }
}

impl IntoShape for &[u64] {
    fn into_shape(self) -> Vec<Dim> {
        self.iter().copied().map(Dim::Static).collect()
    }
}

impl IntoShape for Vec<u64> {
    fn into_shape(self) -> Vec<Dim> {
        self.as_slice().into_shape()
    }
}

impl<const N: usize> IntoShape for [u64; N] {
    fn into_shape(self) -> Vec<Dim> {
        self.as_slice().into_shape()
    }
}

impl<const N: usize> IntoShape for &[u64; N] {
    fn into_shape(self) -> Vec<Dim> {
        self.as_slice().into_shape()
    }
}

/// Options of `stablehlo.custom_call` beyond its target.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CustomCallOptions {
    pub backend_config: String,
    pub has_side_effect: bool,
    pub api_version: CustomCallApiVersion,
}

/// The body of a region: gets the block arguments, returns the values for `stablehlo.return`.
pub trait RegionBody: FnOnce(&mut FunctionBuilder, &[Value]) -> Result<Vec<Value>> {}
impl<F: FnOnce(&mut FunctionBuilder, &[Value]) -> Result<Vec<Value>>> RegionBody for F {}

/// Builds one function. Ops go to the end of the current block (the body, or the region being
/// built inside a region closure) with the current location.
pub struct FunctionBuilder {
    function: Function,
    block: BlockId,
    location: Location,
    returned: bool,
}

impl FunctionBuilder {
    /// A function with no arguments yet.
    pub fn new(name: impl Into<String>, visibility: Visibility) -> Self {
        let function = Function::new(name, visibility, Vec::new(), Vec::new());
        let block = function.entry_block();
        Self {
            function,
            block,
            location: Location::Unknown,
            returned: false,
        }
    }

    /// Appends a function argument at the current location.
    pub fn arg(&mut self, ty: impl Into<Type>) -> Value {
        let value = self.function.push_arg(ty.into());
        if let Some(slot) = self.function.arg_locations.last_mut() {
            *slot = self.location.clone();
        }
        value
    }

    /// Appends a function argument with attributes (e.g. `sdy.sharding`).
    pub fn arg_with_attrs(&mut self, ty: impl Into<Type>, attrs: NamedAttrs) -> Value {
        let value = self.arg(ty);
        if let Some(slot) = self.function.arg_attrs.last_mut() {
            *slot = attrs;
        }
        value
    }

    /// The location given to the ops built from now on.
    pub fn set_location(&mut self, location: Location) {
        self.location = location;
    }

    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The function built so far.
    pub fn function(&self) -> &Function {
        &self.function
    }

    /// Sets the function's own attributes and location.
    pub fn function_mut(&mut self) -> &mut Function {
        &mut self.function
    }

    pub fn value_type(&self, value: Value) -> Result<&Type> {
        if self.function.contains_value(value) {
            Ok(self.function.value_type(value))
        } else {
            Err(IrError::builder(format!(
                "value {} does not belong to function `@{}`",
                value.index(),
                self.function.name
            )))
        }
    }

    pub fn tensor_type(&self, value: Value) -> Result<&TensorType> {
        let ty = self.value_type(value)?;
        ty.as_tensor().ok_or_else(|| {
            IrError::builder(format!(
                "value {} has type {ty}, not a tensor",
                value.index()
            ))
        })
    }

    /// The op that defines `value`, if it is an op result.
    pub fn defining_op(&self, value: Value) -> Option<OpId> {
        if !self.function.contains_value(value) {
            return None;
        }
        match self.function.value(value).def {
            ValueDef::OpResult { op, .. } => Some(op),
            ValueDef::BlockArg { .. } => None,
        }
    }

    /// Adds a discardable attribute to the op defining `value`.
    pub fn set_op_attr(
        &mut self,
        value: Value,
        name: &str,
        attr: crate::attr::Attribute,
    ) -> Result<()> {
        self.value_type(value)?;
        let op = self
            .defining_op(value)
            .ok_or_else(|| IrError::builder("a block argument has no defining op"))?;
        self.function.op_mut(op).attrs.set(name, attr);
        Ok(())
    }

    /// Creates any op: checks it against the spec and infers its result types (`declared` gives
    /// them for ops whose results cannot be inferred).
    pub fn op(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        regions: Vec<RegionId>,
        declared: Option<Vec<Type>>,
    ) -> Result<Vec<Value>> {
        if self.returned && self.block == self.function.entry_block() {
            return Err(IrError::builder(format!(
                "`@{}` already returned; no op can follow",
                self.function.name
            )));
        }
        let operand_types = operands
            .iter()
            .map(|&v| self.value_type(v).cloned())
            .collect::<Result<Vec<_>>>()?;
        let region_sigs = regions
            .iter()
            .map(|&r| self.region_sig(r))
            .collect::<Result<Vec<_>>>()?;
        let sig = OpSig {
            kind: &kind,
            operands: &operand_types,
            regions: &region_sigs,
            declared: declared.as_deref(),
        };
        let result_types =
            infer::result_types(&sig).map_err(|message| IrError::op(kind.name(), message))?;
        let op = self.function.append_op(
            self.block,
            NewOp {
                kind,
                operands: operands.to_vec(),
                result_types,
                regions,
                attrs: NamedAttrs::new(),
                location: self.location.clone(),
            },
        );
        Ok(self.function.op(op).results.clone())
    }

    fn op1(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        regions: Vec<RegionId>,
        declared: Option<Vec<Type>>,
    ) -> Result<Value> {
        let name = kind.name();
        let results = self.op(kind, operands, regions, declared)?;
        match results.as_slice() {
            [value] => Ok(*value),
            _ => Err(IrError::op(
                name,
                format!("has {} results, not one", results.len()),
            )),
        }
    }

    fn region_sig(&self, region: RegionId) -> Result<RegionSig> {
        let f = &self.function;
        if !f.contains_region(region) {
            return Err(IrError::builder(format!(
                "unknown region {}",
                region.index()
            )));
        }
        let block = *f
            .region(region)
            .blocks
            .first()
            .ok_or_else(|| IrError::builder("a region needs a block"))?;
        Ok(RegionSig::of_block(f, block))
    }

    /// Builds a detached single-block region whose block takes `arg_types`; `body` returns the
    /// values of its `stablehlo.return`.
    pub fn region(&mut self, arg_types: Vec<Type>, body: impl RegionBody) -> Result<RegionId> {
        let region = self.function.add_region();
        let block = self.function.add_block(region);
        let args: Vec<Value> = arg_types
            .into_iter()
            .map(|ty| self.function.add_block_arg(block, ty))
            .collect();
        let outer = std::mem::replace(&mut self.block, block);
        let returned = body(self, &args);
        self.block = outer;
        let values = returned?;
        for &v in &values {
            self.value_type(v)?;
        }
        self.function.append_op(
            block,
            NewOp {
                location: self.location.clone(),
                ..NewOp::new(OpKind::RegionReturn, values, Vec::new())
            },
        );
        Ok(region)
    }

    fn regions_for(&mut self, kind: &OpKind, operands: &[Value]) -> Result<Vec<Vec<Type>>> {
        let types = operands
            .iter()
            .map(|&v| self.value_type(v).cloned())
            .collect::<Result<Vec<_>>>()?;
        infer::region_args(kind, &types).map_err(|m| IrError::op(kind.name(), m))
    }

    /// Ends the function with `func.return`; the returned types become the result types.
    pub fn ret(&mut self, values: &[Value]) -> Result<()> {
        if self.returned {
            return Err(IrError::builder(format!(
                "`@{}` already returned",
                self.function.name
            )));
        }
        let types = values
            .iter()
            .map(|&v| self.value_type(v).cloned())
            .collect::<Result<Vec<_>>>()?;
        let entry = self.function.entry_block();
        self.function.append_op(
            entry,
            NewOp {
                location: self.location.clone(),
                ..NewOp::new(OpKind::Return, values.to_vec(), Vec::new())
            },
        );
        self.function.set_result_types(types);
        self.returned = true;
        Ok(())
    }

    /// [`FunctionBuilder::ret`] with one attribute list per result.
    pub fn ret_with_attrs(&mut self, values: &[Value], attrs: Vec<NamedAttrs>) -> Result<()> {
        if attrs.len() != values.len() {
            return Err(IrError::builder(format!(
                "{} result attribute lists for {} results",
                attrs.len(),
                values.len()
            )));
        }
        self.ret(values)?;
        self.function.result_attrs = attrs;
        Ok(())
    }

    /// The finished function; it must have returned.
    pub fn finish(self) -> Result<Function> {
        if !self.returned {
            return Err(IrError::builder(format!(
                "`@{}` has no `func.return`; call `ret` first",
                self.function.name
            )));
        }
        Ok(self.function)
    }
}
