//! The verifier against broken modules built through the low-level API (as a parser would):
//! each row breaks one rule and names the message it must produce.

mod common;

use common::{f32s, module_of};
use tpuc_expect::expect_file;
use tpuc_ir::*;

fn scalar_f32() -> Type {
    TensorType::scalar(ElementType::F32).into()
}

/// The reviewed output `name`: `tests/snapshots/verifier/NAME.txt` (`BLESS=1` rewrites it).
fn snapshot(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots/verifier")
        .join(format!("{name}.txt"))
}

fn vec4() -> Type {
    f32s(&[4]).into()
}

fn op(kind: OpKind, operands: Vec<Value>, results: Vec<Type>) -> NewOp {
    NewOp::new(kind, operands, results)
}

/// `@main(%x: tensor<4xf32>) -> tensor<4xf32>` with the body `edit` writes.
fn main_with(edit: impl FnOnce(&mut Function, BlockId, Value)) -> Module {
    let mut f = Function::new("main", Visibility::Public, vec![vec4()], vec![vec4()]);
    let entry = f.entry_block();
    let x = f.args()[0];
    edit(&mut f, entry, x);
    module_of(vec![f])
}

fn ret(f: &mut Function, block: BlockId, values: Vec<Value>) {
    f.append_op(block, op(OpKind::Return, values, vec![]));
}

fn add(f: &mut Function, block: BlockId, a: Value, b: Value) -> Value {
    let ty = f.value_type(a).clone();
    let id = f.append_op(
        block,
        op(OpKind::Binary(BinaryOp::Add), vec![a, b], vec![ty]),
    );
    f.op(id).results[0]
}

/// A reduce over `x` whose body is `body(f, block, args)`; returns the reduce's result.
fn reduce_with_body(
    f: &mut Function,
    block: BlockId,
    x: Value,
    arg_types: Vec<Type>,
    body: impl FnOnce(&mut Function, BlockId, &[Value]),
) -> Value {
    let zero = f.append_op(
        block,
        op(
            OpKind::Constant(DenseElements::splat_f64(ElementType::F32, 0.0)),
            vec![],
            vec![scalar_f32()],
        ),
    );
    let zero = f.op(zero).results[0];
    let region = f.add_region();
    let inner = f.add_block(region);
    let args: Vec<Value> = arg_types
        .into_iter()
        .map(|t| f.add_block_arg(inner, t))
        .collect();
    body(f, inner, &args);
    let reduce = f.append_op(
        block,
        NewOp {
            regions: vec![region],
            ..op(
                OpKind::Reduce {
                    dimensions: vec![0],
                },
                vec![x, zero],
                vec![scalar_f32()],
            )
        },
    );
    f.op(reduce).results[0]
}

fn sum_body(f: &mut Function, block: BlockId, args: &[Value]) {
    let s = add(f, block, args[0], args[1]);
    f.append_op(block, op(OpKind::RegionReturn, vec![s], vec![]));
}

fn helper(name: &str, args: Vec<Type>, results: Vec<Type>) -> Function {
    let mut f = Function::new(name, Visibility::Private, args, results);
    let entry = f.entry_block();
    let values = f.args().to_vec();
    ret(&mut f, entry, values);
    f
}

fn sharding(mesh: &str, axis: &str) -> TensorSharding {
    TensorSharding {
        mesh: mesh.to_string(),
        dims: vec![DimSharding {
            axes: vec![axis.to_string()],
            ..DimSharding::default()
        }],
        replicated: Vec::new(),
    }
}

