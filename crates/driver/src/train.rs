//! `tpuc train`: N steps of a training-step program (`--optimizer`) on XLA:CPU, through the
//! compile cache. Parameters, optimizer state and buffers stay on the devices between steps:
//! each step's updated values (donated into their arguments' buffers) are the next step's
//! arguments; only the loss comes back to the host each step, and everything else after the
//! last one.

use std::path::Path;
use std::time::Instant;

use tpuc_ir::{ArgumentRole, ResultRole};

use crate::compile::load_cached;
use crate::error::{DriverError, Result};
use crate::frontend::ProgramSource;
use crate::options::Options;
use crate::run::{Input, prepare};
use crate::runtime::Runtime;
use crate::tensor::HostTensor;
use crate::tiers::CacheTiers;

/// What to train and how long.
#[derive(Clone, Debug)]
pub struct TrainRequest<'a> {
    pub model: &'a Path,
    /// Its pipeline has an optimizer.
    pub options: &'a Options,
    /// Where step `k`'s user input `i` is: `{step}` and `{input}` replaced.
    pub batches: &'a str,
    pub steps: usize,
    /// Go on when the loss is not finite.
    pub allow_nonfinite: bool,
}

/// One tensor of the trained state.
#[derive(Clone, Debug)]
pub struct TrainedTensor {
    /// The role it has as an argument of the step.
    pub role: ArgumentRole,
    pub value: HostTensor<'static>,
}

/// What training computed.
#[derive(Debug)]
pub struct Trained {
    /// The loss of each step (before that step's update).
    pub losses: Vec<f32>,
    /// Each step's wall time, the first including the upload of the weights.
    pub step_seconds: Vec<f64>,
    /// Every parameter, buffer and optimizer state after the last step, in argument order.
    pub state: Vec<TrainedTensor>,
    pub key: String,
    /// Whether the executable came from the cache.
    pub hit: bool,
    pub warnings: Vec<String>,
}

/// The file of step `step`'s user input `input`.
pub fn batch_path(pattern: &str, step: usize, input: usize) -> String {
    pattern
        .replace("{step}", &step.to_string())
        .replace("{input}", &input.to_string())
}

