//! The graph walker and the construction of `main`.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use tpuc_ir::{
    ArgumentRole, CheckKind, DenseElements, FunctionBuilder, Interface, Location, Module, Program,
    ResultRole, TensorType, Value, Visibility,
};
use tpuc_pt2::schema::{
    Argument, Graph, InputSpec, InputToBufferSpec, InputToTensorConstantSpec, Node, OutputSpec,
    SymIntArgument,
};
use tpuc_pt2::{Archive, DType, Subclass};

use crate::args::Args;
use crate::cx::{Cx, Walk};
use crate::disagreement::{self, Disagreement};
use crate::dtype::element_type;
use crate::env::{Env, Val};
use crate::error::{LowerError, OpError, OpResult};
use crate::node::{location, node_name, source_line};
use crate::registry::Registry;
use crate::specialize::{Symbols, specialize};
use crate::support;
use crate::{LowerOptions, Lowered};

/// Walks graphs node by node with the registry.
pub(crate) struct Walker<'a> {
    pub(crate) symbols: &'a Symbols,
    /// The dtype of an enclosing `torch.autocast` region.
    pub autocast: std::cell::Cell<Option<DType>>,
    /// `--precision`: the whole program runs under autocast, so float results may have
    /// another float dtype than the archive recorded (it was exported without autocast).
    pub(crate) precision: Option<DType>,
    registry: &'static Registry,
    keep_going: bool,
    /// Problems found so far when `keep_going`.
    errors: RefCell<Vec<LowerError>>,
    /// The number of ranks of a program with collectives.
    pub(crate) world: Option<u32>,
    /// `--debug`: index checks of the nodes lowered so far.
    pub(crate) checks: Option<RefCell<Vec<(ResultRole, Value)>>>,
    /// `--debug=nan`: whether node outputs get NaN/Inf checks (not inside subgraphs, whose
    /// values do not reach `main`'s results).
    nan_checks: std::cell::Cell<bool>,
    /// Node outputs whose computed type is not the one torch recorded, in graph order.
    disagreements: RefCell<Vec<Disagreement>>,
}

/// Names that a node input or a graph output refers to.
fn used_names(graph: &Graph) -> HashSet<String> {
    fn note(arg: &Argument, used: &mut HashSet<String>) {
        match arg {
            Argument::AsTensors(list) => used.extend(list.iter().map(|t| t.name.clone())),
            Argument::AsOptionalTensors(list) => {
                for t in list {
                    if let tpuc_pt2::schema::OptionalTensorArgument::AsTensor(t) = t {
                        used.insert(t.name.clone());
                    }
                }
            }
            Argument::AsSymInts(list) => {
                for s in list {
                    if let SymIntArgument::AsName(n) = s {
                        used.insert(n.clone());
                    }
                }
            }
            other => {
                if let Some(name) = other.value_name() {
                    used.insert(name.to_owned());
                }
            }
        }
    }
    let mut used = HashSet::new();
    for node in &graph.nodes {
        for input in &node.inputs {
            note(&input.arg, &mut used);
        }
    }
    for output in &graph.outputs {
        note(output, &mut used);
    }
    used
}

impl<'a> Walker<'a> {
    pub fn new(symbols: &'a Symbols, keep_going: bool) -> Self {
        Walker {
            symbols,
            autocast: std::cell::Cell::new(None),
            precision: None,
            registry: Registry::get(),
            keep_going,
            errors: RefCell::new(Vec::new()),
            world: None,
            checks: None,
            nan_checks: std::cell::Cell::new(false),
            disagreements: RefCell::new(Vec::new()),
        }
    }

    fn node_error(&self, node: &Node, error: OpError) -> LowerError {
        if let Some(nested) = error.nested {
            return *nested;
        }
        if error.unsupported {
            return LowerError::Node {
                target: node.target.clone(),
                node: node_name(node),
                source_line: source_line(node),
                message: format!("tpuc does not lower this use yet: {}", error.message),
                help: error
                    .help
                    .or_else(|| Some("see docs/ops.md for what is supported".into())),
            };
        }
        LowerError::Node {
            target: node.target.clone(),
            node: node_name(node),
            source_line: source_line(node),
            message: error.message,
            help: error.help,
        }
    }

