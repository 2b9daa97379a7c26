//! What `tpuc inspect` reports, as plain data. The JSON form is this structure serialized; its
//! field names are a stable interface documented in `docs/cli.md`.

use std::collections::BTreeMap;

use miette::Result;
use serde::Serialize;
use tpuc_pt2::schema::{Argument, Graph, Node, TensorMeta};
use tpuc_pt2::{Archive, Dim, WeightKind};

use crate::fx;

#[derive(Debug, Serialize)]
pub struct Report {
    pub path: String,
    pub torch_version: String,
    pub schema_version: String,
    pub dialect: String,
    pub inputs: Vec<Value>,
    pub symbols: Vec<Symbol>,
    pub weights: Weights,
    pub outputs: Vec<Value>,
    pub buffer_mutations: Vec<Mutation>,
    pub user_input_mutations: Vec<Mutation>,
    /// Nodes per target in the top-level graph.
    pub ops: BTreeMap<String, usize>,
    /// Every higher-order-op subgraph, depth first.
    pub subgraphs: Vec<Subgraph>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph: Option<GraphListing>,
    /// With `--composites`: the composites of each kind `--fuse` outlines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub composites: Option<BTreeMap<String, usize>>,
}

/// A user input or output.
#[derive(Debug, Serialize)]
pub struct Value {
    /// The graph value name; absent for a literal output.
    pub name: Option<String>,
    /// `tensor`, or the argument kind of a non-tensor value (`as_int`, `as_sym_int`, ...).
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dtype: Option<String>,
    /// Sizes: numbers, or strings for symbolic dimensions (`"s77"`, `"2*s77"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<Vec<ShapeDim>>,
    /// The value of a literal output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub literal: Option<String>,
}

#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ShapeDim {
    Static(i64),
    Symbolic(String),
}

/// A symbol of the program's dynamic shapes and its range.
#[derive(Debug, Serialize)]
pub struct Symbol {
    pub name: String,
    pub min: Option<i64>,
    /// `None` when unbounded.
    pub max: Option<i64>,
    /// The value in the example inputs torch exported with.
    pub example: Option<i64>,
    /// The input axes that are this symbol (`tokens.1`), names `--dim` also takes.
    pub axes: Vec<String>,
}

#[derive(Debug, Default, Serialize)]
pub struct Weights {
    pub parameters: Tally,
    pub persistent_buffers: Tally,
    pub non_persistent_buffers: Tally,
    pub constants: Tally,
    /// Bytes of distinct storage records: tied and view tensors share one.
    pub storage_bytes: u64,
    /// Storage records that hold more than one tensor (tied weights, views).
    pub shared_storages: Vec<SharedStorage>,
    pub tensors: Vec<Tensor>,
}

#[derive(Debug, Default, Serialize)]
pub struct Tally {
    pub count: usize,
    /// Logical bytes of the tensors (a tensor's own elements, not its whole storage).
    pub bytes: u64,
}

