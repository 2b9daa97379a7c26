//! The constraints of the CHLO ops beyond the elementwise ones: each broken op is rejected
//! (by the parser's type check or the verifier) with a message naming the problem.

use tpuc_ir::parse::parse_module;
use tpuc_ir::verify;

/// `@main` over `args`, its body one op `%0 = ...` of result type `result`, returned.
fn module(args: &str, op: &str, result: &str) -> String {
    format!(
        "module {{\n  func.func @main({args}) -> {result} {{\n    %0 = {op}\n    return %0 : {result}\n  }}\n}}\n"
    )
}

/// The parse or verify error of `text`, or `None` if it is accepted.
fn error(text: &str) -> Option<String> {
    match parse_module(text) {
        Err(e) => Some(e.message.clone()),
        Ok(module) => verify(&module).err().map(|e| e.to_string()),
    }
}

const F: &str = "%a: tensor<2x3xf32>, %b: tensor<3xf32>";
const RAGGED_ARGS: &str = "%l: tensor<6x4xf32>, %r: tensor<3x4x5xf32>, %g: tensor<3xi32>";

fn ragged(dims: &str, result: &str) -> String {
    module(
        RAGGED_ARGS,
        &format!(
            "\"chlo.ragged_dot\"(%l, %r, %g) <{{ragged_dot_dimension_numbers = #chlo.ragged_dot<{dims}>}}> : (tensor<6x4xf32>, tensor<3x4x5xf32>, tensor<3xi32>) -> {result}"
        ),
        result,
    )
}

#[test]
fn well_formed_chlo_ops_are_accepted() {
    let accepted = [
        module(
            F,
            "chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>",
            "tensor<2x3xi1>",
        ),
        module(
            "%a: tensor<2xf32>",
            "\"chlo.constant_like\"(%a) {value = 1.0 : f32} : (tensor<2xf32>) -> tensor<2xf32>",
            "tensor<2xf32>",
        ),
        module(
            "%a: tensor<2xf32>",
            "chlo.next_after %a, %a : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>",
            "tensor<2xf32>",
        ),
        ragged(
            "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]",
            "tensor<6x5xf32>",
        ),
    ];
    for text in accepted {
        assert_eq!(error(&text), None, "{text}");
    }
}

#[test]
fn broken_chlo_ops_are_rejected() {
    let cases = [
        (
            module(
                F,
                "chlo.broadcast_compare %a, %b {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>",
                "tensor<2x3xi1>",
            ),
            "must be `#chlo<comparison_direction ...>`",
        ),
        (
            module(
                F,
                "chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LT>, compare_type = #chlo<comparison_type SIGNED>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>",
                "tensor<2x3xi1>",
            ),
            "compare type SIGNED does not fit element type f32",
        ),
        (
            module(
                "%a: tensor<2xf32>",
                "\"chlo.constant_like\"(%a) {value = 1 : i32} : (tensor<2xf32>) -> tensor<2xf32>",
                "tensor<2xf32>",
            ),
            "value of type i32 does not match the operand's element type f32",
        ),
        (
            module(
                "%a: tensor<2xf32>",
                "\"chlo.constant_like\"(%a) {value = \"one\"} : (tensor<2xf32>) -> tensor<2xf32>",
                "tensor<2xf32>",
            ),
            "must be a typed scalar",
        ),
        (
            module(
                "%a: tensor<2xi32>",
                "chlo.zeta %a, %a : tensor<2xi32>, tensor<2xi32> -> tensor<2xi32>",
                "tensor<2xi32>",
            ),
            "does not accept element type i32",
        ),
        (
            module(
                "%a: tensor<2xf32>, %b: tensor<3xf32>",
                "chlo.polygamma %a, %b : tensor<2xf32>, tensor<3xf32> -> tensor<2xf32>",
                "tensor<2xf32>",
            ),
            "operand shapes differ",
        ),
        (
            module(
                "%a: tensor<2xf32>",
                "chlo.bessel_i1e %a : tensor<2xf32> -> tensor<2xf16>",
                "tensor<2xf16>",
            ),
            "f16",
        ),
        (
            ragged(
                "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], rhs_group_dimensions = [0]",
                "tensor<6x5xf32>",
            ),
            "needs exactly one lhs ragged dimension, got 0",
        ),
        (
            ragged(
                "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0]",
                "tensor<6x5xf32>",
            ),
            "rhs group dimensions",
        ),
        (
            ragged(
                "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [2]",
                "tensor<6x5xf32>",
            ),
            "rhs group dimension 2 has size 5, group_sizes has 3 groups",
        ),
        (
            ragged(
                "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [1]",
                "tensor<6x5xf32>",
            ),
            "is also a batching or contracting dimension",
        ),
        (
            ragged(
                "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]",
                "tensor<6x4xf32>",
            ),
            "6x5",
        ),
        (
            ragged(
                "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0], lhs_group_dimensions = [0]",
                "tensor<6x5xf32>",
            ),
            "unknown field `lhs_group_dimensions` in `#chlo.ragged_dot`",
        ),
    ];
    let mut failures = Vec::new();
    for (text, message) in &cases {
        match error(text) {
            Some(e) if e.contains(message) => {}
            Some(e) => failures.push(format!("expected `{message}`, got `{e}`\n{text}")),
            None => failures.push(format!("accepted, expected `{message}`\n{text}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
