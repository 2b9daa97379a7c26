//! [`crate::LowerOptions::outputs`]: the program cut down to the nodes some of its user
//! outputs need, so one output of a many-output program (an OpInfo sample) lowers alone.

use std::collections::HashSet;

use tpuc_pt2::schema::{
    Argument, Graph, GraphSignature, OptionalTensorArgument, OutputSpec, SymIntArgument,
};

use crate::error::LowerError;

/// The value names an argument refers to.
fn names(arg: &Argument) -> Vec<&str> {
    match arg {
        Argument::AsTensors(list) => list.iter().map(|t| t.name.as_str()).collect(),
        Argument::AsOptionalTensors(list) => list
            .iter()
            .filter_map(|t| match t {
                OptionalTensorArgument::AsTensor(t) => Some(t.name.as_str()),
                _ => None,
            })
            .collect(),
        Argument::AsSymInts(list) => list
            .iter()
            .filter_map(|s| match s {
                SymIntArgument::AsName(n) => Some(n.as_str()),
                _ => None,
            })
            .collect(),
        other => other.value_name().into_iter().collect(),
    }
}

/// `graph` and `signature` with only user outputs `keep` (positions among the user outputs)
/// and the nodes they depend on.
pub(crate) fn keep_outputs(
    graph: &Graph,
    signature: &GraphSignature,
    keep: &[usize],
) -> Result<(Graph, GraphSignature), LowerError> {
    let mut outputs = Vec::new();
    let mut specs = Vec::new();
    let mut user = 0;
    for (spec, output) in signature.output_specs.iter().zip(&graph.outputs) {
        if let OutputSpec::UserOutput(_) = spec {
            if keep.contains(&user) {
                outputs.push(output.clone());
                specs.push(spec.clone());
            }
            user += 1;
        }
    }
    if let Some(&missing) = keep.iter().find(|&&k| k >= user) {
        return Err(LowerError::Program {
            message: format!(
                "the program has {user} user outputs, so there is no output {missing}"
            ),
            help: None,
        });
    }
    let mut needed: HashSet<&str> = outputs.iter().flat_map(names).collect();
    let mut kept = vec![false; graph.nodes.len()];
    for (i, node) in graph.nodes.iter().enumerate().rev() {
        if node
            .outputs
            .iter()
            .flat_map(names)
            .any(|n| needed.contains(n))
        {
            kept[i] = true;
            needed.extend(node.inputs.iter().flat_map(|input| names(&input.arg)));
        }
    }
    let sliced = Graph {
        nodes: graph
            .nodes
            .iter()
            .zip(&kept)
            .filter(|(_, k)| **k)
            .map(|(n, _)| n.clone())
            .collect(),
        outputs,
        ..graph.clone()
    };
    let signature = GraphSignature {
        input_specs: signature.input_specs.clone(),
        output_specs: specs,
    };
    Ok((sliced, signature))
}