struct Case {
    name: &'static str,
    module: fn() -> Module,
    message: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "operand defined later in the block",
        module: || {
            main_with(|f, b, x| {
                // op 0 negates the result of op 1.
                let id = f.append_op(b, op(OpKind::Unary(UnaryOp::Negate), vec![x], vec![vec4()]));
                let neg = f.op(id).results[0];
                let user = f.append_op(
                    b,
                    op(OpKind::Binary(BinaryOp::Add), vec![x, x], vec![vec4()]),
                );
                let sum = f.op(user).results[0];
                f.set_operands(id, vec![sum]);
                ret(f, b, vec![neg]);
            })
        },
        message: "op 0 `stablehlo.negate`: operand 0 is used before it is defined",
    },
    Case {
        name: "value from a sibling region",
        module: || {
            main_with(|f, b, x| {
                let mut leaked = None;
                reduce_with_body(
                    f,
                    b,
                    x,
                    vec![scalar_f32(), scalar_f32()],
                    |f, inner, args| {
                        let s = add(f, inner, args[0], args[1]);
                        leaked = Some(s);
                        f.append_op(inner, op(OpKind::RegionReturn, vec![s], vec![]));
                    },
                );
                let leaked = leaked.unwrap();
                reduce_with_body(f, b, x, vec![scalar_f32(), scalar_f32()], |f, inner, _| {
                    f.append_op(inner, op(OpKind::RegionReturn, vec![leaked], vec![]));
                });
                ret(f, b, vec![x]);
            })
        },
        message: "operand 0 is defined in a region that does not enclose this op",
    },
    Case {
        name: "missing func.return",
        module: || {
            main_with(|f, b, x| {
                add(f, b, x, x);
            })
        },
        message: "the block must end with `func.return`",
    },
    Case {
        name: "return types differ from the signature",
        module: || {
            main_with(|f, b, x| {
                let c = f.append_op(
                    b,
                    op(
                        OpKind::Convert,
                        vec![x],
                        vec![TensorType::of(&[4], ElementType::F16).into()],
                    ),
                );
                let c = f.op(c).results[0];
                ret(f, b, vec![c]);
            })
        },
        message: "returns (tensor<4xf16>), the signature says (tensor<4xf32>)",
    },
    Case {
        name: "func.return before the end",
        module: || {
            main_with(|f, b, x| {
                ret(f, b, vec![x]);
                ret(f, b, vec![x]);
            })
        },
        message: "must be the last op of the function body",
    },
    Case {
        name: "stablehlo.return in a function body",
        module: || {
            main_with(|f, b, x| {
                f.append_op(b, op(OpKind::RegionReturn, vec![x], vec![]));
            })
        },
        message: "must be the last op of an op's region",
    },
    Case {
        name: "wrong result type",
        module: || {
            main_with(|f, b, x| {
                f.append_op(
                    b,
                    op(
                        OpKind::Binary(BinaryOp::Add),
                        vec![x, x],
                        vec![TensorType::of(&[4], ElementType::F64).into()],
                    ),
                );
                ret(f, b, vec![x]);
            })
        },
        message: "result 0 has type tensor<4xf64>, expected tensor<4xf32>",
    },
    Case {
        name: "wrong result count",
        module: || {
            main_with(|f, b, x| {
                f.append_op(
                    b,
                    op(OpKind::Unary(UnaryOp::Tanh), vec![x], vec![vec4(), vec4()]),
                );
                ret(f, b, vec![x]);
            })
        },
        message: "has 2 result(s), expected 1",
    },
    Case {
        name: "reduce body taking the wrong types",
        module: || {
            main_with(|f, b, x| {
                let i32s = TensorType::scalar(ElementType::I32);
                reduce_with_body(f, b, x, vec![i32s.clone().into(), i32s.into()], sum_body);
                ret(f, b, vec![x]);
            })
        },
        message: "region 0 must take (tensor<f32>, tensor<f32>), takes (tensor<i32>, tensor<i32>)",
    },
    Case {
        name: "reduce without its region",
        module: || {
            main_with(|f, b, x| {
                let zero = f.append_op(
                    b,
                    op(
                        OpKind::Constant(DenseElements::splat_f64(ElementType::F32, 0.0)),
                        vec![],
                        vec![scalar_f32()],
                    ),
                );
                let zero = f.op(zero).results[0];
                f.append_op(
                    b,
                    op(
                        OpKind::Reduce {
                            dimensions: vec![0],
                        },
                        vec![x, zero],
                        vec![scalar_f32()],
                    ),
                );
                ret(f, b, vec![x]);
            })
        },
        message: "expects 1 region(s), got 0",
    },
    Case {
        name: "region block without stablehlo.return",
        module: || {
            main_with(|f, b, x| {
                reduce_with_body(
                    f,
                    b,
                    x,
                    vec![scalar_f32(), scalar_f32()],
                    |f, inner, args| {
                        add(f, inner, args[0], args[1]);
                    },
                );
                ret(f, b, vec![x]);
            })
        },
        message: "the block must end with `stablehlo.return`",
    },
    Case {
        name: "region attached twice",
        module: || {
            main_with(|f, b, x| {
                let region = f.add_region();
                let inner = f.add_block(region);
                let args: Vec<Value> = (0..2)
                    .map(|_| f.add_block_arg(inner, scalar_f32()))
                    .collect();
                sum_body(f, inner, &args);
                let zero = f.append_op(
                    b,
                    op(
                        OpKind::Constant(DenseElements::splat_f64(ElementType::F32, 0.0)),
                        vec![],
                        vec![scalar_f32()],
                    ),
                );
                let zero = f.op(zero).results[0];
                for _ in 0..2 {
                    f.append_op(
                        b,
                        NewOp {
                            regions: vec![region],
                            ..op(
                                OpKind::Reduce {
                                    dimensions: vec![0],
                                },
                                vec![x, zero],
                                vec![scalar_f32()],
                            )
                        },
                    );
                }
                ret(f, b, vec![x]);
            })
        },
        message: "is attached twice",
    },
    Case {
        name: "constant data that does not fit",
        module: || {
            main_with(|f, b, x| {
                let data = DenseElements::from_f64s(&f32s(&[2]), &[1.0, 2.0]).unwrap();
                f.append_op(b, op(OpKind::Constant(data), vec![], vec![vec4()]));
                ret(f, b, vec![x]);
            })
        },
        message: "8 bytes of data do not fit tensor<4xf32>",
    },
    Case {
        name: "call to an unknown function",
        module: || {
            main_with(|f, b, x| {
                let id = f.append_op(
                    b,
                    op(
                        OpKind::Call {
                            callee: "missing".into(),
                        },
                        vec![x],
                        vec![vec4()],
                    ),
                );
                let y = f.op(id).results[0];
                ret(f, b, vec![y]);
            })
        },
        message: "callee `@missing` is not defined",
    },
    Case {
        name: "call with the wrong types",
        module: || {
            let mut m = main_with(|f, b, x| {
                let id = f.append_op(
                    b,
                    op(
                        OpKind::Call {
                            callee: "helper".into(),
                        },
                        vec![x],
                        vec![vec4()],
                    ),
                );
                let y = f.op(id).results[0];
                ret(f, b, vec![y]);
            });
            m.add_function(helper("helper", vec![scalar_f32()], vec![scalar_f32()]))
                .unwrap();
            m
        },
        message: "do not match callee `@helper`: (tensor<f32>) -> (tensor<f32>)",
    },
    Case {
        name: "composite whose decomposition differs",
        module: || {
            let mut m = main_with(|f, b, x| {
                let kind = OpKind::Composite {
                    name: "tpuc.id".into(),
                    attributes: NamedAttrs::new(),
                    decomposition: "id".into(),
                    version: 0,
                };
                let id = f.append_op(b, op(kind, vec![x], vec![vec4()]));
                let y = f.op(id).results[0];
                ret(f, b, vec![y]);
            });
            m.add_function(helper("id", vec![], vec![])).unwrap();
            m
        },
        message: "do not match decomposition `@id`",
    },
    Case {
        name: "duplicate function names",
        module: || {
            let mut m = main_with(|f, b, x| ret(f, b, vec![x]));
            m.functions.push(helper("main", vec![], vec![]));
            m
        },
        message: "function `@main` is defined twice",
    },
    Case {
        name: "sharding on an undeclared mesh",
        module: || {
            let mut m = main_with(|f, b, x| ret(f, b, vec![x]));
            m.functions[0].arg_attrs[0]
                .set("sdy.sharding", Attribute::Sharding(sharding("mesh", "x")));
            m
        },
        message: "sharding names mesh `@mesh`, which is not declared",
    },
    Case {
        name: "sharding on an unknown axis",
        module: || {
            let mut m = main_with(|f, b, x| {
                let id = f.append_op(
                    b,
                    op(
                        OpKind::ShardingConstraint(sharding("mesh", "y")),
                        vec![x],
                        vec![vec4()],
                    ),
                );
                let y = f.op(id).results[0];
                ret(f, b, vec![y]);
            });
            m.meshes.push(Mesh {
                name: "mesh".into(),
                axes: vec![MeshAxis {
                    name: "x".into(),
                    size: 2,
                }],
            });
            m
        },
        message: "sharding uses axis \"y\", which mesh `@mesh` lacks",
    },
    Case {
        name: "fft RFFT declaring the full spectrum",
        module: || {
            main_with(|f, b, x| {
                let kind = OpKind::Fft {
                    fft_type: FftType::Rfft,
                    fft_length: vec![4],
                };
                let complex = TensorType::of(&[4], ElementType::ComplexF32);
                f.append_op(b, op(kind, vec![x], vec![complex.into()]));
                ret(f, b, vec![x]);
            })
        },
        message: "result 0 has type tensor<4xcomplex<f32>>, expected tensor<3xcomplex<f32>>",
    },
    Case {
        name: "fft FFT of a real operand",
        module: || {
            main_with(|f, b, x| {
                let kind = OpKind::Fft {
                    fft_type: FftType::Fft,
                    fft_length: vec![4],
                };
                f.append_op(b, op(kind, vec![x], vec![vec4()]));
                ret(f, b, vec![x]);
            })
        },
        message: "FFT takes a complex operand, got f32",
    },
    Case {
        name: "argument attributes out of step",
        module: || {
            let mut m = main_with(|f, b, x| ret(f, b, vec![x]));
            m.functions[0].arg_attrs.push(NamedAttrs::new());
            m
        },
        message: "2 argument attribute lists for 1 arguments",
    },
];

