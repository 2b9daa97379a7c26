//! Control flow, calls and the remaining ops: while, if, case, func.call, composite,
//! custom_call, optimization_barrier, batch norm, rng_bit_generator.

use super::support::*;
use tpuc_ir::{
    Attribute, ComparisonDirection, CustomCallOptions, ElementType, FunctionBuilder, Module,
    NamedAttrs, Result, RngAlgorithm, TensorType, Value, Visibility,
};

/// A private function `name` over `args`, for calls and composite decompositions.
fn private(
    name: &str,
    args: &[TensorType],
    body: impl FnOnce(&mut FunctionBuilder, &[Value]) -> Result<Vec<Value>>,
) -> Result<tpuc_ir::Function> {
    let mut b = FunctionBuilder::new(name, Visibility::Private);
    let values: Vec<Value> = args.iter().map(|ty| b.arg(ty.clone())).collect();
    let results = body(&mut b, &values)?;
    b.ret(&results)?;
    b.finish()
}

fn with_functions(main: Result<Module>, others: Vec<Result<tpuc_ir::Function>>) -> Result<Module> {
    let mut module = main?;
    for function in others {
        module.add_function(function?)?;
    }
    Ok(module)
}

fn f32_type(shape: &[u64]) -> TensorType {
    TensorType::of(shape, ElementType::F32)
}

