//! The interface as attributes of `main`'s arguments and results.
//!
//! | attribute | on | value |
//! |---|---|---|
//! | `tpuc.role` | argument | `"input"`, `"parameter"`, `"buffer"`, `"constant"`, `"optimizer_state"` |
//! | `tpuc.role` | result | `"output"`, `"buffer_mutation"`, `"input_mutation"`, `"loss"`, `"gradient"`, `"parameter_update"`, `"optimizer_state"`, `"index_check"`, `"nan_check"` |
//! | `jax.arg_info` | argument | the input's name or the weight's FQN (as JAX names arguments) |
//! | `jax.result_info` | result | the FQN or name a state result updates; a check's FX node |
//! | `tpuc.input` | argument | an input's position among the program's inputs (`: i64`) |
//! | `tpuc.output` | result | an output's position among the program's outputs (`: i64`) |
//! | `tpuc.persistent` | argument | `false` for a buffer `state_dict` leaves out |
//! | `tpuc.slot` | both | an optimizer state's slot (`"momentum"`, ...) |
//! | `tpuc.check` | result | `{target = "aten...", source = "file:line: code", low = .., high = ..}` (index) or `{.., output = .., shape = array<i64: ..>}` (NaN) |
//! | `tf.aliasing_output` | argument | the result donated into this argument's buffer (`: i32`), XLA's own attribute |
//!
//! An argument without `tpuc.role` is the input at its position, named `arg<position>`; a result
//! without one is the output at its position. So a module that never heard of tpuc (JAX,
//! torch_xla) reads as all inputs and outputs, donations included.

use crate::attr::{Attribute, NamedAttrs};
use crate::function::Function;
use crate::types::ElementType;

use super::roles::{ArgumentRole, CheckKind, ResultRole};
use super::{Interface, InterfaceError, interface_error};

pub const ROLE: &str = "tpuc.role";
pub const ARG_NAME: &str = "jax.arg_info";
pub const RESULT_NAME: &str = "jax.result_info";
pub const INPUT_INDEX: &str = "tpuc.input";
pub const OUTPUT_INDEX: &str = "tpuc.output";
pub const PERSISTENT: &str = "tpuc.persistent";
pub const SLOT: &str = "tpuc.slot";
pub const CHECK: &str = "tpuc.check";
pub const ALIASING_OUTPUT: &str = "tf.aliasing_output";

/// Every attribute this module writes; [`write`] replaces them all.
const OWNED: [&str; 9] = [
    ROLE,
    ARG_NAME,
    RESULT_NAME,
    INPUT_INDEX,
    OUTPUT_INDEX,
    PERSISTENT,
    SLOT,
    CHECK,
    ALIASING_OUTPUT,
];

pub(crate) fn read(main: &Function) -> Result<Interface, InterfaceError> {
    let arguments = main
        .arg_attrs
        .iter()
        .enumerate()
        .map(|(position, attrs)| argument(position, attrs))
        .collect::<Result<_, _>>()?;
    let results = main
        .result_attrs
        .iter()
        .enumerate()
        .map(|(position, attrs)| result(position, attrs))
        .collect::<Result<_, _>>()?;
    let mut aliases = Vec::new();
    for (argument, attrs) in main.arg_attrs.iter().enumerate() {
        if let Some(value) = attrs.get(ALIASING_OUTPUT) {
            let result = index(value, ALIASING_OUTPUT, "argument", argument)?;
            aliases.push((argument, result));
        }
    }
    Ok(Interface {
        arguments,
        results,
        aliases,
    })
}

