//! Print → parse → print is the identity for every op kind, in both forms and every location
//! style, on modules built through the low-level construction API.

mod common;

use common::{PRINTERS, STYLES};
use tpuc_ir::parse::parse_module;
use tpuc_ir::*;

fn tensor(shape: &[u64], element: ElementType) -> Type {
    Type::Tensor(TensorType::of(shape, element))
}

fn f32s(shape: &[u64]) -> Type {
    tensor(shape, ElementType::F32)
}

fn scalar(element: ElementType) -> Type {
    tensor(&[], element)
}

/// Appends ops to one block, each with its own location so every location kind is printed.
struct Body<'f> {
    f: &'f mut Function,
    block: BlockId,
    counter: u32,
}

impl Body<'_> {
    fn location(&mut self) -> Location {
        self.counter += 1;
        match self.counter % 5 {
            0 => Location::Unknown,
            1 => Location::file("model.py", self.counter, 4),
            2 => Location::named("layer.fc", Location::file("model.py", self.counter, 0)),
            3 => Location::name(format!("node_{}", self.counter)),
            _ => Location::Fused(vec![Location::name("a"), Location::file("b.py", 1, 2)]),
        }
    }

    fn op(&mut self, kind: OpKind, operands: &[Value], results: &[Type]) -> Vec<Value> {
        self.op_with(kind, operands, results, Vec::new(), NamedAttrs::new())
    }

    fn op_with(
        &mut self,
        kind: OpKind,
        operands: &[Value],
        results: &[Type],
        regions: Vec<RegionId>,
        attrs: NamedAttrs,
    ) -> Vec<Value> {
        let location = self.location();
        let id = self.f.append_op(
            self.block,
            NewOp {
                kind,
                operands: operands.to_vec(),
                result_types: results.to_vec(),
                regions,
                attrs,
                location,
            },
        );
        self.f.op(id).results.clone()
    }

    fn one(&mut self, kind: OpKind, operands: &[Value], result: Type) -> Value {
        self.op(kind, operands, &[result])[0]
    }

    fn constant(&mut self, ty: &TensorType, values: &[f64]) -> Value {
        let data = if values.len() == 1 {
            DenseElements::splat_f64(ty.element, values[0])
        } else {
            DenseElements::from_f64s(ty, values).unwrap()
        };
        self.one(OpKind::Constant(data), &[], Type::Tensor(ty.clone()))
    }

    /// A region whose block takes `args` and returns the result of `build` on them.
    fn region(
        &mut self,
        args: &[Type],
        build: impl FnOnce(&mut Body<'_>, &[Value]) -> Vec<Value>,
    ) -> RegionId {
        let region = self.f.add_region();
        let block = self.f.add_block(region);
        let values: Vec<Value> = args
            .iter()
            .map(|ty| self.f.add_block_arg(block, ty.clone()))
            .collect();
        let mut inner = Body {
            f: &mut *self.f,
            block,
            counter: self.counter,
        };
        let results = build(&mut inner, &values);
        inner.op(OpKind::RegionReturn, &results, &[]);
        self.counter = inner.counter;
        region
    }

    /// `stablehlo.add` of two scalars of `element`, returned.
    fn adder(&mut self, element: ElementType) -> RegionId {
        let ty = scalar(element);
        self.region(&[ty.clone(), ty.clone()], |b, a| {
            vec![b.one(OpKind::Binary(BinaryOp::Add), &[a[0], a[1]], ty)]
        })
    }
}

