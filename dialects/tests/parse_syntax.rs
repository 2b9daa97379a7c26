//! What each piece of MLIR syntax parses to: locations, attributes, dense literals, module and
//! function attributes, multi-result values and the op spellings JAX and StableHLO use.

use tpuc_ir::parse::parse_module;
use tpuc_ir::*;

fn parse(text: &str) -> Module {
    parse_module(text).unwrap_or_else(|e| panic!("{:?}", e.with_source("input", text.to_string())))
}

/// The ops of `@main`'s entry block.
fn main_ops(module: &Module) -> Vec<&Operation> {
    let f = module.function("main").expect("@main");
    f.block(f.entry_block())
        .ops
        .iter()
        .map(|&op| f.op(op))
        .collect()
}

#[test]
fn locations_of_every_kind_resolve() {
    let module = parse(concat!(
        "#loc1 = loc(\"f.py\":185:14 to :44)\n",
        "#loc2 = loc(\"g.py\":71:15 to 78:5)\n",
        "module @m {\n",
        "  func.func @main(%arg0: tensor<f32> loc(\"x\")) -> tensor<f32> {\n",
        "    %0 = stablehlo.abs %arg0 : tensor<f32> loc(#loc1)\n",
        "    %1 = stablehlo.abs %0 : tensor<f32> loc(#loc2)\n",
        "    %2 = stablehlo.abs %1 : tensor<f32> loc(#loc5)\n",
        "    %3 = stablehlo.abs %2 : tensor<f32> loc(\"outer\"(\"inner\"))\n",
        "    %4 = stablehlo.abs %3 : tensor<f32> loc(callsite(\"callee\"(\"h.py\":1:2) at \"caller.py\":9:9))\n",
        "    %5 = stablehlo.abs %4 : tensor<f32> loc(fused[\"a\", #loc1])\n",
        "    %6 = stablehlo.abs %5 : tensor<f32> loc(fused<\"meta\">[unknown])\n",
        "    return %6 : tensor<f32> loc(unknown)\n",
        "  } loc(#loc3)\n",
        "} loc(#loc4)\n",
        "#loc3 = loc(\"fn\"(#loc2))\n",
        "#loc4 = loc(\"mod.py\":1:1)\n",
        "#loc5 = loc(callsite(#loc3 at #loc4))\n",
    ));
    let ops = main_ops(&module);
    let at = |file: &str, line, col| Location::file(file, line, col);
    assert_eq!(ops[0].location, at("f.py", 185, 14));
    assert_eq!(ops[1].location, at("g.py", 71, 15));
    assert_eq!(
        ops[2].location,
        Location::named("fn", at("g.py", 71, 15)),
        "callsite keeps the callee"
    );
    assert_eq!(
        ops[3].location,
        Location::named("outer", Location::name("inner"))
    );
    assert_eq!(ops[4].location, Location::named("callee", at("h.py", 1, 2)));
    assert_eq!(
        ops[5].location,
        Location::Fused(vec![Location::name("a"), at("f.py", 185, 14)])
    );
    assert_eq!(ops[6].location, Location::Fused(vec![Location::Unknown]));
    assert_eq!(ops[7].location, Location::Unknown);
    let main = module.function("main").unwrap();
    assert_eq!(main.location, Location::named("fn", at("g.py", 71, 15)));
    assert_eq!(module.location, at("mod.py", 1, 1));
}

