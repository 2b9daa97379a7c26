//! Dynamic-shape ops with static result types (as after shape refinement), and the one XLA
//! cannot translate.

use super::support::*;
use tpuc_ir::{
    ConvAttrs, ConvDims, DenseElements, ElementType, FunctionBuilder, GatherDims, Result,
    TensorType, Value,
};

/// A constant shape operand (`tensor<Nxi32>`).
fn shape(b: &mut FunctionBuilder, values: &[i64]) -> Result<Value> {
    let ty = TensorType::of(&[values.len() as u64], ElementType::I32);
    let data = DenseElements::from_i64s(&ty, values)?;
    b.constant(ty, data)
}

fn f32_type(shape: &[u64]) -> TensorType {
    TensorType::of(shape, ElementType::F32)
}

pub fn cases() -> Vec<Case> {
    vec![
        case(
            "get_dimension_size",
            vec![f32s(&[2, 5], &[0.0; 10])],
            vec![exact(i32s(&[], &[5]))],
            |b, a| Ok(vec![b.get_dimension_size(a[0], 1)?]),
        ),
        case(
            "dynamic_broadcast_in_dim",
            vec![f32s(&[3], &[1.0, 2.0, 3.0])],
            vec![exact(f32s(&[2, 3], &[1.0, 2.0, 3.0, 1.0, 2.0, 3.0]))],
            |b, a| {
                let dims = shape(b, &[2, 3])?;
                Ok(vec![b.dynamic_broadcast_in_dim(
                    a[0],
                    dims,
                    &[1],
                    f32_type(&[2, 3]),
                )?])
            },
        ),
        case(
            "dynamic_reshape",
            vec![f32s(&[2, 3], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0])],
            vec![exact(f32s(&[3, 1, 2], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]))],
            |b, a| {
                let dims = shape(b, &[3, 1, 2])?;
                Ok(vec![b.dynamic_reshape(a[0], dims, f32_type(&[3, 1, 2]))?])
            },
        ),
        case(
            "dynamic_iota",
            Vec::new(),
            vec![exact(f32s(&[2, 3], &[0.0, 1.0, 2.0, 0.0, 1.0, 2.0]))],
            |b, _| {
                let dims = shape(b, &[2, 3])?;
                Ok(vec![b.dynamic_iota(dims, 1, f32_type(&[2, 3]))?])
            },
        ),
        case(
            "dynamic_iota with its shape from an argument",
            vec![i32s(&[1], &[4])],
            vec![exact(i32s(&[4], &[0, 1, 2, 3]))],
            |b, a| {
                Ok(vec![b.dynamic_iota(
                    a[0],
                    0,
                    TensorType::of(&[4], ElementType::I32),
                )?])
            },
        ),
        case(
            "dynamic_pad",
            vec![f32s(&[3], &[1.0, 2.0, 3.0]), f32s(&[], &[-1.0])],
            vec![exact(f32s(
                &[8],
                &[-1.0, 1.0, -1.0, 2.0, -1.0, 3.0, -1.0, -1.0],
            ))],
            |b, a| {
                let low = shape(b, &[1])?;
                let high = shape(b, &[2])?;
                let interior = shape(b, &[1])?;
                Ok(vec![b.dynamic_pad(
                    a[0],
                    a[1],
                    low,
                    high,
                    interior,
                    f32_type(&[8]),
                )?])
            },
        ),
        case(
            "real_dynamic_slice",
            vec![f32s(
                &[2, 5],
                &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
            )],
            vec![exact(f32s(&[1, 2], &[6.0, 8.0]))],
            |b, a| {
                let start = shape(b, &[1, 1])?;
                let limit = shape(b, &[2, 5])?;
                let strides = shape(b, &[1, 2])?;
                Ok(vec![b.real_dynamic_slice(
                    a[0],
                    start,
                    limit,
                    strides,
                    f32_type(&[1, 2]),
                )?])
            },
        ),
        case(
            "dynamic_gather",
            vec![
                f32s(&[3, 2], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
                i32s(&[2, 1], &[2, 0]),
            ],
            vec![exact(f32s(&[2, 2], &[4.0, 5.0, 0.0, 1.0]))],
            |b, a| {
                let sizes = shape(b, &[1, 2])?;
                let dims = GatherDims {
                    offset_dims: vec![1],
                    collapsed_slice_dims: vec![0],
                    start_index_map: vec![0],
                    index_vector_dim: 1,
                    ..GatherDims::default()
                };
                Ok(vec![b.dynamic_gather(
                    a[0],
                    a[1],
                    sizes,
                    dims,
                    false,
                    f32_type(&[2, 2]),
                )?])
            },
        ),
        case(
            "dynamic_conv",
            vec![
                f32s(&[1, 1, 4, 4], &[0.0; 16]),
                f32s(&[1, 1, 3, 3], &[0.0; 9]),
            ],
            Vec::new(),
            |b, a| {
                let padding = b.constant(
                    TensorType::of(&[2, 2], ElementType::I32),
                    DenseElements::splat_i64(ElementType::I32, 1),
                )?;
                let attrs = ConvAttrs::new(ConvDims::nchw(2));
                Ok(vec![b.dynamic_conv(
                    a[0],
                    a[1],
                    padding,
                    attrs,
                    f32_type(&[1, 1, 4, 4]),
                )?])
            },
        )
        .cpu_rejects("'stablehlo.dynamic_conv' op can't be translated to XLA HLO")
        .tpu(Tpu::Rejects(
            "'stablehlo.dynamic_conv' op can't be translated to XLA HLO",
        )),
    ]
}
