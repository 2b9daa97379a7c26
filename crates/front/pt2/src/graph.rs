//! Queries over graphs and signatures.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use crate::schema::{
    Argument, BufferMutationSpec, Graph, GraphArgument, GraphSignature, InputSpec,
    InputToBufferSpec, InputToParameterSpec, InputToTensorConstantSpec, Node, OutputSpec,
    TensorMeta, UserInputMutationSpec,
};

impl Graph {
    /// Every node of this graph and, recursively, of its subgraphs, with the subgraph depth
    /// (0 for this graph's own nodes).
    pub fn walk(&self) -> Vec<(usize, &Node)> {
        let mut out = Vec::new();
        walk_into(self, 0, &mut out);
        out
    }

    /// A name that two nodes of this graph, or of one of its subgraphs, share: an FX node name,
    /// or a value that two nodes (or a node and a graph input) define. `None` if every name is
    /// unique, as in every graph torch writes.
    pub fn duplicate_name(&self) -> Option<&str> {
        let mut nodes = HashSet::new();
        let mut values = HashSet::new();
        let defined = self
            .inputs
            .iter()
            .chain(self.nodes.iter().flat_map(|n| &n.outputs));
        for name in defined.flat_map(defined_names) {
            if !values.insert(name) {
                return Some(name);
            }
        }
        for node in &self.nodes {
            if let Some(name) = node.name.as_deref()
                && !nodes.insert(name)
            {
                return Some(name);
            }
            if let Some(name) = node
                .subgraphs()
                .iter()
                .find_map(|sub| sub.graph.duplicate_name())
            {
                return Some(name);
            }
        }
        None
    }

    /// Number of nodes per target: this graph's own, and those of all subgraphs (recursively).
    pub fn op_histograms(&self) -> (BTreeMap<&str, usize>, BTreeMap<&str, usize>) {
        let mut top = BTreeMap::new();
        let mut sub = BTreeMap::new();
        for (depth, node) in self.walk() {
            let into = if depth == 0 { &mut top } else { &mut sub };
            *into.entry(node.target.as_str()).or_insert(0) += 1;
        }
        (top, sub)
    }
}

/// The value names an input or output argument defines.
fn defined_names(argument: &Argument) -> Vec<&str> {
    match argument {
        Argument::AsTensors(tensors) => tensors.iter().map(|t| t.name.as_str()).collect(),
        other => other.value_name().into_iter().collect(),
    }
}

fn walk_into<'a>(graph: &'a Graph, depth: usize, out: &mut Vec<(usize, &'a Node)>) {
    for node in &graph.nodes {
        out.push((depth, node));
        for sub in node.subgraphs() {
            walk_into(&sub.graph, depth + 1, out);
        }
    }
}

impl Node {
    /// The subgraphs passed to this node (higher-order ops), wherever they sit in its inputs.
    pub fn subgraphs(&self) -> Vec<&GraphArgument> {
        let mut out = Vec::new();
        for input in &self.inputs {
            collect_subgraphs(&input.arg, &mut out);
        }
        out
    }

    /// The input with the given schema argument name.
    pub fn input(&self, name: &str) -> Option<&Argument> {
        self.inputs.iter().find(|a| a.name == name).map(|a| &a.arg)
    }
}

fn collect_subgraphs<'a>(arg: &'a Argument, out: &mut Vec<&'a GraphArgument>) {
    match arg {
        Argument::AsGraph(graph) => out.push(graph),
        Argument::AsStringToArgument(map) => {
            for inner in map.values() {
                collect_subgraphs(inner, out);
            }
        }
        _ => {}
    }
}

impl GraphSignature {
    /// User inputs, in order.
    pub fn user_inputs(&self) -> impl Iterator<Item = &Argument> {
        self.input_specs.iter().filter_map(|spec| match spec {
            InputSpec::UserInput(input) => Some(&input.arg),
            _ => None,
        })
    }

    /// Parameter inputs, in order.
    pub fn parameters(&self) -> impl Iterator<Item = &InputToParameterSpec> {
        self.input_specs.iter().filter_map(|spec| match spec {
            InputSpec::Parameter(p) => Some(p),
            _ => None,
        })
    }

    /// Buffer inputs (persistent or not), in order.
    pub fn buffers(&self) -> impl Iterator<Item = &InputToBufferSpec> {
        self.input_specs.iter().filter_map(|spec| match spec {
            InputSpec::Buffer(b) => Some(b),
            _ => None,
        })
    }

    /// Lifted tensor-constant inputs, in order.
    pub fn tensor_constants(&self) -> impl Iterator<Item = &InputToTensorConstantSpec> {
        self.input_specs.iter().filter_map(|spec| match spec {
            InputSpec::TensorConstant(c) => Some(c),
            _ => None,
        })
    }

    /// User outputs, in order.
    pub fn user_outputs(&self) -> impl Iterator<Item = &Argument> {
        self.output_specs.iter().filter_map(|spec| match spec {
            OutputSpec::UserOutput(output) => Some(&output.arg),
            _ => None,
        })
    }

    /// Buffers the program writes back (mutations come before user outputs).
    pub fn buffer_mutations(&self) -> impl Iterator<Item = &BufferMutationSpec> {
        self.output_specs.iter().filter_map(|spec| match spec {
            OutputSpec::BufferMutation(m) => Some(m),
            _ => None,
        })
    }

    /// User inputs the program writes back.
    pub fn user_input_mutations(&self) -> impl Iterator<Item = &UserInputMutationSpec> {
        self.output_specs.iter().filter_map(|spec| match spec {
            OutputSpec::UserInputMutation(m) => Some(m),
            _ => None,
        })
    }
}

/// A user input or output of the program with its tensor metadata.
#[derive(Clone, Debug, Serialize)]
pub struct IoValue<'a> {
    /// The graph value name (`x`), or `None` for a literal output.
    pub name: Option<&'a str>,
    /// The signature argument.
    pub argument: &'a Argument,
    /// For tensors: dtype, shape (maybe symbolic), strides.
    pub meta: Option<&'a TensorMeta>,
}

impl<'a> IoValue<'a> {
    pub(crate) fn new(graph: &'a Graph, argument: &'a Argument) -> IoValue<'a> {
        let name = argument.value_name();
        IoValue {
            name,
            argument,
            meta: argument
                .as_tensor_name()
                .and_then(|n| graph.tensor_values.get(n)),
        }
    }
}
