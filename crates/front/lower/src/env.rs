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
    /// A Python complex number: its real and imaginary parts.
    Complex(f64, f64),
    /// No value: `None`, or an output nobody uses.
    None,
    /// A weight stored as a tensor subclass (torchao's quantized tensors): its class, and its
    /// inner tensors by attribute, which `export.access_subclass_inner_tensor` takes out.
    Subclass {
        class: String,
        inner: Vec<(String, Value)>,
    },
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
    /// Results of view ops (`select`, `slice`, `view`, ...), by name: the node that made them,
    /// whose first argument is the viewed tensor. Writing a view writes its base.
    views: HashMap<String, tpuc_pt2::schema::Node>,
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

    /// The view op that made `name`, if one did.
    pub fn view_of(&self, name: &str) -> Option<&tpuc_pt2::schema::Node> {
        self.views.get(name)
    }

    /// Records that view op `node` made `name`.
    pub fn view(&mut self, name: &str, node: &tpuc_pt2::schema::Node) {
        self.views.insert(name.to_owned(), node.clone());
    }

    /// Records that `name` aliases `root`.
    pub fn alias(&mut self, name: &str, root: &str) {
        if name != root {
            self.aliases.insert(name.to_owned(), root.to_owned());
        }
    }
}
