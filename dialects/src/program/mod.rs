//! A [`Program`]: a module whose public `main` says what each of its arguments and results is
//! (its [`Interface`]), in attributes on `main` ([`attrs`] documents them). The interface
//! travels with the module through passes and through text: `tpuc lower` prints it, `tpuc
//! compile m.mlir` reads it back, and a module without the attributes (JAX's, torch_xla's)
//! reads as one whose every argument is an input and every result an output.

pub mod attrs;
mod roles;

use crate::function::Function;
use crate::module::Module;

pub use roles::{ArgumentRole, CheckKind, ResultRole};

/// What every argument and result of `main` is, and which results are donated into which
/// arguments' buffers.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Interface {
    pub arguments: Vec<ArgumentRole>,
    pub results: Vec<ResultRole>,
    /// `(argument, result)` pairs: the result is written into the argument's buffer, which the
    /// caller gives up (donation, `tf.aliasing_output`).
    pub aliases: Vec<(usize, usize)>,
}

/// A module and the interface of its `main`, kept in `main`'s attributes.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub module: Module,
}

/// An interface that does not fit its module, or attributes that do not spell one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
#[error("the interface of `main` is invalid: {message}")]
#[diagnostic(
    code(tpuc_ir::interface),
    help(
        "`main`'s arguments and results carry `tpuc.role` attributes (docs/architecture.md, \
         \"The program interface\"); remove them all to treat every argument as an input"
    )
)]
pub struct InterfaceError {
    pub message: String,
}

pub(crate) fn interface_error(message: impl Into<String>) -> InterfaceError {
    InterfaceError {
        message: message.into(),
    }
}

/// The public function every program runs.
pub const ENTRY: &str = "main";

impl Program {
    /// Writes `interface` into `module`'s `main` (replacing what its attributes said) and
    /// checks that it fits.
    pub fn new(mut module: Module, interface: &Interface) -> Result<Self, InterfaceError> {
        let main = entry_mut(&mut module)?;
        attrs::write(main, interface)?;
        let program = Program { module };
        program.interface()?;
        Ok(program)
    }

    /// A module read from text or built elsewhere: its interface is what `main`'s attributes say.
    pub fn from_module(module: Module) -> Result<Self, InterfaceError> {
        let program = Program { module };
        program.interface()?;
        Ok(program)
    }

    /// The interface `main`'s attributes spell, checked against `main`'s signature.
    pub fn interface(&self) -> Result<Interface, InterfaceError> {
        let main = self.main()?;
        let interface = attrs::read(main)?;
        check(main, &interface)?;
        Ok(interface)
    }

    /// Rewrites the interface after a pass changed `main`'s signature, and checks that it fits.
    pub fn set_interface(&mut self, interface: &Interface) -> Result<(), InterfaceError> {
        attrs::write(entry_mut(&mut self.module)?, interface)?;
        self.interface().map(|_| ())
    }

    pub fn main(&self) -> Result<&Function, InterfaceError> {
        self.module
            .function(ENTRY)
            .ok_or_else(|| interface_error("the module has no `main` function"))
    }

    pub fn main_mut(&mut self) -> Result<&mut Function, InterfaceError> {
        entry_mut(&mut self.module)
    }
}

fn entry_mut(module: &mut Module) -> Result<&mut Function, InterfaceError> {
    module
        .function_mut(ENTRY)
        .ok_or_else(|| interface_error("the module has no `main` function"))
}

impl Interface {
    /// The argument a state result updates: the buffer (or user input, parameter, optimizer
    /// state) of the same name.
    pub fn updated_argument(&self, result: usize) -> Option<usize> {
        let role = self.results.get(result)?;
        self.arguments
            .iter()
            .position(|argument| match (role, argument) {
                (ResultRole::BufferMutation { fqn }, ArgumentRole::Buffer { fqn: name, .. })
                | (ResultRole::ParameterUpdate { fqn }, ArgumentRole::Parameter { fqn: name })
                | (ResultRole::InputMutation { name: fqn }, ArgumentRole::Input { name, .. }) => {
                    fqn == name
                }
                (
                    ResultRole::OptimizerState { fqn, slot },
                    ArgumentRole::OptimizerState {
                        fqn: name,
                        slot: argument_slot,
                    },
                ) => fqn == name && slot == argument_slot,
                _ => false,
            })
    }

