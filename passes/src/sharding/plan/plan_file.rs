//! TOML plans: the mesh, an optional base preset, and rules from parameter/buffer FQN globs,
//! inputs and outputs to shardings (docs/sharding.md).
//!
//! ```toml
//! mesh = "dp=2,tp=2"
//! preset = "dp"
//! [parameters]
//! "model.layers.*.self_attn.q_proj.weight" = [["tp"], []]
//! "model.layers.*.self_attn.o_proj.weight" = { placements = ["Replicate()", "Shard(1)"] }
//! "model.norm.weight" = "replicated"
//! [inputs]
//! input_ids = [["dp"], "?"]
//! [outputs]
//! 0 = [["dp"], [], []]
//! [intermediates]           # by FX node name (`tpuc lower --emit fx` shows them)
//! silu = [["dp"], [], ["tp"]]
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;

use super::error::PlanError;
use super::mesh::MeshSpec;
use super::request::Preset;
use super::spec::{DimSpec, TensorSpec};

/// A parsed plan file.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanFile {
    /// As given on the command line, for messages.
    pub path: String,
    /// The file's text: what enters cache keys.
    pub contents: String,
    pub mesh: Option<MeshSpec>,
    pub preset: Option<Preset>,
    /// FQN glob → sharding, for parameters, buffers and constants.
    pub parameters: BTreeMap<String, SpecValue>,
    /// Input name or position → sharding.
    pub inputs: BTreeMap<String, SpecValue>,
    /// Output position (or mutated buffer/input name) → sharding.
    pub outputs: BTreeMap<String, SpecValue>,
    /// FX node name → the sharding its value is pinned to (`sdy.sharding_constraint`).
    pub intermediates: BTreeMap<String, SpecValue>,
}

/// A sharding as written in a plan, before the tensor's rank and the mesh are known.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum SpecValue {
    /// `"replicated"` or `"open"` (propagation decides every dimension).
    Keyword(String),
    /// One entry per dimension: `["tp"]`, `[]` (replicated), `"?"` (open), `["tp", "?"]`.
    Dims(Vec<DimValue>),
    /// DTensor placements, one per mesh axis: `Shard(d)` or `Replicate()`.
    Placements { placements: Vec<String> },
}