#[derive(Debug, Serialize)]
pub struct SharedStorage {
    pub storage: String,
    pub tensors: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Tensor {
    pub fqn: String,
    /// `parameter`, `buffer` or `constant`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persistent: Option<bool>,
    pub dtype: String,
    pub shape: Vec<usize>,
    pub bytes: u64,
    /// The archive record holding its storage, relative to the archive's root folder.
    pub storage: String,
    pub storage_offset: usize,
}

#[derive(Debug, Serialize)]
pub struct Mutation {
    /// The buffer or user input written back.
    pub target: String,
    /// The graph value holding its new contents.
    pub value: String,
}

#[derive(Debug, Serialize)]
pub struct Subgraph {
    /// The higher-order op node that owns the subgraph.
    pub owner: String,
    pub target: String,
    pub name: String,
    /// 1 for subgraphs of top-level nodes, 2 for their subgraphs' subgraphs, ...
    pub depth: usize,
    pub node_count: usize,
    pub ops: BTreeMap<String, usize>,
}

/// A graph, node by node (`--graph`).
#[derive(Debug, Serialize)]
pub struct GraphListing {
    pub inputs: Vec<String>,
    pub nodes: Vec<NodeListing>,
    pub outputs: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct NodeListing {
    pub name: String,
    pub target: String,
    pub inputs: Vec<NamedValue>,
    pub outputs: Vec<String>,
    /// The user's source line: the innermost frame of the node's stack trace outside torch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// Every frame of the stack trace, outermost first: the call chain to the op.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stack: Vec<Source>,
    /// The innermost `nn.Module` path the node was traced in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub subgraphs: Vec<NamedGraph>,
}

impl Source {
    fn new(frame: tpuc_pt2::Frame<'_>) -> Source {
        Source {
            file: frame.file.to_owned(),
            line: frame.line,
            function: frame.function.to_owned(),
            code: frame.code.map(str::to_owned),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct NamedValue {
    /// The ATen schema argument name; empty for higher-order-op positionals.
    pub name: String,
    pub value: String,
}

#[derive(Debug, PartialEq, Serialize)]
pub struct Source {
    pub file: String,
    pub line: u32,
    pub function: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct NamedGraph {
    pub name: String,
    #[serde(flatten)]
    pub graph: GraphListing,
}

impl Report {
    pub fn new(archive: &Archive, with_graph: bool) -> Result<Report> {
        let graph = archive.graph();
        let signature = archive.signature();
        let version = archive.schema_version();
        let inputs = archive
            .user_inputs()
            .iter()
            .map(|io| Value::new(io.name, io.argument, io.meta))
            .collect::<Result<Vec<_>>>()?;
        let outputs = archive
            .user_outputs()
            .iter()
            .map(|io| Value::new(io.name, io.argument, io.meta))
            .collect::<Result<Vec<_>>>()?;
        let mut subgraphs = Vec::new();
        collect_subgraphs(graph, 1, &mut subgraphs);
        Ok(Report {
            path: archive.path().display().to_string(),
            torch_version: archive.torch_version().to_owned(),
            schema_version: format!("{}.{}", version.major, version.minor),
            dialect: archive.dialect().name().to_owned(),
            symbols: symbols(archive)?,
            weights: Weights::new(archive),
            inputs,
            outputs,
            buffer_mutations: signature
                .buffer_mutations()
                .map(|m| Mutation {
                    target: m.buffer_name.clone(),
                    value: m.arg.name.clone(),
                })
                .collect(),
            user_input_mutations: signature
                .user_input_mutations()
                .map(|m| Mutation {
                    target: m.user_input_name.clone(),
                    value: m.arg.name.clone(),
                })
                .collect(),
            ops: histogram(&graph.nodes),
            subgraphs,
            graph: with_graph.then(|| GraphListing::new(graph)),
            composites: None,
        })
    }
}

impl Value {
    fn new(name: Option<&str>, argument: &Argument, meta: Option<&TensorMeta>) -> Result<Value> {
        let (dtype, shape) = match meta {
            Some(meta) => (
                Some(match meta.dtype() {
                    Some(dtype) => dtype.torch_name().to_owned(),
                    None => format!("<dtype {}>", meta.dtype_code),
                }),
                Some(shape(meta)?),
            ),
            None => (None, None),
        };
        let literal = name.is_none().then(|| fx::argument(argument));
        Ok(Value {
            name: name.map(str::to_owned),
            kind: match argument {
                Argument::AsTensor(_) => "tensor".to_owned(),
                other => other.key().to_owned(),
            },
            dtype,
            shape,
            literal,
        })
    }
}

fn shape(meta: &TensorMeta) -> Result<Vec<ShapeDim>> {
    let dims = meta.shape().map_err(|e| miette::miette!("{e}"))?;
    Ok(dims
        .into_iter()
        .map(|dim| match dim {
            Dim::Static(size) => ShapeDim::Static(size),
            Dim::Symbolic { expr, .. } => ShapeDim::Symbolic(expr.to_string()),
        })
        .collect())
}

/// The range-constrained symbols, with the example value taken from the first user input
/// dimension that is exactly that symbol.
fn symbols(archive: &Archive) -> Result<Vec<Symbol>> {
    let mut examples = BTreeMap::new();
    for io in archive.user_inputs() {
        let Some(meta) = io.meta else { continue };
        for dim in meta.shape().map_err(|e| miette::miette!("{e}"))? {
            if let Dim::Symbolic {
                expr,
                hint: Some(hint),
            } = dim
                && let Some(symbol) = expr.as_symbol()
            {
                examples.entry(symbol.to_owned()).or_insert(hint);
            }
        }
    }
    let mut axes = tpuc_driver::axis_names(archive)?;
    Ok(archive
        .range_constraints()
        .iter()
        .map(|(name, range)| Symbol {
            name: name.clone(),
            min: range.min_val,
            max: range.max_val,
            example: examples.get(name).copied(),
            axes: axes.remove(name).unwrap_or_default(),
        })
        .collect())
}

impl Weights {
    fn new(archive: &Archive) -> Weights {
        let mut weights = Weights {
            storage_bytes: archive.storage_bytes(),
            ..Weights::default()
        };
        let mut by_storage: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        let root = format!("{}/", archive.root());
        for weight in archive.weights() {
            let bytes = archive.view(weight).nbytes() as u64;
            let (tally, persistent) = match weight.kind() {
                WeightKind::Parameter => (&mut weights.parameters, None),
                WeightKind::Buffer { persistent: true } => {
                    (&mut weights.persistent_buffers, Some(true))
                }
                WeightKind::Buffer { persistent: false } => {
                    (&mut weights.non_persistent_buffers, Some(false))
                }
                WeightKind::Constant => (&mut weights.constants, None),
            };
            tally.count += 1;
            tally.bytes += bytes;
            let storage = weight.storage_entry();
            by_storage
                .entry(storage)
                .or_default()
                .push(weight.fqn().to_owned());
            weights.tensors.push(Tensor {
                fqn: weight.fqn().to_owned(),
                kind: weight.kind().name(),
                persistent,
                dtype: weight.dtype().torch_name().to_owned(),
                shape: weight.sizes().to_vec(),
                bytes,
                storage: storage.strip_prefix(&root).unwrap_or(storage).to_owned(),
                storage_offset: weight.storage_offset(),
            });
        }
        weights.shared_storages = by_storage
            .into_iter()
            .filter(|(_, tensors)| tensors.len() > 1)
            .map(|(storage, tensors)| SharedStorage {
                storage: storage.strip_prefix(&root).unwrap_or(storage).to_owned(),
                tensors,
            })
            .collect();
        weights
    }
}

fn histogram(nodes: &[Node]) -> BTreeMap<String, usize> {
    let mut ops = BTreeMap::new();
    for node in nodes {
        *ops.entry(node.target.clone()).or_insert(0) += 1;
    }
    ops
}

fn collect_subgraphs(graph: &Graph, depth: usize, out: &mut Vec<Subgraph>) {
    for node in &graph.nodes {
        for sub in node.subgraphs() {
            out.push(Subgraph {
                owner: node_name(node),
                target: node.target.clone(),
                name: sub.name.clone(),
                depth,
                node_count: sub.graph.nodes.len(),
                ops: histogram(&sub.graph.nodes),
            });
            collect_subgraphs(&sub.graph, depth + 1, out);
        }
    }
}

fn node_name(node: &Node) -> String {
    node.display_name().unwrap_or(&node.target).to_owned()
}

impl GraphListing {
    fn new(graph: &Graph) -> GraphListing {
        GraphListing {
            inputs: graph.inputs.iter().map(fx::argument).collect(),
            nodes: graph.nodes.iter().map(NodeListing::new).collect(),
            outputs: graph.outputs.iter().map(fx::argument).collect(),
        }
    }
}

impl NodeListing {
    fn new(node: &Node) -> NodeListing {
        NodeListing {
            name: node_name(node),
            target: node.target.clone(),
            inputs: node
                .inputs
                .iter()
                .map(|input| NamedValue {
                    name: input.name.clone(),
                    value: fx::argument(&input.arg),
                })
                .collect(),
            outputs: node.outputs.iter().map(fx::argument).collect(),
            source: node.innermost_user_frame().map(Source::new),
            stack: node.stack_frames().into_iter().map(Source::new).collect(),
            module: node.module_path().map(str::to_owned),
            subgraphs: node
                .subgraphs()
                .into_iter()
                .map(|sub| NamedGraph {
                    name: sub.name.clone(),
                    graph: GraphListing::new(&sub.graph),
                })
                .collect(),
        }
    }
}
