//! Running: lower for the given `.npy` inputs, check them, compile on XLA:CPU, execute.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tpuc_ir::{ArgumentRole, ResultRole};
use tpuc_npy::Array;
use tpuc_pt2::{Archive, DType, Dim};

use crate::error::{DriverError, InputMismatch, Result};
use crate::frontend::ProgramSource;
use crate::middle::{Built, build};
use crate::options::Options;
use crate::runtime::{Executable, Runtime};
use crate::shard_io::Placement;
use crate::signature::ArgumentBinding;
use crate::tensor::{self, HostTensor, npy_dtype, npy_dtype_for_input};

/// A user input: an array and where it came from (for messages).
#[derive(Clone, Debug)]
pub struct Input {
    pub origin: String,
    pub array: Array,
}

impl Input {
    pub fn read(path: impl AsRef<Path>) -> Result<Input> {
        let path = path.as_ref();
        Ok(Input {
            origin: path.display().to_string(),
            array: Array::read(path)?,
        })
    }
}

/// What one run computed.
#[derive(Debug)]
pub struct RunOutput {
    /// The user outputs, pytree-flattened order.
    pub outputs: Vec<HostTensor<'static>>,
    /// The new values of mutated buffers and user inputs, in the program's order.
    pub mutations: Vec<(ResultRole, HostTensor<'static>)>,
    /// The symbol values the program was specialised to.
    pub dims: BTreeMap<String, i64>,
}

/// A program lowered for particular inputs, which were checked against its arguments: ready
/// to execute.
#[derive(Debug)]
pub struct Prepared {
    pub built: Built,
    /// Where the weights come from (a `.mlir` program's: `--weights`).
    weights: Weights,
    /// The model's file name, recorded in the cache entries compiled from it.
    pub(crate) model_name: Option<String>,
    /// The user inputs by position, in the dtype of their argument.
    inputs: BTreeMap<usize, HostTensor<'static>>,
    /// The ranks a program with collectives runs on (inputs stack them on a leading axis).
    ranks: Option<usize>,
}

/// Lowers `model` for `inputs` (a symbolic input dimension takes the size of the given array
/// unless `options` fix it) and checks every input against its argument. Needs no plugin, so
/// bad inputs are reported before anything is loaded. A program with collectives is one
/// rank's program: each input holds every rank's value, stacked on a leading dimension.
/// The weights of a `.mlir` program come from the archive `options.weights` names.
pub fn prepare(model: &Path, inputs: &[Input], options: &Options) -> Result<Prepared> {
    let source = ProgramSource::open(model)?;
    let name = model.display().to_string();
    let (built, ranks) = match source.archive() {
        None => {
            let built = build(&source, &name, options)?;
            check_input_count(model, &built, inputs)?;
            let ranks = built.program.module.num_replicas.map(|n| n as usize);
            (built, ranks.filter(|&n| n > 1))
        }
        Some(archive) => {
            let ranks =
                tpuc_lower::world_size(archive, &options.lower)?.map(|world| world as usize);
            let mut options = options.clone();
            for (index, shape) in check_inputs_against_signature(archive, inputs, ranks)? {
                options.lower.input_shapes.entry(index).or_insert(shape);
            }
            (build(&source, &name, &options)?, ranks)
        }
    };
    let weights = match (source, &options.weights) {
        (ProgramSource::Archive(archive), _) => Weights::Archive(archive),
        (ProgramSource::Text { .. }, Some(weights)) if weights.is_dir() => {
            Weights::Directory(weights.clone())
        }
        (ProgramSource::Text { .. }, Some(weights)) => {
            Weights::Archive(Box::new(Archive::open(weights)?))
        }
        (ProgramSource::Text { .. }, None) => Weights::None,
    };
    let inputs = convert_inputs(&built, inputs, ranks)?;
    Ok(Prepared {
        model_name: crate::compile::model_name(model),
        built,
        weights,
        inputs,
        ranks,
    })
}

/// Where a program's parameters, buffers and constants are read from.
#[derive(Debug)]
enum Weights {
    None,
    /// By name from an archive's memory map.
    Archive(Box<Archive>),
    /// `DIR/NAME.npy` (a JAX module's initial parameters, say).
    Directory(PathBuf),
}

/// Checks each input against its argument of `built` and converts it to the argument's dtype.
fn convert_inputs(
    built: &Built,
    inputs: &[Input],
    ranks: Option<usize>,
) -> Result<BTreeMap<usize, HostTensor<'static>>> {
    convert_inputs_where(&built.arguments, ranks, |index| Some(inputs.get(index)))
}