fn function(
    name: &str,
    args: &[Type],
    results: &[Type],
    build: impl FnOnce(&mut Body<'_>, &[Value]) -> Vec<Value>,
) -> Function {
    let mut f = Function::new(name, Visibility::Public, args.to_vec(), results.to_vec());
    f.location = Location::named(name, Location::file("model.py", 1, 0));
    let block = f.entry_block();
    let args = f.args().to_vec();
    let mut body = Body {
        f: &mut f,
        block,
        counter: 0,
    };
    let values = build(&mut body, &args);
    body.op(OpKind::Return, &values, &[]);
    f
}

fn elementwise() -> Function {
    let x = f32s(&[2, 3]);
    let i = tensor(&[2, 3], ElementType::I32);
    let c = tensor(&[2, 3], ElementType::ComplexF32);
    let pred = tensor(&[2, 3], ElementType::I1);
    function(
        "elementwise",
        &[x.clone(), x.clone(), i.clone(), c.clone()],
        std::slice::from_ref(&x),
        |b, a| {
            let (x0, x1, i0, c0) = (a[0], a[1], a[2], a[3]);
            let mut last = x0;
            for &op in UnaryOp::ALL {
                let (operand, result) = match op {
                    UnaryOp::Not | UnaryOp::Popcnt | UnaryOp::CountLeadingZeros => (i0, i.clone()),
                    UnaryOp::Real | UnaryOp::Imag => (c0, x.clone()),
                    UnaryOp::IsFinite => (x0, pred.clone()),
                    _ => (x0, x.clone()),
                };
                let value = b.one(OpKind::Unary(op), &[operand], result);
                if b.f.value_type(value) == &x {
                    last = value;
                }
            }
            for &op in BinaryOp::ALL {
                match op {
                    op if integers_only(op) => {
                        b.one(OpKind::Binary(op), &[i0, i0], i.clone());
                    }
                    BinaryOp::Complex => {
                        b.one(OpKind::Binary(op), &[x0, x1], c.clone());
                    }
                    _ => last = b.one(OpKind::Binary(op), &[last, x1], x.clone()),
                }
            }
            let cmp = b.one(
                OpKind::Compare {
                    direction: ComparisonDirection::Lt,
                    compare_type: Some(ComparisonType::Float),
                },
                &[x0, x1],
                pred.clone(),
            );
            b.one(
                OpKind::Compare {
                    direction: ComparisonDirection::Ne,
                    compare_type: None,
                },
                &[i0, i0],
                pred.clone(),
            );
            let sel = b.one(OpKind::Select, &[cmp, x0, last], x.clone());
            let lo = b.constant(&TensorType::scalar(ElementType::F32), &[-1.0]);
            let hi = b.constant(&TensorType::scalar(ElementType::F32), &[1.0]);
            b.one(OpKind::Clamp, &[lo, sel, hi], x.clone());
            let clamped = b.one(OpKind::Clamp, &[x0, sel, x1], x.clone());
            let half = b.one(
                OpKind::Convert,
                &[clamped],
                tensor(&[2, 3], ElementType::BF16),
            );
            let back = b.one(OpKind::Convert, &[half], x.clone());
            b.one(OpKind::BitcastConvert, &[back], i.clone());
            vec![back]
        },
    )
}

fn constants() -> Function {
    let cases: Vec<(TensorType, DenseElements)> = {
        let mut cases = Vec::new();
        let ty = |shape: &[u64], e| TensorType::of(shape, e);
        for element in ElementType::ALL {
            let t = ty(&[2, 2], element);
            let values = [0.0, 1.0, -2.0, 3.5];
            let data = if element.is_integer() || element.is_bool() {
                let ints: Vec<i64> = if element.is_bool() {
                    vec![0, 1, 1, 0]
                } else if element.is_unsigned_integer() {
                    vec![0, 1, 2, 15]
                } else {
                    vec![0, 1, -2, 7]
                };
                DenseElements::from_i64s(&t, &ints).unwrap()
            } else {
                DenseElements::from_f64s(&t, &values).unwrap()
            };
            cases.push((t.clone(), data));
            cases.push((ty(&[3], element), DenseElements::splat_f64(element, 1.0)));
        }
        let f32s = ty(&[4], ElementType::F32);
        let specials: Vec<u8> = [f32::NEG_INFINITY, f32::INFINITY, f32::NAN, 1e-7]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        cases.push((
            f32s,
            DenseElements::from_bytes(&ty(&[4], ElementType::F32), specials).unwrap(),
        ));
        let big = ty(&[128], ElementType::F32);
        let ramp: Vec<f64> = (0..128).map(|i| f64::from(i) * 0.25).collect();
        cases.push((big.clone(), DenseElements::from_f64s(&big, &ramp).unwrap()));
        let wide = ty(&[2], ElementType::UI64);
        cases.push((
            wide.clone(),
            DenseElements::from_bytes(&wide, [u64::MAX.to_le_bytes(), 0u64.to_le_bytes()].concat())
                .unwrap(),
        ));
        let empty = ty(&[0, 3], ElementType::F32);
        cases.push((
            empty.clone(),
            DenseElements::from_bytes(&empty, Vec::new()).unwrap(),
        ));
        cases.push((
            ty(&[], ElementType::F32),
            DenseElements::splat_f64(ElementType::F32, 9.99999997e-7),
        ));
        cases
    };
    let results: Vec<Type> = cases.iter().map(|(t, _)| Type::Tensor(t.clone())).collect();
    function("constants", &[], &results, |b, _| {
        cases
            .iter()
            .map(|(t, data)| b.one(OpKind::Constant(data.clone()), &[], Type::Tensor(t.clone())))
            .collect()
    })
}

fn shapes() -> Function {
    let x = f32s(&[2, 3]);
    let index = scalar(ElementType::I32);
    function(
        "shapes",
        &[x.clone(), index.clone(), tensor(&[2], ElementType::I64)],
        &[f32s(&[3, 2])],
        |b, a| {
            b.one(
                OpKind::Iota { dimension: 1 },
                &[],
                tensor(&[2, 3], ElementType::I32),
            );
            let bc = b.one(
                OpKind::BroadcastInDim { dims: vec![1, 2] },
                &[a[0]],
                f32s(&[4, 2, 3]),
            );
            b.one(
                OpKind::BroadcastInDim { dims: vec![] },
                &[a[1]],
                tensor(&[2], ElementType::I32),
            );
            b.one(OpKind::Reshape, &[bc], f32s(&[24]));
            let t = b.one(
                OpKind::Transpose {
                    permutation: vec![1, 0],
                },
                &[a[0]],
                f32s(&[3, 2]),
            );
            b.one(
                OpKind::Slice {
                    start: vec![0, 1],
                    limit: vec![2, 3],
                    strides: vec![1, 2],
                },
                &[a[0]],
                f32s(&[2, 1]),
            );
            let ds = b.one(
                OpKind::DynamicSlice { sizes: vec![1, 2] },
                &[a[0], a[1], a[1]],
                f32s(&[1, 2]),
            );
            b.one(
                OpKind::DynamicUpdateSlice,
                &[a[0], ds, a[1], a[1]],
                x.clone(),
            );
            b.one(
                OpKind::Concatenate { dimension: 0 },
                &[a[0], a[0], a[0]],
                f32s(&[6, 3]),
            );
            let zero = b.constant(&TensorType::scalar(ElementType::F32), &[0.0]);
            b.one(
                OpKind::Pad {
                    low: vec![1, 0],
                    high: vec![0, 2],
                    interior: vec![1, 0],
                },
                &[a[0], zero],
                f32s(&[4, 5]),
            );
            b.one(OpKind::Reverse { dims: vec![0, 1] }, &[a[0]], x.clone());
            b.one(
                OpKind::DynamicBroadcastInDim {
                    dims: vec![0, 1],
                    known_expanding: vec![0],
                    known_nonexpanding: vec![1],
                },
                &[a[0], a[2]],
                tensor(&[2, 3], ElementType::F32),
            );
            b.one(
                OpKind::DynamicBroadcastInDim {
                    dims: vec![0, 1],
                    known_expanding: vec![],
                    known_nonexpanding: vec![],
                },
                &[a[0], a[2]],
                tensor(&[2, 3], ElementType::F32),
            );
            b.one(
                OpKind::DynamicReshape,
                &[a[0], a[2]],
                Type::Tensor(TensorType::new(
                    vec![Dim::Dynamic, Dim::Static(3)],
                    ElementType::F32,
                )),
            );
            b.one(
                OpKind::DynamicIota { dimension: 0 },
                &[a[2]],
                Type::Tensor(TensorType::new(
                    vec![Dim::Dynamic, Dim::Dynamic],
                    ElementType::I32,
                )),
            );
            b.one(
                OpKind::GetDimensionSize { dimension: 1 },
                &[a[0]],
                index.clone(),
            );
            let pads = b.constant(&TensorType::of(&[2], ElementType::I64), &[1.0, 0.0]);
            b.one(
                OpKind::DynamicPad,
                &[a[0], zero, pads, pads, pads],
                Type::Tensor(TensorType::new(
                    vec![Dim::Dynamic, Dim::Dynamic],
                    ElementType::F32,
                )),
            );
            b.one(
                OpKind::RealDynamicSlice,
                &[a[0], pads, pads, pads],
                Type::Tensor(TensorType::new(
                    vec![Dim::Dynamic, Dim::Dynamic],
                    ElementType::F32,
                )),
            );
            vec![t]
        },
    )
}

fn indexing() -> Function {
    let operand = f32s(&[8, 4]);
    let indices = tensor(&[3, 1], ElementType::I32);
    function(
        "indexing",
        &[operand.clone(), indices.clone(), f32s(&[3, 4])],
        std::slice::from_ref(&operand),
        |b, a| {
            let gather_dims = GatherDims {
                offset_dims: vec![1],
                collapsed_slice_dims: vec![0],
                start_index_map: vec![0],
                index_vector_dim: 1,
                ..GatherDims::default()
            };
            b.one(
                OpKind::Gather {
                    dims: gather_dims.clone(),
                    slice_sizes: vec![1, 4],
                    indices_are_sorted: true,
                },
                &[a[0], a[1]],
                f32s(&[3, 4]),
            );
            b.one(
                OpKind::Gather {
                    dims: gather_dims.clone(),
                    slice_sizes: vec![1, 4],
                    indices_are_sorted: false,
                },
                &[a[0], a[1]],
                f32s(&[3, 4]),
            );
            let sizes = b.constant(&TensorType::of(&[2], ElementType::I64), &[1.0, 4.0]);
            b.one(
                OpKind::DynamicGather {
                    dims: gather_dims,
                    indices_are_sorted: false,
                },
                &[a[0], a[1], sizes],
                f32s(&[3, 4]),
            );
            let region = b.adder(ElementType::F32);
            let scatter_dims = ScatterDims {
                update_window_dims: vec![1],
                inserted_window_dims: vec![0],
                scatter_dims_to_operand_dims: vec![0],
                index_vector_dim: 1,
                ..ScatterDims::default()
            };
            b.op_with(
                OpKind::Scatter {
                    dims: scatter_dims,
                    indices_are_sorted: true,
                    unique_indices: true,
                },
                &[a[0], a[1], a[2]],
                std::slice::from_ref(&operand),
                vec![region],
                NamedAttrs::new(),
            )
        },
    )
}

fn contractions() -> Function {
    let lhs = f32s(&[2, 4, 3]);
    let rhs = f32s(&[2, 3, 5]);
    let image = f32s(&[1, 3, 8, 8]);
    let kernel = f32s(&[4, 3, 3, 3]);
    function(
        "contractions",
        &[lhs.clone(), rhs.clone(), image.clone(), kernel.clone()],
        &[f32s(&[2, 4, 5])],
        |b, a| {
            let dims = DotDims {
                lhs_batching: vec![0],
                rhs_batching: vec![0],
                lhs_contracting: vec![2],
                rhs_contracting: vec![1],
            };
            let out = b.one(
                OpKind::DotGeneral {
                    dims,
                    precision: vec![Precision::Default, Precision::Highest],
                },
                &[a[0], a[1]],
                f32s(&[2, 4, 5]),
            );
            b.one(
                OpKind::DotGeneral {
                    dims: DotDims::contracting(2, 1),
                    precision: vec![],
                },
                &[a[0], a[1]],
                f32s(&[2, 4, 2, 5]),
            );
            let mut conv = ConvAttrs::new(ConvDims::nchw(2));
            conv.window_strides = vec![1, 1];
            conv.padding = vec![(1, 1), (0, 2)];
            conv.lhs_dilation = vec![1, 1];
            conv.rhs_dilation = vec![1, 2];
            conv.window_reversal = vec![false, true];
            conv.precision = vec![Precision::Default, Precision::Default];
            b.one(
                OpKind::Convolution(Box::new(conv)),
                &[a[2], a[3]],
                f32s(&[1, 4, 8, 6]),
            );
            b.one(
                OpKind::Convolution(Box::new(ConvAttrs::new(ConvDims::nchw(2)))),
                &[a[2], a[3]],
                f32s(&[1, 4, 6, 6]),
            );
            let mut odd = ConvDims::nchw(2);
            odd.input_feature = 0; // not a permutation: only the raw form can print it
            b.one(
                OpKind::Convolution(Box::new(ConvAttrs::new(odd))),
                &[a[2], a[3]],
                f32s(&[1, 4, 6, 6]),
            );
            let padding = b.constant(
                &TensorType::of(&[2, 2], ElementType::I64),
                &[1.0, 1.0, 1.0, 1.0],
            );
            let mut dynamic = ConvAttrs::new(ConvDims::nchw(2));
            dynamic.feature_group_count = 1;
            dynamic.batch_group_count = 1;
            b.one(
                OpKind::DynamicConv(Box::new(dynamic)),
                &[a[2], a[3], padding],
                f32s(&[1, 4, 8, 8]),
            );
            // The four Fourier transforms: real [2, 4, 5] <-> complex [2, 4, 3].
            let complex = |shape: &[u64]| tensor(shape, ElementType::ComplexF32);
            let spectrum = b.one(
                OpKind::Fft {
                    fft_type: FftType::Rfft,
                    fft_length: vec![4, 5],
                },
                &[out],
                complex(&[2, 4, 3]),
            );
            for fft_type in [FftType::Fft, FftType::Ifft] {
                b.one(
                    OpKind::Fft {
                        fft_type,
                        fft_length: vec![3],
                    },
                    &[spectrum],
                    complex(&[2, 4, 3]),
                );
            }
            b.one(
                OpKind::Fft {
                    fft_type: FftType::Irfft,
                    fft_length: vec![2, 4, 5],
                },
                &[spectrum],
                f32s(&[2, 4, 5]),
            );
            let map_body = b.adder(ElementType::F32);
            b.op_with(
                OpKind::Map {
                    dimensions: vec![0, 1, 2],
                },
                &[out, out],
                &[f32s(&[2, 4, 5])],
                vec![map_body],
                NamedAttrs::new(),
            );
            b.one(
                OpKind::CollectiveBroadcast {
                    replica_groups: vec![vec![0, 1]],
                    channel: None,
                    has_dynamic_root: false,
                },
                &[out],
                f32s(&[2, 4, 5]),
            );
            b.one(
                OpKind::ReducePrecision {
                    exponent_bits: 5,
                    mantissa_bits: 2,
                },
                &[out],
                f32s(&[2, 4, 5]),
            );
            b.one(
                OpKind::TriangularSolve {
                    left_side: false,
                    lower: true,
                    unit_diagonal: true,
                    transpose_a: Transpose::Adjoint,
                },
                &[a[2], a[2]],
                f32s(&[1, 3, 8, 8]),
            );
            vec![out]
        },
    )
}

fn reductions() -> Function {
    let x = f32s(&[4, 6]);
    let i = tensor(&[4, 6], ElementType::I32);
    function(
        "reductions",
        &[x.clone(), i.clone()],
        &[f32s(&[4])],
        |b, a| {
            let zero = b.constant(&TensorType::scalar(ElementType::F32), &[0.0]);
            let izero = b.one(
                OpKind::Constant(DenseElements::splat_i64(ElementType::I32, 0)),
                &[],
                scalar(ElementType::I32),
            );
            let body = b.adder(ElementType::F32);
            let sum = b.op_with(
                OpKind::Reduce {
                    dimensions: vec![1],
                },
                &[a[0], zero],
                &[f32s(&[4])],
                vec![body],
                NamedAttrs::new(),
            )[0];
            let f = scalar(ElementType::F32);
            let s = scalar(ElementType::I32);
            let body = b.region(&[f.clone(), s.clone(), f.clone(), s.clone()], |b, v| {
                let m = b.one(OpKind::Binary(BinaryOp::Maximum), &[v[0], v[2]], f.clone());
                let n = b.one(OpKind::Binary(BinaryOp::Minimum), &[v[1], v[3]], s.clone());
                vec![m, n]
            });
            b.op_with(
                OpKind::Reduce {
                    dimensions: vec![0],
                },
                &[a[0], a[1], zero, izero],
                &[f32s(&[6]), tensor(&[6], ElementType::I32)],
                vec![body],
                NamedAttrs::new(),
            );
            // A non-commutative body prints in the region form.
            let body = b.region(&[f.clone(), f.clone()], |b, v| {
                vec![b.one(OpKind::Binary(BinaryOp::Subtract), &[v[0], v[1]], f.clone())]
            });
            b.op_with(
                OpKind::Reduce {
                    dimensions: vec![0, 1],
                },
                &[a[0], zero],
                std::slice::from_ref(&f),
                vec![body],
                NamedAttrs::new(),
            );
            let body = b.adder(ElementType::F32);
            let window = WindowAttrs {
                window_dimensions: vec![2, 2],
                window_strides: vec![2, 2],
                base_dilations: vec![1, 1],
                window_dilations: vec![1, 1],
                padding: vec![(0, 0), (1, 1)],
            };
            b.op_with(
                OpKind::ReduceWindow(Box::new(window)),
                &[a[0], zero],
                &[f32s(&[2, 4])],
                vec![body],
                NamedAttrs::new(),
            );
            let body = b.adder(ElementType::F32);
            b.op_with(
                OpKind::ReduceWindow(Box::new(WindowAttrs {
                    window_dimensions: vec![1, 6],
                    ..WindowAttrs::default()
                })),
                &[a[0], zero],
                &[f32s(&[4, 1])],
                vec![body],
                NamedAttrs::new(),
            );
            let pred = scalar(ElementType::I1);
            let select = b.region(&[f.clone(), f.clone()], |b, v| {
                vec![b.one(
                    OpKind::Compare {
                        direction: ComparisonDirection::Ge,
                        compare_type: Some(ComparisonType::Float),
                    },
                    &[v[0], v[1]],
                    pred.clone(),
                )]
            });
            let scatter = b.adder(ElementType::F32);
            let source = b.constant(&TensorType::of(&[2, 3], ElementType::F32), &[1.0]);
            b.op_with(
                OpKind::SelectAndScatter {
                    window_dimensions: vec![2, 2],
                    window_strides: vec![2, 2],
                    padding: vec![(0, 0), (0, 0)],
                },
                &[a[0], source, zero],
                std::slice::from_ref(&x),
                vec![select, scatter],
                NamedAttrs::new(),
            );
            let comparator = b.region(&[f.clone(), f.clone(), s.clone(), s.clone()], |b, v| {
                vec![b.one(
                    OpKind::Compare {
                        direction: ComparisonDirection::Lt,
                        compare_type: Some(ComparisonType::TotalOrder),
                    },
                    &[v[0], v[1]],
                    pred.clone(),
                )]
            });
            b.op_with(
                OpKind::Sort {
                    dimension: 1,
                    is_stable: true,
                },
                &[a[0], a[1]],
                &[x.clone(), i.clone()],
                vec![comparator],
                NamedAttrs::new(),
            );
            vec![sum]
        },
    )
}

fn control() -> Function {
    let x = f32s(&[3]);
    let counter = scalar(ElementType::I32);
    let pred = scalar(ElementType::I1);
    function(
        "control",
        &[x.clone(), counter.clone(), pred.clone()],
        std::slice::from_ref(&x),
        |b, a| {
            let cond = b.region(&[counter.clone(), x.clone()], |b, v| {
                let ten = b.one(
                    OpKind::Constant(DenseElements::splat_i64(ElementType::I32, 10)),
                    &[],
                    counter.clone(),
                );
                vec![b.one(
                    OpKind::Compare {
                        direction: ComparisonDirection::Lt,
                        compare_type: Some(ComparisonType::Signed),
                    },
                    &[v[0], ten],
                    pred.clone(),
                )]
            });
            let body = b.region(&[counter.clone(), x.clone()], |b, v| {
                let one = b.one(
                    OpKind::Constant(DenseElements::splat_i64(ElementType::I32, 1)),
                    &[],
                    counter.clone(),
                );
                let next = b.one(OpKind::Binary(BinaryOp::Add), &[v[0], one], counter.clone());
                let y = b.one(OpKind::Unary(UnaryOp::Sine), &[v[1]], x.clone());
                vec![next, y]
            });
            let attrs = NamedAttrs::new().with(
                "mhlo.frontend_attributes",
                Attribute::Dict(NamedAttrs::new().with("k", Attribute::String("v".into()))),
            );
            let looped = b.op_with(
                OpKind::While,
                &[a[1], a[0]],
                &[counter.clone(), x.clone()],
                vec![cond, body],
                attrs,
            );
            let branches: Vec<RegionId> = (0..3)
                .map(|k| {
                    b.region(&[], |b, _| {
                        vec![b.constant(&TensorType::of(&[3], ElementType::F32), &[f64::from(k)])]
                    })
                })
                .collect();
            let chosen = b.op_with(
                OpKind::Case,
                &[a[1]],
                std::slice::from_ref(&x),
                branches,
                NamedAttrs::new(),
            )[0];
            let yes = b.region(&[], |_, _| vec![looped[1]]);
            let no = b.region(&[], |_, _| vec![chosen]);
            let picked = b.op_with(
                OpKind::If,
                &[a[2]],
                std::slice::from_ref(&x),
                vec![yes, no],
                NamedAttrs::new(),
            )[0];
            let barrier = b.op(
                OpKind::OptimizationBarrier,
                &[picked, a[1]],
                &[x.clone(), counter.clone()],
            );
            b.op(OpKind::OptimizationBarrier, &[], &[]);
            let called = b.one(
                OpKind::Call {
                    callee: "helper".into(),
                },
                &[barrier[0]],
                x.clone(),
            );
            vec![called]
        },
    )
}

/// Binary ops of integers (and booleans) only.
fn integers_only(op: BinaryOp) -> bool {
    matches!(
        op,
        BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::ShiftLeft
            | BinaryOp::ShiftRightArithmetic
            | BinaryOp::ShiftRightLogical
    )
}

/// Every CHLO op, in the forms JAX prints them.
fn chlo() -> Function {
    let x = f32s(&[2, 3]);
    let row = f32s(&[3]);
    let i = tensor(&[2, 3], ElementType::I32);
    let pred = tensor(&[2, 3], ElementType::I1);
    let rhs = f32s(&[2, 3, 4]);
    let sizes = tensor(&[2], ElementType::I32);
    function(
        "chlo",
        &[x.clone(), row.clone(), i.clone(), pred.clone(), rhs, sizes],
        std::slice::from_ref(&x),
        |b, a| {
            let (x0, row0, i0, p0, rhs0, sizes0) = (a[0], a[1], a[2], a[3], a[4], a[5]);
            let mut last = x0;
            for &op in ChloUnaryOp::ALL {
                let result = if op.is_predicate() {
                    pred.clone()
                } else {
                    x.clone()
                };
                let value = b.one(OpKind::ChloUnary(op), &[last], result);
                if !op.is_predicate() {
                    last = value;
                }
            }
            for &op in ChloBroadcastOp::ALL {
                match op.binary() {
                    BroadcastBinary::Stablehlo(binary) if integers_only(binary) => {
                        b.one(OpKind::ChloBroadcast(op, Vec::new()), &[i0, i0], i.clone());
                    }
                    BroadcastBinary::Stablehlo(BinaryOp::Complex) => {
                        let c = tensor(&[2, 3], ElementType::ComplexF32);
                        b.one(OpKind::ChloBroadcast(op, vec![1]), &[x0, row0], c);
                    }
                    _ => last = b.one(OpKind::ChloBroadcast(op, vec![1]), &[last, row0], x.clone()),
                }
            }
            for &op in ChloBinaryOp::ALL {
                last = b.one(OpKind::ChloBinary(op), &[last, x0], x.clone());
            }
            let compare = OpKind::ChloBroadcastCompare {
                dims: vec![1],
                direction: ComparisonDirection::Lt,
                compare_type: Some(ComparisonType::Float),
            };
            b.one(compare, &[last, row0], pred.clone());
            let unsigned = OpKind::ChloBroadcastCompare {
                dims: Vec::new(),
                direction: ComparisonDirection::Ne,
                compare_type: None,
            };
            b.one(unsigned, &[i0, i0], pred.clone());
            let half = Attribute::Float {
                value: 0.5,
                ty: ElementType::F32,
            };
            let half = b.one(OpKind::ChloConstantLike(half), &[last], x.clone());
            last = b.one(OpKind::Binary(BinaryOp::Add), &[last, half], x.clone());
            let seven = Attribute::Int {
                value: 7,
                ty: ElementType::I32,
            };
            b.one(OpKind::ChloConstantLike(seven), &[i0], i.clone());
            let ragged = OpKind::ChloRaggedDot {
                dims: RaggedDotDims {
                    dot: DotDims::contracting(1, 1),
                    lhs_ragged: vec![0],
                    rhs_group: vec![0],
                },
                precision: vec![Precision::Default, Precision::Highest],
            };
            b.one(ragged, &[last, rhs0, sizes0], f32s(&[2, 4]));
            let selected = b.one(OpKind::ChloBroadcastSelect, &[p0, last, row0], x.clone());
            b.op(
                OpKind::ChloTopK { k: 2 },
                &[selected],
                &[f32s(&[2, 2]), tensor(&[2, 2], ElementType::I32)],
            );
            vec![selected]
        },
    )
}

fn misc() -> Function {
    let x = f32s(&[2, 3]);
    let feature = f32s(&[3]);
    let state = tensor(&[2], ElementType::UI64);
    function(
        "misc",
        &[x.clone(), feature.clone(), state.clone()],
        std::slice::from_ref(&x),
        |b, a| {
            let composite_attrs = NamedAttrs::new()
                .with("approximate", Attribute::String("tanh".into()))
                .with(
                    "dim",
                    Attribute::Int {
                        value: -1,
                        ty: ElementType::I64,
                    },
                )
                .with(
                    "eps",
                    Attribute::Float {
                        value: 1e-5,
                        ty: ElementType::F32,
                    },
                )
                .with("flag", Attribute::Bool(true))
                .with("shape", Attribute::I64Array(vec![1, 2]))
                .with(
                    "list",
                    Attribute::Array(vec![Attribute::Symbol("f".into()), Attribute::Unit]),
                );
            let y = b.one(
                OpKind::Composite {
                    name: "tpuc.gelu".into(),
                    attributes: composite_attrs,
                    decomposition: "helper".into(),
                    version: 2,
                },
                &[a[0]],
                x.clone(),
            );
            b.one(
                OpKind::Composite {
                    name: "tpuc.noop".into(),
                    attributes: NamedAttrs::new(),
                    decomposition: "helper".into(),
                    version: 0,
                },
                &[a[0]],
                x.clone(),
            );
            b.one(
                OpKind::CustomCall {
                    target: "my_target".into(),
                    backend_config: "cfg \"quoted\"".into(),
                    has_side_effect: true,
                    api_version: CustomCallApiVersion::StatusReturning,
                },
                &[y],
                x.clone(),
            );
            let extra =
                NamedAttrs::new().with("mhlo.sharding", Attribute::String("{replicated}".into()));
            b.op_with(
                OpKind::CustomCall {
                    target: "Sharding".into(),
                    backend_config: String::new(),
                    has_side_effect: false,
                    api_version: CustomCallApiVersion::Original,
                },
                &[y],
                std::slice::from_ref(&x),
                vec![],
                extra,
            );
            b.op(
                OpKind::BatchNormInference {
                    epsilon: 1e-5,
                    feature_index: 1,
                },
                &[a[0], a[1], a[1], a[1], a[1]],
                std::slice::from_ref(&x),
            );
            b.op(
                OpKind::BatchNormTraining {
                    epsilon: 0.001,
                    feature_index: 1,
                },
                &[a[0], a[1], a[1]],
                &[x.clone(), feature.clone(), feature.clone()],
            );
            b.op(
                OpKind::RngBitGenerator {
                    algorithm: RngAlgorithm::ThreeFry,
                },
                &[a[2]],
                &[state.clone(), tensor(&[4], ElementType::UI32)],
            );
            b.one(OpKind::ReplicaId, &[], scalar(ElementType::UI32));
            b.one(OpKind::PartitionId, &[], scalar(ElementType::UI32));
            let sum = b.adder(ElementType::F32);
            let groups = CollectiveAttrs {
                replica_groups: vec![vec![0, 1], vec![2]],
                channel: Some(ChannelHandle { handle: 1, kind: 1 }),
                use_global_device_ids: true,
            };
            b.op_with(
                OpKind::AllReduce(groups.clone()),
                &[a[0]],
                std::slice::from_ref(&x),
                vec![sum],
                NamedAttrs::new(),
            );
            b.one(
                OpKind::AllGather {
                    dimension: 0,
                    collective: CollectiveAttrs {
                        replica_groups: vec![vec![0, 1]],
                        ..CollectiveAttrs::default()
                    },
                },
                &[a[0]],
                f32s(&[4, 3]),
            );
            let sum = b.adder(ElementType::F32);
            b.op_with(
                OpKind::ReduceScatter {
                    dimension: 0,
                    collective: groups,
                },
                &[a[0]],
                &[f32s(&[1, 3])],
                vec![sum],
                NamedAttrs::new(),
            );
            b.one(
                OpKind::AllToAll {
                    split_dimension: 0,
                    concat_dimension: 1,
                    split_count: 2,
                    replica_groups: vec![vec![0, 1]],
                    channel: None,
                },
                &[a[0]],
                f32s(&[1, 6]),
            );
            b.one(
                OpKind::CollectivePermute {
                    source_target_pairs: vec![(0, 1), (1, 0)],
                    channel: Some(ChannelHandle { handle: 2, kind: 1 }),
                },
                &[a[0]],
                x.clone(),
            );
            let sharding = TensorSharding {
                mesh: "mesh".into(),
                dims: vec![
                    DimSharding {
                        axes: vec!["x".into()],
                        is_open: false,
                        priority: None,
                    },
                    DimSharding {
                        axes: vec![],
                        is_open: true,
                        priority: Some(1),
                    },
                ],
                replicated: vec!["y".into()],
            };
            let constrained = b.one(
                OpKind::ShardingConstraint(sharding.clone()),
                &[y],
                x.clone(),
            );
            let attrs = NamedAttrs::new()
                .with("sdy.sharding", Attribute::ShardingPerValue(vec![sharding]))
                .with(
                    "odd name",
                    Attribute::Raw("#stablehlo<precision HIGH>".into()),
                );
            vec![
                b.op_with(
                    OpKind::Unary(UnaryOp::Abs),
                    &[constrained],
                    std::slice::from_ref(&x),
                    vec![],
                    attrs,
                )[0],
            ]
        },
    )
}

fn helper() -> Function {
    let x = f32s(&[3]);
    let mut f = function(
        "helper",
        std::slice::from_ref(&x),
        std::slice::from_ref(&x),
        |_, a| vec![a[0]],
    );
    f.visibility = Visibility::Private;
    f
}

/// Tuples, tokens, host I/O and the compatibility ops.
fn tuples_and_io() -> Function {
    let x = f32s(&[2, 3]);
    function(
        "tuples_and_io",
        &[x.clone(), tensor(&[3], ElementType::F32), Type::Token],
        std::slice::from_ref(&x),
        |b, a| {
            let pair = Type::Tuple(vec![x.clone(), Type::Token]);
            let t = b.one(OpKind::Tuple, &[a[0], a[2]], pair);
            b.one(OpKind::GetTupleElement { index: 0 }, &[t], x.clone());
            let created = b.one(OpKind::CreateToken, &[], Type::Token);
            let token = b.one(OpKind::AfterAll, &[created, a[2]], Type::Token);
            let channel = Some(ChannelHandle { handle: 5, kind: 2 });
            let sent = b.one(
                OpKind::Send {
                    channel,
                    is_host_transfer: true,
                },
                &[a[0], token],
                Type::Token,
            );
            let received = b.op(
                OpKind::Recv {
                    channel: Some(ChannelHandle { handle: 6, kind: 1 }),
                    is_host_transfer: false,
                },
                &[sent],
                &[x.clone(), Type::Token],
            );
            b.one(
                OpKind::Outfeed {
                    config: "feed".into(),
                },
                &[received[0], received[1]],
                Type::Token,
            );
            b.one(OpKind::Broadcast { sizes: vec![4] }, &[a[1]], f32s(&[4, 3]));
            let size = b.constant(&TensorType::of(&[], ElementType::I32), &[2.0]);
            b.one(
                OpKind::SetDimensionSize { dimension: 1 },
                &[a[0], size],
                x.clone(),
            );
            let shape = b.constant(&TensorType::of(&[2], ElementType::I64), &[2.0, 3.0]);
            let zero = b.constant(&TensorType::of(&[], ElementType::F32), &[0.0]);
            b.one(
                OpKind::Rng {
                    distribution: RngDistribution::Normal,
                },
                &[zero, zero, shape],
                x.clone(),
            );
            b.one(
                OpKind::Einsum {
                    config: "ab,cb->ac".into(),
                },
                &[a[0], a[0]],
                f32s(&[2, 2]),
            );
            b.one(
                OpKind::UnaryEinsum {
                    config: "ab->a".into(),
                },
                &[a[0]],
                f32s(&[2]),
            );
            let per_feature = b.constant(&TensorType::of(&[3], ElementType::F32), &[1.0, 1.0, 1.0]);
            let grads = b.op(
                OpKind::BatchNormGrad {
                    epsilon: 0.5,
                    feature_index: 1,
                },
                &[a[0], per_feature, per_feature, per_feature, a[0]],
                &[x.clone(), f32s(&[3]), f32s(&[3])],
            );
            vec![grads[0]]
        },
    )
}

fn module() -> Module {
    let mut module = Module::new();
    module.name = Some("jit_everything".into());
    module.num_partitions = Some(2);
    module.num_replicas = Some(1);
    module.attrs.set(
        "mhlo.frontend_attributes",
        Attribute::Dict(NamedAttrs::new()),
    );
    module
        .attrs
        .set("tpuc.version", Attribute::String("1".into()));
    module.meshes.push(Mesh {
        name: "mesh".into(),
        axes: vec![
            MeshAxis {
                name: "x".into(),
                size: 2,
            },
            MeshAxis {
                name: "y".into(),
                size: 1,
            },
        ],
    });
    module.location = Location::file("model.py", 0, 0);
    let mut main = elementwise();
    main.arg_attrs[0].set("jax.buffer_donor", Attribute::Bool(true));
    main.result_attrs[0].set("jax.result_info", Attribute::String("result[0]".into()));
    main.attrs.set("tpuc.entry", Attribute::Unit);
    for function in [
        main,
        constants(),
        shapes(),
        indexing(),
        contractions(),
        reductions(),
        control(),
        misc(),
        chlo(),
        tuples_and_io(),
        helper(),
    ] {
        module.add_function(function).unwrap();
    }
    module
}

#[test]
fn every_op_kind_round_trips_in_both_forms() {
    let module = module();
    let canonical = print::generic(
        &module,
        &PrintOptions::with_locations(LocationStyle::Inline),
    );
    for style in STYLES {
        let options = PrintOptions::with_locations(style);
        for (form, printer) in PRINTERS {
            let text = printer(&module, &options);
            let parsed = parse_module(&text).unwrap_or_else(|e| {
                panic!(
                    "{form} {style:?}: {:?}",
                    e.with_source("printed", text.clone())
                )
            });
            let again = printer(&parsed, &options);
            if text != again {
                let line = text
                    .lines()
                    .zip(again.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(0);
                panic!(
                    "{form} {style:?} differs at line {}:\n{}\n{}",
                    line + 1,
                    text.lines().nth(line).unwrap_or(""),
                    again.lines().nth(line).unwrap_or("")
                );
            }
            if style == LocationStyle::Inline {
                assert_eq!(
                    print::generic(&parsed, &options),
                    canonical,
                    "{form} text parses to a different module"
                );
            }
        }
    }
}

fn collect_names(
    f: &Function,
    region: RegionId,
    names: &mut std::collections::BTreeSet<&'static str>,
) {
    for &block in &f.region(region).blocks {
        for &op in &f.block(block).ops {
            names.insert(f.op(op).kind.name());
            for &nested in &f.op(op).regions {
                collect_names(f, nested, names);
            }
        }
    }
}

#[test]
fn the_module_covers_every_op_kind() {
    let module = module();
    let mut names = std::collections::BTreeSet::new();
    for f in &module.functions {
        collect_names(f, f.body(), &mut names);
    }
    for name in tpuc_ir::OpKind::names() {
        assert!(names.contains(name), "no `{name}` in the round-trip module");
    }
}
