//! The plan file as written: TOML, every key known, every value with its location.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawPlan {
    #[serde(default)]
    pub options: RawOptions,
    #[serde(default)]
    pub models: Vec<Spanned<RawModel>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOptions {
    pub jobs: Option<Spanned<i64>>,
    pub remote: Option<Spanned<String>>,
    pub endpoint: Option<Spanned<String>>,
    pub read_only: Option<bool>,
    pub fuse: Option<bool>,
    pub kernels: Option<Spanned<String>>,
    pub kernel_target: Option<Spanned<String>>,
    pub trust_keys: Option<Vec<Spanned<String>>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawModel {
    pub path: Spanned<String>,
    pub targets: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    pub dims: BTreeMap<Spanned<String>, Spanned<Vec<Spanned<i64>>>>,
    /// Power-of-two buckets per dimension: `{ "input_ids.1" = "pow2:128..2048" }`.
    #[serde(default)]
    pub buckets: BTreeMap<Spanned<String>, Spanned<String>>,
    /// A sharding preset or plan file (relative to the plan's directory).
    pub shard: Option<String>,
    /// The device mesh for `shard`, e.g. `dp=2,tp=2`.
    pub mesh: Option<String>,
    /// Compile a training step with this optimizer (`--optimizer`), e.g. `adamw:lr=1e-3`.
    pub optimizer: Option<String>,
    /// Store a decode step's KV cache in this type (`--kv-dtype`), e.g. `bf16`.
    pub kv_dtype: Option<String>,
}
