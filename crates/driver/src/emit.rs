//! The text forms `tpuc lower` prints: StableHLO (pretty or generic) and the FX graph.

use std::fmt::Write;

use tpuc_pt2::schema::{Argument, Graph, Node, TensorMeta, argument_kind};
use tpuc_pt2::{Archive, Dim};

use crate::fx;

/// What `tpuc lower` prints.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Emit {
    /// StableHLO in the readable form (`%0 = stablehlo.add %arg0, %arg1 : ...`).
    #[default]
    Stablehlo,
    /// StableHLO with every op in the generic form: what the plugins are handed.
    StablehloGeneric,
    /// The program's FX graph (and its subgraphs) as text, before any lowering.
    Fx,
}

/// The FX graph of `archive`, one node per line in the style of torch's `Graph.__str__`,
/// with each value's dtype and shape; subgraphs of higher-order ops follow their graph.
pub fn fx_graph(archive: &Archive) -> String {
    let mut out = String::new();
    let mut pending = vec![("graph".to_owned(), archive.graph())];
    while let Some((name, graph)) = pending.pop() {
        if !out.is_empty() {
            out.push('\n');
        }
        write_graph(&mut out, &name, graph);
        let subgraphs = graph.nodes.iter().flat_map(Node::subgraphs);
        let mut subgraphs: Vec<_> = subgraphs.map(|s| (s.name.clone(), &s.graph)).collect();
        subgraphs.reverse();
        pending.extend(subgraphs);
    }
    out
}

fn write_graph(out: &mut String, name: &str, graph: &Graph) {
    // Writing to a String cannot fail.
    let _ = writeln!(out, "{name}():");
    for input in &graph.inputs {
        let value = fx::argument(input);
        let target = value.trim_start_matches('%');
        let _ = writeln!(
            out,
            "    {value}{} = placeholder[target={target}]",
            types(graph, std::slice::from_ref(input))
        );
    }
    for node in &graph.nodes {
        let results: Vec<String> = node.outputs.iter().map(fx::argument).collect();
        let (args, kwargs): (Vec<_>, Vec<_>) = node
            .inputs
            .iter()
            .partition(|input| input.kind != Some(argument_kind::KEYWORD));
        let args: Vec<String> = args.iter().map(|a| fx::argument(&a.arg)).collect();
        let kwargs: Vec<String> = kwargs
            .iter()
            .map(|a| format!("{}: {}", a.name, fx::argument(&a.arg)))
            .collect();
        let trailing = if args.len() == 1 { "," } else { "" };
        let _ = writeln!(
            out,
            "    {}{} = call_function[target={}](args = ({}{trailing}), kwargs = {{{}}})",
            if results.is_empty() {
                "_".to_owned()
            } else {
                results.join(", ")
            },
            types(graph, &node.outputs),
            node.target,
            args.join(", "),
            kwargs.join(", "),
        );
    }
    let outputs: Vec<String> = graph.outputs.iter().map(fx::argument).collect();
    let trailing = if outputs.len() == 1 { "," } else { "" };
    let _ = writeln!(out, "    return ({}{trailing})", outputs.join(", "));
}

/// ` : float32[2, s77]` for the tensors among `values` (several joined by `, `), else nothing.
fn types(graph: &Graph, values: &[Argument]) -> String {
    let described: Vec<String> = values
        .iter()
        .flat_map(|value| match value {
            Argument::AsTensors(tensors) => tensors.iter().map(|t| t.name.as_str()).collect(),
            other => other.as_tensor_name().into_iter().collect::<Vec<_>>(),
        })
        .filter_map(|name| graph.tensor_values.get(name))
        .map(tensor_type)
        .collect();
    if described.is_empty() {
        String::new()
    } else {
        format!(" : {}", described.join(", "))
    }
}

fn tensor_type(meta: &TensorMeta) -> String {
    let dtype = meta.dtype().map_or_else(
        || format!("<dtype {}>", meta.dtype_code),
        |d| d.torch_name().to_owned(),
    );
    let dims = match meta.shape() {
        Ok(dims) => dims
            .iter()
            .map(|dim| match dim {
                Dim::Static(size) => size.to_string(),
                Dim::Symbolic { expr, .. } => expr.to_string(),
            })
            .collect::<Vec<_>>()
            .join(", "),
        Err(_) => "?".to_owned(),
    };
    format!("{dtype}[{dims}]")
}
