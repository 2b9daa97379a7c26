//! Modules built through the public builder API, and the print settings every round trip covers;
//! shared by the printer, verifier, parser and PJRT tests.
#![allow(dead_code)]

use tpuc_ir::*;

/// Every way locations can be printed.
pub const STYLES: [LocationStyle; 3] = [
    LocationStyle::Strip,
    LocationStyle::Inline,
    LocationStyle::Aliases,
];

/// A module printer: `print::pretty` or `print::generic`.
pub type Printer = fn(&Module, &PrintOptions) -> String;

/// Both printers, by name.
pub const PRINTERS: [(&str, Printer); 2] = [("pretty", print::pretty), ("generic", print::generic)];

pub fn f32s(shape: &[u64]) -> TensorType {
    TensorType::of(shape, ElementType::F32)
}

pub fn tensor(shape: &[u64], element: ElementType) -> TensorType {
    TensorType::of(shape, element)
}

pub fn module_of(functions: Vec<Function>) -> Module {
    let mut module = Module::new();
    module.name = Some("fixture".to_string());
    module.num_partitions = Some(1);
    module.num_replicas = Some(1);
    for function in functions {
        module
            .add_function(function)
            .expect("unique function names");
    }
    module
}

/// A dense layer with bias, tanh, a row-sum and a masked select, with FX-style locations.
pub fn mlp() -> Module {
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    b.set_location(Location::name("x"));
    let x = b.arg(f32s(&[2, 3]));
    b.set_location(Location::name("w"));
    let w = b.arg(f32s(&[3, 4]));
    b.set_location(Location::name("bias"));
    let bias = b.arg(f32s(&[4]));
    b.set_location(Location::named("linear", Location::file("model.py", 12, 8)));
    let default = vec![Precision::Default, Precision::Default];
    let dot = b
        .dot_general(x, w, DotDims::contracting(1, 0), default)
        .unwrap();
    let bias = b.broadcast_in_dim(bias, &[1], [2, 4]).unwrap();
    let sum = b.add(dot, bias).unwrap();
    b.set_location(Location::named("tanh", Location::file("model.py", 13, 8)));
    let act = b.tanh(sum).unwrap();
    b.set_location(Location::named("sum", Location::file("model.py", 14, 8)));
    let zero = b.splat(ElementType::F32, [], 0.0).unwrap();
    let rows = b.reduce_with(BinaryOp::Add, act, zero, &[1]).unwrap();
    b.set_location(Location::named("where", Location::file("model.py", 15, 8)));
    let zeros = b.splat(ElementType::F32, [2], 0.0).unwrap();
    let positive = b.compare(ComparisonDirection::Gt, rows, zeros).unwrap();
    let halves = b.splat(ElementType::F32, [2], 0.5).unwrap();
    let masked = b.select(positive, rows, halves).unwrap();
    b.set_location(Location::Unknown);
    b.ret(&[act, masked]).unwrap();
    module_of(vec![b.finish().unwrap()])
}

/// Every shape op with static shapes.
pub fn shapes() -> Module {
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let x = b.arg(f32s(&[2, 3, 4]));
    let i = b.arg(TensorType::scalar(ElementType::I32));
    let r = b.reshape(x, [6, 4]).unwrap();
    let t = b.transpose(r, &[1, 0]).unwrap();
    let s = b.slice(t, &[0, 1], &[4, 6], &[2, 2]).unwrap();
    let c = b.concatenate(&[s, s], 0).unwrap();
    let zero = b.splat(ElementType::F32, [], 0.0).unwrap();
    let p = b.pad(c, zero, &[1, 0], &[0, 2], &[0, 1]).unwrap();
    let rev = b.reverse(p, &[0]).unwrap();
    let iota = b.iota(tensor(&[5, 7], ElementType::F32), 1).unwrap();
    let sum = b.add(rev, iota).unwrap();
    let ds = b.dynamic_slice(sum, &[i, i], &[2, 3]).unwrap();
    let upd = b.dynamic_update_slice(sum, ds, &[i, i]).unwrap();
    let lo = b.splat(ElementType::F32, [], -1.0).unwrap();
    let hi = b.splat(ElementType::F32, [], 1.0).unwrap();
    let clamped = b.clamp(lo, upd, hi).unwrap();
    let size = b.get_dimension_size(clamped, 1).unwrap();
    let as_int = b.convert(clamped, ElementType::I32).unwrap();
    let bits = b
        .bitcast_convert(clamped, tensor(&[5, 7], ElementType::UI32))
        .unwrap();
    b.ret(&[clamped, size, as_int, bits]).unwrap();
    module_of(vec![b.finish().unwrap()])
}