#[test]
fn verifier_rejects_each_broken_module() {
    let mut failures = Vec::new();
    for case in CASES {
        match verify(&(case.module)()) {
            Ok(()) => failures.push(format!("{}: verified", case.name)),
            Err(error) => {
                let text = error.to_string();
                let kind_ok = matches!(
                    error,
                    IrError::Verify { .. } | IrError::InvalidModule { .. }
                );
                if !text.contains(case.message) || !kind_ok {
                    failures.push(format!(
                        "{}: got `{text}`, expected `{}`",
                        case.name, case.message
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Broken modules still print (for error reports) without panicking.
#[test]
fn broken_modules_still_print() {
    let options = PrintOptions::with_locations(LocationStyle::Inline);
    for case in CASES {
        let module = (case.module)();
        assert!(
            print::generic(&module, &options).starts_with("module"),
            "{}",
            case.name
        );
        assert!(
            print::pretty(&module, &options).starts_with("module"),
            "{}",
            case.name
        );
    }
}

#[test]
fn verifier_accepts_well_formed_modules() {
    for (name, module) in common::fixtures() {
        verify(&module).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    let sound = main_with(|f, b, x| {
        let y = add(f, b, x, x);
        ret(f, b, vec![y]);
    });
    verify(&sound).unwrap();
    let valid_dot = main_with(|f, b, x| {
        let kind = OpKind::DotGeneral {
            dims: DotDims::contracting(0, 0),
            precision: vec![],
        };
        f.append_op(b, op(kind, vec![x, x], vec![scalar_f32()]));
        ret(f, b, vec![x]);
    });
    verify(&valid_dot).unwrap();
}

#[test]
fn verifier_errors_locate_the_op() {
    let mut m = main_with(|f, b, x| {
        f.append_op(
            b,
            NewOp {
                location: Location::named("mul_3", Location::file("model.py", 9, 2)),
                ..op(
                    OpKind::Binary(BinaryOp::Multiply),
                    vec![x, x],
                    vec![scalar_f32()],
                )
            },
        );
        ret(f, b, vec![x]);
    });
    m.name = None;
    let error = verify(&m).unwrap_err();
    assert_eq!(
        error.to_string(),
        "in function `@main`, op 0 `stablehlo.multiply` at \"mul_3\"(\"model.py\":9:2): \
         result 0 has type tensor<f32>, expected tensor<4xf32>"
    );
}

/// The text miette's graphical handler prints, without colors or unicode.
fn render(diagnostic: &dyn miette::Diagnostic) -> String {
    let mut out = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::none())
        .with_width(200)
        .render_report(&mut out, diagnostic)
        .unwrap();
    out
}

fn verify_errors(module: &Module) -> VerifyErrors {
    match verify(module) {
        Err(IrError::Verify(errors)) => errors,
        other => panic!("expected verifier errors, got {other:?}"),
    }
}

/// `@main` with three independent errors in three ops, each located at an FX node of `file`:
/// a multiply with the wrong result type, a call of an undefined function, a region's
/// terminator in the function body.
fn three_broken_ops(file: &str) -> Module {
    main_with(|f, b, x| {
        let at = |node: &str, line| Location::named(node, Location::file(file, line, 0));
        f.append_op(
            b,
            NewOp {
                location: at("mul", 3),
                ..op(
                    OpKind::Binary(BinaryOp::Multiply),
                    vec![x, x],
                    vec![scalar_f32()],
                )
            },
        );
        f.append_op(
            b,
            NewOp {
                location: at("call_helper", 4),
                ..op(
                    OpKind::Call {
                        callee: "helper".into(),
                    },
                    vec![x],
                    vec![vec4()],
                )
            },
        );
        f.append_op(
            b,
            NewOp {
                location: at("output", 5),
                ..op(OpKind::RegionReturn, vec![x], vec![])
            },
        );
        ret(f, b, vec![x]);
    })
}

#[test]
fn verifier_reports_every_error_with_its_op_and_location() {
    let errors = verify_errors(&three_broken_ops("model.py"));
    let found: Vec<_> = errors
        .errors()
        .iter()
        .map(|e| {
            let op = e.op().expect("each error is at an op");
            (
                e.function.as_deref(),
                op.index,
                op.name,
                e.location.node_name(),
                e.location.file_line_col(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                Some("main"),
                0,
                "stablehlo.multiply",
                Some("mul"),
                Some(("model.py", 3, 0))
            ),
            (
                Some("main"),
                1,
                "func.call",
                Some("call_helper"),
                Some(("model.py", 4, 0))
            ),
            (
                Some("main"),
                2,
                "stablehlo.return",
                Some("output"),
                Some(("model.py", 5, 0))
            ),
        ]
    );
    // The user's file is not on disk: the location is printed as `file:line`, without a snippet.
    expect_file(
        snapshot("verifier_reports_every_error_with_its_op_and_location"),
        &render(&errors.with_user_sources()),
    );
}

#[test]
fn verifier_errors_show_the_users_source_line_when_the_file_exists() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("model.py");
    std::fs::write(
        &file,
        "import torch\ndef forward(x):\n    y = x * x\n    z = helper(x)\n    return y + z\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let errors = verify_errors(&three_broken_ops(file)).with_user_sources();
    // Lines 3, 4 and 5 of the file, one under each error.
    expect_file(
        snapshot("verifier_errors_show_the_users_source_line_when_the_file_exists"),
        &render(&errors).replace(file, "[dir]/model.py"),
    );
}

#[test]
fn verifier_errors_label_the_op_in_the_module_text() {
    let text = "\
func.func @main(%a: tensor<2xf32>) -> tensor<3xf32> {
  %0 = stablehlo.abs %a : tensor<2xf32> loc(\"abs\"(\"model.py\":4:0))
  %1 = func.call @missing(%0) : (tensor<2xf32>) -> tensor<2xf32> loc(\"call\"(\"model.py\":5:0))
  return %1 : tensor<2xf32>
}
";
    let (module, spans) = parse::parse_module_with_spans(text).unwrap();
    let errors = verify_errors(&module).with_module_text("bad.mlir", text, &spans);
    assert_eq!(errors.errors().len(), 2, "{errors}");
    expect_file(
        snapshot("verifier_errors_label_the_op_in_the_module_text"),
        &render(&errors),
    );
}

#[test]
fn one_error_is_rendered_as_itself() {
    let error = verify(&main_with(|f, b, _| {
        f.append_op(b, op(OpKind::Return, vec![], vec![]));
    }))
    .unwrap_err();
    assert_eq!(
        render(&error),
        "tpuc_ir::verify

  x in function `@main`, op 0 `func.return`: returns (), the signature says (tensor<4xf32>)
  help: return values of the function's result types, or change its signature
"
    );
}
