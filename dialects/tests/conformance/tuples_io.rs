//! Tuples, tokens, host I/O and the ops StableHLO keeps for compatibility: tuple,
//! get_tuple_element, create_token, after_all, send, recv, outfeed, broadcast,
//! set_dimension_size, rng, einsum, unary_einsum, batch_norm_grad.

use super::support::*;
use tpuc_ir::{ChannelHandle, ElementType, OpKind, RngDistribution, TensorType, Type};

fn f32_type(shape: &[u64]) -> Type {
    Type::Tensor(TensorType::of(shape, ElementType::F32))
}

/// Every value of the output in `[0, 1)`, and not all equal.
fn uniform_in_unit_interval(outputs: &[Vec<Host>]) -> std::result::Result<(), String> {
    let values: Vec<f64> = outputs[0][0].scalars().iter().map(|s| s.as_f64()).collect();
    if let Some(bad) = values.iter().find(|v| !(0.0..1.0).contains(*v)) {
        return Err(format!("{bad} is outside [0, 1)"));
    }
    if values.windows(2).all(|w| w[0] == w[1]) {
        return Err(format!("all values are equal: {values:?}"));
    }
    Ok(())
}

/// `batch_norm_grad` of `x` (`[n, features]`, feature_index 1) by the spec's formulas.
fn batch_norm_grad_reference(
    x: &[f64],
    scale: &[f64],
    mean: &[f64],
    variance: &[f64],
    grad: &[f64],
    epsilon: f64,
) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let features = scale.len();
    let n = x.len() / features;
    let mut grad_operand = vec![0.0; x.len()];
    let (mut grad_scale, mut grad_offset) = (vec![0.0; features], vec![0.0; features]);
    for f in 0..features {
        let stddev = (variance[f] + epsilon).sqrt();
        let column = |v: &[f64]| (0..n).map(|i| v[i * features + f]).collect::<Vec<_>>();
        let (xs, gs) = (column(x), column(grad));
        let centered: Vec<f64> = xs.iter().map(|v| v - mean[f]).collect();
        let mean_grad = gs.iter().sum::<f64>() / n as f64;
        let mean_grad_centered =
            gs.iter().zip(&centered).map(|(g, c)| g * c).sum::<f64>() / n as f64;
        for i in 0..n {
            grad_operand[i * features + f] = scale[f] / stddev
                * (gs[i] - mean_grad - centered[i] * mean_grad_centered / (stddev * stddev));
        }
        grad_scale[f] = gs.iter().zip(&centered).map(|(g, c)| g * c / stddev).sum();
        grad_offset[f] = gs.iter().sum();
    }
    (grad_operand, grad_scale, grad_offset)
}

