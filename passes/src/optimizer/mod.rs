//! The optimizer pass: turns a program that returns its loss and gradients into one training
//! step, (parameters, optimizer state, buffers, batch) -> (loss, new parameters, new state,
//! new buffers), where every updated tensor is donated into its argument's buffer, so XLA
//! updates parameters and state in place.

mod spec;
mod update;

pub use spec::{OptimizerSpec, Rule};

use tpuc_ir::{
    ArgumentRole, ElementType, InsertPoint, Location, OpBuilder, Program, ResultRole, TensorType,
    Value,
};

use crate::autodiff::{returned, set_returned};
use crate::error::PassError;
use crate::pass::{Pass, PassContext};

/// The fully qualified name of the step count, which all parameters share.
pub const STEP_FQN: &str = "";
/// The step count's slot.
pub const STEP_SLOT: &str = "step";

/// Differentiation (unless the program has its gradients, as a joint graph does), then the
/// update: the `train(SPEC)` stage of a pipeline.
pub(crate) struct Train {
    pub spec: OptimizerSpec,
}

impl Pass for Train {
    fn name(&self) -> &'static str {
        "train"
    }

    fn run(&self, program: &mut Program, cx: &mut PassContext) -> Result<(), PassError> {
        crate::autodiff::Differentiate.run(program, cx)?;
        Optimize {
            spec: self.spec.clone(),
        }
        .run(program, cx)
    }
}

struct Optimize {
    spec: OptimizerSpec,
}

const NAME: &str = "optimizer";

fn refused(message: String, help: &str) -> PassError {
    PassError::Refused {
        pass: NAME,
        message,
        help: help.to_owned(),
    }
}

impl Pass for Optimize {
    fn name(&self) -> &'static str {
        NAME
    }

    fn run(&self, program: &mut Program, _: &mut PassContext) -> Result<(), PassError> {
        let mut interface = program.interface()?;
        if !interface.results.contains(&ResultRole::Loss) {
            return Err(refused(
                "the program has no loss".into(),
                "the optimizer follows `autodiff`, which finds the loss",
            ));
        }
        // (result, argument, FQN) of each parameter's gradient; a joint graph's gradients of
        // user inputs are dropped.
        let parameter = |fqn: &str| {
            interface.arguments.iter().position(
                |role| matches!(role, ArgumentRole::Parameter { fqn: name } if name == fqn),
            )
        };
        let gradients: Vec<(usize, usize, String)> = interface
            .results
            .iter()
            .enumerate()
            .filter_map(|(result, role)| match role {
                ResultRole::Gradient { fqn } => Some((result, parameter(fqn)?, fqn.clone())),
                _ => None,
            })
            .collect();
        if gradients.is_empty() {
            return Err(refused(
                "no parameter's gradient reaches the loss".into(),
                "the loss must depend on at least one parameter",
            ));
        }
        let main = program.main_mut()?;
        let mut values = returned(main);
        let args = main.args().to_vec();
        let parameters: Vec<(String, Value, Value)> = gradients
            .into_iter()
            .map(|(result, argument, fqn)| (fqn, args[argument], values[result]))
            .collect();

        let step_before = main.push_arg(TensorType::scalar(ElementType::F32).into());
        interface.arguments.push(ArgumentRole::OptimizerState {
            fqn: STEP_FQN.to_owned(),
            slot: STEP_SLOT.to_owned(),
        });
        let mut state_args: Vec<Vec<Value>> = Vec::new();
        for (fqn, parameter, _) in &parameters {
            let ty = main.value_type(*parameter).clone();
            let mut slots = Vec::new();
            for slot in self.spec.slots() {
                slots.push(main.push_arg(ty.clone()));
                interface.arguments.push(ArgumentRole::OptimizerState {
                    fqn: fqn.clone(),
                    slot: (*slot).to_owned(),
                });
            }
            state_args.push(slots);
        }

        let ret = *main
            .block(main.entry_block())
            .ops
            .last()
            .expect("a verified function ends with its return");
        let mut b = OpBuilder::at(main, InsertPoint::Before(ret), Location::name("optimizer"));
        let ir = |error: tpuc_ir::IrError| {
            refused(error.to_string(), "this is a bug in tpuc's optimizer pass")
        };
        let one = b.splat(ElementType::F32, [], 1.0).map_err(ir)?;
        let step = update::StepCount {
            before: step_before,
            after: b.add(step_before, one).map_err(ir)?,
        };
        // A gradient in another float type (a joint graph under `--precision`) is converted to
        // its parameter's, as PyTorch accumulates `.grad` in the parameter's dtype.
        let mut gradient_values = Vec::with_capacity(parameters.len());
        for (_, parameter, gradient) in &parameters {
            let element = b.tensor_type(*parameter).map_err(ir)?.element;
            let gradient = if b.tensor_type(*gradient).map_err(ir)?.element == element {
                *gradient
            } else {
                b.convert(*gradient, element).map_err(ir)?
            };
            gradient_values.push(gradient);
        }
        if let Some(max_norm) = self.spec.clip {
            update::clip(&mut b, &mut gradient_values, max_norm).map_err(ir)?;
        }
        let mut new_values = Vec::new();
        let mut new_roles = Vec::new();
        let mut new_state = Vec::new();
        for (((fqn, parameter, _), gradient), state) in
            parameters.iter().zip(gradient_values).zip(&state_args)
        {
            let inputs = update::Inputs {
                parameter: *parameter,
                gradient,
                state,
                step: &step,
            };
            let (updated, slots) = update::update(&mut b, &self.spec, inputs).map_err(ir)?;
            new_values.push(updated);
            new_roles.push(ResultRole::ParameterUpdate { fqn: fqn.clone() });
            for (slot, value) in self.spec.slots().iter().zip(slots) {
                new_state.push((
                    ResultRole::OptimizerState {
                        fqn: fqn.clone(),
                        slot: (*slot).to_owned(),
                    },
                    value,
                ));
            }
        }
        new_values.push(step.after);
        new_roles.push(ResultRole::OptimizerState {
            fqn: STEP_FQN.to_owned(),
            slot: STEP_SLOT.to_owned(),
        });
        for (role, value) in new_state {
            new_roles.push(role);
            new_values.push(value);
        }

        // The gradients are consumed; the new parameters and state follow the other results.
        let mut results = Vec::new();
        let mut kept = Vec::new();
        for (role, value) in interface.results.iter().zip(values.drain(..)) {
            if !matches!(role, ResultRole::Gradient { .. }) {
                results.push(role.clone());
                kept.push(value);
            }
        }
        results.extend(new_roles);
        kept.extend(new_values);
        set_returned(main, kept);
        interface.results = results;
        interface.aliases = interface.state_donations(program.main()?);
        program.set_interface(&interface)?;
        Ok(())
    }
}
