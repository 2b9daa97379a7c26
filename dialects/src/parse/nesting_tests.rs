//! Adversarially deep nesting is a diagnostic at its line and column, not a stack overflow.

use super::cursor::MAX_NESTING;
use super::parse_module;

const DEPTH: usize = 100_000;

fn function_returning(ty: &str, body: &str) -> String {
    format!("func.func public @main() -> {ty} {{\n{body}\n}}\n")
}

#[test]
fn a_dense_literal_nested_100000_deep_is_an_error() {
    let literal = format!("{}1{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
    let body = format!(
        "  %0 = stablehlo.constant dense<{literal}> : tensor<1xf32>\n  return %0 : tensor<1xf32>"
    );
    let error = parse_module(&function_returning("tensor<1xf32>", &body)).unwrap_err();
    assert!(error.message.contains("nested more than"), "{error}");
    assert_eq!(error.line, 2);
    let literal_start = "  %0 = stablehlo.constant dense<".len();
    assert!(error.column > literal_start && error.column <= literal_start + MAX_NESTING + 1);
}

#[test]
fn attributes_nested_100000_deep_are_an_error() {
    let array = format!("{}1{}", "[".repeat(DEPTH), "]".repeat(DEPTH));
    let body = format!(
        "  %0 = stablehlo.constant {{deep = {array}}} dense<1.0> : tensor<f32>\n  \
         return %0 : tensor<f32>"
    );
    let error = parse_module(&function_returning("tensor<f32>", &body)).unwrap_err();
    assert!(error.message.contains("nested more than"), "{error}");
    assert_eq!(error.line, 2);
}

#[test]
fn types_nested_100000_deep_are_an_error() {
    let ty = format!("{}tensor<f32>{}", "tuple<".repeat(DEPTH), ">".repeat(DEPTH));
    let text = format!("func.func public @main(%a: {ty}) {{\n  return\n}}\n");
    let error = parse_module(&text).unwrap_err();
    assert!(error.message.contains("nested more than"), "{error}");
}

fn nested_regions(depth: usize) -> String {
    let open = "  \"stablehlo.case\"(%i) ({\n".repeat(depth);
    let close = "  \"stablehlo.return\"() : () -> ()\n  }) : (tensor<i32>) -> ()\n".repeat(depth);
    format!("func.func public @main(%i: tensor<i32>) {{\n{open}{close}  return\n}}\n")
}

#[test]
fn regions_nested_100000_deep_are_an_error() {
    let error = parse_module(&nested_regions(DEPTH)).unwrap_err();
    assert!(error.message.contains("nested more than"), "{error}");
    assert!(error.line <= MAX_NESTING + 2, "{error}");
}

/// Nesting just inside the limit parses on a test thread's small stack, whatever nests.
#[test]
fn nesting_within_the_limit_parses() {
    let depth = MAX_NESTING - 3;
    parse_module(&nested_regions(depth)).expect("regions within the limit");
    let ty = format!("tensor<{}f32>", "1x".repeat(depth));
    let literal = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let body = format!("  %0 = stablehlo.constant dense<{literal}> : {ty}\n  return %0 : {ty}");
    parse_module(&function_returning(&ty, &body)).expect("a literal within the limit");
    let array = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let body = format!(
        "  %0 = stablehlo.constant {{deep = {array}}} dense<1.0> : tensor<f32>\n  \
         return %0 : tensor<f32>"
    );
    parse_module(&function_returning("tensor<f32>", &body)).expect("attributes within the limit");
    let tuple = format!("{}tensor<f32>{}", "tuple<".repeat(depth), ">".repeat(depth));
    let text = format!("func.func public @main(%a: {tuple}) {{\n  return\n}}\n");
    parse_module(&text).expect("types within the limit");
}
