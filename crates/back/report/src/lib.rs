//! What a compiler reports about an executable without running it: the memory one device needs
//! and the cost model's figures. The PJRT layer (`tpuc-pjrt`) fills these from a plugin; cache
//! manifests (`tpuc-cache`) record them, so a cache hit reports the same numbers.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// Everything a plugin reports about an executable; each part `None` if it reports nothing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExecutableReport {
    pub memory: Option<MemoryStats>,
    pub cost: Option<CostAnalysis>,
}

/// Memory one device needs to run the executable, as the compiler's buffer assignment
/// computed it. Device fields are the default memory (HBM on a TPU); `host_*` fields are
/// host memory the program uses.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryStats {
    pub argument_bytes: i64,
    pub output_bytes: i64,
    /// Bytes of the output that reuse argument buffers (donation).
    pub alias_bytes: i64,
    /// Scratch space the program allocates while it runs.
    pub temp_bytes: i64,
    pub generated_code_bytes: i64,
    pub host_argument_bytes: i64,
    pub host_output_bytes: i64,
    pub host_alias_bytes: i64,
    pub host_temp_bytes: i64,
    pub host_generated_code_bytes: i64,
    /// Peak device memory; plugins implementing PJRT C API 0.72 or newer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_bytes: Option<i64>,
    /// Total device memory; plugins implementing PJRT C API 0.90 or newer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<i64>,
}

/// The compiler's cost model of the executable, per device.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CostAnalysis {
    /// Floating-point operations (`flops`).
    pub flops: Option<f64>,
    /// Bytes read and written in memory (`bytes accessed`).
    pub bytes_accessed: Option<f64>,
    /// Transcendental function evaluations (`transcendentals`).
    pub transcendentals: Option<f64>,
    /// The compiler's estimate of one execution's time (`optimal_seconds`); `None` when the
    /// plugin has no estimate (it reports a negative value then).
    pub optimal_seconds: Option<f64>,
    /// Every other numeric property, by the plugin's name for it (e.g. `bytes accessed0{}`,
    /// `utilization0{}`). Non-numeric and non-finite properties are left out.
    pub properties: BTreeMap<String, f64>,
}
