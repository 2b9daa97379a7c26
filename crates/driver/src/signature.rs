//! A program's interface as the runtime binds it: each argument's and result's role, torch
//! dtype and static shape.

use tpuc_ir::{ArgumentRole, Program, ResultRole, Type};
use tpuc_pt2::DType;

use crate::error::{DriverError, Result};

/// One `main` argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgumentBinding {
    pub role: ArgumentRole,
    /// The torch dtype (bf16 stays bf16).
    pub dtype: DType,
    pub shape: Vec<i64>,
}

/// One `main` result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResultBinding {
    pub role: ResultRole,
    pub dtype: DType,
    pub shape: Vec<i64>,
}

/// The bindings of `program`'s `main`; every argument and result must be a static tensor of a
/// type torch has.
pub fn bindings(
    program: &Program,
    name: &str,
) -> Result<(Vec<ArgumentBinding>, Vec<ResultBinding>)> {
    let interface = program.interface()?;
    let main = program.main()?;
    let arguments = interface
        .arguments
        .into_iter()
        .zip(main.arg_types())
        .enumerate()
        .map(|(index, (role, ty))| {
            let (dtype, shape) = tensor_of(&ty, name, &format!("argument {index}"))?;
            Ok(ArgumentBinding { role, dtype, shape })
        })
        .collect::<Result<_>>()?;
    let results = interface
        .results
        .into_iter()
        .zip(&main.result_types)
        .enumerate()
        .map(|(index, (role, ty))| {
            let (dtype, shape) = tensor_of(ty, name, &format!("result {index}"))?;
            Ok(ResultBinding { role, dtype, shape })
        })
        .collect::<Result<_>>()?;
    Ok((arguments, results))
}

/// The torch dtype and static shape of a `main` argument or result.
fn tensor_of(ty: &Type, name: &str, what: &str) -> Result<(DType, Vec<i64>)> {
    let unsupported = |why: String| DriverError::Unsupported(format!("{name}: {what} {why}"));
    let tensor = ty
        .as_tensor()
        .ok_or_else(|| unsupported(format!("is {ty}, not a tensor")))?;
    let dtype = tpuc_lower::torch_dtype(tensor.element).ok_or_else(|| {
        unsupported(format!(
            "has element type {}, which tpuc cannot bind",
            tensor.element
        ))
    })?;
    let shape = tensor
        .static_shape()
        .ok_or_else(|| unsupported(format!("has a dynamic shape ({ty}); give static shapes")))?;
    let shape = shape.into_iter().map(|d| d as i64).collect();
    Ok((dtype, shape))
}