pub fn cases() -> Vec<Case> {
    let to_f32 = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
    let x = [1.0, -2.0, 0.5, 3.0, 2.5, -1.0];
    let scale = [0.5, 2.0];
    let mean = [1.0, 0.0];
    let variance = [1.5, 4.0];
    let grad = [0.25, -1.0, 2.0, 0.5, -0.75, 1.5];
    let (grad_operand, grad_scale, grad_offset) =
        batch_norm_grad_reference(&x, &scale, &mean, &variance, &grad, 0.001);
    let channel = |handle, kind| ChannelHandle { handle, kind };
    vec![
        case(
            "tuple and get_tuple_element",
            vec![f32s(&[3], &[1.0, 2.0, 3.0]), i32s(&[2], &[7, -7])],
            vec![exact(i32s(&[2], &[7, -7]))],
            |b, a| {
                let t = b.op(OpKind::Tuple, &[a[0], a[1]], Vec::new(), None)?;
                b.op(OpKind::GetTupleElement { index: 1 }, &t, Vec::new(), None)
            },
        ),
        case(
            "create_token and after_all",
            vec![f32s(&[2], &[1.0, 2.0])],
            vec![exact(f32s(&[2], &[1.0, 2.0]))],
            |b, a| {
                let t1 = b.op(OpKind::CreateToken, &[], Vec::new(), None)?;
                let t2 = b.op(OpKind::CreateToken, &[], Vec::new(), None)?;
                b.op(OpKind::AfterAll, &[t1[0], t2[0]], Vec::new(), None)?;
                Ok(vec![a[0]])
            },
        ),
        case(
            "send to the host (XLA:CPU has no host transfers)",
            vec![f32s(&[2], &[1.0, 2.0])],
            vec![exact(f32s(&[2], &[1.0, 2.0]))],
            move |b, a| {
                let token = b.op(OpKind::CreateToken, &[], Vec::new(), None)?;
                let kind = OpKind::Send {
                    channel: Some(channel(5, 2)),
                    is_host_transfer: true,
                };
                b.op(kind, &[a[0], token[0]], Vec::new(), None)?;
                Ok(vec![a[0]])
            },
        )
        .cpu_rejects("is not supported by XLA:CPU")
        .tpu(Tpu::Rejects("kXlaHostTransferHandlerNameAttr")),
        case(
            "recv from the host (XLA:CPU has no host transfers)",
            Vec::new(),
            vec![exact(f32s(&[2], &[1.0, 2.0]))],
            move |b, _| {
                let token = b.op(OpKind::CreateToken, &[], Vec::new(), None)?;
                let kind = OpKind::Recv {
                    channel: Some(channel(6, 3)),
                    is_host_transfer: true,
                };
                let received = b.op(
                    kind,
                    &token,
                    Vec::new(),
                    Some(vec![f32_type(&[2]), Type::Token]),
                )?;
                Ok(vec![received[0]])
            },
        )
        .cpu_rejects("is not supported by XLA:CPU")
        .tpu(Tpu::Rejects("kXlaHostTransferHandlerNameAttr")),
        case(
            "outfeed (on XLA:CPU it would wait for a host to read it)",
            vec![f32s(&[2], &[1.0, 2.0])],
            vec![exact(f32s(&[2], &[1.0, 2.0]))],
            |b, a| {
                let token = b.op(OpKind::CreateToken, &[], Vec::new(), None)?;
                let kind = OpKind::Outfeed {
                    config: String::new(),
                };
                b.op(kind, &[a[0], token[0]], Vec::new(), None)?;
                Ok(vec![a[0]])
            },
        )
        .cpu_compiles_only(),
        case(
            "broadcast (new leading dimensions)",
            vec![f32s(&[3], &[1.0, 2.0, 3.0])],
            vec![exact(f32s(&[2, 3], &[1.0, 2.0, 3.0, 1.0, 2.0, 3.0]))],
            |b, a| {
                let kind = OpKind::Broadcast { sizes: vec![2] };
                b.op(kind, &[a[0]], Vec::new(), None)
            },
        ),
        case(
            "set_dimension_size to the full size",
            vec![f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0])],
            vec![exact(f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0]))],
            |b, a| {
                let size = b.splat_i64(ElementType::I32, Vec::<u64>::new(), 2)?;
                let kind = OpKind::SetDimensionSize { dimension: 1 };
                b.op(
                    kind,
                    &[a[0], size],
                    Vec::new(),
                    Some(vec![f32_type(&[2, 2])]),
                )
            },
        ),
        case(
            "rng UNIFORM in [0, 1)",
            Vec::new(),
            vec![Expect::Shape(TensorType::of(&[4, 4], ElementType::F32))],
            |b, _| {
                let low = b.splat(ElementType::F32, Vec::<u64>::new(), 0.0)?;
                let high = b.splat(ElementType::F32, Vec::<u64>::new(), 1.0)?;
                let shape = b.constant(
                    TensorType::of(&[2], ElementType::I64),
                    tpuc_ir::DenseElements::from_i64s(
                        &TensorType::of(&[2], ElementType::I64),
                        &[4, 4],
                    )?,
                )?;
                let kind = OpKind::Rng {
                    distribution: RngDistribution::Uniform,
                };
                b.op(
                    kind,
                    &[low, high, shape],
                    Vec::new(),
                    Some(vec![f32_type(&[4, 4])]),
                )
            },
        )
        .check(uniform_in_unit_interval),
        case(
            "einsum ab,bc->ac",
            vec![
                f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
                f32s(&[3, 1], &[1.0, 0.5, -1.0]),
            ],
            vec![exact(f32s(&[2, 1], &[-1.0, 0.5]))],
            |b, a| {
                let kind = OpKind::Einsum {
                    config: "ab,bc->ac".to_string(),
                };
                b.op(
                    kind,
                    &[a[0], a[1]],
                    Vec::new(),
                    Some(vec![f32_type(&[2, 1])]),
                )
            },
        ),
        case(
            "unary_einsum ab->a (XLA has no translation for it)",
            vec![f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])],
            vec![exact(f32s(&[2], &[6.0, 15.0]))],
            |b, a| {
                let kind = OpKind::UnaryEinsum {
                    config: "ab->a".to_string(),
                };
                b.op(kind, &[a[0]], Vec::new(), Some(vec![f32_type(&[2])]))
            },
        )
        .cpu_rejects("can't be translated to XLA HLO")
        .tpu(Tpu::Rejects("can't be translated to XLA HLO")),
        case(
            "batch_norm_grad over feature dimension 1",
            vec![
                f32s(&[3, 2], &to_f32(&x)),
                f32s(&[2], &to_f32(&scale)),
                f32s(&[2], &to_f32(&mean)),
                f32s(&[2], &to_f32(&variance)),
                f32s(&[3, 2], &to_f32(&grad)),
            ],
            vec![
                close(f32s(&[3, 2], &to_f32(&grad_operand)), tol(1e-5, 1e-5)),
                close(f32s(&[2], &to_f32(&grad_scale)), tol(1e-5, 1e-5)),
                close(f32s(&[2], &to_f32(&grad_offset)), tol(1e-5, 1e-5)),
            ],
            |b, a| {
                let kind = OpKind::BatchNormGrad {
                    epsilon: 0.001,
                    feature_index: 1,
                };
                b.op(kind, a, Vec::new(), None)
            },
        ),
    ]
}