/// [`convert_inputs`] of the user inputs `input` gives, by position (`Some(None)`: missing;
/// `None`: not wanted).
fn convert_inputs_where<'i>(
    arguments: &[ArgumentBinding],
    ranks: Option<usize>,
    input: impl Fn(usize) -> Option<Option<&'i Input>>,
) -> Result<BTreeMap<usize, HostTensor<'static>>> {
    let mut converted = BTreeMap::new();
    for binding in arguments {
        if let ArgumentRole::Input { index, name } = &binding.role {
            let Some(input) = input(*index) else {
                continue;
            };
            let input = input.ok_or_else(|| {
                DriverError::Unsupported(format!("no array for input {index} (`{name}`)"))
            })?;
            let dims: Vec<Option<i64>> = binding.shape.iter().map(|&d| Some(d)).collect();
            let shown: Vec<String> = binding.shape.iter().map(i64::to_string).collect();
            check_input(
                *index,
                name,
                input,
                binding.dtype,
                &dims,
                &shown.join(", "),
                ranks,
            )?;
            converted.insert(*index, tensor::from_npy(&input.array, binding.dtype));
        }
    }
    Ok(converted)
}

/// A `.mlir` program takes one array per input of `main`.
fn check_input_count(model: &Path, built: &Built, inputs: &[Input]) -> Result<()> {
    let names: Vec<&str> = built
        .arguments
        .iter()
        .filter(|binding| matches!(binding.role, ArgumentRole::Input { .. }))
        .map(|binding| binding.role.name())
        .collect();
    if names.len() == inputs.len() {
        return Ok(());
    }
    Err(DriverError::InputCount {
        model: model.display().to_string(),
        expected: names.len(),
        names: names.join(", "),
        given: inputs.len(),
    })
}

/// [`prepare`], then [`Prepared::execute`].
pub fn run(
    runtime: &Runtime,
    model: &Path,
    inputs: &[Input],
    options: &Options,
) -> Result<RunOutput> {
    prepare(model, inputs, options)?.execute(runtime)
}

impl Prepared {
    /// Compiles the module on `runtime`, feeds the weights straight from the archive and the
    /// inputs, and executes it once.
    pub fn execute(&self, runtime: &Runtime) -> Result<RunOutput> {
        let executable = runtime.compile_module(&self.built.program.module)?;
        self.execute_with(&executable)
    }

    /// Executes an executable compiled from this program's module (e.g. one from the cache),
    /// each argument placed on the devices as the module's shardings say.
    pub fn execute_with(&self, executable: &Executable) -> Result<RunOutput> {
        let placement = self.placement()?;
        let results = executable.execute_placed(&placement, self.arguments())?;
        split_results(&self.built, results)
    }

    /// `inputs` checked against the program's user inputs and converted to their dtypes.
    pub(crate) fn convert(&self, inputs: &[Input]) -> Result<BTreeMap<usize, HostTensor<'static>>> {
        check_input_count(
            Path::new(self.model_name.as_deref().unwrap_or("the program")),
            &self.built,
            inputs,
        )?;
        convert_inputs(&self.built, inputs, self.ranks)
    }

    /// User inputs `inputs` (by position; the others keep their values), each checked against
    /// its argument and converted to its dtype.
    pub(crate) fn convert_some(
        &self,
        inputs: &BTreeMap<usize, Input>,
    ) -> Result<BTreeMap<usize, HostTensor<'static>>> {
        convert_inputs_where(&self.built.arguments, self.ranks, |index| {
            inputs.get(&index).map(Some)
        })
    }

    /// Executes an executable compiled from this program's module on other inputs, of the
    /// shapes and dtypes this program was prepared for (each is checked): the weights stay
    /// bound to the mapped archive, so a runtime loads once and calls this per request.
    pub fn execute_inputs(&self, executable: &Executable, inputs: &[Input]) -> Result<RunOutput> {
        let converted = self.convert(inputs)?;
        let placement = self.placement()?;
        let results = executable.execute_placed(&placement, self.arguments_from(&converted))?;
        split_results(&self.built, results)
    }

    /// Where the module's arguments and results live on its devices.
    pub fn placement(&self) -> Result<Placement> {
        let built = &self.built;
        let user_inputs = built
            .arguments
            .iter()
            .enumerate()
            .filter(|(_, binding)| matches!(binding.role, ArgumentRole::Input { .. }))
            .map(|(index, _)| index);
        Ok(Placement::of(&built.program.module)?.with_per_device_arguments(user_inputs))
    }

    /// `main`'s arguments, produced one at a time as they are moved to the devices: each
    /// weight's bytes borrowed from the mapped archive (strided views materialised), and the
    /// inputs.
    pub(crate) fn arguments(&self) -> impl Iterator<Item = Result<HostTensor<'_>>> {
        self.arguments_from(&self.inputs)
    }

    /// [`Self::arguments`] with the user inputs `inputs`.
    fn arguments_from<'a>(
        &'a self,
        inputs: &'a BTreeMap<usize, HostTensor<'static>>,
    ) -> impl Iterator<Item = Result<HostTensor<'a>>> {
        self.built
            .arguments
            .iter()
            .map(|binding| match &binding.role {
                ArgumentRole::Input { index, .. } => Ok(inputs[index].borrowed()),
                // Optimizer state starts at zero, as PyTorch's does (the step count too).
                ArgumentRole::OptimizerState { .. } => {
                    Ok(HostTensor::zeros(binding.dtype, binding.shape.clone()))
                }
                role => self.weight(role.name(), binding),
            })
    }
}