pub(crate) fn write(main: &mut Function, interface: &Interface) -> Result<(), InterfaceError> {
    if interface.arguments.len() != main.arg_attrs.len()
        || interface.results.len() != main.result_attrs.len()
    {
        return Err(interface_error(format!(
            "it describes {} arguments and {} results, `main` has {} and {}",
            interface.arguments.len(),
            interface.results.len(),
            main.arg_attrs.len(),
            main.result_attrs.len()
        )));
    }
    for (attrs, role) in main.arg_attrs.iter_mut().zip(&interface.arguments) {
        clear(attrs);
        write_argument(attrs, role);
    }
    for (attrs, role) in main.result_attrs.iter_mut().zip(&interface.results) {
        clear(attrs);
        write_result(attrs, role);
    }
    for &(argument, result) in &interface.aliases {
        let attrs = main
            .arg_attrs
            .get_mut(argument)
            .ok_or_else(|| interface_error(format!("argument {argument} does not exist")))?;
        attrs.set(ALIASING_OUTPUT, int(result, ElementType::I32));
    }
    Ok(())
}

fn clear(attrs: &mut NamedAttrs) {
    for name in OWNED {
        attrs.remove(name);
    }
}

fn int(value: usize, ty: ElementType) -> Attribute {
    Attribute::Int {
        value: value as i64,
        ty,
    }
}

fn string(text: &str) -> Attribute {
    Attribute::String(text.to_owned())
}

fn write_argument(attrs: &mut NamedAttrs, role: &ArgumentRole) {
    attrs.set(ROLE, string(role.kind()));
    attrs.set(ARG_NAME, string(role.name()));
    match role {
        ArgumentRole::Input { index, .. } => attrs.set(INPUT_INDEX, int(*index, ElementType::I64)),
        ArgumentRole::Buffer {
            persistent: false, ..
        } => attrs.set(PERSISTENT, Attribute::Bool(false)),
        ArgumentRole::OptimizerState { slot, .. } => attrs.set(SLOT, string(slot)),
        _ => {}
    }
}

fn write_result(attrs: &mut NamedAttrs, role: &ResultRole) {
    attrs.set(ROLE, string(role.kind()));
    if let Some(name) = role.name() {
        attrs.set(RESULT_NAME, string(name));
    }
    match role {
        ResultRole::Output { index } => attrs.set(OUTPUT_INDEX, int(*index, ElementType::I64)),
        ResultRole::OptimizerState { slot, .. } => attrs.set(SLOT, string(slot)),
        ResultRole::Check {
            kind,
            target,
            source_line,
            ..
        } => {
            let mut check = NamedAttrs::new().with("target", string(target));
            if let Some(source) = source_line {
                check.set("source", string(source));
            }
            match kind {
                CheckKind::Index { low, high } => {
                    check.set(
                        "low",
                        Attribute::Int {
                            value: *low,
                            ty: ElementType::I64,
                        },
                    );
                    check.set(
                        "high",
                        Attribute::Int {
                            value: *high,
                            ty: ElementType::I64,
                        },
                    );
                }
                CheckKind::NonFinite { output, shape } => {
                    check.set("output", int(*output, ElementType::I64));
                    check.set("shape", Attribute::I64Array(shape.clone()));
                }
            }
            attrs.set(CHECK, Attribute::Dict(check));
        }
        _ => {}
    }
}

fn argument(position: usize, attrs: &NamedAttrs) -> Result<ArgumentRole, InterfaceError> {
    let what = "argument";
    let Some(role) = attrs.get(ROLE) else {
        return Ok(ArgumentRole::Input {
            index: position,
            name: format!("arg{position}"),
        });
    };
    let name = || text(attrs, ARG_NAME, what, position);
    Ok(match text_of(role, ROLE, what, position)? {
        "input" => ArgumentRole::Input {
            index: match attrs.get(INPUT_INDEX) {
                Some(value) => index(value, INPUT_INDEX, what, position)?,
                None => position,
            },
            name: name()?,
        },
        "parameter" => ArgumentRole::Parameter { fqn: name()? },
        "buffer" => ArgumentRole::Buffer {
            fqn: name()?,
            persistent: !matches!(attrs.get(PERSISTENT), Some(Attribute::Bool(false))),
        },
        "constant" => ArgumentRole::Constant { fqn: name()? },
        "optimizer_state" => ArgumentRole::OptimizerState {
            fqn: name()?,
            slot: text(attrs, SLOT, what, position)?,
        },
        other => {
            return Err(interface_error(format!(
                "argument {position} has role `{other}`; argument roles are input, parameter, \
                 buffer, constant and optimizer_state"
            )));
        }
    })
}

