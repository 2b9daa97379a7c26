//! Broken inputs: each gives a diagnostic with a clear message at the right line and column.

use tpuc_ir::parse::parse_module;

/// A module whose `@main(%arg0: tensor<4xf32>) -> tensor<4xf32>` body is `body` (from line 3).
fn in_main(body: &str) -> String {
    format!(
        "module {{\n  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {{\n{body}\n  }}\n}}\n"
    )
}

struct Case {
    name: &'static str,
    text: String,
    message: &'static str,
    line: usize,
    column: usize,
}

fn case(
    name: &'static str,
    text: impl Into<String>,
    message: &'static str,
    line: usize,
    column: usize,
) -> Case {
    Case {
        name,
        text: text.into(),
        message,
        line,
        column,
    }
}

fn cases() -> Vec<Case> {
    vec![
        case(
            "missing comma between generic operands",
            in_main(
                "    %0 = \"stablehlo.add\"(%arg0 %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n    return %0 : tensor<4xf32>",
            ),
            "expected ',' after operand, found `%arg0`",
            3,
            32,
        ),
        case(
            "missing comma in a pretty compare",
            in_main(
                "    %0 = stablehlo.compare LT, %arg0 %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
            ),
            "expected ',' after operand, found `%arg0`",
            3,
            38,
        ),
        case(
            "CHLO op in pretty form",
            in_main(
                "    %0 = chlo.minimum_broadcast_shapes %arg0 : tensor<4xf32> -> tensor<4xf32>\n    return %0 : tensor<4xf32>",
            ),
            "unsupported CHLO op `chlo.minimum_broadcast_shapes`: tpuc reads chlo.acos,",
            3,
            10,
        ),
        case(
            "CHLO op in generic form",
            in_main(
                "    %0 = \"chlo.minimum_broadcast_shapes\"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>",
            ),
            "unsupported CHLO op `chlo.minimum_broadcast_shapes`",
            3,
            10,
        ),
        case(
            "undefined value",
            in_main("    %0 = stablehlo.add %arg0, %7 : tensor<4xf32>"),
            "undefined value %7",
            3,
            31,
        ),
        case(
            "use before definition in the same block",
            in_main(
                "    %0 = stablehlo.add %arg0, %1 : tensor<4xf32>\n    %1 = stablehlo.abs %arg0 : tensor<4xf32>",
            ),
            "undefined value %1",
            3,
            31,
        ),
        case(
            "value of a sibling region",
            in_main(concat!(
                "    %c = stablehlo.constant dense<0> : tensor<i32>\n",
                "    %0 = stablehlo.while(%i = %c) : tensor<i32>\n",
                "    cond {\n",
                "      %p = stablehlo.compare LT, %i, %i, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n",
                "      stablehlo.return %p : tensor<i1>\n",
                "    } do {\n",
                "      stablehlo.return %p : tensor<i1>\n",
                "    }",
            )),
            "undefined value %p",
            9,
            24,
        ),
        case(
            "operand type mismatch",
            in_main("    %0 = \"stablehlo.abs\"(%arg0) : (tensor<4xf16>) -> tensor<4xf16>"),
            "type mismatch: operand #0 of `stablehlo.abs` has type tensor<4xf32>, but the op's type says tensor<4xf16>",
            3,
            10,
        ),
        case(
            "unknown element type",
            in_main("    %0 = stablehlo.abs %arg0 : tensor<4xf33>"),
            "unknown element type `f33`",
            3,
            41,
        ),
        case(
            "unterminated string",
            "module {\n  func.func @\"main() {\n  }\n}\n",
            "unterminated string literal",
            2,
            14,
        ),
        case(
            "undefined location alias",
            in_main("    return %arg0 : tensor<4xf32> loc(#loc7)"),
            "undefined location alias `#loc7`",
            3,
            38,
        ),
        case(
            "result count mismatch",
            in_main("    %0:2 = stablehlo.abs %arg0 : tensor<4xf32>"),
            "2 result name(s) given but `stablehlo.abs` has 1 result(s)",
            3,
            5,
        ),
        case(
            "result index out of range",
            in_main(
                "    %0 = stablehlo.abs %arg0 : tensor<4xf32>\n    return %0#3 : tensor<4xf32>",
            ),
            "result #3 of %0 does not exist: it names 1 result(s)",
            4,
            12,
        ),
        case(
            "redefinition of a value",
            in_main(
                "    %0 = stablehlo.abs %arg0 : tensor<4xf32>\n    %0 = stablehlo.abs %arg0 : tensor<4xf32>",
            ),
            "redefinition of value %0",
            4,
            5,
        ),
        case(
            "op of another dialect",
            in_main("    %0 = arith.constant dense<1.0> : tensor<4xf32>"),
            "unknown op `arith.constant`: tpuc reads StableHLO, CHLO, func and sdy ops only",
            3,
            10,
        ),
        case(
            "StableHLO op tpuc does not model",
            in_main("    %0 = \"stablehlo.cholesky\"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>"),
            "unsupported StableHLO op `stablehlo.cholesky`",
            3,
            10,
        ),
        case(
            "dense literal of the wrong length",
            in_main("    %0 = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<2xf32>"),
            "dense literal has 3 elements where the type needs 2",
            3,
            29,
        ),
        case(
            "integer out of range for its type",
            in_main("    %0 = stablehlo.constant dense<300> : tensor<i8>"),
            "value 300 does not fit i8",
            3,
            29,
        ),
        case(
            "missing inherent attribute",
            in_main(
                "    %0 = \"stablehlo.compare\"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
            ),
            "`stablehlo.compare` needs the attribute `comparison_direction`",
            3,
            10,
        ),
        case(
            "unknown comparison direction",
            in_main(
                "    %0 = stablehlo.compare XX, %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>",
            ),
            "unknown comparison_direction `XX`",
            3,
            28,
        ),
        case(
            "constant whose value type differs from its result type",
            in_main(
                "    %0 = \"stablehlo.constant\"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<3xf32>",
            ),
            "type mismatch: the constant's value has type tensor<2xf32> but the op's result type is tensor<3xf32>",
            3,
            43,
        ),
        case(
            "duplicate function",
            "module {\n  func.func @f() {\n    return\n  }\n  func.func @f() {\n    return\n  }\n}\n",
            "redefinition of function @f",
            5,
            13,
        ),
        case(
            "unclosed function body",
            "module {\n  func.func @f() {\n    return\n",
            "expected '}' to close the region, found end of input",
            4,
            1,
        ),
        case(
            "tensor encoding",
            in_main("    %0 = stablehlo.abs %arg0 : tensor<4xf32, #stablehlo.bounds<8>>"),
            "tensor encodings (bounds, sparsity) are not supported",
            3,
            44,
        ),
        case(
            "dense_resource blob",
            in_main("    %0 = stablehlo.constant dense_resource<blob> : tensor<4xf32>"),
            "`dense_resource` blobs are not supported",
            3,
            29,
        ),
        case(
            "text after the module",
            "module {\n}\nfunc.func @g() {\n}\n",
            "unexpected `func.func` after the module",
            3,
            1,
        ),
        case(
            "missing type of a generic op",
            in_main("    %0 = \"stablehlo.abs\"(%arg0)\n    return %0 : tensor<4xf32>"),
            "expected ':' before the op's type, found `return`",
            4,
            5,
        ),
        case(
            "result of a multi-result op used without an index",
            in_main(concat!(
                "    %0:2 = \"stablehlo.optimization_barrier\"(%arg0, %arg0) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)\n",
                "    return %0 : tensor<4xf32>",
            )),
            "%0 names 2 results; pick one with %0#0 .. %0#1",
            4,
            12,
        ),
        case(
            "empty input",
            "",
            "expected `module` at the top level, found end of input",
            1,
            1,
        ),
    ]
}

