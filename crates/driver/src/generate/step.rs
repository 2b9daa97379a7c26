//! One step program of `tpuc generate` (a decode or prefill step): compiled through the cache,
//! its token and position inputs found by name, its cache updates paired with their arguments.

use std::path::Path;

use tpuc_ir::{ArgumentRole, Function, OpKind, ResultRole, Value};
use tpuc_npy::{Array, Dtype};
use tpuc_pt2::Archive;

use crate::compile::{LoadedRun, load_cached};
use crate::error::{DriverError, Result};
use crate::options::Options;
use crate::run::{Input, Prepared, prepare};
use crate::runtime::{DeviceArguments, DeviceResults, Executable, Runtime};
use crate::shard_io::Placement;
use crate::tensor::HostTensor;
use crate::tiers::CacheTiers;

/// One step program, compiled and with its interface read.
pub(super) struct Step {
    pub(super) prepared: Prepared,
    pub(super) loaded: LoadedRun,
    pub(super) placement: Placement,
    /// `input_ids` and `cache_position`.
    pub(super) input_ids: TokenInput,
    pub(super) cache_position: TokenInput,
    /// (argument, result): the state each execution updates.
    pub(super) updates: Vec<(usize, usize)>,
    /// The result holding the logits.
    pub(super) logits: usize,
}

impl Step {
    /// Compiles `model` for `batch` sequences of `length` tokens; a cache it takes as inputs
    /// of symbolic length is `cache_length` long (and starts at zero).
    pub(super) fn open(
        model: &Path,
        shape: StepShape,
        options: &Options,
        runtime: &Runtime,
        caches: &CacheTiers,
    ) -> Result<Step> {
        let signature = step_signature(model)?;
        let inputs = step_inputs(model, &signature, shape)?;
        let prepared = prepare(model, &inputs, options)?;
        let loaded = load_cached(&prepared, runtime, caches)?;
        let placement = prepared.placement()?;
        let interface = prepared.built.program.interface()?;
        let token_input = |name: &str| {
            interface
                .arguments
                .iter()
                .enumerate()
                .find_map(|(argument, role)| match role {
                    ArgumentRole::Input { index, name: n } if n == name => Some(TokenInput {
                        argument,
                        index: *index,
                    }),
                    _ => None,
                })
        };
        let (Some(input_ids), Some(cache_position)) =
            (token_input("input_ids"), token_input("cache_position"))
        else {
            return Err(not_a_step(
                model,
                "it takes no `input_ids` and `cache_position`",
            ));
        };
        let logits = interface
            .results
            .iter()
            .position(|role| matches!(role, ResultRole::Output { index: 0 }))
            .ok_or_else(|| not_a_step(model, "it returns no output"))?;
        let updates = (0..interface.results.len())
            .filter(|&r| {
                matches!(
                    interface.results[r],
                    ResultRole::BufferMutation { .. } | ResultRole::InputMutation { .. }
                )
            })
            .filter_map(|r| Some((interface.updated_argument(r)?, r)))
            .collect();
        Ok(Step {
            prepared,
            loaded,
            placement,
            input_ids,
            cache_position,
            updates,
            logits,
        })
    }

    pub(super) fn executable(&self) -> &Executable {
        &self.loaded.executable
    }

    /// The argument holding the state a result of another step updates: the buffer of that
    /// name, or the user input of that name.
    pub(super) fn state_argument(&self, role: &ResultRole) -> Option<usize> {
        self.prepared
            .built
            .arguments
            .iter()
            .position(|b| match (role, &b.role) {
                (ResultRole::BufferMutation { fqn }, ArgumentRole::Buffer { fqn: f, .. }) => {
                    f == fqn
                }
                (ResultRole::InputMutation { name }, ArgumentRole::Input { name: n, .. }) => {
                    n == name
                }
                _ => false,
            })
    }

    /// The longest sequence the cache holds: the size of the dimension the step writes its
    /// new entries along (the positions), in each float buffer it updates that way; the
    /// smallest.
    pub(super) fn cache_length(&self) -> Option<i64> {
        let program = &self.prepared.built.program;
        let main = program.main().ok()?;
        let returned = main.terminator(main.entry_block())?.operands.clone();
        let arguments = &self.prepared.built.arguments;
        self.updates
            .iter()
            .filter(|&&(argument, _)| arguments[argument].dtype.is_float())
            .filter_map(|&(argument, result)| {
                let dim = written_dimension(main, *returned.get(result)?)?;
                arguments[argument].shape.get(dim).copied()
            })
            .min()
    }