#[test]
fn module_and_function_attributes() {
    let module = parse(concat!(
        "module @jit_f attributes {mhlo.num_partitions = 2 : i32, jax.uses_shape_polymorphism = false, mhlo.num_replicas = 4 : i32, mhlo.frontend_attributes = {a = \"b\"}} {\n",
        "  sdy.mesh @mesh = <[\"x\"=2, \"y\"=4]>\n",
        "  func.func public @main(%arg0: tensor<8xf32> {jax.buffer_donor = true, sdy.sharding = #sdy.sharding<@mesh, [{\"x\", ?}p0]>}, %arg1: tensor<f32>) -> (tensor<8xf32> {jax.result_info = \"result[0]\"}, tensor<f32>) attributes {tpuc.note = \"hi\"} {\n",
        "    %0 = func.call @helper(%arg0) : (tensor<8xf32>) -> tensor<8xf32>\n",
        "    %1 = call @helper(%0) : (tensor<8xf32>) -> tensor<8xf32>\n",
        "    func.return %1, %arg1 : tensor<8xf32>, tensor<f32>\n",
        "  }\n",
        "  func.func private @helper(%arg0: tensor<8xf32>) -> tensor<8xf32> {\n",
        "    return %arg0 : tensor<8xf32>\n",
        "  }\n",
        "}\n",
    ));
    assert_eq!(module.name.as_deref(), Some("jit_f"));
    assert_eq!(
        (module.num_partitions, module.num_replicas),
        (Some(2), Some(4))
    );
    let names: Vec<&str> = module.attrs.iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        ["jax.uses_shape_polymorphism", "mhlo.frontend_attributes"]
    );
    assert_eq!(
        module.meshes,
        vec![Mesh {
            name: "mesh".into(),
            axes: vec![
                MeshAxis {
                    name: "x".into(),
                    size: 2
                },
                MeshAxis {
                    name: "y".into(),
                    size: 4
                }
            ],
        }]
    );
    let main = module.function("main").unwrap();
    assert_eq!(main.visibility, Visibility::Public);
    assert_eq!(
        main.arg_attrs[0].get("jax.buffer_donor"),
        Some(&Attribute::Bool(true))
    );
    assert_eq!(
        main.arg_attrs[0].get("sdy.sharding"),
        Some(&Attribute::Sharding(TensorSharding {
            mesh: "mesh".into(),
            dims: vec![DimSharding {
                axes: vec!["x".into()],
                is_open: true,
                priority: Some(0)
            }],
            replicated: vec![],
        }))
    );
    assert!(main.arg_attrs[1].is_empty());
    assert_eq!(
        main.result_attrs[0].get("jax.result_info"),
        Some(&Attribute::String("result[0]".into()))
    );
    assert_eq!(
        main.attrs.get("tpuc.note"),
        Some(&Attribute::String("hi".into()))
    );
    let ops = main_ops(&module);
    assert!(matches!(&ops[0].kind, OpKind::Call { callee } if callee == "helper"));
    assert!(matches!(&ops[1].kind, OpKind::Call { callee } if callee == "helper"));
    assert_eq!(ops[2].kind, OpKind::Return);
    assert_eq!(
        module.function("helper").unwrap().visibility,
        Visibility::Private
    );
}

#[test]
fn generic_module_function_and_mesh() {
    let module = parse(concat!(
        "\"builtin.module\"() <{sym_name = \"jit_g\"}> ({\n",
        "  \"sdy.mesh\"() <{mesh = #sdy.mesh<[\"x\"=2]>, sym_name = \"mesh\"}> : () -> ()\n",
        "  \"func.func\"() <{arg_attrs = [{jax.buffer_donor = true}], function_type = (tensor<2xi32>) -> tensor<2xi32>, res_attrs = [{jax.result_info = \"\"}], sym_name = \"main\", sym_visibility = \"public\"}> ({\n",
        "  ^bb0(%arg7: tensor<2xi32> loc(\"a\")):\n",
        "    %0:2 = \"stablehlo.optimization_barrier\"(%arg7, %arg7) : (tensor<2xi32>, tensor<2xi32>) -> (tensor<2xi32>, tensor<2xi32>)\n",
        "    %1 = \"stablehlo.add\"(%0#0, %0#1) : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>\n",
        "    \"func.return\"(%1) : (tensor<2xi32>) -> ()\n",
        "  }) : () -> ()\n",
        "}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> () loc(\"m\")\n",
    ));
    assert_eq!(module.name.as_deref(), Some("jit_g"));
    assert_eq!(
        (module.num_partitions, module.num_replicas),
        (Some(1), Some(1))
    );
    assert_eq!(module.meshes.len(), 1);
    assert_eq!(module.location, Location::name("m"));
    let main = module.function("main").unwrap();
    assert_eq!(
        main.arg_attrs[0].get("jax.buffer_donor"),
        Some(&Attribute::Bool(true))
    );
    let ops = main_ops(&module);
    let barrier = ops[0];
    assert_eq!(
        ops[1].operands, barrier.results,
        "%0#0 and %0#1 name the barrier's two results"
    );
    assert_eq!(
        barrier.operands,
        vec![main.args()[0]; 2],
        "^bb0 names the function's argument"
    );
}

