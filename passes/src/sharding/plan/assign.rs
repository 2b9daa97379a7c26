//! From a request to a sharding per argument and result of `main`: the preset's choices, then
//! the plan file's rules, each checked against the tensor's shape and the mesh.

use tpuc_ir::{ArgumentRole, Function, ResultRole};

use super::error::PlanError;
use super::heads;
use super::megatron;
use super::mesh::MeshSpec;
use super::plan_file::{PlanFile, SpecValue};
use super::request::{DATA_AXIS, MODEL_AXIS, PlanSource, Preset, ShardRequest};
use super::spec::{TensorSpec, static_shape};
use super::tiles::tiled_elements;

fn describe_argument(role: &ArgumentRole) -> String {
    match role {
        ArgumentRole::Input { index, name } => format!("input {index} (`{name}`)"),
        other => format!("weight `{}`", other.name()),
    }
}

/// A result's name in a plan's `[outputs]`: an output's position, else what it updates.
fn result_key(role: &ResultRole) -> String {
    match role {
        ResultRole::Output { index } => index.to_string(),
        ResultRole::Loss => "loss".to_owned(),
        ResultRole::BufferMutation { fqn: name }
        | ResultRole::InputMutation { name }
        | ResultRole::Gradient { fqn: name }
        | ResultRole::ParameterUpdate { fqn: name }
        | ResultRole::OptimizerState { fqn: name, .. }
        | ResultRole::Check { node: name, .. } => name.clone(),
    }
}

fn describe_result(role: &ResultRole) -> String {
    match role {
        ResultRole::Output { index } => format!("output {index}"),
        ResultRole::Loss => "the loss".to_owned(),
        ResultRole::Gradient { fqn } => format!("the gradient of `{fqn}`"),
        ResultRole::Check { node, .. } => format!("the check of `{node}`"),
        other => format!("the new value of `{}`", result_key(other)),
    }
}

/// The plan's shardings: one per argument, and per result where the plan gives one (others
/// are propagation's).
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    pub mesh: MeshSpec,
    pub arguments: Vec<TensorSpec>,
    pub results: Vec<Option<TensorSpec>>,
    /// What a preset could not do and left unsharded, for the user to read.
    pub notes: Vec<String>,
}

pub fn assign(
    main: &Function,
    arguments: &[ArgumentRole],
    results: &[ResultRole],
    request: &ShardRequest,
) -> Result<Assignment, PlanError> {
    let mesh = request.mesh()?;
    let shapes: Vec<Vec<u64>> = main.arg_types().iter().map(static_shape).collect();
    let mut notes = Vec::new();
    let mut specs: Vec<TensorSpec> = shapes
        .iter()
        .map(|s| TensorSpec::replicated(s.len()))
        .collect();
    let (preset, file) = match &request.plan {
        PlanSource::Preset(preset) => (Some(*preset), None),
        PlanSource::File(file) => (file.preset, Some(file)),
    };
    let interface = tpuc_ir::Interface {
        arguments: arguments.to_vec(),
        results: results.to_vec(),
        aliases: Vec::new(),
    };
    let donations = interface.state_donations(main);
    if let Some(preset) = preset {
        let state = PresetInput {
            main,
            arguments,
            donated: donations.iter().map(|&(argument, _)| argument).collect(),
        };
        apply_preset(preset, &state, &shapes, &mesh, &mut specs, &mut notes)?;
    }
    follow_parameters(arguments, &mut specs);
    // A step's new parameters, optimizer state and buffers live where their arguments do,
    // so each is written in place into its argument's (donated) buffer.
    let mut result_specs: Vec<Option<TensorSpec>> = vec![None; results.len()];
    for (argument, result) in donations {
        result_specs[result] = Some(specs[argument].clone());
    }
    if let Some(file) = file {
        apply_file(
            file,
            main,
            arguments,
            results,
            &shapes,
            &mesh,
            &mut specs,
            &mut result_specs,
        )?;
    }
    for ((spec, shape), role) in specs.iter().zip(&shapes).zip(arguments) {
        spec.check(&describe_argument(role), shape, &mesh)?;
    }
    let result_shapes: Vec<Vec<u64>> = main.result_types.iter().map(static_shape).collect();
    for ((spec, shape), role) in result_specs.iter().zip(&result_shapes).zip(results) {
        if let Some(spec) = spec {
            spec.check(&describe_result(role), shape, &mesh)?;
        }
    }
    Ok(Assignment {
        mesh,
        arguments: specs,
        results: result_specs,
        notes,
    })
}

/// What a preset looks at: `main`, its arguments' roles and the arguments donated to results.
struct PresetInput<'a> {
    main: &'a Function,
    arguments: &'a [ArgumentRole],
    donated: Vec<usize>,
}

