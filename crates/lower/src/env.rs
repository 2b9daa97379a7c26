//! Values of a graph being lowered, by FX name. Each graph (the program, a subgraph) has its own.

use std::collections::HashMap;

use tpuc_ir::Value;

/// What an FX name stands for.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Val {
    Tensor(Value),
    Tensors(Vec<Value>),
    /// A SymInt, evaluated at lowering time (shapes are specialised).
    Int(i64),
    Float(f64),
    Bool(bool),
    /// No value: `None`, or an output nobody uses.
    None,
}

impl Val {
    pub fn tensor(&self) -> Option<Value> {
        match self {
            Val::Tensor(v) => Some(*v),
            _ => None,
        }
    }
}

#[derive(Default)]
pub(crate) struct Env {
    values: HashMap<String, Val>,
}

impl Env {
    pub fn get(&self, name: &str) -> Option<&Val> {
        self.values.get(name)
    }

    pub fn bind(&mut self, name: impl Into<String>, value: Val) {
        self.values.insert(name.into(), value);
    }
}