fn constant_of(text: &str) -> (TensorType, DenseElements) {
    let module = parse(&format!(
        "module {{\n  func.func @main() {{\n    %0 = stablehlo.constant {text}\n    return\n  }}\n}}\n"
    ));
    let op = main_ops(&module)[0];
    let f = module.function("main").unwrap();
    let OpKind::Constant(data) = &op.kind else {
        panic!("not a constant: {:?}", op.kind)
    };
    (
        f.value_type(op.results[0]).as_tensor().unwrap().clone(),
        data.clone(),
    )
}

#[test]
fn dense_literals() {
    let f32s = |values: &[f32]| {
        values
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>()
    };
    let (ty, data) = constant_of("dense<0xFF800000> : tensor<f32>");
    assert_eq!(ty, TensorType::scalar(ElementType::F32));
    assert_eq!(data.bytes(), f32s(&[f32::NEG_INFINITY]));
    let (_, data) =
        constant_of("dense<[[1.5, -2.0], [0x7FC00000, 9.99999997E-7]]> : tensor<2x2xf32>");
    assert_eq!(data.bytes(), f32s(&[1.5, -2.0, f32::NAN, 1e-6]));
    let (_, data) = constant_of("dense<\"0x0000803F00000040\"> : tensor<2xf32>");
    assert_eq!(data.bytes(), f32s(&[1.0, 2.0]));
    let (_, data) = constant_of("dense<[true, false, true]> : tensor<3xi1>");
    assert_eq!(data.bytes(), [1, 0, 1]);
    let (_, data) = constant_of("dense<-3> : tensor<2x2xi8>");
    assert!(data.is_splat());
    assert_eq!(data.bytes(), [0xFD]);
    let (_, data) = constant_of("dense<18446744073709551615> : tensor<ui64>");
    assert_eq!(data.bytes(), [0xFF; 8]);
    let (_, data) = constant_of("dense<(1.0,-2.0)> : tensor<complex<f32>>");
    assert_eq!(data.bytes(), f32s(&[1.0, -2.0]));
    let (_, data) = constant_of("dense<[1.0, 0xFF80]> : tensor<2xbf16>");
    assert_eq!(data.bytes(), [0x80, 0x3F, 0x80, 0xFF]);
    let (ty, data) = constant_of("dense<> : tensor<0x4xf32>");
    assert_eq!(ty.shape, vec![Dim::Static(0), Dim::Static(4)]);
    assert!(data.bytes().is_empty());
}

