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
    /// Results of in-place ops, by the name of the tensor they alias (`add_ = total.add_(1)`):
    /// writing through the alias writes the original.
    aliases: HashMap<String, String>,
}

impl Env {
    pub fn get(&self, name: &str) -> Option<&Val> {
        self.values.get(name)
    }

    pub fn bind(&mut self, name: impl Into<String>, value: Val) {
        self.values.insert(name.into(), value);
    }

    /// The tensor `name` aliases (itself when it is no in-place op's result).
    pub fn root<'a>(&'a self, name: &'a str) -> &'a str {
        self.aliases.get(name).map_or(name, String::as_str)
    }

    /// Records that `name` aliases `root`.
    pub fn alias(&mut self, name: &str, root: &str) {
        if name != root {
            self.aliases.insert(name.to_owned(), root.to_owned());
        }
    }
}