    /// The donations of a program's state: each new buffer, parameter, optimizer state and user
    /// input written into its own argument's buffer (when the types agree), so the state exists
    /// once in device memory (a decode step's cache passed as inputs is updated in place).
    /// Donation lets the executable reuse the buffer; a caller that keeps its array passes a
    /// copy (PJRT copies an argument the caller does not donate).
    pub fn state_donations(&self, main: &Function) -> Vec<(usize, usize)> {
        let arg_types = main.arg_types();
        (0..self.results.len())
            .filter(|&result| {
                matches!(
                    self.results[result],
                    ResultRole::BufferMutation { .. }
                        | ResultRole::InputMutation { .. }
                        | ResultRole::ParameterUpdate { .. }
                        | ResultRole::OptimizerState { .. }
                )
            })
            .filter_map(|result| {
                let argument = self.updated_argument(result)?;
                (arg_types.get(argument)? == main.result_types.get(result)?)
                    .then_some((argument, result))
            })
            .collect()
    }

    /// The argument `result` is donated into, if any.
    pub fn alias_of_result(&self, result: usize) -> Option<usize> {
        self.aliases
            .iter()
            .find(|&&(_, r)| r == result)
            .map(|&(argument, _)| argument)
    }

    /// The result donated into `argument`'s buffer, if any.
    pub fn alias_of_argument(&self, argument: usize) -> Option<usize> {
        self.aliases
            .iter()
            .find(|&&(a, _)| a == argument)
            .map(|&(_, result)| result)
    }
}

/// Counts, aliases and names fit `main`.
fn check(main: &Function, interface: &Interface) -> Result<(), InterfaceError> {
    let arg_types = main.arg_types();
    if interface.arguments.len() != arg_types.len()
        || interface.results.len() != main.result_types.len()
    {
        return Err(interface_error(format!(
            "it describes {} arguments and {} results, `main` has {} and {}",
            interface.arguments.len(),
            interface.results.len(),
            arg_types.len(),
            main.result_types.len()
        )));
    }
    let mut inputs: Vec<usize> = interface
        .arguments
        .iter()
        .filter_map(|role| match role {
            ArgumentRole::Input { index, .. } => Some(*index),
            _ => None,
        })
        .collect();
    let count = inputs.len();
    inputs.sort_unstable();
    inputs.dedup();
    if inputs.len() != count {
        return Err(interface_error("two arguments are the same user input"));
    }
    for &(argument, result) in &interface.aliases {
        let (Some(arg_type), Some(result_type)) =
            (arg_types.get(argument), main.result_types.get(result))
        else {
            return Err(interface_error(format!(
                "argument {argument} is donated to result {result}, which does not exist"
            )));
        };
        if arg_type != result_type {
            return Err(interface_error(format!(
                "argument {argument} ({arg_type}) is donated to result {result} of another type \
                 ({result_type})"
            )));
        }
        if interface
            .aliases
            .iter()
            .filter(|&&(_, r)| r == result)
            .count()
            > 1
        {
            return Err(interface_error(format!(
                "result {result} is donated to more than one argument"
            )));
        }
    }
    for (result, role) in interface.results.iter().enumerate() {
        let is_mutation = matches!(
            role,
            ResultRole::BufferMutation { .. }
                | ResultRole::InputMutation { .. }
                | ResultRole::ParameterUpdate { .. }
                | ResultRole::OptimizerState { .. }
        );
        if let Some(argument) = interface.alias_of_result(result)
            && is_mutation
            && interface.updated_argument(result) != Some(argument)
        {
            return Err(interface_error(format!(
                "result {result} updates one argument but is donated to argument {argument}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
