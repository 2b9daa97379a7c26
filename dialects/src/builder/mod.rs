//! [`Builder`]: creates ops at an insertion point, inferring result types and rejecting invalid
//! ops as it goes. [`FunctionBuilder`] owns the function it builds and appends to the end of its
//! current block; [`OpBuilder`] is a cursor into an existing function (for passes).

mod ops;
mod transpose;

use crate::attr::{CustomCallApiVersion, NamedAttrs};
use crate::error::{IrError, Result};
use std::borrow::BorrowMut;

use crate::function::{Function, InsertPoint, NewOp, OpId, RegionId, Value, Visibility};
use crate::infer::{self, OpSig, RegionSig};
use crate::location::Location;
use crate::op::OpKind;
use crate::size_limit;
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
pub trait RegionBody<B>: FnOnce(&mut B, &[Value]) -> Result<Vec<Value>> {}
impl<B, F: FnOnce(&mut B, &[Value]) -> Result<Vec<Value>>> RegionBody<B> for F {}

/// Creates ops at an insertion point with the current location. Inside a region closure the
/// point is the end of the region's block.
pub struct Builder<F> {
    function: F,
    point: InsertPoint,
    location: Location,
    returned: bool,
}

/// Builds one function from scratch; ops go to the end of the body.
pub type FunctionBuilder = Builder<Function>;

/// A cursor over an existing function.
pub type OpBuilder<'f> = Builder<&'f mut Function>;

impl FunctionBuilder {
    /// A function with no arguments yet.
    pub fn new(name: impl Into<String>, visibility: Visibility) -> Self {
        let function = Function::new(name, visibility, Vec::new(), Vec::new());
        let point = InsertPoint::End(function.entry_block());
        Self {
            function,
            point,
            location: Location::Unknown,
            returned: false,
        }
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

impl<'f> OpBuilder<'f> {
    /// A cursor over `function` at `point`; ops get `location`.
    pub fn at(function: &'f mut Function, point: InsertPoint, location: Location) -> Self {
        Self {
            function,
            point,
            location,
            returned: false,
        }
    }
}

impl<F: BorrowMut<Function>> Builder<F> {
    /// Appends a function argument at the current location.
    pub fn arg(&mut self, ty: impl Into<Type>) -> Value {
        let location = self.location.clone();
        let value = self.f_mut().push_arg(ty.into());
        if let Some(slot) = self.f_mut().arg_locations.last_mut() {
            *slot = location;
        }
        value
    }

    /// Appends a function argument with attributes (e.g. `sdy.sharding`).
    pub fn arg_with_attrs(&mut self, ty: impl Into<Type>, attrs: NamedAttrs) -> Value {
        let value = self.arg(ty);
        if let Some(slot) = self.f_mut().arg_attrs.last_mut() {
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
        self.function.borrow()
    }

    /// Sets the function's own attributes and location.
    pub fn function_mut(&mut self) -> &mut Function {
        self.function.borrow_mut()
    }

    fn f(&self) -> &Function {
        self.function.borrow()
    }

    fn f_mut(&mut self) -> &mut Function {
        self.function.borrow_mut()
    }

    /// Where the next op goes.
    pub fn insertion_point(&self) -> InsertPoint {
        self.point
    }

    /// Moves the cursor.
    pub fn set_insertion_point(&mut self, point: InsertPoint) {
        self.point = point;
    }

    pub fn value_type(&self, value: Value) -> Result<&Type> {
        if self.f().contains_value(value) {
            Ok(self.f().value_type(value))
        } else {
            Err(IrError::builder(format!(
                "value {} does not belong to function `@{}`",
                value.index(),
                self.f().name
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
        let f = self.f();
        f.contains_value(value).then(|| f.defining_op(value))?
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
        self.f_mut().attrs_mut(op).set(name, attr);
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
        if self.returned && self.point == InsertPoint::End(self.f().entry_block()) {
            return Err(IrError::builder(format!(
                "`@{}` already returned; no op can follow",
                self.f().name
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
        for ty in &result_types {
            size_limit::check(ty).map_err(|message| IrError::op(kind.name(), message))?;
        }
        let point = self.point;
        let location = self.location.clone();
        let op = self.f_mut().insert_op(
            point,
            NewOp {
                kind,
                operands: operands.to_vec(),
                result_types,
                regions,
                attrs: NamedAttrs::new(),
                location,
            },
        );
        Ok(self.f().op(op).results.clone())
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
        let f = self.f();
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
    pub fn region(
        &mut self,
        arg_types: Vec<Type>,
        body: impl RegionBody<Self>,
    ) -> Result<RegionId> {
        let region = self.f_mut().add_region();
        let block = self.f_mut().add_block(region);
        let args: Vec<Value> = arg_types
            .into_iter()
            .map(|ty| self.f_mut().add_block_arg(block, ty))
            .collect();
        let outer = std::mem::replace(&mut self.point, InsertPoint::End(block));
        let returned = body(self, &args);
        self.point = outer;
        let values = returned?;
        for &v in &values {
            self.value_type(v)?;
        }
        let location = self.location.clone();
        self.f_mut().append_op(
            block,
            NewOp {
                location,
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
                self.f().name
            )));
        }
        let types = values
            .iter()
            .map(|&v| self.value_type(v).cloned())
            .collect::<Result<Vec<_>>>()?;
        let location = self.location.clone();
        let entry = self.f().entry_block();
        self.f_mut().append_op(
            entry,
            NewOp {
                location,
                ..NewOp::new(OpKind::Return, values.to_vec(), Vec::new())
            },
        );
        self.f_mut().set_result_types(types);
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
        self.f_mut().result_attrs = attrs;
        Ok(())
    }
}