fn result(position: usize, attrs: &NamedAttrs) -> Result<ResultRole, InterfaceError> {
    let what = "result";
    let Some(role) = attrs.get(ROLE) else {
        return Ok(ResultRole::Output { index: position });
    };
    let name = || text(attrs, RESULT_NAME, what, position);
    Ok(match text_of(role, ROLE, what, position)? {
        "output" => ResultRole::Output {
            index: match attrs.get(OUTPUT_INDEX) {
                Some(value) => index(value, OUTPUT_INDEX, what, position)?,
                None => position,
            },
        },
        "buffer_mutation" => ResultRole::BufferMutation { fqn: name()? },
        "input_mutation" => ResultRole::InputMutation { name: name()? },
        "loss" => ResultRole::Loss,
        "gradient" => ResultRole::Gradient { fqn: name()? },
        "parameter_update" => ResultRole::ParameterUpdate { fqn: name()? },
        "optimizer_state" => ResultRole::OptimizerState {
            fqn: name()?,
            slot: text(attrs, SLOT, what, position)?,
        },
        check @ ("index_check" | "nan_check") => check_role(check, name()?, attrs, position)?,
        other => {
            return Err(interface_error(format!(
                "result {position} has role `{other}`; result roles are output, \
                 buffer_mutation, input_mutation, loss, gradient, parameter_update, optimizer_state, \
                 index_check \
                 and nan_check"
            )));
        }
    })
}

fn check_role(
    role: &str,
    node: String,
    attrs: &NamedAttrs,
    position: usize,
) -> Result<ResultRole, InterfaceError> {
    let Some(Attribute::Dict(check)) = attrs.get(CHECK) else {
        return Err(interface_error(format!(
            "result {position} is a `{role}` without a `{CHECK}` dictionary"
        )));
    };
    let what = "result";
    let number = |field: &str| -> Result<i64, InterfaceError> {
        match check.get(field) {
            Some(Attribute::Int { value, .. }) => Ok(*value),
            _ => Err(interface_error(format!(
                "`{CHECK}` of result {position} needs an integer `{field}`"
            ))),
        }
    };
    let kind = if role == "index_check" {
        CheckKind::Index {
            low: number("low")?,
            high: number("high")?,
        }
    } else {
        CheckKind::NonFinite {
            output: usize::try_from(number("output")?)
                .map_err(|_| interface_error(format!("result {position}: negative `output`")))?,
            shape: match check.get("shape") {
                Some(Attribute::I64Array(shape)) => shape.clone(),
                _ => {
                    return Err(interface_error(format!(
                        "`{CHECK}` of result {position} needs `shape = array<i64: ...>`"
                    )));
                }
            },
        }
    };
    Ok(ResultRole::Check {
        kind,
        node,
        target: text(check, "target", what, position)?,
        source_line: match check.get("source") {
            Some(value) => Some(text_of(value, "source", what, position)?.to_owned()),
            None => None,
        },
    })
}

fn text(
    attrs: &NamedAttrs,
    name: &str,
    what: &str,
    position: usize,
) -> Result<String, InterfaceError> {
    let value = attrs.get(name).ok_or_else(|| {
        interface_error(format!("{what} {position} has a `{ROLE}` but no `{name}`"))
    })?;
    text_of(value, name, what, position).map(str::to_owned)
}

fn text_of<'a>(
    value: &'a Attribute,
    name: &str,
    what: &str,
    position: usize,
) -> Result<&'a str, InterfaceError> {
    match value {
        Attribute::String(text) => Ok(text),
        other => Err(interface_error(format!(
            "`{name}` of {what} {position} is {other:?}, not a string"
        ))),
    }
}

fn index(
    value: &Attribute,
    name: &str,
    what: &str,
    position: usize,
) -> Result<usize, InterfaceError> {
    match value {
        Attribute::Int { value, .. } if *value >= 0 => Ok(*value as usize),
        other => Err(interface_error(format!(
            "`{name}` of {what} {position} is {other:?}, not a non-negative integer"
        ))),
    }
}
