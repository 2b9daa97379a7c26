//! Removes the weights `main` never reads (a BatchNorm's `num_batches_tracked`, an unused
//! buffer). Their attributes go with them, so the interface stays right and runtimes stop
//! passing them. User inputs are the caller's interface and stay; so do arguments donated to
//! a result.

use tpuc_ir::Program;

use crate::error::PassError;
use crate::pass::{Pass, PassContext};

pub(crate) struct PruneArgs;

impl Pass for PruneArgs {
    fn name(&self) -> &'static str {
        "prune-args"
    }

    fn run(&self, program: &mut Program, _: &mut PassContext) -> Result<(), PassError> {
        let interface = program.interface()?;
        let main = program.main_mut()?;
        let unused: Vec<usize> = main
            .args()
            .iter()
            .enumerate()
            .filter(|&(index, &arg)| {
                interface.arguments[index].is_weight()
                    && interface.alias_of_argument(index).is_none()
                    && !main.has_uses(arg)
            })
            .map(|(index, _)| index)
            .collect();
        main.remove_args(&unused);
        Ok(())
    }
}