    /// Sets the token ids (one row per sequence) and their positions for the next execution.
    pub(super) fn feed(
        &self,
        resident: &mut DeviceArguments<'_>,
        tokens: &[Vec<i64>],
        start: i64,
    ) -> Result<()> {
        let length = tokens[0].len();
        let ids: Vec<i64> = tokens.iter().flatten().copied().collect();
        let positions: Vec<i64> = (start..start + length as i64).collect();
        let input = |name: &str, array: Array| Input {
            origin: name.to_owned(),
            array,
        };
        let inputs = std::collections::BTreeMap::from([
            (
                self.input_ids.index,
                input("input_ids", int_array(vec![tokens.len(), length], &ids)?),
            ),
            (
                self.cache_position.index,
                input("cache_position", int_array(vec![length], &positions)?),
            ),
        ]);
        let mut converted = self.prepared.convert_some(&inputs)?;
        for token_input in [self.input_ids, self.cache_position] {
            let Some(tensor) = converted.remove(&token_input.index) else {
                continue;
            };
            self.executable().replace_argument(
                resident,
                &self.placement,
                token_input.argument,
                &tensor,
            )?;
        }
        Ok(())
    }

    /// Runs once on `resident`; the results (the updated state among them) stay on the
    /// devices, the logits come back.
    pub(super) fn execute(
        &self,
        resident: &DeviceArguments<'_>,
    ) -> Result<(DeviceResults, Logits)> {
        let results = self.executable().execute_resident(resident)?;
        let logits = Logits::of(&results.to_host(&self.placement, self.logits)?)?;
        Ok((results, logits))
    }

    /// Runs once; the updated state becomes the next execution's.
    pub(super) fn step(&self, resident: &mut DeviceArguments<'_>) -> Result<Logits> {
        let (mut results, logits) = self.execute(resident)?;
        resident.adopt(&mut results, &self.updates);
        Ok(logits)
    }
}

/// A user input the step takes per execution: its argument and its position among the inputs.
#[derive(Clone, Copy, Debug)]
pub(super) struct TokenInput {
    pub argument: usize,
    pub index: usize,
}