#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum DimValue {
    Axes(Vec<String>),
    Open(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Schema {
    mesh: Option<String>,
    preset: Option<String>,
    #[serde(default)]
    parameters: BTreeMap<String, SpecValue>,
    #[serde(default)]
    inputs: BTreeMap<String, SpecValue>,
    #[serde(default)]
    outputs: BTreeMap<String, SpecValue>,
    #[serde(default)]
    intermediates: BTreeMap<String, SpecValue>,
}

impl PlanFile {
    pub fn parse(path: &str, contents: &str) -> Result<PlanFile, PlanError> {
        let error = |message: String, help: &str| PlanError::PlanFile {
            path: path.to_owned(),
            message,
            help: help.to_owned(),
        };
        let schema: Schema = toml::from_str(contents).map_err(|e| {
            error(
                e.message().to_owned(),
                "a plan has `mesh`, `preset`, and [parameters], [inputs], [outputs] and \
                 [intermediates] tables of shardings (docs/sharding.md)",
            )
        })?;
        let mesh = schema.mesh.as_deref().map(str::parse).transpose()?;
        let preset = match schema.preset.as_deref() {
            None => None,
            Some(name) => Some(Preset::from_name(name).ok_or_else(|| {
                error(
                    format!("unknown preset `{name}`"),
                    "presets: dp, fsdp, tp, dp+tp, fsdp+tp",
                )
            })?),
        };
        let plan = PlanFile {
            path: path.to_owned(),
            contents: contents.to_owned(),
            mesh,
            preset,
            parameters: schema.parameters,
            inputs: schema.inputs,
            outputs: schema.outputs,
            intermediates: schema.intermediates,
        };
        for (section, rules) in [
            ("parameters", &plan.parameters),
            ("inputs", &plan.inputs),
            ("outputs", &plan.outputs),
            ("intermediates", &plan.intermediates),
        ] {
            for (name, value) in rules {
                value.check_syntax().map_err(|message| {
                    error(
                        format!("[{section}] `{name}`: {message}"),
                        "a sharding is \"replicated\", \"open\", a list with one entry per \
                         dimension ([\"tp\"], [], \"?\") or { placements = [\"Shard(0)\", \
                         \"Replicate()\"] }",
                    )
                })?;
            }
        }
        if let Some(pattern) = plan
            .parameters
            .keys()
            .find(|p| glob::Pattern::new(p).is_err())
        {
            return Err(error(
                format!("[parameters] `{pattern}` is not a glob"),
                "globs use `*`, `?` and `[...]` (e.g. \"model.layers.*.mlp.up_proj.weight\")",
            ));
        }
        Ok(plan)
    }
}

impl SpecValue {
    fn check_syntax(&self) -> Result<(), String> {
        match self {
            SpecValue::Keyword(word) if word == "replicated" || word == "open" => Ok(()),
            SpecValue::Keyword(word) => Err(format!("unknown sharding `{word}`")),
            SpecValue::Dims(dims) => dims.iter().try_for_each(|dim| match dim {
                DimValue::Open(mark) if mark == "?" => Ok(()),
                DimValue::Open(other) => {
                    Err(format!("`{other}` is not a dimension; write [\"{other}\"]"))
                }
                DimValue::Axes(axes) => match axes.iter().position(|a| a == "?") {
                    Some(at) if at + 1 != axes.len() => Err("`?` must come last".to_owned()),
                    _ => Ok(()),
                },
            }),
            SpecValue::Placements { placements } => placements
                .iter()
                .try_for_each(|p| parse_placement(p).map(|_| ())),
        }
    }

    /// The spec for a tensor of rank `rank` on `mesh`.
    pub fn resolve(&self, rank: usize, mesh: &MeshSpec) -> Result<TensorSpec, String> {
        match self {
            SpecValue::Keyword(word) if word == "open" => Ok(TensorSpec::open(rank)),
            SpecValue::Keyword(_) => Ok(TensorSpec::replicated(rank)),
            SpecValue::Dims(dims) => Ok(TensorSpec {
                dims: dims
                    .iter()
                    .map(|dim| match dim {
                        DimValue::Open(_) => DimSpec {
                            axes: Vec::new(),
                            open: true,
                        },
                        DimValue::Axes(axes) => DimSpec {
                            axes: axes.iter().filter(|a| *a != "?").cloned().collect(),
                            open: axes.last().is_some_and(|a| a == "?"),
                        },
                    })
                    .collect(),
            }),
            SpecValue::Placements { placements } => {
                if placements.len() != mesh.axes.len() {
                    return Err(format!(
                        "{} placements for mesh {} of {} axes; give one per mesh axis",
                        placements.len(),
                        mesh,
                        mesh.axes.len()
                    ));
                }
                let mut spec = TensorSpec::replicated(rank);
                for (placement, (axis, _)) in placements.iter().zip(&mesh.axes) {
                    if let Some(dim) = parse_placement(placement)? {
                        let dim = if dim < 0 { dim + rank as i64 } else { dim };
                        let slot = spec.dims.get_mut(dim as usize).ok_or_else(|| {
                            format!("`{placement}` names a dimension of a rank-{rank} tensor that does not exist")
                        })?;
                        slot.axes.push(axis.clone());
                    }
                }
                Ok(spec)
            }
        }
    }
}

/// `Shard(d)` → `Some(d)`, `Replicate()` → `None`.
fn parse_placement(text: &str) -> Result<Option<i64>, String> {
    let text = text.trim();
    if text == "Replicate()" {
        return Ok(None);
    }
    if let Some(dim) = text
        .strip_prefix("Shard(")
        .and_then(|t| t.strip_suffix(')'))
    {
        return dim
            .trim()
            .parse()
            .map(Some)
            .map_err(|_| format!("`{text}`: `{dim}` is not a dimension"));
    }
    if text.starts_with("Partial") {
        return Err(format!(
            "`{text}`: partial placements describe values, not weights; shard or replicate"
        ));
    }
    Err(format!("`{text}` is not Shard(d) or Replicate()"))
}
