//! Tensor factories: `arange`, `full`, `zeros`, `ones`, `empty`, `scalar_tensor` and the
//! `*_like`/`new_*` variants. Shapes and dtypes are the ones torch recorded for the output.

use tpuc_ir::ElementType;
use tpuc_pt2::DType;

use super::one;
use crate::args::Args;
use crate::cx::Cx;
use crate::dtype::element_type;
use crate::env::Val;
use crate::error::OpResult;
use crate::op_def::{OpDef, aten};
use crate::promote::Scalar;
use crate::support;

macro_rules! factory {
    ($head:literal, $tail:literal, $f:expr) => {
        aten(concat!($head, "*, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None", $tail), $f)
    };
}

pub(super) const OPS: &[OpDef] = &[
    factory!("arange(Scalar end, ", ") -> Tensor", arange),
    factory!(
        "arange.start(Scalar start, Scalar end, ",
        ") -> Tensor",
        arange
    ),
    factory!(
        "arange.start_step(Scalar start, Scalar end, Scalar step=1, ",
        ") -> Tensor",
        arange
    ),
    factory!(
        "full(SymInt[] size, Scalar fill_value, ",
        ") -> Tensor",
        full
    ),
    factory!("zeros(SymInt[] size, ", ") -> Tensor", zeros),
    factory!("ones(SymInt[] size, ", ") -> Tensor", ones),
    factory!(
        "empty.memory_format(SymInt[] size, ",
        ", MemoryFormat? memory_format=None) -> Tensor",
        zeros
    ),
    factory!(
        "empty_strided(SymInt[] size, SymInt[] stride, ",
        ") -> Tensor",
        zeros
    ),
    factory!(
        "empty_permuted(SymInt[] size, int[] physical_layout, ",
        ") -> Tensor",
        zeros
    ),
    factory!("scalar_tensor(Scalar s, ", ") -> Tensor", scalar_tensor),
    factory!(
        "full_like(Tensor self, Scalar fill_value, ",
        ", MemoryFormat? memory_format=None) -> Tensor",
        full
    ),
    factory!(
        "zeros_like(Tensor self, ",
        ", MemoryFormat? memory_format=None) -> Tensor",
        zeros
    ),
    factory!(
        "ones_like(Tensor self, ",
        ", MemoryFormat? memory_format=None) -> Tensor",
        ones
    ),
    factory!(
        "empty_like(Tensor self, ",
        ", MemoryFormat? memory_format=None) -> Tensor",
        zeros
    ),
    factory!(
        "new_full(Tensor self, SymInt[] size, Scalar fill_value, ",
        ") -> Tensor",
        full
    ),
    factory!(
        "new_zeros(Tensor self, SymInt[] size, ",
        ") -> Tensor",
        zeros
    ),
    factory!("new_ones(Tensor self, SymInt[] size, ", ") -> Tensor", ones),
    factory!(
        "new_empty(Tensor self, SymInt[] size, ",
        ") -> Tensor",
        zeros
    ),
];

fn filled(cx: &mut Cx<'_>, value: Scalar) -> OpResult<Vec<Val>> {
    let shape = cx.out_shape(0)?;
    let dtype = cx.out_dtype(0)?;
    one(support::splat(cx.b, dtype, &shape, value)?)
}

fn full(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let value = args.scalar("fill_value")?;
    filled(cx, value)
}

fn zeros(cx: &mut Cx<'_>, _: &Args<'_>) -> OpResult<Vec<Val>> {
    filled(cx, Scalar::Int(0))
}

fn ones(cx: &mut Cx<'_>, _: &Args<'_>) -> OpResult<Vec<Val>> {
    filled(cx, Scalar::Int(1))
}

fn scalar_tensor(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let value = args.scalar("s")?;
    filled(cx, value)
}

fn arange(cx: &mut Cx<'_>, args: &Args<'_>) -> OpResult<Vec<Val>> {
    let start = if args.raw("start").is_ok() {
        args.scalar("start")?
    } else {
        Scalar::Int(0)
    };
    let step = if args.raw("step").is_ok() {
        args.scalar("step")?
    } else {
        Scalar::Int(1)
    };
    let shape = cx.out_shape(0)?;
    let dtype = cx.out_dtype(0)?;
    let b = &mut *cx.b;
    let float = dtype.is_float();
    // Integer ranges count in int64; float ranges in the output dtype (float32 for halves).
    let compute = if float {
        super::norm::compute_dtype(dtype)
    } else {
        DType::I64
    };
    let element: ElementType = element_type(compute)?;
    let mut v = b.iota(support::tensor_type(element, &shape), 0)?;
    if !step.is(1.0) {
        let k = support::like(b, v, step)?;
        v = b.multiply(v, k)?;
    }
    if !start.is(0.0) {
        let k = support::like(b, v, start)?;
        v = b.add(v, k)?;
    }
    one(support::convert(b, v, dtype)?)
}
