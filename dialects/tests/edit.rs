//! Editing a function in place: every edit keeps use lists and parent links exact and leaves a
//! module that verifies and prints as expected.

use std::collections::HashMap;

use tpuc_ir::print::{LocationStyle, PrintOptions};
use tpuc_ir::{InsertPoint, Location, Module, OpBuilder, OpKind, Use};

const SOURCE: &str = "module {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<i64>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>
    %1 = stablehlo.multiply %0, %0 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
";

fn parsed() -> Module {
    tpuc_ir::parse::parse_module(SOURCE).expect("parses")
}

fn printed(module: &Module) -> String {
    tpuc_ir::verify(module).expect("verifies after the edit");
    tpuc_ir::print::pretty(module, &PrintOptions::with_locations(LocationStyle::Strip))
}

fn body_lines(module: &Module) -> Vec<String> {
    printed(module)
        .lines()
        .skip(2)
        .map(|l| l.trim().to_owned())
        .filter(|l| l != "}")
        .collect()
}

#[test]
fn use_lists_and_parents_follow_every_edit() {
    let mut module = parsed();
    let f = &mut module.functions[0];
    let ops = f.walk();
    let (add, mul, ret) = (ops[0], ops[1], ops[2]);
    let sum = f.op(add).results[0];
    let mut uses = f.uses(sum).to_vec();
    uses.sort();
    assert_eq!(
        uses,
        [
            Use {
                op: mul,
                operand: 0
            },
            Use {
                op: mul,
                operand: 1
            }
        ]
    );
    assert_eq!(f.parent_block(add), Some(f.entry_block()));

    let x = f.args()[0];
    f.set_operand(mul, 1, x);
    assert_eq!(
        f.uses(sum),
        [Use {
            op: mul,
            operand: 0
        }]
    );
    assert_eq!(f.uses(x).len(), 2);

    let product = f.op(mul).results[0];
    f.replace_all_uses_with(product, sum);
    assert!(!f.has_uses(product));
    assert!(f.uses(sum).contains(&Use {
        op: ret,
        operand: 0
    }));
    f.erase_op(mul);
    assert_eq!(f.parent_block(mul), None);
    assert_eq!(f.uses(x).len(), 1, "the erased op's operand uses are gone");
    assert_eq!(
        body_lines(&module),
        [
            "%0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>",
            "return %0 : tensor<4xf32>"
        ]
    );
}

#[test]
fn a_cursor_inserts_before_and_after_and_ops_move_and_clone() {
    let mut module = parsed();
    let f = &mut module.functions[0];
    let ops = f.walk();
    let (add, mul) = (ops[0], ops[1]);
    let sum = f.op(add).results[0];
    let negated = {
        let mut b = OpBuilder::at(f, InsertPoint::After(add), Location::Unknown);
        b.negate(sum).expect("negate")
    };
    f.set_operand(mul, 1, negated);
    let mut map = HashMap::new();
    let copy = f.clone_op(add, InsertPoint::Before(mul), &mut map);
    assert_eq!(map[&sum], f.op(copy).results[0]);
    f.set_operand(mul, 0, f.op(copy).results[0]);
    // The copy moves to the front; it only reads arguments, so the module still verifies.
    f.move_op(copy, InsertPoint::Start(f.entry_block()));
    assert_eq!(
        body_lines(&module),
        [
            "%0 = stablehlo.add %arg0, %arg1 : tensor<4xf32>",
            "%1 = stablehlo.add %arg0, %arg1 : tensor<4xf32>",
            "%2 = stablehlo.negate %1 : tensor<4xf32>",
            "%3 = stablehlo.multiply %0, %2 : tensor<4xf32>",
            "return %3 : tensor<4xf32>",
        ]
    );
}

#[test]
fn replacing_an_op_and_removing_an_unused_argument() {
    let mut module = parsed();
    let f = &mut module.functions[0];
    let ops = f.walk();
    let (add, mul) = (ops[0], ops[1]);
    let x = f.args()[0];
    f.replace_op(mul, &[x]);
    f.erase_op(add);
    f.remove_args(&[1, 2]);
    assert_eq!(f.args().len(), 1);
    assert!(matches!(f.op(f.walk()[0]).kind, OpKind::Return));
    assert_eq!(
        printed(&module).lines().nth(1).unwrap().trim(),
        "func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {"
    );
}

#[test]
fn cloned_regions_map_their_block_arguments() {
    let text = "module {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<f32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    return %0 : tensor<f32>
  }
}
";
    let mut module = tpuc_ir::parse::parse_module(text).expect("parses");
    let f = &mut module.functions[0];
    let reduce = f.walk()[1];
    let ret = *f.block(f.entry_block()).ops.last().unwrap();
    let mut map = HashMap::new();
    let copy = f.clone_op(reduce, InsertPoint::Before(ret), &mut map);
    let region = f.op(copy).regions[0];
    assert_eq!(f.parent_op(region), Some(copy));
    assert_ne!(region, f.op(reduce).regions[0]);
    let original = f.op(reduce).results[0];
    let cloned = f.op(copy).results[0];
    f.replace_all_uses_with(original, cloned);
    f.erase_op(reduce);
    let text = printed(&module);
    assert_eq!(text.matches("stablehlo.reduce").count(), 1, "{text}");
}