fn apply_preset(
    preset: Preset,
    program: &PresetInput<'_>,
    shapes: &[Vec<u64>],
    mesh: &MeshSpec,
    specs: &mut [TensorSpec],
    notes: &mut Vec<String>,
) -> Result<(), PlanError> {
    let (main, arguments) = (program.main, program.arguments);
    let data = mesh.size(DATA_AXIS).unwrap_or(1);
    if preset.splits_batch() {
        for (index, role) in arguments.iter().enumerate() {
            if !matches!(role, ArgumentRole::Input { .. }) || shapes[index].is_empty() {
                continue;
            }
            let spec = TensorSpec::on_dim(shapes[index].len(), 0, &[DATA_AXIS]);
            // Splitting the batch is all `dp` does: an input it cannot split is an error. The
            // other presets still shard the weights, so they say so and go on.
            if preset != Preset::Dp && !shapes[index][0].is_multiple_of(data) {
                notes.push(format!(
                    "{} has shape {:?}: its batch dimension ({}) is not divisible by axis `{DATA_AXIS}` ({data}), so preset {preset} keeps it whole on every device",
                    describe_argument(role),
                    shapes[index],
                    shapes[index][0]
                ));
                continue;
            }
            specs[index] = spec;
        }
    }
    if preset.tensor_parallel() {
        let model = mesh.size(MODEL_AXIS).unwrap_or(1);
        let is_weight: Vec<bool> = arguments.iter().map(ArgumentRole::is_weight).collect();
        let splits = megatron::find(main, &is_weight, model);
        for (index, weight) in is_weight.iter().enumerate() {
            if !weight {
                continue;
            }
            let rank = shapes[index].len();
            specs[index] = match splits.get(&index) {
                Some(&dim) => TensorSpec::on_dim(rank, dim, &[MODEL_AXIS]),
                // Biases and the like follow what they meet; propagation decides.
                None => TensorSpec::open(rank),
            };
        }
        split_state_by_head(program, mesh, model, specs);
        if preset.splits_weights_on_data() {
            // FSDP adds the data axis to a dimension the model axis leaves free, so what
            // propagation gives the open weights must be known first.
            settle_open(main, mesh, specs);
        }
    }
    if preset.splits_weights_on_data() {
        for (index, role) in arguments.iter().enumerate() {
            if !role.is_weight() {
                continue;
            }
            let spec = &mut specs[index];
            let shape = &shapes[index];
            let candidates = (0..shape.len()).filter(|&d| {
                spec.dims[d].axes.is_empty() && shape[d].is_multiple_of(data) && shape[d] >= data
            });
            let best = candidates.min_by_key(|&d| tiled_elements(shape, d, data));
            if let Some(dim) = best {
                spec.dims[dim].axes.push(DATA_AXIS.to_owned());
                spec.dims[dim].open = false;
            }
        }
    }
    Ok(())
}

/// Buffers and inputs a step updates in place (a KV cache) that propagation would leave whole
/// on every device are split over the model axis by head (see [`heads`]).
fn split_state_by_head(
    program: &PresetInput<'_>,
    mesh: &MeshSpec,
    model: u64,
    specs: &mut [TensorSpec],
) {
    let whole = |spec: &TensorSpec| spec.dims.iter().all(|d| d.axes.is_empty());
    let candidates: Vec<usize> = program
        .donated
        .iter()
        .copied()
        .filter(|&index| {
            matches!(
                program.arguments[index],
                ArgumentRole::Buffer { .. } | ArgumentRole::Input { .. }
            )
        })
        .filter(|&index| whole(&specs[index]))
        .collect();
    if candidates.is_empty() || model < 2 {
        return;
    }
    let mut settled = specs.to_vec();
    settle_open(program.main, mesh, &mut settled);
    for index in candidates {
        if !whole(&settled[index]) {
            continue;
        }
        if let Some(dim) = heads::batch_dimension(program.main, index, model) {
            specs[index] = TensorSpec::on_dim(specs[index].dims.len(), dim, &[MODEL_AXIS]);
        }
    }
}

/// Optimizer state is sharded as its parameter is (ZeRO: each device holds the state of its
/// block of the parameter).
fn follow_parameters(arguments: &[ArgumentRole], specs: &mut [TensorSpec]) {
    for (index, role) in arguments.iter().enumerate() {
        let ArgumentRole::OptimizerState { fqn, .. } = role else {
            continue;
        };
        let parameter = arguments
            .iter()
            .position(|p| matches!(p, ArgumentRole::Parameter { fqn: name } if name == fqn));
        if let Some(parameter) = parameter
            && specs[parameter].dims.len() == specs[index].dims.len()
        {
            specs[index] = specs[parameter].clone();
        }
    }
}