impl Prepared {
    /// The weight `fqn`, of `binding`'s dtype and shape.
    fn weight(&self, fqn: &str, binding: &ArgumentBinding) -> Result<HostTensor<'_>> {
        match &self.weights {
            Weights::Archive(archive) => {
                let tensor = archive.tensor(fqn)?;
                let stored = HostTensor {
                    dtype: tensor.dtype,
                    shape: binding.shape.clone(),
                    bytes: tensor.to_contiguous_bytes()?,
                };
                if stored.dtype == binding.dtype {
                    return Ok(stored);
                }
                let from = stored.dtype;
                stored.narrowed(binding.dtype).ok_or_else(|| {
                    DriverError::Unsupported(format!(
                        "the program stores `{fqn}` as {}, but its value in the archive is {from} \
                         and does not fit: tpuc narrows zeros, float32 to bfloat16 \
                         (--kv-dtype) and int8 values in [-8, 7] to int4 (torchao's int4 \
                         weights)",
                        binding.dtype
                    ))
                })
            }
            Weights::Directory(dir) => {
                let path = dir.join(format!("{fqn}.npy"));
                let array = Array::read(&path)?;
                let shape: Vec<i64> = array.shape().iter().map(|&d| d as i64).collect();
                if npy_dtype(binding.dtype) != Some(array.dtype()) || shape != binding.shape {
                    return Err(DriverError::Unsupported(format!(
                        "{}: the weight `{fqn}` is {}{:?} there, the program takes {}{:?}",
                        path.display(),
                        array.dtype().name(),
                        shape,
                        binding.dtype,
                        binding.shape
                    )));
                }
                Ok(HostTensor {
                    dtype: binding.dtype,
                    shape,
                    bytes: std::borrow::Cow::Owned(array.into_data()),
                })
            }
            Weights::None => Err(DriverError::Unsupported(format!(
                "nothing holds the weight `{fqn}`: give a `.mlir` program's weights with \
                 --weights MODEL.pt2 or --weights DIR (DIR/NAME.npy)"
            ))),
        }
    }
}

