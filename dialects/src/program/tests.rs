use super::*;
use crate::parse::parse_module;
use crate::print::{LocationStyle, PrintOptions, generic, pretty};

const STEP: &str = "module {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<i64>, %arg3: tensor<4xf32>) -> (tensor<4xf32>, tensor<i64>, tensor<4xf32>) {
    %0 = stablehlo.add %arg0, %arg3 : tensor<4xf32>
    return %0, %arg2, %arg1 : tensor<4xf32>, tensor<i64>, tensor<4xf32>
  }
}
";

fn every_role() -> Interface {
    Interface {
        arguments: vec![
            ArgumentRole::Parameter {
                fqn: "fc.weight".into(),
            },
            ArgumentRole::OptimizerState {
                fqn: "fc.weight".into(),
                slot: "momentum".into(),
            },
            ArgumentRole::Buffer {
                fqn: "steps".into(),
                persistent: false,
            },
            ArgumentRole::Input {
                index: 1,
                name: "x".into(),
            },
        ],
        results: vec![
            ResultRole::Gradient {
                fqn: "fc.weight".into(),
            },
            ResultRole::BufferMutation {
                fqn: "steps".into(),
            },
            ResultRole::Check {
                kind: CheckKind::NonFinite {
                    output: 0,
                    shape: vec![4],
                },
                node: "add".into(),
                target: "torch.ops.aten.add.Tensor".into(),
                source_line: Some("m.py:3: x + 1".into()),
            },
        ],
        aliases: vec![(2, 1)],
    }
}

#[test]
fn every_role_survives_printing_and_parsing() {
    let program = Program::new(parse_module(STEP).unwrap(), &every_role()).unwrap();
    assert_eq!(program.interface().unwrap(), every_role());
    let options = PrintOptions::with_locations(LocationStyle::Strip);
    for text in [
        pretty(&program.module, &options),
        generic(&program.module, &options),
    ] {
        let reread = Program::from_module(parse_module(&text).unwrap()).unwrap();
        assert_eq!(reread.interface().unwrap(), every_role(), "{text}");
    }
}

#[test]
fn a_module_without_roles_is_inputs_and_outputs() {
    let program = Program::from_module(parse_module(STEP).unwrap()).unwrap();
    let all_inputs = Interface {
        arguments: (0..4)
            .map(|index| ArgumentRole::Input {
                index,
                name: format!("arg{index}"),
            })
            .collect(),
        results: (0..3).map(|index| ResultRole::Output { index }).collect(),
        aliases: Vec::new(),
    };
    assert_eq!(program.interface().unwrap(), all_inputs);
}

#[test]
fn mutations_name_the_argument_they_update() {
    let interface = every_role();
    assert_eq!(interface.updated_argument(1), Some(2));
    assert_eq!(interface.updated_argument(0), None);
    assert_eq!(interface.alias_of_result(1), Some(2));
    assert_eq!(interface.alias_of_argument(2), Some(1));
}

#[test]
fn interfaces_that_do_not_fit_are_refused() {
    let module = || parse_module(STEP).unwrap();
    let mut short = every_role();
    short.arguments.pop();
    assert!(Program::new(module(), &short).is_err());
    let mut retyped = every_role();
    retyped.aliases = vec![(0, 1)];
    let error = Program::new(module(), &retyped).unwrap_err();
    assert!(error.message.contains("another type"), "{error}");
    let mut twice = every_role();
    twice.aliases = vec![(2, 1), (3, 1)];
    assert!(Program::new(module(), &twice).is_err());
    let mut unknown = parse_module(STEP).unwrap();
    unknown.functions[0].arg_attrs[0].set(attrs::ROLE, crate::Attribute::String("weight".into()));
    let error = Program::from_module(unknown).unwrap_err();
    assert!(error.message.contains("argument roles are"), "{error}");
}