/// Replaces open dimensions of `specs` by what propagation gives them, on a copy of `main`.
fn settle_open(main: &Function, mesh: &MeshSpec, specs: &mut [TensorSpec]) {
    let mut scratch = tpuc_ir::Module::new();
    scratch.meshes = vec![mesh.to_ir()];
    let mut main = main.clone();
    for (attrs, spec) in main.arg_attrs.iter_mut().zip(specs.iter()) {
        attrs.set("sdy.sharding", tpuc_ir::Attribute::Sharding(spec.to_ir()));
    }
    scratch.functions.push(main);
    crate::sharding::propagate_module(&mut scratch);
    for (attrs, spec) in scratch.functions[0].arg_attrs.iter().zip(specs.iter_mut()) {
        if let Some(tpuc_ir::Attribute::Sharding(settled)) = attrs.get("sdy.sharding") {
            for (dim, settled) in spec.dims.iter_mut().zip(&settled.dims) {
                if dim.open {
                    dim.axes = settled.axes.clone();
                    dim.open = false;
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn apply_file(
    file: &PlanFile,
    main: &Function,
    arguments: &[ArgumentRole],
    results: &[ResultRole],
    shapes: &[Vec<u64>],
    mesh: &MeshSpec,
    specs: &mut [TensorSpec],
    result_specs: &mut [Option<TensorSpec>],
) -> Result<(), PlanError> {
    let bad_spec = |what: &str, message: String| PlanError::PlanFile {
        path: file.path.clone(),
        message: format!("{what}: {message}"),
        help: "see docs/sharding.md for the forms a sharding takes".to_owned(),
    };
    // Parameters: each weight takes the one glob that matches it.
    let weights: Vec<(usize, &str)> = arguments
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_weight())
        .map(|(i, r)| (i, r.name()))
        .collect();
    let mut chosen: Vec<Option<&str>> = vec![None; arguments.len()];
    for pattern in file.parameters.keys() {
        let glob = glob::Pattern::new(pattern).expect("checked when the plan was parsed");
        let matched: Vec<usize> = weights
            .iter()
            .filter(|(_, fqn)| glob.matches(fqn))
            .map(|(i, _)| *i)
            .collect();
        if matched.is_empty() {
            let known: Vec<&str> = weights.iter().map(|(_, f)| *f).take(12).collect();
            return Err(PlanError::MatchesNothing {
                path: file.path.clone(),
                section: "parameters",
                pattern: pattern.clone(),
                what: "parameter or buffer",
                known: known.join(", "),
            });
        }
        for index in matched {
            if let Some(first) = chosen[index] {
                let fqn = arguments[index].name();
                return Err(PlanError::Ambiguous {
                    path: file.path.clone(),
                    tensor: format!("weight `{fqn}`"),
                    first: first.to_owned(),
                    second: pattern.clone(),
                });
            }
            chosen[index] = Some(pattern);
        }
    }
    for (index, pattern) in chosen.iter().enumerate() {
        if let Some(pattern) = pattern {
            specs[index] = resolve(&file.parameters[*pattern], shapes[index].len(), mesh)
                .map_err(|m| bad_spec(&format!("[parameters] `{pattern}`"), m))?;
        }
    }
    for (key, value) in &file.inputs {
        let index = arguments.iter().position(|r| match r {
            ArgumentRole::Input { index, name } => name == key || index.to_string() == *key,
            _ => false,
        });
        let Some(index) = index else {
            return Err(nothing(
                file,
                "inputs",
                key,
                "input",
                arguments.iter().filter_map(|r| match r {
                    ArgumentRole::Input { index, name } => Some(format!("{index} (`{name}`)")),
                    _ => None,
                }),
            ));
        };
        specs[index] = resolve(value, shapes[index].len(), mesh)
            .map_err(|m| bad_spec(&format!("[inputs] `{key}`"), m))?;
    }
    for (key, value) in &file.outputs {
        let index = results.iter().position(|r| result_key(r) == *key);
        let Some(index) = index else {
            return Err(nothing(
                file,
                "outputs",
                key,
                "output",
                results.iter().map(|r| match r {
                    ResultRole::Output { index } => index.to_string(),
                    other => format!("`{}`", result_key(other)),
                }),
            ));
        };
        let rank = main.result_types[index].as_tensor().map_or(0, |t| t.rank());
        result_specs[index] = Some(
            resolve(value, rank, mesh).map_err(|m| bad_spec(&format!("[outputs] `{key}`"), m))?,
        );
    }
    Ok(())
}

fn resolve(value: &SpecValue, rank: usize, mesh: &MeshSpec) -> Result<TensorSpec, String> {
    value.resolve(rank, mesh)
}

fn nothing(
    file: &PlanFile,
    section: &'static str,
    key: &str,
    what: &'static str,
    known: impl Iterator<Item = String>,
) -> PlanError {
    PlanError::MatchesNothing {
        path: file.path.clone(),
        section,
        pattern: key.to_owned(),
        what,
        known: known.collect::<Vec<_>>().join(", "),
    }
}