/// Checks the number of inputs and each one's dtype and static dims against the program's
/// signature (each input stacked over `ranks` when given); returns the shapes of the inputs
/// that have symbolic dims (one rank's).
fn check_inputs_against_signature(
    archive: &Archive,
    inputs: &[Input],
    ranks: Option<usize>,
) -> Result<Vec<(usize, Vec<i64>)>> {
    let user_inputs = archive.user_inputs();
    if user_inputs.len() != inputs.len() {
        let names: Vec<&str> = user_inputs
            .iter()
            .map(|io| io.name.unwrap_or("?"))
            .collect();
        return Err(DriverError::InputCount {
            model: archive.path().display().to_string(),
            expected: user_inputs.len(),
            names: names.join(", "),
            given: inputs.len(),
        });
    }
    let mut symbolic = Vec::new();
    for (index, (io, input)) in user_inputs.iter().zip(inputs).enumerate() {
        let name = io.name.unwrap_or("?");
        let meta = io.meta.ok_or_else(|| {
            DriverError::Unsupported(format!(
                "input {index} (`{name}`) is not a tensor; tpuc runs only tensor inputs"
            ))
        })?;
        let dims = meta.shape().map_err(|e| {
            DriverError::Unsupported(format!("input {index} (`{name}`) has a bad shape: {e}"))
        })?;
        let dtype = meta.dtype().ok_or_else(|| {
            DriverError::Unsupported(format!("input {index} (`{name}`) has an unknown dtype"))
        })?;
        let expected: Vec<Option<i64>> = dims
            .iter()
            .map(|dim| match dim {
                Dim::Static(size) => Some(*size),
                Dim::Symbolic { .. } => None,
            })
            .collect();
        let shown: Vec<String> = dims
            .iter()
            .map(|dim| match dim {
                Dim::Static(size) => size.to_string(),
                Dim::Symbolic { expr, .. } => expr.to_string(),
            })
            .collect();
        check_input(
            index,
            name,
            input,
            dtype,
            &expected,
            &shown.join(", "),
            ranks,
        )?;
        if expected.contains(&None) {
            let per_rank = &input.array.shape()[usize::from(ranks.is_some())..];
            symbolic.push((index, per_rank.iter().map(|&d| d as i64).collect()));
        }
    }
    Ok(symbolic)
}

/// Checks one input array against a dtype and dims (`None`: any size), with a leading
/// dimension of `ranks` when given.
fn check_input(
    index: usize,
    name: &str,
    input: &Input,
    dtype: DType,
    dims: &[Option<i64>],
    shown_dims: &str,
    ranks: Option<usize>,
) -> Result<()> {
    let dims: Vec<Option<i64>> = ranks
        .map(|ranks| Some(ranks as i64))
        .into_iter()
        .chain(dims.iter().copied())
        .collect();
    let (shown_dims, per_rank_note) = match ranks {
        Some(ranks) => (
            format!("{ranks}, {shown_dims}"),
            format!(" (one [{shown_dims}] per rank, stacked over the {ranks} ranks)"),
        ),
        None => (shown_dims.to_owned(), String::new()),
    };
    let array = &input.array;
    let npy = npy_dtype_for_input(dtype).ok_or_else(|| {
        DriverError::Unsupported(format!(
            "input {index} (`{name}`) is {dtype}, which .npy files cannot hold"
        ))
    })?;
    let shape_fits = array.shape().len() == dims.len()
        && array
            .shape()
            .iter()
            .zip(dims)
            .all(|(&got, want)| want.is_none_or(|want| got as i64 == want));
    if array.dtype() == npy && shape_fits {
        return Ok(());
    }
    let bf16_note = if dtype == DType::BF16 {
        " (bfloat16 inputs are given as float32 and rounded)"
    } else {
        ""
    };
    Err(InputMismatch {
        index,
        name: name.to_owned(),
        origin: input.origin.clone(),
        expected: format!("{npy}[{shown_dims}]{per_rank_note}{bf16_note}"),
        found: format!("{}{:?}", array.dtype(), array.shape()),
        help: Some(format!(
            "write the input as a {npy} array of shape [{shown_dims}], e.g. \
             numpy.save(path, x.astype(numpy.{npy}))"
        )),
    }
    .into())
}

/// Sorts the results into user outputs (in output order) and mutations.
fn split_results(built: &Built, results: Vec<HostTensor<'static>>) -> Result<RunOutput> {
    let bindings = &built.results;
    if results.len() != bindings.len() {
        return Err(DriverError::ResultCount {
            expected: bindings.len(),
            found: results.len(),
        });
    }
    let mut outputs = Vec::new();
    let mut mutations = Vec::new();
    for (binding, result) in bindings.iter().zip(results) {
        match &binding.role {
            ResultRole::Output { index } => outputs.push((*index, result)),
            ResultRole::Check { .. } => crate::debug::check(&binding.role, &result)?,
            role => mutations.push((role.clone(), result)),
        }
    }
    outputs.sort_by_key(|(index, _)| *index);
    Ok(RunOutput {
        outputs: outputs.into_iter().map(|(_, result)| result).collect(),
        mutations,
        dims: built.dims.clone(),
    })
}

/// Where `tpuc run` writes user output `index`.
pub fn output_path(dir: &Path, index: usize) -> PathBuf {
    dir.join(format!("out{index}.npy"))
}
