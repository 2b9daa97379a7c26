//! The [`Pass`] trait and what passes report besides the program they change.

use std::collections::BTreeMap;

use tpuc_ir::Program;

use crate::error::PassError;
use crate::sharding::Assignment;

/// One transformation of a program. A pass keeps the module verified, its interface intact
/// and its numerics; one that cannot do its job returns a diagnostic.
pub trait Pass {
    /// The name used in pipelines (`--passes NAME,...`) and reports.
    fn name(&self) -> &'static str;

    fn run(&self, program: &mut Program, cx: &mut PassContext) -> Result<(), PassError>;
}

/// What passes tell the caller besides the program.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PassContext {
    /// How many composites each kernel replaced.
    pub kernels: BTreeMap<String, usize>,
    /// What the sharding plan decided.
    pub sharding: Option<Assignment>,
}
