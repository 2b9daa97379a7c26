//! Tensor types too large to address are refused at the signature and at the op.

use crate::error::IrError;
use crate::op::Opcode;
use crate::parse::parse_module;
use crate::verify::{Site, verify};

const HUGE: &str = "tensor<99999999999x99999999999xf32>";

fn errors(text: &str) -> Vec<(Site, String)> {
    let module = parse_module(text).expect("the text parses");
    match verify(&module) {
        Err(IrError::Verify(errors)) => errors
            .errors()
            .iter()
            .map(|e| (e.site.clone(), e.message.clone()))
            .collect(),
        other => panic!("expected verify errors, got {other:?}"),
    }
}

#[test]
fn an_argument_whose_element_count_overflows_is_refused() {
    let text =
        format!("func.func public @main(%a: {HUGE}) -> {HUGE} {{\n  return %a : {HUGE}\n}}\n");
    let errors = errors(&text);
    let messages: Vec<&str> = errors.iter().map(|(_, m)| m.as_str()).collect();
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("argument 0: ") && m.contains("overflows")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.starts_with("result 0: ")),
        "{messages:?}"
    );
}

#[test]
fn an_op_result_over_the_byte_limit_is_refused_at_the_op() {
    let text = "func.func public @main(%a: tensor<f32>) -> tensor<f32> {\n  \
                %0 = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<f32>) -> tensor<1048576x524288xf32>\n  \
                return %a : tensor<f32>\n}\n";
    let errors = errors(text);
    assert!(
        errors.iter().any(|(site, message)| matches!(site, Site::Op(op) if op.name == Opcode::BroadcastInDim.name())
            && message.contains("2^40")),
        "{errors:?}"
    );
}

#[test]
fn ops_on_oversized_operands_do_not_panic() {
    let text = format!(
        "func.func public @main(%a: {HUGE}) -> {HUGE} {{\n  \
         %0 = stablehlo.add %a, %a : {HUGE}\n  \
         %1 = stablehlo.pad %0, %0, low = [0, 0], high = [0, 0], interior = [9, 9] : ({HUGE}, {HUGE}) -> {HUGE}\n  \
         %2 = stablehlo.reshape %1 : ({HUGE}) -> tensor<?xf32>\n  \
         return %0 : {HUGE}\n}}\n"
    );
    let module = parse_module(&text).expect("the text parses");
    assert!(verify(&module).is_err());
    assert!(module.to_string().contains("99999999999x99999999999"));
}
