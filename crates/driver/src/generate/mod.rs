//! `tpuc generate`: greedy decoding on XLA:CPU with a static-KV-cache decode step (and
//! optionally a prefill step), through the compile cache. The cache buffers are the programs'
//! state: donated into their arguments, they stay on the devices from one token to the next;
//! only each step's logits come back to the host.

use std::path::Path;
use std::time::Instant;

mod step;

use tpuc_npy::{Array, Dtype};

use crate::error::{DriverError, Result};
use crate::options::Options;
use crate::runtime::{DeviceArguments, DeviceResults, Runtime};
use crate::tiers::CacheTiers;
use step::{Step, StepShape, step_signature};

/// What to decode.
#[derive(Clone, Debug)]
pub struct GenerateRequest<'a> {
    /// The decode step: `input_ids` [B, 1] and `cache_position` [1] in, logits out.
    pub decode: &'a Path,
    /// The prefill step: `input_ids` [B, L] and `cache_position` [L], its cache buffers named
    /// as the decode step's.
    pub prefill: Option<&'a Path>,
    /// The prompt's token ids, [B, P] (or [P]).
    pub prompt: &'a Path,
    pub max_new_tokens: usize,
    /// The cache's length, for a step whose cache is inputs of symbolic length.
    pub cache_length: Option<usize>,
    pub options: &'a Options,
}

/// What decoding produced.
#[derive(Debug)]
pub struct Generated {
    /// The new tokens, [B, N].
    pub tokens: Vec<Vec<i64>>,
    /// The logits at positions 0..P+N-2, float32, laid out as [`Generated::logits_shape`].
    pub logits: Vec<f32>,
    /// `[B, P+N-1, vocab]`, or `[P+N-1, vocab]` for a batch of one.
    pub logits_shape: Vec<usize>,
    /// Seconds of the prompt (prefill, or the prompt's decode steps), uploads included.
    pub prompt_seconds: f64,
    /// Seconds of each generated token's decode step after the prompt.
    pub token_seconds: Vec<f64>,
    /// The steps' cache keys and whether each came from the cache, decode first.
    pub executables: Vec<(String, bool)>,
    pub warnings: Vec<String>,
}

impl Generated {
    /// New tokens per second of decoding (the prompt excluded).
    pub fn tokens_per_second(&self) -> f64 {
        let seconds: f64 = self.token_seconds.iter().sum();
        if seconds > 0.0 {
            self.token_seconds.len() as f64 / seconds
        } else {
            0.0
        }
    }
}

/// The index of the largest value (the first of equals, as `torch.argmax`).
fn argmax(row: &[f32]) -> i64 {
    let mut best = 0;
    for (index, &value) in row.iter().enumerate() {
        if value > row[best] || (row[best].is_nan() && !value.is_nan()) {
            best = index;
        }
    }
    best as i64
}