/// Every unary and binary elementwise op on a type it accepts.
pub fn elementwise() -> Module {
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let x = b.arg(f32s(&[4]));
    let n = b.arg(tensor(&[4], ElementType::I32));
    let p = b.arg(tensor(&[4], ElementType::I1));
    let mut outputs = Vec::new();
    for &op in UnaryOp::ALL {
        let operand = match op {
            UnaryOp::CountLeadingZeros | UnaryOp::Popcnt | UnaryOp::Not => n,
            _ => x,
        };
        outputs.push(b.unary(op, operand).unwrap());
    }
    for &op in BinaryOp::ALL {
        let operand = match op {
            BinaryOp::And
            | BinaryOp::Or
            | BinaryOp::Xor
            | BinaryOp::ShiftLeft
            | BinaryOp::ShiftRightArithmetic
            | BinaryOp::ShiftRightLogical => n,
            _ => x,
        };
        outputs.push(b.binary(op, operand, operand).unwrap());
    }
    let q = b.and(p, p).unwrap();
    let c = b.complex(x, x).unwrap();
    let re = b.real(c).unwrap();
    let magnitude = b.abs(c).unwrap();
    let total = b
        .compare_with_type(
            ComparisonDirection::Le,
            Some(ComparisonType::TotalOrder),
            re,
            magnitude,
        )
        .unwrap();
    outputs.extend([q, c, re, magnitude, total]);
    b.ret(&outputs).unwrap();
    module_of(vec![b.finish().unwrap()])
}

/// Convolution, batch norm, max pooling and its gradient.
pub fn conv() -> Module {
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let x = b.arg(f32s(&[1, 3, 8, 8]));
    let k = b.arg(f32s(&[4, 3, 3, 3]));
    let stats: Vec<Value> = (0..4).map(|_| b.arg(f32s(&[4]))).collect();
    let mut attrs = ConvAttrs::new(ConvDims::nchw(2));
    attrs.window_strides = vec![1, 1];
    attrs.padding = vec![(1, 1), (1, 1)];
    attrs.lhs_dilation = vec![1, 1];
    attrs.rhs_dilation = vec![1, 1];
    attrs.precision = vec![Precision::Default, Precision::Default];
    let y = b.convolution(x, k, attrs).unwrap();
    let y = b
        .batch_norm_inference(y, stats[0], stats[1], stats[2], stats[3], 1e-5, 1)
        .unwrap();
    let depthwise_kernel = b.splat(ElementType::F32, [4, 1, 3, 3], 0.125).unwrap();
    let mut depthwise = ConvAttrs::new(ConvDims::nchw(2));
    depthwise.padding = vec![(1, 1), (1, 1)];
    depthwise.window_reversal = vec![true, false];
    depthwise.feature_group_count = 4;
    depthwise.precision = vec![Precision::Highest, Precision::High];
    let y = b.convolution(y, depthwise_kernel, depthwise).unwrap();
    let neg_inf = b.splat(ElementType::F32, [], f64::NEG_INFINITY).unwrap();
    let window = WindowAttrs {
        window_dimensions: vec![1, 1, 2, 2],
        window_strides: vec![1, 1, 2, 2],
        ..WindowAttrs::default()
    };
    let pooled = b
        .reduce_window(&[y], &[neg_inf], window, |b, a| {
            Ok(vec![b.maximum(a[0], a[1])?])
        })
        .unwrap()[0];
    let zero = b.splat(ElementType::F32, [], 0.0).unwrap();
    let grad = b
        .select_and_scatter(
            y,
            pooled,
            zero,
            &[1, 1, 2, 2],
            &[1, 1, 2, 2],
            &[],
            |b, a| Ok(vec![b.compare(ComparisonDirection::Ge, a[0], a[1])?]),
            |b, a| Ok(vec![b.add(a[0], a[1])?]),
        )
        .unwrap();
    b.ret(&[pooled, grad]).unwrap();
    module_of(vec![b.finish().unwrap()])
}

/// Embedding lookup with gather, and a scatter-add of updates.
pub fn gather_scatter() -> Module {
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let table = b.arg(f32s(&[10, 4]));
    let ids = b.arg(tensor(&[3, 1], ElementType::I32));
    let updates = b.arg(f32s(&[3, 4]));
    let dims = GatherDims {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        ..GatherDims::default()
    };
    let rows = b.gather(table, ids, dims, &[1, 4], false).unwrap();
    let scatter_dims = ScatterDims {
        update_window_dims: vec![1],
        inserted_window_dims: vec![0],
        scatter_dims_to_operand_dims: vec![0],
        index_vector_dim: 1,
        ..ScatterDims::default()
    };
    let added = b
        .scatter(
            &[table],
            ids,
            &[updates],
            scatter_dims,
            false,
            false,
            |b, a| Ok(vec![b.add(a[0], a[1])?]),
        )
        .unwrap();
    b.ret(&[rows, added[0]]).unwrap();
    module_of(vec![b.finish().unwrap()])
}

