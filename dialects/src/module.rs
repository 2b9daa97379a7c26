//! The top-level `module`: functions, module attributes and Shardy meshes.

use crate::attr::{Mesh, NamedAttrs};
use crate::error::{IrError, Result};
use crate::function::Function;
use crate::location::Location;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Module {
    /// `module @name`
    pub name: Option<String>,
    /// `mhlo.num_partitions = N : i32`
    pub num_partitions: Option<u32>,
    /// `mhlo.num_replicas = N : i32`
    pub num_replicas: Option<u32>,
    /// Other module attributes, printed after the two above in this order.
    pub attrs: NamedAttrs,
    /// `sdy.mesh` declarations, printed before the functions.
    pub meshes: Vec<Mesh>,
    /// Functions in print order.
    pub functions: Vec<Function>,
    pub location: Location,
}

impl Module {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a function; its name must be new.
    pub fn add_function(&mut self, function: Function) -> Result<()> {
        if self.function(&function.name).is_some() {
            return Err(IrError::InvalidModule {
                message: format!("the module already has a function `@{}`", function.name),
            });
        }
        self.functions.push(function);
        Ok(())
    }

    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }

    pub fn function_mut(&mut self, name: &str) -> Option<&mut Function> {
        self.functions.iter_mut().find(|f| f.name == name)
    }

    pub fn mesh(&self, name: &str) -> Option<&Mesh> {
        self.meshes.iter().find(|m| m.name == name)
    }
}