/// The one dimension of `value` along which a write of some positions made it: a `scatter`
/// into one operand dimension, or a `dynamic_update_slice` (the dimension its update was
/// written along, else the one dimension it is narrower in), seen through transposes,
/// converts and reshapes that add or drop unit dimensions (a cache of stacked layers written
/// layer by layer). `None` when no such write made it.
fn written_dimension(main: &Function, value: Value) -> Option<usize> {
    let data = main.op(main.defining_op(value)?);
    let shape = |v: Value| main.value_type(v).as_tensor()?.static_shape();
    match &data.kind {
        OpKind::Transpose { permutation } => {
            let dim = written_dimension(main, data.operands[0])?;
            permutation.iter().position(|&p| p as usize == dim)
        }
        OpKind::Convert => written_dimension(main, data.operands[0]),
        OpKind::Reshape => {
            let dim = written_dimension(main, data.operands[0])?;
            unit_reshaped(&shape(data.operands[0])?, &shape(value)?, dim)
        }
        OpKind::Scatter { dims, .. } => match dims.scatter_dims_to_operand_dims[..] {
            [dim] => Some(dim as usize),
            _ => None,
        },
        OpKind::DynamicUpdateSlice => {
            if let Some(dim) = written_dimension(main, data.operands[1]) {
                return Some(dim);
            }
            let (whole, part) = (shape(data.operands[0])?, shape(data.operands[1])?);
            let narrower: Vec<usize> = (0..whole.len()).filter(|&d| part[d] < whole[d]).collect();
            match narrower[..] {
                [dim] => Some(dim),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Where dimension `dim` of `from` is in `to`, when `to` is `from` with unit dimensions added
/// or dropped.
fn unit_reshaped(from: &[u64], to: &[u64], dim: usize) -> Option<usize> {
    let kept =
        |shape: &[u64]| -> Vec<usize> { (0..shape.len()).filter(|&d| shape[d] != 1).collect() };
    let (a, b) = (kept(from), kept(to));
    let same = a.len() == b.len() && a.iter().zip(&b).all(|(&i, &j)| from[i] == to[j]);
    let position = a.iter().position(|&d| d == dim)?;
    same.then(|| b[position])
}

/// Logits, float32 [batch, positions, vocab].
pub(super) struct Logits {
    values: Vec<f32>,
    batch: usize,
    positions: usize,
    vocab: usize,
}

impl Logits {
    fn of(tensor: &HostTensor<'_>) -> Result<Logits> {
        let values = tensor.to_npy().map(|array| array.to_f64());
        let (Some(values), [batch, positions, vocab]) = (values, tensor.shape.as_slice()) else {
            return Err(DriverError::Unsupported(format!(
                "the step's first output is {}{:?}, not logits [batch, positions, vocab]",
                tensor.dtype, tensor.shape
            )));
        };
        Ok(Logits {
            values: values.into_iter().map(|v| v as f32).collect(),
            batch: *batch as usize,
            positions: *positions as usize,
            vocab: *vocab as usize,
        })
    }

    /// Appends the first `count` positions' rows of each sequence to its rows.
    pub(super) fn append_rows(&self, count: usize, rows: &mut [Vec<Vec<f32>>]) -> Result<()> {
        if self.batch != rows.len() || self.positions < count {
            return Err(DriverError::Unsupported(format!(
                "the step returned logits for {} sequence(s) of {} position(s), expected {} of {count}",
                self.batch,
                self.positions,
                rows.len()
            )));
        }
        for (batch, rows) in rows.iter_mut().enumerate() {
            for position in 0..count {
                rows.push(self.row(batch, position).to_vec());
            }
        }
        Ok(())
    }

    fn row(&self, batch: usize, position: usize) -> &[f32] {
        let start = (batch * self.positions + position) * self.vocab;
        &self.values[start..start + self.vocab]
    }
}

/// What a step takes for `batch` sequences of `length` tokens, with a cache of `cache_length`
/// positions when its cache is inputs of symbolic length.
#[derive(Clone, Copy, Debug)]
pub(super) struct StepShape {
    pub batch: usize,
    pub length: usize,
    pub cache_length: Option<usize>,
}

/// A step archive's user inputs, in order, and `input_ids`' length (`None` when symbolic: it
/// takes any).
pub(super) struct Signature {
    pub inputs: Vec<SignatureInput>,
    pub length: Option<i64>,
}

pub(super) struct SignatureInput {
    pub name: String,
    pub dtype: Option<tpuc_pt2::DType>,
    /// Per dimension: its size, or the symbol's expression.
    pub sizes: Vec<Result<i64, String>>,
}

pub(super) fn step_signature(model: &Path) -> Result<Signature> {
    let source = crate::frontend::ProgramSource::open(model)?;
    let archive: &Archive = source
        .archive()
        .ok_or_else(|| not_a_step(model, "a step must be a `.pt2` archive"))?;
    let mut inputs = Vec::new();
    for input in archive.user_inputs() {
        let meta = input.meta;
        let sizes = meta
            .map(|meta| meta.sizes.as_slice())
            .unwrap_or_default()
            .iter()
            .map(|size| match (size.as_int(), size.as_expr()) {
                (Some(size), _) => Ok(size),
                (None, Some(expr)) => Err(expr.expr_str.clone()),
                (None, None) => Err(String::new()),
            })
            .collect();
        inputs.push(SignatureInput {
            name: input.name.unwrap_or_default().to_owned(),
            dtype: meta.and_then(|meta| meta.dtype()),
            sizes,
        });
    }
    let ids = inputs
        .iter()
        .find(|input| input.name == "input_ids")
        .ok_or_else(|| not_a_step(model, "it takes no `input_ids`"))?;
    let [_, length] = &ids.sizes[..] else {
        return Err(not_a_step(model, "its `input_ids` is not [batch, length]"));
    };
    let length = length.as_ref().ok().copied();
    Ok(Signature { inputs, length })
}

/// Example inputs of a step: the token ids and positions, and a cache it takes as inputs at
/// zero (its batch dimension the token ids', a symbolic length `cache_length`).
fn step_inputs(model: &Path, signature: &Signature, shape: StepShape) -> Result<Vec<Input>> {
    let batch_symbol = signature
        .inputs
        .iter()
        .find(|input| input.name == "input_ids")
        .and_then(|input| input.sizes.first()?.clone().err());
    signature
        .inputs
        .iter()
        .map(|input| {
            let (batch, length) = (shape.batch, shape.length);
            let array = match input.name.as_str() {
                "input_ids" => int_array(vec![batch, length], &vec![0; batch * length])?,
                "cache_position" => {
                    int_array(vec![length], &(0..length as i64).collect::<Vec<_>>())?
                }
                name => {
                    let dims = input
                        .sizes
                        .iter()
                        .map(|size| match size {
                            Ok(size) => Ok(*size as usize),
                            Err(symbol) if Some(symbol) == batch_symbol.as_ref() => Ok(batch),
                            Err(_) => shape.cache_length.ok_or_else(|| {
                                not_a_step(
                                    model,
                                    &format!(
                                        "its input `{name}` has a symbolic length: give the \
                                         cache's with --cache-length N"
                                    ),
                                )
                            }),
                        })
                        .collect::<Result<Vec<usize>>>()?;
                    zeros(model, name, input.dtype, dims)?
                }
            };
            Ok(Input {
                origin: input.name.clone(),
                array,
            })
        })
        .collect()
}

/// A zeroed cache input.
fn zeros(
    model: &Path,
    name: &str,
    dtype: Option<tpuc_pt2::DType>,
    dims: Vec<usize>,
) -> Result<Array> {
    let dtype = dtype
        .and_then(crate::tensor::npy_dtype)
        .ok_or_else(|| not_a_step(model, &format!("its input `{name}` has no .npy dtype")))?;
    let count: usize = dims.iter().product();
    Ok(Array::new(dtype, dims, vec![0; count * dtype.itemsize()])?)
}

fn int_array(shape: Vec<usize>, values: &[i64]) -> Result<Array> {
    let bytes = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    Ok(Array::new(Dtype::I64, shape, bytes)?)
}

fn not_a_step(model: &Path, why: &str) -> DriverError {
    DriverError::Unsupported(format!(
        "`{}` is not a decode or prefill step: {why} (export it with transformers' \
         `convert_and_export_with_cache` or `TorchExportableModuleWithStaticCache`)",
        model.display()
    ))
}