/// while, if, case, sort, a call, a composite, an optimization barrier, a variadic reduce.
pub fn control() -> Module {
    let mut helper = FunctionBuilder::new("double", Visibility::Private);
    let v = helper.arg(f32s(&[4]));
    let d = helper.add(v, v).unwrap();
    helper.ret(&[d]).unwrap();
    let helper = helper.finish().unwrap();

    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let x = b.arg(f32s(&[4]));
    let flag = b.arg(TensorType::scalar(ElementType::I1));
    let index = b.arg(TensorType::scalar(ElementType::I32));
    let zero = b.splat(ElementType::I32, [], 0.0).unwrap();
    let looped = b
        .while_loop(
            &[zero, x],
            |b, a| {
                let three = b.splat(ElementType::I32, [], 3.0)?;
                Ok(vec![b.compare(ComparisonDirection::Lt, a[0], three)?])
            },
            |b, a| {
                let one = b.splat(ElementType::I32, [], 1.0)?;
                let next = b.add(a[0], one)?;
                let doubled = b.call("double", &[a[1]], vec![f32s(&[4]).into()])?;
                Ok(vec![next, doubled[0]])
            },
        )
        .unwrap();
    let chosen = b
        .if_else(
            flag,
            |b| Ok(vec![b.negate(x)?]),
            |b| Ok(vec![b.exponential(x)?]),
        )
        .unwrap();
    let branch = b
        .case(index, 3, |b, i| {
            let scale = b.splat(ElementType::F32, [4], i as f64)?;
            Ok(vec![b.multiply(x, scale)?])
        })
        .unwrap();
    let iota = b.iota(tensor(&[4], ElementType::I32), 0).unwrap();
    let sorted = b
        .sort(&[x, iota], 0, true, |b, a| {
            Ok(vec![b.compare(ComparisonDirection::Lt, a[0], a[1])?])
        })
        .unwrap();
    let attrs = NamedAttrs::new().with(
        "factor",
        Attribute::Float {
            value: 2.0,
            ty: ElementType::F32,
        },
    );
    let composite = b
        .composite(
            "tpuc.double",
            &[x],
            attrs,
            "double",
            1,
            vec![f32s(&[4]).into()],
        )
        .unwrap();
    let barrier = b.optimization_barrier(&[composite[0], sorted[1]]).unwrap();
    let fzero = b.splat(ElementType::F32, [], 0.0).unwrap();
    let izero = b.splat(ElementType::I32, [], 0.0).unwrap();
    let argmax = b
        .reduce(&[x, iota], &[fzero, izero], &[0], |b, a| {
            let take = b.compare(ComparisonDirection::Ge, a[0], a[2])?;
            let value = b.select(take, a[0], a[2])?;
            let position = b.select(take, a[1], a[3])?;
            Ok(vec![value, position])
        })
        .unwrap();
    b.ret(&[
        looped[1], chosen[0], branch[0], sorted[0], barrier[0], argmax[1],
    ])
    .unwrap();
    module_of(vec![b.finish().unwrap(), helper])
}