/// Trains; `progress` hears each step's number and loss.
pub fn train(
    request: &TrainRequest<'_>,
    runtime: &Runtime,
    caches: &CacheTiers,
    mut progress: impl FnMut(usize, f32),
) -> Result<Trained> {
    if request.options.pipeline.optimizer.is_none() {
        return Err(DriverError::Unsupported(
            "training needs an optimizer (--optimizer SPEC)".into(),
        ));
    }
    if !request.batches.contains("{step}") && request.steps > 1 {
        return Err(DriverError::Unsupported(format!(
            "the batch pattern `{}` has no `{{step}}`: every step would read the same files",
            request.batches
        )));
    }
    let inputs = user_input_count(request.model, request.options)?;
    let read = |step: usize| -> Result<Vec<Input>> {
        (0..inputs)
            .map(|input| Input::read(batch_path(request.batches, step, input)))
            .collect()
    };
    let prepared = prepare(request.model, &read(0)?, request.options)?;
    let loaded = load_cached(&prepared, runtime, caches)?;
    let executable = &loaded.executable;
    let placement = prepared.placement()?;
    let built = &prepared.built;
    let interface = built.program.interface()?;
    let loss = interface
        .results
        .iter()
        .position(|role| *role == ResultRole::Loss)
        .ok_or_else(|| DriverError::Unsupported("the training step returns no loss".into()))?;
    let updates: Vec<(usize, usize)> = (0..interface.results.len())
        .filter(|&result| !matches!(interface.results[result], ResultRole::InputMutation { .. }))
        .filter_map(|result| Some((interface.updated_argument(result)?, result)))
        .collect();
    let input_arguments: Vec<(usize, usize)> = interface
        .arguments
        .iter()
        .enumerate()
        .filter_map(|(argument, role)| match role {
            ArgumentRole::Input { index, .. } => Some((*index, argument)),
            _ => None,
        })
        .collect();

    let mut resident = executable.upload_all(&placement, prepared.arguments())?;
    let mut losses = Vec::with_capacity(request.steps);
    let mut step_seconds = Vec::with_capacity(request.steps);
    let mut last = Vec::new();
    for step in 0..request.steps {
        let started = Instant::now();
        if step > 0 {
            let batch = prepared.convert(&read(step)?)?;
            for &(index, argument) in &input_arguments {
                executable.replace_argument(&mut resident, &placement, argument, &batch[&index])?;
            }
        }
        let mut results = executable.execute_resident(&resident)?;
        let value = scalar(&results.to_host(&placement, loss)?)?;
        if !value.is_finite() && !request.allow_nonfinite {
            return Err(DriverError::Unsupported(format!(
                "the loss of step {step} is {value}{}; nothing was written (--allow-nonfinite \
                 goes on)",
                first_nonfinite(&results, &placement, &interface.results)
            )));
        }
        losses.push(value);
        progress(step, value);
        if step + 1 == request.steps {
            for &(argument, result) in &updates {
                last.push((argument, results.to_host(&placement, result)?));
            }
        }
        resident.adopt(&mut results, &updates);
        step_seconds.push(started.elapsed().as_secs_f64());
    }

    // Parameters the loss does not reach keep their values (PyTorch skips them too).
    let mut state = Vec::new();
    for ((argument, binding), tensor) in
        built.arguments.iter().enumerate().zip(prepared.arguments())
    {
        if matches!(
            binding.role,
            ArgumentRole::Input { .. } | ArgumentRole::Constant { .. }
        ) {
            continue;
        }
        let value = match last.iter().position(|(a, _)| *a == argument) {
            Some(position) => last[position].1.clone(),
            None if matches!(binding.role, ArgumentRole::OptimizerState { .. })
                && request.steps > 0 =>
            {
                continue;
            }
            None => {
                let tensor = tensor?;
                HostTensor {
                    dtype: tensor.dtype,
                    shape: tensor.shape,
                    bytes: std::borrow::Cow::Owned(tensor.bytes.into_owned()),
                }
            }
        };
        state.push(TrainedTensor {
            role: binding.role.clone(),
            value,
        });
    }
    Ok(Trained {
        losses,
        step_seconds,
        state,
        key: loaded.key.to_string(),
        hit: loaded.hit(),
        warnings: loaded.warnings,
    })
}

/// How many user inputs the program takes (labels included).
fn user_input_count(model: &Path, options: &Options) -> Result<usize> {
    Ok(match ProgramSource::open(model)? {
        ProgramSource::Archive(archive) => archive.user_inputs().len(),
        source @ ProgramSource::Text { .. } => {
            let name = model.display().to_string();
            let plain = Options {
                parameters: options.parameters.clone(),
                ..Options::default()
            };
            let built = crate::middle::build(&source, &name, &plain)?;
            built
                .arguments
                .iter()
                .filter(|binding| matches!(binding.role, ArgumentRole::Input { .. }))
                .count()
        }
    })
}

fn scalar(tensor: &HostTensor<'_>) -> Result<f32> {
    let value = tensor.to_npy().map(|array| array.to_f64());
    match value.as_deref() {
        Some([value]) => Ok(*value as f32),
        _ => Err(DriverError::Unsupported(format!(
            "the loss is {}{:?}, not a float scalar",
            tensor.dtype, tensor.shape
        ))),
    }
}

/// `" (... the first non-finite new value: ...)"` naming the first updated tensor that is
/// not finite, if any.
fn first_nonfinite(
    results: &crate::runtime::DeviceResults,
    placement: &crate::shard_io::Placement,
    roles: &[ResultRole],
) -> String {
    for (index, role) in roles.iter().enumerate() {
        if *role == ResultRole::Loss {
            continue;
        }
        let Ok(tensor) = results.to_host(placement, index) else {
            continue;
        };
        let values = tensor.to_npy().map(|array| array.to_f64());
        if values.is_some_and(|values| values.iter().any(|v| !v.is_finite())) {
            let name = role.name().unwrap_or_default();
            return format!(", and so is the new value of {} `{name}`", role.kind());
        }
    }
    String::new()
}