pub fn cases() -> Vec<Case> {
    let mut cases = vec![
        case(
            "while (counted loop)",
            vec![f32s(&[2], &[1.0, -0.5]), i32s(&[], &[3])],
            // acc -> 2 * acc + 1 three times: 8 * acc + 7.
            vec![exact(i32s(&[], &[3])), exact(f32s(&[2], &[15.0, 3.0]))],
            |b, a| {
                let zero = b.splat_i64(ElementType::I32, [], 0)?;
                let limit = a[1];
                b.while_loop(
                    &[zero, a[0]],
                    |b, v| Ok(vec![b.compare(ComparisonDirection::Lt, v[0], limit)?]),
                    |b, v| {
                        let one = b.splat_i64(ElementType::I32, [], 1)?;
                        let next = b.add(v[0], one)?;
                        let two = b.splat(ElementType::F32, [2], 2.0)?;
                        let ones = b.splat(ElementType::F32, [2], 1.0)?;
                        let doubled = b.multiply(v[1], two)?;
                        Ok(vec![next, b.add(doubled, ones)?])
                    },
                )
            },
        ),
        case(
            "if (both branches taken)",
            vec![bools(&[], &[true]), f32s(&[2], &[2.0, -3.0])],
            vec![
                exact(f32s(&[2], &[-2.0, 3.0])),
                exact(f32s(&[2], &[4.0, 9.0])),
            ],
            |b, a| {
                let x = a[1];
                let negated = b.if_else(
                    a[0],
                    |b| Ok(vec![b.negate(x)?]),
                    |b| Ok(vec![b.multiply(x, x)?]),
                )?;
                let not = b.not(a[0])?;
                let squared = b.if_else(
                    not,
                    |b| Ok(vec![b.negate(x)?]),
                    |b| Ok(vec![b.multiply(x, x)?]),
                )?;
                Ok(vec![negated[0], squared[0]])
            },
        ),
        case(
            "case (an out-of-range index runs the last branch)",
            vec![
                i32s(&[], &[1]),
                i32s(&[], &[7]),
                i32s(&[], &[-1]),
                f32s(&[2], &[1.0, 2.0]),
            ],
            // Branch i computes x * (i + 1) + i.
            vec![
                exact(f32s(&[2], &[3.0, 5.0])),
                exact(f32s(&[2], &[5.0, 8.0])),
                exact(f32s(&[2], &[5.0, 8.0])),
            ],
            |b, a| {
                let x = a[3];
                let mut results = Vec::new();
                for &index in &a[..3] {
                    let chosen = b.case(index, 3, |b, i| {
                        let scale = b.splat(ElementType::F32, [2], i as f64 + 1.0)?;
                        let shift = b.splat(ElementType::F32, [2], i as f64)?;
                        let scaled = b.multiply(x, scale)?;
                        Ok(vec![b.add(scaled, shift)?])
                    })?;
                    results.push(chosen[0]);
                }
                Ok(results)
            },
        ),
        case(
            "while containing a reduce and an if (regions nested three deep)",
            vec![f32s(&[3], &[1.0, 2.0, 3.0])],
            // Even steps add the sum to every element, odd steps double:
            // [1, 2, 3] -> [7, 8, 9] -> [14, 16, 18] -> [62, 64, 66].
            vec![
                exact(i32s(&[], &[3])),
                exact(f32s(&[3], &[62.0, 64.0, 66.0])),
            ],
            |b, a| {
                let zero = b.splat_i64(ElementType::I32, [], 0)?;
                b.while_loop(
                    &[zero, a[0]],
                    |b, v| {
                        let three = b.splat_i64(ElementType::I32, [], 3)?;
                        Ok(vec![b.compare(ComparisonDirection::Lt, v[0], three)?])
                    },
                    |b, v| {
                        let (step, acc) = (v[0], v[1]);
                        // Dead code: its result is never used.
                        b.negate(acc)?;
                        let init = b.splat(ElementType::F32, [], 0.0)?;
                        let sum = b
                            .reduce(&[acc], &[init], &[0], |b, r| Ok(vec![b.add(r[0], r[1])?]))?[0];
                        let two = b.splat_i64(ElementType::I32, [], 2)?;
                        let parity = b.remainder(step, two)?;
                        let zero = b.splat_i64(ElementType::I32, [], 0)?;
                        let even = b.compare(ComparisonDirection::Eq, parity, zero)?;
                        let next = b.if_else(
                            even,
                            |b| {
                                let spread = b.broadcast_in_dim(sum, &[], [3])?;
                                Ok(vec![b.add(acc, spread)?])
                            },
                            |b| Ok(vec![b.add(acc, acc)?]),
                        )?[0];
                        let one = b.splat_i64(ElementType::I32, [], 1)?;
                        Ok(vec![b.add(step, one)?, next])
                    },
                )
            },
        ),
    ];

    let pair = [f32_type(&[3]), f32_type(&[3])];
    let call_module = with_functions(
        main_module("func.call", &pair, |b, a| {
            let results = b.call(
                "square_plus",
                &[a[0], a[1]],
                vec![f32_type(&[3]).into(), f32_type(&[3]).into()],
            )?;
            Ok(results)
        }),
        vec![private("square_plus", &pair, |b, a| {
            let square = b.multiply(a[0], a[0])?;
            Ok(vec![b.add(square, a[1])?, square])
        })],
    );
    cases.push(Case::from_module(
        "func.call (two results)",
        call_module,
        vec![
            f32s(&[3], &[1.0, -2.0, 0.5]),
            f32s(&[3], &[10.0, 20.0, 30.0]),
        ],
        vec![
            exact(f32s(&[3], &[11.0, 24.0, 30.25])),
            exact(f32s(&[3], &[1.0, 4.0, 0.25])),
        ],
    ));

    let composite_module = with_functions(
        main_module("composite", &pair, |b, a| {
            let attrs = NamedAttrs::new().with(
                "alpha",
                Attribute::Float {
                    value: 3.0,
                    ty: ElementType::F32,
                },
            );
            b.composite(
                "tpuc.scaled_add",
                &[a[0], a[1]],
                attrs,
                "scaled_add_impl",
                1,
                vec![f32_type(&[3]).into()],
            )
        }),
        vec![private("scaled_add_impl", &pair, |b, a| {
            let alpha = b.splat(ElementType::F32, [3], 3.0)?;
            let scaled = b.multiply(a[1], alpha)?;
            Ok(vec![b.add(a[0], scaled)?])
        })],
    );
    cases.push(Case::from_module(
        "composite (runs its decomposition)",
        composite_module,
        vec![f32s(&[3], &[1.0, -2.0, 0.5]), f32s(&[3], &[1.0, 2.0, -1.0])],
        vec![exact(f32s(&[3], &[4.0, 4.0, -2.5]))],
    ));

    cases.push(case(
        "custom_call @Sharding (an annotation XLA knows: identity on one device)",
        vec![f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0])],
        vec![exact(f32s(&[2, 2], &[1.0, 2.0, 3.0, 4.0]))],
        |b, a| {
            let annotated = b.custom_call(
                "Sharding",
                &[a[0]],
                vec![f32_type(&[2, 2]).into()],
                CustomCallOptions::default(),
            )?[0];
            b.set_op_attr(
                annotated,
                "mhlo.sharding",
                Attribute::String("{replicated}".to_string()),
            )?;
            Ok(vec![annotated])
        },
    ));

    cases.push(case(
        "optimization_barrier passes its operands through",
        vec![f32s(&[2], &[1.5, -1.5]), i32s(&[], &[9])],
        vec![exact(f32s(&[2], &[3.0, -3.0])), exact(i32s(&[], &[9]))],
        |b, a| {
            let doubled = b.add(a[0], a[0])?;
            b.optimization_barrier(&[doubled, a[1]])
        },
    ));

    cases.extend(batch_norm_cases());
    cases.extend(rng_cases());
    cases
}