/// Dynamic-shape ops used with static result types (as after shape refinement).
pub fn dynamic() -> Module {
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let x = b.arg(f32s(&[2, 3]));
    let n = b.get_dimension_size(x, 1).unwrap();
    let n = b.reshape(n, [1]).unwrap();
    let two = b
        .constant(
            tensor(&[1], ElementType::I32),
            DenseElements::splat_i64(ElementType::I32, 2),
        )
        .unwrap();
    let shape = b.concatenate(&[two, n], 0).unwrap();
    let bcast = b
        .dynamic_broadcast_in_dim(x, shape, &[0, 1], f32s(&[2, 3]))
        .unwrap();
    let flat_shape = b
        .constant(
            tensor(&[1], ElementType::I32),
            DenseElements::splat_i64(ElementType::I32, 6),
        )
        .unwrap();
    let flat = b.dynamic_reshape(bcast, flat_shape, f32s(&[6])).unwrap();
    let iota = b.dynamic_iota(flat_shape, 0, f32s(&[6])).unwrap();
    let sum = b.add(flat, iota).unwrap();
    let zero = b.splat(ElementType::F32, [], 0.0).unwrap();
    let one = b
        .constant(
            tensor(&[1], ElementType::I32),
            DenseElements::splat_i64(ElementType::I32, 1),
        )
        .unwrap();
    let nothing = b
        .constant(
            tensor(&[1], ElementType::I32),
            DenseElements::splat_i64(ElementType::I32, 0),
        )
        .unwrap();
    let padded = b
        .dynamic_pad(sum, zero, one, nothing, nothing, f32s(&[7]))
        .unwrap();
    let table = b.reshape(sum, [3, 2]).unwrap();
    let ids = b
        .constant(
            tensor(&[2, 1], ElementType::I32),
            DenseElements::from_i64s(&tensor(&[2, 1], ElementType::I32), &[2, 0]).unwrap(),
        )
        .unwrap();
    let sizes = b
        .constant(
            tensor(&[2], ElementType::I32),
            DenseElements::from_i64s(&tensor(&[2], ElementType::I32), &[1, 2]).unwrap(),
        )
        .unwrap();
    let dims = GatherDims {
        offset_dims: vec![1],
        collapsed_slice_dims: vec![0],
        start_index_map: vec![0],
        index_vector_dim: 1,
        ..GatherDims::default()
    };
    let rows = b
        .dynamic_gather(table, ids, sizes, dims, false, f32s(&[2, 2]))
        .unwrap();
    b.ret(&[padded, rows]).unwrap();
    module_of(vec![b.finish().unwrap()])
}

/// `dynamic_conv`, which StableHLO parses but XLA does not translate.
pub fn dynamic_conv() -> Module {
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let image = b.arg(f32s(&[1, 1, 4, 4]));
    let kernel = b.arg(f32s(&[1, 1, 3, 3]));
    let padding = b
        .constant(
            tensor(&[2, 2], ElementType::I32),
            DenseElements::splat_i64(ElementType::I32, 1),
        )
        .unwrap();
    let attrs = ConvAttrs::new(ConvDims::nchw(2));
    let conv = b
        .dynamic_conv(image, kernel, padding, attrs, f32s(&[1, 1, 4, 4]))
        .unwrap();
    b.ret(&[conv]).unwrap();
    module_of(vec![b.finish().unwrap()])
}

/// Constants of many element types: splats, small literals and one large hex constant.
pub fn constants() -> Module {
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let mut outputs = Vec::new();
    for (ty, values) in constant_cases() {
        let data = DenseElements::from_f64s(&ty, &values).unwrap();
        outputs.push(b.constant(ty, data).unwrap());
    }
    b.ret(&outputs).unwrap();
    module_of(vec![b.finish().unwrap()])
}

pub fn constant_cases() -> Vec<(TensorType, Vec<f64>)> {
    let large: Vec<f64> = (0..150).map(|i| f64::from(i) * 0.25 - 7.0).collect();
    vec![
        (f32s(&[]), vec![0.1]),
        (f32s(&[2, 2]), vec![1.0, -2.5, 3.0e-8, f64::INFINITY]),
        (f32s(&[3]), vec![f64::NAN, f64::NAN, f64::NAN]),
        (f32s(&[150]), large.clone()),
        (tensor(&[3], ElementType::F64), vec![0.1, 1.0 / 3.0, -1e300]),
        (
            tensor(&[3], ElementType::BF16),
            vec![0.1, 1.0 / 3.0, 65504.0],
        ),
        (tensor(&[3], ElementType::F16), vec![0.1, 1.0 / 3.0, 6.0e-8]),
        (tensor(&[150], ElementType::BF16), large.clone()),
        (
            tensor(&[4], ElementType::F8E4M3FN),
            vec![0.1, 448.0, -2.0, 0.0],
        ),
        (
            tensor(&[4], ElementType::F8E5M2),
            vec![0.1, 57344.0, -2.0, f64::INFINITY],
        ),
        (tensor(&[4], ElementType::I1), vec![1.0, 0.0, 0.0, 1.0]),
        (
            tensor(&[4], ElementType::I8),
            vec![-128.0, 127.0, 0.0, -1.0],
        ),
        (tensor(&[2], ElementType::UI32), vec![4_294_967_295.0, 7.0]),
        (tensor(&[3], ElementType::I64), vec![-9.0e15, 0.0, 42.0]),
        (
            tensor(&[150], ElementType::I32),
            large.iter().map(|v| v * 4.0).collect(),
        ),
        (tensor(&[2], ElementType::ComplexF32), vec![1.5, -0.25]),
    ]
}