/// Decodes greedily; `progress` hears each new token.
pub fn generate(
    request: &GenerateRequest<'_>,
    runtime: &Runtime,
    caches: &CacheTiers,
    mut progress: impl FnMut(usize, &[i64]),
) -> Result<Generated> {
    let prompt = read_prompt(request.prompt)?;
    let batch = prompt.len();
    let prompt_len = prompt[0].len();
    let new_tokens = request.max_new_tokens;
    if new_tokens == 0 {
        return Err(DriverError::Unsupported(
            "--max-new-tokens must be at least 1".into(),
        ));
    }
    let options = request.options;
    let shape = |length| StepShape {
        batch,
        length,
        cache_length: request.cache_length,
    };
    let decode = Step::open(request.decode, shape(1), options, runtime, caches)?;
    let prefill = match request.prefill {
        Some(path) => {
            let length = step_signature(path)?
                .length
                .map_or(prompt_len, |l| l as usize);
            if prompt_len > length {
                return Err(DriverError::Unsupported(format!(
                    "the prompt has {prompt_len} tokens, but the prefill step `{}` takes {length}",
                    path.display()
                )));
            }
            Some(Step::open(path, shape(length), options, runtime, caches)?)
        }
        None => None,
    };
    // Positions 0..P+N-2 are written: the last new token is never fed back.
    let positions = prompt_len + new_tokens - 1;
    if let Some(cache) = decode.cache_length() {
        if prompt_len as i64 > cache {
            return Err(DriverError::Unsupported(format!(
                "the prompt has {prompt_len} tokens, longer than the decode step's cache of {cache}"
            )));
        }
        if positions as i64 > cache {
            return Err(DriverError::Unsupported(format!(
                "{prompt_len} prompt tokens and {new_tokens} new ones need {positions} cache \
                 positions, but the decode step's cache holds {cache}; ask for at most {} new \
                 tokens",
                cache - prompt_len as i64 + 1
            )));
        }
    }

    let started = Instant::now();
    let executable = decode.executable();
    let mut resident = executable.upload_all(&decode.placement, decode.prepared.arguments())?;
    let mut rows: Vec<Vec<Vec<f32>>> = vec![Vec::new(); batch];
    match &prefill {
        Some(step) => {
            let padded: Vec<Vec<i64>> = prompt
                .iter()
                .map(|row| {
                    let mut row = row.clone();
                    row.resize(
                        step.prepared.built.arguments[step.input_ids.argument].shape[1] as usize,
                        0,
                    );
                    row
                })
                .collect();
            let mut own = step
                .executable()
                .upload_all(&step.placement, step.prepared.arguments())?;
            step.feed(&mut own, &padded, 0)?;
            let (mut results, logits) = step.execute(&own)?;
            drop(own);
            hand_over(step, &mut results, &decode, &mut resident)?;
            logits.append_rows(prompt_len, &mut rows)?;
        }
        None => {
            for position in 0..prompt_len {
                let column: Vec<Vec<i64>> = prompt.iter().map(|row| vec![row[position]]).collect();
                decode.feed(&mut resident, &column, position as i64)?;
                let logits = decode.step(&mut resident)?;
                logits.append_rows(1, &mut rows)?;
            }
        }
    }
    let prompt_seconds = started.elapsed().as_secs_f64();

    let mut tokens: Vec<Vec<i64>> = vec![Vec::with_capacity(new_tokens); batch];
    let mut token_seconds = Vec::with_capacity(new_tokens.saturating_sub(1));
    for n in 0..new_tokens {
        let next: Vec<i64> = rows
            .iter()
            .map(|rows| argmax(&rows[rows.len() - 1]))
            .collect();
        for (tokens, &token) in tokens.iter_mut().zip(&next) {
            tokens.push(token);
        }
        progress(n, &next);
        if n + 1 == new_tokens {
            break;
        }
        let step_started = Instant::now();
        let column: Vec<Vec<i64>> = next.iter().map(|&token| vec![token]).collect();
        decode.feed(&mut resident, &column, (prompt_len + n) as i64)?;
        let logits = decode.step(&mut resident)?;
        logits.append_rows(1, &mut rows)?;
        token_seconds.push(step_started.elapsed().as_secs_f64());
    }

    let vocab = rows[0].first().map_or(0, Vec::len);
    let logits: Vec<f32> = rows.into_iter().flatten().flatten().collect();
    let logits_shape = if batch == 1 {
        vec![positions, vocab]
    } else {
        vec![batch, positions, vocab]
    };
    let mut executables = vec![(decode.loaded.key.to_string(), decode.loaded.hit())];
    let mut warnings = decode.loaded.warnings.clone();
    if let Some(step) = &prefill {
        executables.push((step.loaded.key.to_string(), step.loaded.hit()));
        warnings.extend(step.loaded.warnings.iter().cloned());
    }
    Ok(Generated {
        tokens,
        logits,
        logits_shape,
        prompt_seconds,
        token_seconds,
        executables,
        warnings,
    })
}

/// Makes the cache the prefill left the decode step's state, buffer by buffer (by name): on
/// the devices when both programs place it alike, else through the host.
fn hand_over(
    prefill: &Step,
    results: &mut DeviceResults,
    decode: &Step,
    resident: &mut DeviceArguments<'_>,
) -> Result<()> {
    let roles = &prefill.prepared.built.program.interface()?.results;
    let mut on_device = Vec::new();
    for &(_, result) in &prefill.updates {
        let role = &roles[result];
        let fqn = role.name().unwrap_or_default();
        let Some(argument) = decode.state_argument(role) else {
            return Err(DriverError::Unsupported(format!(
                "the prefill step updates `{fqn}`, which the decode step does not have: the two \
                 archives must come from the same model and cache"
            )));
        };
        let expected = &decode.prepared.built.arguments[argument];
        let given = &prefill.prepared.built.results[result];
        if (given.dtype, &given.shape) != (expected.dtype, &expected.shape) {
            return Err(DriverError::Unsupported(format!(
                "the prefill step's `{fqn}` is {}{:?}, the decode step's {}{:?}: export \
                 both from the same model with the same batch size and cache length",
                given.dtype, given.shape, expected.dtype, expected.shape
            )));
        }
        if decode
            .placement
            .argument_like_result(argument, &prefill.placement, result)
        {
            on_device.push((argument, result));
        } else {
            let tensor = results.to_host(&prefill.placement, result)?;
            decode
                .executable()
                .replace_argument(resident, &decode.placement, argument, &tensor)?;
        }
    }
    resident.adopt(results, &on_device);
    Ok(())
}

/// The prompt's rows of token ids.
fn read_prompt(path: &Path) -> Result<Vec<Vec<i64>>> {
    let array = Array::read(path)?;
    let problem = |what: &str| {
        DriverError::Unsupported(format!(
            "the prompt `{}` is {what}; it must hold integer token ids, [batch, length] or [length]",
            path.display()
        ))
    };
    if !matches!(
        array.dtype(),
        Dtype::I64 | Dtype::I32 | Dtype::I16 | Dtype::U8 | Dtype::U16 | Dtype::U32
    ) {
        return Err(problem(&format!("{} data", array.dtype().name())));
    }
    let values: Vec<i64> = array.to_f64().into_iter().map(|v| v as i64).collect();
    let (batch, length) = match *array.shape() {
        [length] => (1, length),
        [batch, length] => (batch, length),
        ref other => return Err(problem(&format!("of shape {other:?}"))),
    };
    if batch == 0 || length == 0 {
        return Err(problem("empty"));
    }
    Ok(values.chunks(length).map(<[i64]>::to_vec).collect())
}
