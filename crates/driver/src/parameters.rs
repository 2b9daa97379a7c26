//! `--parameters`: which arguments of a role-less module (JAX's, torch_xla's) are trained
//! parameters. The others stay user inputs, numbered in order.

use tpuc_ir::{ArgumentRole, Attribute, Program};

use crate::error::{DriverError, Result};

/// The name of argument `index` of `main`: its `jax.arg_info`, else `argN`.
fn argument_name(program: &Program, index: usize) -> String {
    program
        .main()
        .ok()
        .and_then(|main| main.arg_attrs.get(index))
        .and_then(|attrs| match attrs.get("jax.arg_info") {
            Some(Attribute::String(name)) => Some(name.clone()),
            _ => None,
        })
        .unwrap_or_else(|| format!("arg{index}"))
}

/// Makes the arguments `names` (each a `jax.arg_info` name, `argN` or a position) parameters.
pub(crate) fn mark(program: &mut Program, names: &[String]) -> Result<()> {
    let mut interface = program.interface()?;
    if interface
        .arguments
        .iter()
        .any(|role| !matches!(role, ArgumentRole::Input { .. }))
    {
        return Err(DriverError::Unsupported(
            "--parameters names the trained arguments of a module without roles; this one \
             already says which arguments are parameters (`tpuc.role`)"
                .into(),
        ));
    }
    let count = interface.arguments.len();
    let known: Vec<String> = (0..count).map(|i| argument_name(program, i)).collect();
    let mut chosen = vec![false; count];
    for name in names {
        let position = known
            .iter()
            .position(|known| known == name)
            .or_else(|| {
                name.strip_prefix("arg")
                    .unwrap_or(name)
                    .parse::<usize>()
                    .ok()
                    .filter(|&i| i < count)
            })
            .ok_or_else(|| {
                DriverError::Unsupported(format!(
                    "--parameters: `main` has no argument `{name}`; its arguments: {}",
                    known.join(", ")
                ))
            })?;
        chosen[position] = true;
    }
    let mut next_input = 0;
    for (index, role) in interface.arguments.iter_mut().enumerate() {
        *role = if chosen[index] {
            ArgumentRole::Parameter {
                fqn: known[index].clone(),
            }
        } else {
            next_input += 1;
            ArgumentRole::Input {
                index: next_input - 1,
                name: known[index].clone(),
            }
        };
    }
    program.set_interface(&interface)?;
    Ok(())
}