#[test]
fn op_attributes_in_both_forms() {
    let module = parse(concat!(
        "module {\n",
        "  func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %i: tensor<1x2x2xf32>, %k: tensor<2x2x3xf32>) {\n",
        "    %0 = \"stablehlo.dot_general\"(%a, %b) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]}> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n",
        "    %1 = stablehlo.dot %a, %b, precision = [HIGH, HIGH] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>\n",
        "    %2 = \"stablehlo.compare\"(%a, %a) <{comparison_direction = #stablehlo<comparison_direction GE>, compare_type = #stablehlo<comparison_type TOTALORDER>}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>\n",
        "    %3 = \"stablehlo.convolution\"(%i, %k) <{dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 1, input_spatial_dimensions = [2], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [2], output_batch_dimension = 0, output_feature_dimension = 1, output_spatial_dimensions = [2]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, padding = dense<[[1, 0]]> : tensor<1x2xi64>, window_reversal = array<i1: true>}> : (tensor<1x2x2xf32>, tensor<2x2x3xf32>) -> tensor<1x2x1xf32>\n",
        "    %4 = stablehlo.transpose %a, dims = [1, 0] {mhlo.sharding = \"{replicated}\"} : (tensor<2x3xf32>) -> tensor<3x2xf32>\n",
        "    %5 = stablehlo.slice %a [0:2:2, 1:3] : (tensor<2x3xf32>) -> tensor<1x2xf32>\n",
        "    %6 = stablehlo.transpose %a, dims = [1, 0] {result_layout = dense<[0, 1]> : tensor<2xindex>} : (tensor<2x3xf32>) -> tensor<3x2xf32>\n",
        "    return\n",
        "  }\n",
        "}\n",
    ));
    let ops = main_ops(&module);
    assert_eq!(
        ops[0].kind,
        OpKind::DotGeneral {
            dims: DotDims::contracting(1, 0),
            precision: vec![Precision::Default, Precision::Highest]
        }
    );
    assert_eq!(
        ops[1].kind,
        OpKind::DotGeneral {
            dims: DotDims::contracting(1, 0),
            precision: vec![Precision::High; 2]
        }
    );
    assert_eq!(
        ops[2].kind,
        OpKind::Compare {
            direction: ComparisonDirection::Ge,
            compare_type: Some(ComparisonType::TotalOrder)
        }
    );
    let OpKind::Convolution(conv) = &ops[3].kind else {
        panic!("{:?}", ops[3].kind)
    };
    assert_eq!(conv.dims, ConvDims::nchw(1));
    assert_eq!(conv.padding, vec![(1, 0)]);
    assert_eq!(conv.window_reversal, vec![true]);
    assert_eq!(
        ops[4].kind,
        OpKind::Transpose {
            permutation: vec![1, 0]
        }
    );
    assert_eq!(
        ops[4].attrs.get("mhlo.sharding"),
        Some(&Attribute::String("{replicated}".into()))
    );
    assert_eq!(
        ops[6].attrs.get("result_layout"),
        Some(&Attribute::Raw("dense<[0, 1]> : tensor<2xindex>".into())),
        "attributes of types tpuc does not model stay verbatim"
    );
    assert_eq!(
        ops[5].kind,
        OpKind::Slice {
            start: vec![0, 1],
            limit: vec![2, 3],
            strides: vec![2, 1]
        }
    );
}

#[test]
fn nested_regions_see_outer_values_and_siblings_reuse_names() {
    let module = parse(concat!(
        "module {\n",
        "  func.func @main(%arg0: tensor<i32>, %arg1: tensor<f32>) -> tensor<f32> {\n",
        "    %0:2 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg1) : tensor<i32>, tensor<f32>\n",
        "    cond {\n",
        "      %1 = stablehlo.compare LT, %iterArg, %arg0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n",
        "      stablehlo.return %1 : tensor<i1>\n",
        "    } do {\n",
        "      %1 = stablehlo.add %iterArg_0, %arg1 : tensor<f32>\n",
        "      stablehlo.return %iterArg, %1 : tensor<i32>, tensor<f32>\n",
        "    }\n",
        "    return %0#1 : tensor<f32>\n",
        "  }\n",
        "}\n",
    ));
    let main = module.function("main").unwrap();
    let ops = main_ops(&module);
    let body = main.region(ops[0].regions[1]).blocks[0];
    let add = main.op(main.block(body).ops[0]);
    assert_eq!(add.operands, vec![main.block(body).args[1], main.args()[1]]);
    assert_eq!(ops[1].operands, vec![ops[0].results[1]]);
    verify(&module).unwrap();
}