    /// Records a problem; with `keep_going` lowering goes on, otherwise it is returned.
    fn fail(&self, error: LowerError) -> Result<(), LowerError> {
        if self.keep_going {
            self.errors.borrow_mut().push(error);
            Ok(())
        } else {
            Err(error)
        }
    }

    /// [`Walk::lower_graph`], also returning the final values of the graph's names (inputs
    /// written in place are bound to their last value).
    fn lower_graph_env(
        &self,
        b: &mut FunctionBuilder,
        graph: &Graph,
        inputs: Vec<Val>,
    ) -> Result<(Vec<Val>, Env), LowerError> {
        let mut env = Env::default();
        if inputs.len() != graph.inputs.len() {
            return Err(LowerError::Program {
                message: format!(
                    "a graph takes {} inputs but gets {}",
                    graph.inputs.len(),
                    inputs.len()
                ),
                help: None,
            });
        }
        for (arg, value) in graph.inputs.iter().zip(inputs) {
            if let Some(name) = arg.value_name() {
                env.bind(name, value);
            }
        }
        let used = used_names(graph);
        for node in &graph.nodes {
            b.set_location(location(node));
            let Some(entry) = self.registry.lookup(&node.target) else {
                self.fail(LowerError::UnsupportedOp {
                    target: node.target.clone(),
                    node: node_name(node),
                    source_line: source_line(node),
                })?;
                self.poison(b, graph, node, &mut env)?;
                continue;
            };
            let (result, writes) = {
                let args = Args::new(node, entry.schema.as_ref(), &env);
                let mut cx = Cx {
                    b,
                    node,
                    graph,
                    used: &used,
                    walker: self,
                    writes: Vec::new(),
                };
                let result = args.check().and_then(|()| entry.run(&mut cx, &args));
                (result, cx.writes)
            };
            let outputs = match result {
                Ok(outputs) => outputs,
                Err(error) => {
                    self.fail(self.node_error(node, error))?;
                    self.poison(b, graph, node, &mut env)?;
                    continue;
                }
            };
            let checked = self.check_non_finite(b, node, &outputs);
            if let Err(error) =
                checked.and_then(|()| self.bind_outputs(b, graph, node, outputs, &mut env))
            {
                self.fail(self.node_error(node, error))?;
                self.poison(b, graph, node, &mut env)?;
                continue;
            }
            if let Some(schema) = &entry.schema {
                // In-place ops: later uses of the written tensors see the new values.
                if let Err(error) = crate::ops::write_back(b, schema, node, &writes, &mut env) {
                    self.fail(self.node_error(node, error))?;
                }
            }
        }
        let outputs = graph
            .outputs
            .iter()
            .map(|arg| {
                Args::new(&Node::default(), None, &env)
                    .value_of(arg)
                    .map_err(|e| LowerError::Program {
                        message: format!("graph output: {}", e.message),
                        help: None,
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok((outputs, env))
    }

    /// `--debug=nan`: a NaN/Inf check of each floating-point tensor the node returned.
    fn check_non_finite(
        &self,
        b: &mut FunctionBuilder,
        node: &Node,
        outputs: &[Val],
    ) -> OpResult<()> {
        let Some(checks) = self.checks.as_ref().filter(|_| self.nan_checks.get()) else {
            return Ok(());
        };
        let tensors = outputs.iter().flat_map(|value| match value {
            Val::Tensor(v) => vec![*v],
            Val::Tensors(list) => list.clone(),
            _ => Vec::new(),
        });
        for (output, value) in tensors.enumerate() {
            if !b.tensor_type(value)?.element.is_float() {
                continue;
            }
            let check = crate::checks::non_finite_check(b, value)?;
            let source = ResultRole::Check {
                kind: CheckKind::NonFinite {
                    output,
                    shape: support::dims_of(b.tensor_type(value)?),
                },
                node: node_name(node),
                target: node.target.clone(),
                source_line: source_line(node).map(|s| s.to_string()),
            };
            checks.borrow_mut().push((source, check));
        }
        Ok(())
    }

    /// Binds the values an op returned to the node's output names, checking each tensor against
    /// the shape and dtype torch recorded.
    fn bind_outputs(
        &self,
        b: &FunctionBuilder,
        graph: &Graph,
        node: &Node,
        outputs: Vec<Val>,
        env: &mut Env,
    ) -> OpResult<()> {
        if outputs.len() != node.outputs.len() {
            return Err(OpError::new(format!(
                "internal: the lowering gave {} results for {} outputs",
                outputs.len(),
                node.outputs.len()
            )));
        }
        let check = |name: &str, value: Value| -> OpResult<()> {
            let Some(meta) = graph.tensor_values.get(name) else {
                return Ok(());
            };
            let ty = b.tensor_type(value)?;
            let shape = self.symbols.sizes(meta)?;
            let dtype = Symbols::dtype(meta)?;
            let recorded = element_type(dtype)?;
            let autocast_float =
                self.precision.is_some() && ty.element.is_float() && recorded.is_float();
            if support::dims_of(ty) != shape || (ty.element != recorded && !autocast_float) {
                self.disagreements.borrow_mut().push(Disagreement {
                    node: node_name(node),
                    target: node.target.clone(),
                    source_line: source_line(node),
                    name: name.to_owned(),
                    recorded: format!("{}", support::tensor_type(recorded, &shape)),
                    computed: format!("{ty}"),
                });
            }
            Ok(())
        };
        for (output, value) in node.outputs.iter().zip(outputs) {
            match (output, value) {
                (Argument::AsNone(_), _) => {}
                (Argument::AsTensor(t), Val::Tensor(v)) => {
                    check(&t.name, v)?;
                    env.bind(&t.name, Val::Tensor(v));
                }
                (Argument::AsTensors(list), Val::Tensors(values)) if list.len() == values.len() => {
                    for (t, &v) in list.iter().zip(&values) {
                        check(&t.name, v)?;
                        env.bind(&t.name, Val::Tensor(v));
                    }
                }
                (Argument::AsSymInt(SymIntArgument::AsName(name)), Val::Int(i)) => {
                    if let Some(expected) = graph.sym_int_values.get(name)
                        && let Ok(value) = self.symbols.eval(expected)
                        && value != i
                    {
                        return Err(OpError::new(format!(
                            "internal: `{name}` evaluates to {i}, torch's expression gives {value}"
                        )));
                    }
                    env.bind(name, Val::Int(i));
                }
                (output, Val::None) => {
                    // Unused outputs may stay unbound.
                    if let Some(name) = output.value_name() {
                        env.bind(name, Val::None);
                    }
                }
                (output, value) => {
                    if let Some(name) = output.value_name() {
                        env.bind(name, value);
                    } else {
                        return Err(OpError::new(format!(
                            "internal: cannot bind {value:?} to output {output:?}"
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// After a failure with `keep_going`: binds zeros of the recorded types to the node's
    /// outputs so the walk can go on and find further problems.
    fn poison(
        &self,
        b: &mut FunctionBuilder,
        graph: &Graph,
        node: &Node,
        env: &mut Env,
    ) -> Result<(), LowerError> {
        let mut zeros = |name: &str| -> Val {
            let Some(meta) = graph.tensor_values.get(name) else {
                return Val::None;
            };
            let (Ok(shape), Ok(dtype)) = (self.symbols.sizes(meta), Symbols::dtype(meta)) else {
                return Val::None;
            };
            support::zeros(b, dtype, &shape).map_or(Val::None, Val::Tensor)
        };
        for output in &node.outputs {
            match output {
                Argument::AsTensor(t) => {
                    let v = zeros(&t.name);
                    env.bind(&t.name, v);
                }
                Argument::AsTensors(list) => {
                    let values: Vec<Value> = list
                        .iter()
                        .filter_map(|t| zeros(&t.name).tensor())
                        .collect();
                    for (t, v) in list.iter().zip(&values) {
                        env.bind(&t.name, Val::Tensor(*v));
                    }
                }
                Argument::AsSymInt(SymIntArgument::AsName(name)) => {
                    let value = graph
                        .sym_int_values
                        .get(name)
                        .and_then(|s| self.symbols.eval(s).ok())
                        .map_or(Val::None, Val::Int);
                    env.bind(name, value);
                }
                _ => {}
            }
        }
        Ok(())
    }
}

impl Walk for Walker<'_> {
    fn symbols(&self) -> &Symbols {
        self.symbols
    }

    fn world(&self) -> Option<u32> {
        self.world
    }

    fn autocast(&self) -> &std::cell::Cell<Option<DType>> {
        &self.autocast
    }

    fn checks(&self) -> Option<&RefCell<Vec<(ResultRole, Value)>>> {
        self.checks.as_ref()
    }

    /// Lowers `graph` into the builder's current block; returns the graph's outputs.
    fn lower_graph(
        &self,
        b: &mut FunctionBuilder,
        graph: &Graph,
        inputs: Vec<Val>,
    ) -> Result<Vec<Val>, LowerError> {
        let nan_checks = self.nan_checks.replace(false);
        let lowered = self.lower_graph_env(b, graph, inputs);
        self.nan_checks.set(nan_checks);
        lowered.map(|(outputs, _)| outputs)
    }
}

/// A weight's bytes as a constant of its graph type.
/// The most weight bytes `--inline-weights` embeds in one module. The printed module holds
/// two hex digits per byte, and XLA receives a module as a protobuf, which cannot exceed 2 GiB.
pub const INLINE_WEIGHTS_LIMIT: u64 = 1 << 30;

/// The weight `fqn` as constant data; `inlined` counts the bytes inlined so far.
fn inline_weight(
    archive: &Archive,
    fqn: &str,
    ty: &TensorType,
    inlined: &mut u64,
) -> Result<DenseElements, LowerError> {
    let view = archive.tensor(fqn)?;
    *inlined += view.nbytes() as u64;
    if *inlined > INLINE_WEIGHTS_LIMIT {
        return Err(LowerError::Program {
            message: format!(
                "--inline-weights would embed more than {} MiB of weights (`{fqn}` brings it to \
                 {} MiB)",
                INLINE_WEIGHTS_LIMIT >> 20,
                *inlined >> 20
            ),
            help: Some(
                "leave the weights as arguments (the default): the printed module holds two hex \
                 digits per byte and XLA cannot take a module past 2 GiB"
                    .to_owned(),
            ),
        });
    }
    let bytes = view.to_contiguous_bytes()?;
    Ok(DenseElements::from_bytes(ty, bytes.into_owned())?)
}

/// The type a subclass's inner tensor is passed in: int4 values that torchao holds in int8
/// (`target_dtype` int4) go as int4, so the device holds half the bytes; running checks that
/// the stored values fit.
fn passed_dtype(subclass: &Subclass, attribute: &str, stored: DType) -> DType {
    match (attribute, stored, subclass.target_dtype()) {
        ("qdata", DType::I8, Some(DType::I4)) => DType::I4,
        _ => stored,
    }
}

/// The role of a subclass weight's inner tensor: the weight's role under the inner name.
fn renamed(role: &ArgumentRole, fqn: &str) -> ArgumentRole {
    let fqn = fqn.to_owned();
    match role {
        ArgumentRole::Buffer { persistent, .. } => ArgumentRole::Buffer {
            fqn,
            persistent: *persistent,
        },
        ArgumentRole::Constant { .. } => ArgumentRole::Constant { fqn },
        _ => ArgumentRole::Parameter { fqn },
    }
}

fn program_error(message: String) -> LowerError {
    LowerError::Program {
        message,
        help: None,
    }
}

fn tensor_type_of(
    symbols: &Symbols,
    graph: &Graph,
    name: &str,
) -> Result<(DType, Vec<i64>), LowerError> {
    let meta = graph
        .tensor_values
        .get(name)
        .ok_or_else(|| program_error(format!("input `{name}` has no tensor metadata")))?;
    let err = |e: OpError| LowerError::Shape {
        message: format!("input `{name}`: {}", e.message),
        help: e.help,
    };
    Ok((
        Symbols::dtype(meta).map_err(err)?,
        symbols.sizes(meta).map_err(err)?,
    ))
}

pub(crate) fn lower(archive: &Archive, options: &LowerOptions) -> Result<Lowered, LowerError> {
    let symbols = specialize(archive, options)?;
    let sliced = match &options.outputs {
        Some(keep) => Some(crate::slice::keep_outputs(
            archive.graph(),
            archive.signature(),
            keep,
        )?),
        None => None,
    };
    let (graph, signature) = match &sliced {
        Some((graph, signature)) => (graph, signature),
        None => (archive.graph(), archive.signature()),
    };
    let joint = signature
        .output_specs
        .iter()
        .any(|spec| matches!(spec, OutputSpec::LossOutput(_)));
    if joint && options.autocast.is_some() {
        return Err(LowerError::Program {
            message: "`--precision` on a joint graph: its forward and backward are already \
                      decomposed, below the ops `torch.autocast` decides for"
                .into(),
            help: Some(
                "train the loss-only export (`torch.export.export` of the loss), which tpuc \
                 differentiates under the precision policy"
                    .into(),
            ),
        });
    }
    if signature.input_specs.len() != graph.inputs.len() {
        return Err(program_error(format!(
            "the signature has {} inputs, the graph {}",
            signature.input_specs.len(),
            graph.inputs.len()
        )));
    }
    let mut b = FunctionBuilder::new("main", Visibility::Public);
    let mut arguments = Vec::new();
    let mut weight_args = HashMap::new();
    // Each argument's position in `arguments`, by its value.
    let mut argument_of = HashMap::new();
    let mut inlined = 0;
    let mut inputs = vec![Val::None; graph.inputs.len()];
    let ir_type = |dtype: DType, shape: &[i64]| -> Result<TensorType, LowerError> {
        let element = element_type(dtype).map_err(|e| program_error(e.message))?;
        Ok(support::tensor_type(element, shape))
    };

    // Weights first, in input-spec order; then user inputs.
    for pass in [false, true] {
        let mut user_index = 0;
        for (i, spec) in signature.input_specs.iter().enumerate() {
            let (source, name) = match spec {
                InputSpec::Parameter(p) => (
                    ArgumentRole::Parameter {
                        fqn: p.parameter_name.clone(),
                    },
                    p.arg.name.as_str(),
                ),
                InputSpec::Buffer(buf) => (
                    ArgumentRole::Buffer {
                        fqn: buf.buffer_name.clone(),
                        persistent: buf.persistent,
                    },
                    buf.arg.name.as_str(),
                ),
                InputSpec::TensorConstant(c) => (
                    ArgumentRole::Constant {
                        fqn: c.tensor_constant_name.clone(),
                    },
                    c.arg.name.as_str(),
                ),
                InputSpec::UserInput(u) => {
                    let index = user_index;
                    user_index += 1;
                    if !pass {
                        continue;
                    }
                    let Some(name) = u.arg.as_tensor_name() else {
                        inputs[i] = match &u.arg {
                            Argument::AsInt(v) => Val::Int(*v),
                            Argument::AsFloat(v) => Val::Float(v.0),
                            Argument::AsBool(v) => Val::Bool(*v),
                            Argument::AsNone(_) => Val::None,
                            other => {
                                return Err(program_error(format!(
                                    "user input {index} is {other:?}; tpuc takes tensor inputs"
                                )));
                            }
                        };
                        continue;
                    };
                    let (dtype, shape) = tensor_type_of(&symbols, graph, name)?;
                    let value = b.arg(ir_type(dtype, &shape)?);
                    argument_of.insert(value, arguments.len());
                    inputs[i] = Val::Tensor(value);
                    arguments.push(ArgumentRole::Input {
                        index,
                        name: name.to_owned(),
                    });
                    continue;
                }
                InputSpec::ConstantInput(c) => {
                    use tpuc_pt2::schema::ConstantValue;
                    inputs[i] = match &c.value {
                        ConstantValue::AsInt(v) => Val::Int(*v),
                        ConstantValue::AsFloat(v) => Val::Float(v.0),
                        ConstantValue::AsBool(v) => Val::Bool(*v),
                        _ => Val::None,
                    };
                    continue;
                }
                other => {
                    return Err(LowerError::Program {
                        message: format!("input spec {other:?} is not supported"),
                        help: Some(
                            "tpuc takes tensors, parameters, buffers and constants; custom objects and tokens are not supported".into(),
                        ),
                    });
                }
            };
            if pass {
                continue;
            }
            let fqn = source.name().to_owned();
            let mut weight_arg = |b: &mut FunctionBuilder,
                                  source: ArgumentRole,
                                  ty: TensorType|
             -> Result<Value, LowerError> {
                let fqn = source.name().to_owned();
                let tied = archive.weight(&fqn).map(|w| {
                    let layout = (w.storage_offset(), w.sizes().to_vec(), w.strides().to_vec());
                    (w.storage_entry().to_owned(), w.dtype(), layout)
                });
                Ok(if options.inline_weights {
                    let data = inline_weight(archive, &fqn, &ty, &mut inlined)?;
                    b.constant(ty, data)?
                } else if let Some(&value) = tied.as_ref().and_then(|t| weight_args.get(t)) {
                    // A tied weight (one storage, two names) is passed once.
                    value
                } else {
                    let value = b.arg(ty);
                    argument_of.insert(value, arguments.len());
                    arguments.push(source);
                    if let Some(tied) = tied {
                        weight_args.insert(tied, value);
                    }
                    value
                })
            };
            if let Some(subclass) = archive.subclass(&fqn) {
                let mut inner = Vec::new();
                for (attribute, weight) in subclass
                    .attributes()
                    .filter_map(|a| Some((a, archive.weight(subclass.inner(a)?)?)))
                {
                    let shape: Vec<i64> = weight.sizes().iter().map(|&s| s as i64).collect();
                    let stored = weight.dtype();
                    let passed = match options.inline_weights {
                        false => passed_dtype(subclass, attribute, stored),
                        true => stored,
                    };
                    let role = renamed(&source, weight.fqn());
                    let mut value = weight_arg(&mut b, role, ir_type(passed, &shape)?)?;
                    if passed != stored {
                        value = support::convert(&mut b, value, stored)
                            .map_err(|e| program_error(e.message))?;
                    }
                    inner.push((attribute.to_owned(), value));
                }
                inputs[i] = Val::Subclass {
                    class: subclass.class().to_owned(),
                    inner,
                };
                continue;
            }
            let (dtype, shape) = tensor_type_of(&symbols, graph, name)?;
            let ty = ir_type(dtype, &shape)?;
            let value = weight_arg(&mut b, source, ty)?;
            inputs[i] = Val::Tensor(value);
        }
    }

    let world = crate::world::world_size(graph, options.world_size)?;
    let mut walker = Walker::new(&symbols, options.keep_going);
    walker.autocast.set(options.autocast);
    walker.precision = options.autocast;
    walker.world = world;
    walker.checks = options.debug.then(RefCell::default);
    walker.nan_checks.set(options.debug && options.debug_nan);
    let initial = inputs.clone();
    let outputs = walker.lower_graph_env(&mut b, graph, inputs);
    let checks = walker.checks.take().map(RefCell::into_inner);
    let disagreements = walker.disagreements.take();
    let mut errors = crate::error::group_unsupported(walker.errors.into_inner());
    let failed = match &outputs {
        Err(error) => Some(error),
        Ok(_) => errors.first(),
    };
    let output_names: Vec<&str> = graph
        .outputs
        .iter()
        .filter_map(|o| o.value_name())
        .collect();
    disagreement::judge(&disagreements, failed, &output_names)?;
    let (outputs, env) = match outputs {
        Ok(done) if errors.is_empty() => done,
        Ok(_) if errors.len() == 1 => return Err(errors.remove(0)),
        Ok(_) => return Err(LowerError::Many { errors }),
        Err(error) => return Err(error),
    };

    if signature.output_specs.len() != outputs.len() {
        return Err(program_error(format!(
            "the signature has {} outputs, the graph {}",
            signature.output_specs.len(),
            outputs.len()
        )));
    }
    let mut results = Vec::new();
    let mut values = Vec::new();
    let mut updated = HashSet::new();
    // In-place writes to buffers and user inputs that the signature does not list (the
    // "TRAINING" dialect keeps `add_` and friends): returned first, as torch orders mutations.
    let listed: Vec<&str> = signature
        .output_specs
        .iter()
        .filter_map(|spec| match spec {
            OutputSpec::BufferMutation(m) => Some(m.buffer_name.as_str()),
            OutputSpec::UserInputMutation(m) => Some(m.user_input_name.as_str()),
            _ => None,
        })
        .collect();
    for ((spec, arg), before) in signature
        .input_specs
        .iter()
        .zip(&graph.inputs)
        .zip(&initial)
    {
        let (Some(name), Val::Tensor(before)) = (arg.value_name(), before) else {
            continue;
        };
        let Some(Val::Tensor(after)) = env.get(name) else {
            continue;
        };
        if after == before {
            continue;
        }
        let source = match spec {
            InputSpec::UserInput(_) if !listed.contains(&name) => ResultRole::InputMutation {
                name: name.to_owned(),
            },
            // A buffer, or a tensor a non-strict export lifted as a constant (a static KV cache
            // the module holds outside its buffers): the mutation updates the argument that
            // holds its storage, which is state, a buffer.
            InputSpec::Buffer(buf) if listed.contains(&buf.buffer_name.as_str()) => continue,
            InputSpec::Buffer(InputToBufferSpec {
                buffer_name: fqn, ..
            })
            | InputSpec::TensorConstant(InputToTensorConstantSpec {
                tensor_constant_name: fqn,
                ..
            }) => {
                let Some(&argument) = argument_of.get(before) else {
                    // Inlined (`--inline-weights`): returned, with nothing to update.
                    results.push(ResultRole::BufferMutation { fqn: fqn.clone() });
                    values.push(*after);
                    continue;
                };
                if !updated.insert(argument) {
                    continue;
                }
                let role = &mut arguments[argument];
                if let ArgumentRole::Constant { fqn } = role {
                    *role = ArgumentRole::Buffer {
                        fqn: std::mem::take(fqn),
                        persistent: false,
                    };
                }
                ResultRole::BufferMutation {
                    fqn: role.name().to_owned(),
                }
            }
            _ => continue,
        };
        results.push(source);
        values.push(*after);
    }
    let mut user_index = 0;
    for (spec, value) in signature.output_specs.iter().zip(outputs) {
        let source = match spec {
            OutputSpec::UserOutput(_) => {
                user_index += 1;
                ResultRole::Output {
                    index: user_index - 1,
                }
            }
            OutputSpec::BufferMutation(m) => ResultRole::BufferMutation {
                fqn: m.buffer_name.clone(),
            },
            OutputSpec::UserInputMutation(m) => ResultRole::InputMutation {
                name: m.user_input_name.clone(),
            },
            OutputSpec::LossOutput(_) => ResultRole::Loss,
            OutputSpec::GradientToParameter(g) => ResultRole::Gradient {
                fqn: g.parameter_name.clone(),
            },
            OutputSpec::GradientToUserInput(g) => ResultRole::Gradient {
                fqn: g.user_input_name.clone(),
            },
            other => {
                return Err(program_error(format!(
                    "output spec {other:?} is not supported (training outputs)"
                )));
            }
        };
        let Val::Tensor(value) = value else {
            return Err(program_error(format!(
                "output {source:?} is {value:?}; tpuc returns tensors only"
            )));
        };
        results.push(source);
        values.push(value);
    }
    for (source, value) in checks.into_iter().flatten() {
        results.push(source);
        values.push(value);
    }
    b.set_location(Location::Unknown);
    b.ret(&values)?;
    let mut module = Module::new();
    module.num_replicas = world;
    module.add_function(b.finish()?)?;
    tpuc_ir::verify(&module).map_err(tpuc_ir::IrError::with_user_sources)?;
    let mut interface = Interface {
        arguments,
        results,
        aliases: Vec::new(),
    };
    let main = module
        .function("main")
        .ok_or_else(|| program_error("no `main`".into()))?;
    interface.aliases = interface.state_donations(main);
    Ok(Lowered {
        program: Program::new(module, &interface)?,
        dims: symbols.values().clone(),
        warnings: disagreements.iter().map(Disagreement::warning).collect(),
    })
}