fn batch_norm_cases() -> Vec<Case> {
    let x = [1.0f32, -2.0, 0.5, 3.0, 4.0, -1.0];
    let (scale, offset, mean, variance) = (
        [2.0f32, 0.5, 1.0],
        [0.1f32, 0.2, 0.3],
        [1.0f32, 1.0, -1.0],
        [4.0f32, 0.25, 1.0],
    );
    let epsilon = 1e-3f32;
    let inference: Vec<f32> = (0..6)
        .map(|i| {
            let f = i % 3;
            let normalized = (f64::from(x[i]) - f64::from(mean[f]))
                / (f64::from(variance[f]) + f64::from(epsilon)).sqrt();
            (normalized * f64::from(scale[f]) + f64::from(offset[f])) as f32
        })
        .collect();

    // Training statistics over the batch: per-feature mean and biased variance.
    let batch_mean: Vec<f64> = (0..3)
        .map(|f| (f64::from(x[f]) + f64::from(x[f + 3])) / 2.0)
        .collect();
    let batch_var: Vec<f64> = (0..3)
        .map(|f| {
            [x[f], x[f + 3]]
                .iter()
                .map(|&v| (f64::from(v) - batch_mean[f]).powi(2))
                .sum::<f64>()
                / 2.0
        })
        .collect();
    let trained: Vec<f32> = (0..6)
        .map(|i| {
            let f = i % 3;
            let normalized =
                (f64::from(x[i]) - batch_mean[f]) / (batch_var[f] + f64::from(epsilon)).sqrt();
            (normalized * f64::from(scale[f]) + f64::from(offset[f])) as f32
        })
        .collect();
    let to_f32 = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
    vec![
        case(
            "batch_norm_inference",
            vec![
                f32s(&[2, 3], &x),
                f32s(&[3], &scale),
                f32s(&[3], &offset),
                f32s(&[3], &mean),
                f32s(&[3], &variance),
            ],
            vec![close(f32s(&[2, 3], &inference), tol(1e-6, 1e-6))],
            move |b, a| {
                Ok(vec![b.batch_norm_inference(
                    a[0], a[1], a[2], a[3], a[4], epsilon, 1,
                )?])
            },
        ),
        case(
            "batch_norm_training",
            vec![f32s(&[2, 3], &x), f32s(&[3], &scale), f32s(&[3], &offset)],
            vec![
                close(f32s(&[2, 3], &trained), tol(1e-6, 1e-6)),
                close(f32s(&[3], &to_f32(&batch_mean)), tol(1e-6, 1e-6)),
                close(f32s(&[3], &to_f32(&batch_var)), tol(1e-6, 1e-6)),
            ],
            move |b, a| b.batch_norm_training(a[0], a[1], a[2], epsilon, 1),
        ),
    ]
}

/// Outputs: the state passed through, then (next state, bits) from the state, from an equal
/// copy of it, and bits from a different state.
fn rng_is_deterministic(outputs: &[Vec<Host>]) -> std::result::Result<(), String> {
    let [state, next, bits, next_again, bits_again, other_bits] = &outputs[0][..] else {
        return Err(format!("{} outputs, expected 6", outputs[0].len()));
    };
    let mut problems = Vec::new();
    if bits != bits_again || next != next_again {
        problems.push("the same state gave different bits or next states");
    }
    if bits == other_bits {
        problems.push("different states gave the same bits");
    }
    if next == state {
        problems.push("the state did not advance");
    }
    if bits.bytes.iter().all(|&b| b == 0) {
        problems.push("all bits are zero");
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

fn rng_case(
    name: &str,
    algorithm: RngAlgorithm,
    state: Vec<u64>,
    other: Vec<u64>,
    output: TensorType,
) -> Case {
    let n = state.len() as u64;
    let state_type = TensorType::of(&[n], ElementType::UI64);
    let expected = vec![
        exact(u64s(&[n], &state)),
        Expect::Shape(state_type.clone()),
        Expect::Shape(output.clone()),
        Expect::Shape(state_type.clone()),
        Expect::Shape(output.clone()),
        Expect::Shape(output.clone()),
    ];
    case(
        name,
        vec![u64s(&[n], &state), u64s(&[n], &state), u64s(&[n], &other)],
        expected,
        move |b, a| {
            let (next, bits) = b.rng_bit_generator(a[0], algorithm, output.clone())?;
            let (next_again, bits_again) = b.rng_bit_generator(a[1], algorithm, output.clone())?;
            let (_, other_bits) = b.rng_bit_generator(a[2], algorithm, output)?;
            Ok(vec![a[0], next, bits, next_again, bits_again, other_bits])
        },
    )
    .check(rng_is_deterministic)
}

fn rng_cases() -> Vec<Case> {
    vec![
        rng_case(
            "rng_bit_generator DEFAULT",
            RngAlgorithm::Default,
            vec![1, 2],
            vec![3, 4],
            TensorType::of(&[2, 3], ElementType::UI32),
        ),
        rng_case(
            "rng_bit_generator THREE_FRY",
            RngAlgorithm::ThreeFry,
            vec![42, 0],
            vec![43, 0],
            TensorType::of(&[4], ElementType::UI64),
        ),
        rng_case(
            "rng_bit_generator PHILOX",
            RngAlgorithm::Philox,
            vec![7, 8, 9],
            vec![7, 8, 10],
            TensorType::of(&[3, 2], ElementType::UI32),
        ),
    ]
}
