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
    /// The user inputs' names, in order.
    pub(super) names: Vec<String>,
    /// Argument positions of `input_ids` and `cache_position`.
    pub(super) input_ids: usize,
    pub(super) cache_position: usize,
    /// (argument, result): the state each execution updates.
    pub(super) updates: Vec<(usize, usize)>,
    /// The result holding the logits.
    pub(super) logits: usize,
}

impl Step {
    /// Compiles `model` for `batch` sequences of `length` tokens.
    pub(super) fn open(
        model: &Path,
        batch: usize,
        length: usize,
        options: &Options,
        runtime: &Runtime,
        caches: &CacheTiers,
    ) -> Result<Step> {
        let (names, _) = step_signature(model)?;
        let inputs = step_inputs(model, &names, batch, length)?;
        let prepared = prepare(model, &inputs, options)?;
        let loaded = load_cached(&prepared, runtime, caches)?;
        let placement = prepared.placement()?;
        let interface = prepared.built.program.interface()?;
        let argument = |name: &str| {
            interface
                .arguments
                .iter()
                .position(|role| matches!(role, ArgumentRole::Input { name: n, .. } if n == name))
        };
        let (Some(input_ids), Some(cache_position)) =
            (argument("input_ids"), argument("cache_position"))
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
            .filter(|&r| matches!(interface.results[r], ResultRole::BufferMutation { .. }))
            .filter_map(|r| Some((interface.updated_argument(r)?, r)))
            .collect();
        Ok(Step {
            prepared,
            loaded,
            placement,
            names,
            input_ids,
            cache_position,
            updates,
            logits,
        })
    }

    pub(super) fn executable(&self) -> &Executable {
        &self.loaded.executable
    }

    /// The argument holding buffer `fqn`.
    pub(super) fn buffer(&self, fqn: &str) -> Option<usize> {
        self.prepared
            .built
            .arguments
            .iter()
            .position(|b| matches!(&b.role, ArgumentRole::Buffer { fqn: f, .. } if f == fqn))
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
        let inputs = self
            .names
            .iter()
            .map(|name| {
                let array = if name == "input_ids" {
                    int_array(vec![tokens.len(), length], &ids)?
                } else {
                    int_array(vec![length], &positions)?
                };
                Ok(Input {
                    origin: name.clone(),
                    array,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let converted = self.prepared.convert(&inputs)?;
        let interface = self.prepared.built.program.interface()?;
        for argument in [self.input_ids, self.cache_position] {
            let ArgumentRole::Input { index, .. } = &interface.arguments[argument] else {
                continue;
            };
            self.executable().replace_argument(
                resident,
                &self.placement,
                argument,
                &converted[index],
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

/// The one dimension of `value` along which a write of some positions made it: a `scatter`
/// into one operand dimension, or a `dynamic_update_slice` narrower than its operand in one
/// dimension, seen through transposes and converts. `None` when no such write made it.
fn written_dimension(main: &Function, value: Value) -> Option<usize> {
    let data = main.op(main.defining_op(value)?);
    match &data.kind {
        OpKind::Transpose { permutation } => {
            let dim = written_dimension(main, data.operands[0])?;
            permutation.iter().position(|&p| p as usize == dim)
        }
        OpKind::Convert => written_dimension(main, data.operands[0]),
        OpKind::Scatter { dims, .. } => match dims.scatter_dims_to_operand_dims[..] {
            [dim] => Some(dim as usize),
            _ => None,
        },
        OpKind::DynamicUpdateSlice => {
            let shape = |v: Value| main.value_type(v).as_tensor()?.static_shape();
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

/// The user inputs of a step archive, in order: their names and `input_ids`' length (`None`
/// when symbolic: it takes any).
pub(super) fn step_signature(model: &Path) -> Result<(Vec<String>, Option<i64>)> {
    let source = crate::frontend::ProgramSource::open(model)?;
    let archive: &Archive = source
        .archive()
        .ok_or_else(|| not_a_step(model, "a step must be a `.pt2` archive"))?;
    let mut names = Vec::new();
    let mut length = None;
    for input in archive.user_inputs() {
        let name = input.name.unwrap_or_default().to_owned();
        if name == "input_ids" {
            let sizes = input
                .meta
                .map(|meta| meta.sizes.as_slice())
                .unwrap_or_default();
            let [_, size] = sizes else {
                return Err(not_a_step(model, "its `input_ids` is not [batch, length]"));
            };
            length = size.as_int();
        }
        names.push(name);
    }
    Ok((names, length))
}

/// Example inputs of a step taking `length` tokens for `batch` sequences.
fn step_inputs(model: &Path, names: &[String], batch: usize, length: usize) -> Result<Vec<Input>> {
    names
        .iter()
        .map(|name| {
            let array = match name.as_str() {
                "input_ids" => int_array(vec![batch, length], &vec![0; batch * length])?,
                "cache_position" => {
                    int_array(vec![length], &(0..length as i64).collect::<Vec<_>>())?
                }
                other => {
                    return Err(not_a_step(
                        model,
                        &format!(
                            "it takes `{other}`; a step takes `input_ids` and `cache_position` only"
                        ),
                    ));
                }
            };
            Ok(Input {
                origin: name.clone(),
                array,
            })
        })
        .collect()
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