#[test]
fn broken_inputs_give_located_diagnostics() {
    let mut failures = Vec::new();
    for case in cases() {
        match parse_module(&case.text) {
            Ok(_) => failures.push(format!("{}: parsed without error", case.name)),
            Err(error) => {
                if !error.message.contains(case.message)
                    || (error.line, error.column) != (case.line, case.column)
                {
                    failures.push(format!(
                        "{}: got {}:{} `{}`, expected {}:{} `{}`",
                        case.name,
                        error.line,
                        error.column,
                        error.message,
                        case.line,
                        case.column,
                        case.message
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn diagnostics_render_with_the_source_line() {
    let text =
        in_main("    %0 = chlo.minimum_broadcast_shapes %arg0 : tensor<4xf32> -> tensor<4xf32>");
    let error = parse_module(&text).unwrap_err();
    assert!(error.help.as_deref().is_some_and(|h| h.contains("CHLO")));
    let report = error.with_source("model.mlir", text);
    let mut rendered = String::new();
    miette::NarratableReportHandler::new()
        .render_report(&mut rendered, report.as_ref())
        .unwrap();
    assert!(rendered.contains("model.mlir"), "{rendered}");
    assert!(
        rendered.contains("%0 = chlo.minimum_broadcast_shapes %arg0"),
        "{rendered}"
    );
}

/// Truncated and corrupted real texts give errors, never panics.
#[test]
fn damaged_jax_texts_fail_cleanly() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/jax");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|ext| ext != "mlir") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let module_end = text.rfind("} loc(").unwrap_or(text.len());
        for cut in (0..module_end)
            .step_by(211)
            .filter(|&i| text.is_char_boundary(i))
        {
            assert!(
                parse_module(&text[..cut]).is_err(),
                "{} cut at {cut} parsed",
                path.display()
            );
            checked += 1;
        }
        for (i, (at, ch)) in text.char_indices().step_by(307).enumerate() {
            let replacement = ["}", ",", "%", "(", "<", "\"", "é", "0x", "loc("][i % 9];
            let damaged = format!(
                "{}{replacement}{}",
                &text[..at],
                &text[at + ch.len_utf8()..]
            );
            let _ = parse_module(&damaged);
            checked += 1;
        }
    }
    assert!(checked > 1000, "only {checked} damaged texts");
}