/// A 2-way sharded function with Shardy annotations.
pub fn sharded() -> Module {
    let mesh = Mesh {
        name: "mesh".to_string(),
        axes: vec![MeshAxis {
            name: "x".to_string(),
            size: 2,
        }],
    };
    let sharding = |axes: &[&str]| TensorSharding {
        mesh: "mesh".to_string(),
        dims: vec![
            DimSharding {
                axes: axes.iter().map(ToString::to_string).collect(),
                ..DimSharding::default()
            },
            DimSharding::default(),
        ],
        replicated: Vec::new(),
    };
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let x = b.arg_with_attrs(
        f32s(&[8, 4]),
        NamedAttrs::new().with("sdy.sharding", Attribute::Sharding(sharding(&["x"]))),
    );
    let w = b.arg(f32s(&[4, 4]));
    let y = b
        .dot_general(x, w, DotDims::contracting(1, 0), Vec::new())
        .unwrap();
    let per_value = Attribute::ShardingPerValue(vec![sharding(&["x"])]);
    b.set_op_attr(y, "sdy.sharding", per_value).unwrap();
    let y = b.sharding_constraint(y, sharding(&["x"])).unwrap();
    let t = b.tanh(y).unwrap();
    b.ret_with_attrs(
        &[t],
        vec![NamedAttrs::new().with("sdy.sharding", Attribute::Sharding(sharding(&[])))],
    )
    .unwrap();
    let mut module = module_of(vec![b.finish().unwrap()]);
    module.num_partitions = Some(2);
    module.meshes.push(mesh);
    module
}

/// Collectives over two replicas.
pub fn collectives() -> Module {
    let groups = CollectiveAttrs {
        replica_groups: vec![vec![0, 1]],
        channel: None,
        use_global_device_ids: false,
    };
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let x = b.arg(f32s(&[4, 2]));
    let sum = b
        .all_reduce(&[x], groups.clone(), |b, a| Ok(vec![b.add(a[0], a[1])?]))
        .unwrap()[0];
    let gathered = b.all_gather(sum, 0, groups.clone()).unwrap();
    let scattered = b
        .reduce_scatter(gathered, 0, groups.clone(), |b, a| {
            Ok(vec![b.add(a[0], a[1])?])
        })
        .unwrap();
    let exchanged = b
        .all_to_all(scattered, 0, 1, 2, vec![vec![0, 1]], None)
        .unwrap();
    let permuted = b.collective_permute(x, vec![(0, 1), (1, 0)], None).unwrap();
    let id = b.replica_id().unwrap();
    b.ret(&[exchanged, permuted, id]).unwrap();
    let mut module = module_of(vec![b.finish().unwrap()]);
    module.num_replicas = Some(2);
    module
}

/// Ops that XLA can compile but are rarely hand-written: rng, batch norm training, custom_call.
pub fn misc() -> Module {
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let state = b.arg(tensor(&[2], ElementType::UI64));
    let x = b.arg(f32s(&[2, 3]));
    let scale = b.arg(f32s(&[3]));
    let (next, bits) = b
        .rng_bit_generator(
            state,
            RngAlgorithm::Default,
            tensor(&[2, 3], ElementType::UI32),
        )
        .unwrap();
    let trained = b.batch_norm_training(x, scale, scale, 1e-3, 1).unwrap();
    let pid = b.partition_id().unwrap();
    let bits_f = b.convert(bits, ElementType::F32).unwrap();
    let out = b.add(trained[0], bits_f).unwrap();
    let frontend = NamedAttrs::new().with("tpuc.node", Attribute::String("add_1".to_string()));
    b.set_op_attr(out, "mhlo.frontend_attributes", Attribute::Dict(frontend))
        .unwrap();
    let annotated = b
        .custom_call(
            "Sharding",
            &[out],
            vec![f32s(&[2, 3]).into()],
            CustomCallOptions::default(),
        )
        .unwrap()[0];
    b.set_op_attr(
        annotated,
        "mhlo.sharding",
        Attribute::String("{replicated}".to_string()),
    )
    .unwrap();
    b.ret(&[next, annotated, trained[1], pid]).unwrap();
    module_of(vec![b.finish().unwrap()])
}

/// Every fixture, by name.
pub fn fixtures() -> Vec<(&'static str, Module)> {
    vec![
        ("mlp", mlp()),
        ("shapes", shapes()),
        ("elementwise", elementwise()),
        ("conv", conv()),
        ("gather_scatter", gather_scatter()),
        ("control", control()),
        ("dynamic", dynamic()),
        ("constants", constants()),
        ("sharded", sharded()),
        ("collectives", collectives()),
        ("misc", misc()),
    ]
}
