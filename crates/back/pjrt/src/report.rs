//! What the compiler says about an executable without running it: compiled memory statistics
//! (`PJRT_Executable_GetCompiledMemoryStats`) and cost analysis
//! (`PJRT_Executable_GetCostAnalysis`).
//!
//! Both are optional in PJRT: a plugin that lacks the function, or answers `UNIMPLEMENTED`,
//! gives `None` rather than an error.

use std::collections::BTreeMap;

use tpuc_report::{CostAnalysis, ExecutableReport, MemoryStats};

use crate::Executable;
use crate::api::{borrowed_slice, entry};
use crate::error::{ApiVersion, Error, ErrorCode, Result};
use crate::ffi::{self, Args};
use crate::plugin::{Value, read_named_value};

/// Property names of the `CostAnalysis` fields, as XLA's cost analysis spells them.
const FLOPS: &str = "flops";
const BYTES_ACCESSED: &str = "bytes accessed";
const TRANSCENDENTALS: &str = "transcendentals";
const OPTIMAL_SECONDS: &str = "optimal_seconds";

/// Sorts the plugin's properties into the named fields and the rest.
fn cost_from_properties(properties: impl IntoIterator<Item = (String, Value)>) -> CostAnalysis {
    let mut numbers: BTreeMap<String, f64> = properties
        .into_iter()
        .filter_map(|(name, value)| match value {
            Value::Float(number) => Some((name, f64::from(number))),
            // Counts beyond 2^53 lose precision, as they would in any JSON reader.
            Value::Int64(number) => Some((name, number as f64)),
            Value::String(_) | Value::Int64List(_) | Value::Bool(_) => None,
        })
        .filter(|(_, number)| number.is_finite())
        .collect();
    CostAnalysis {
        flops: numbers.remove(FLOPS),
        bytes_accessed: numbers.remove(BYTES_ACCESSED),
        transcendentals: numbers.remove(TRANSCENDENTALS),
        optimal_seconds: numbers
            .remove(OPTIMAL_SECONDS)
            .filter(|seconds| *seconds >= 0.0),
        properties: numbers,
    }
}

fn memory_from_args(
    args: &ffi::PJRT_Executable_GetCompiledMemoryStats_Args,
    api: ApiVersion,
) -> MemoryStats {
    let since = |minor: i32, value: i64| (api.minor >= minor).then_some(value);
    MemoryStats {
        argument_bytes: args.argument_size_in_bytes,
        output_bytes: args.output_size_in_bytes,
        alias_bytes: args.alias_size_in_bytes,
        temp_bytes: args.temp_size_in_bytes,
        generated_code_bytes: args.generated_code_size_in_bytes,
        host_argument_bytes: args.host_argument_size_in_bytes,
        host_output_bytes: args.host_output_size_in_bytes,
        host_alias_bytes: args.host_alias_size_in_bytes,
        host_temp_bytes: args.host_temp_size_in_bytes,
        host_generated_code_bytes: args.host_generated_code_size_in_bytes,
        peak_bytes: since(72, args.peak_memory_in_bytes),
        total_bytes: since(90, args.total_size_in_bytes),
    }
}

/// `Ok(None)` for what a plugin may leave out: a missing function or `UNIMPLEMENTED`.
fn optional<T>(result: Result<T>) -> Result<Option<T>> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(
            Error::Unsupported { .. }
            | Error::Plugin {
                code: ErrorCode::Unimplemented,
                ..
            },
        ) => Ok(None),
        Err(error) => Err(error),
    }
}

impl Executable {
    /// Both the memory statistics and the cost analysis.
    pub fn report(&self) -> Result<ExecutableReport> {
        Ok(ExecutableReport {
            memory: self.memory_stats()?,
            cost: self.cost_analysis()?,
        })
    }

    /// The compiled memory statistics of one device's program, or `None` if the plugin does
    /// not report them.
    pub fn memory_stats(&self) -> Result<Option<MemoryStats>> {
        let api = self.api();
        optional(
            entry!(api, PJRT_Executable_GetCompiledMemoryStats).and_then(|stats| {
                let mut args = ffi::PJRT_Executable_GetCompiledMemoryStats_Args::new();
                args.executable = self.raw();
                // SAFETY: the executable is live; `args` is initialised and the plugin only fills
                // in the out fields it knows, within `struct_size`.
                let error = unsafe { (stats.f)(&mut args) };
                api.check(stats.name, error)?;
                Ok(memory_from_args(&args, api.version()))
            }),
        )
    }

    /// The cost analysis of one device's program, or `None` if the plugin does not report one.
    pub fn cost_analysis(&self) -> Result<Option<CostAnalysis>> {
        let api = self.api();
        optional(
            entry!(api, PJRT_Executable_GetCostAnalysis).and_then(|cost| {
                let mut args = ffi::PJRT_Executable_GetCostAnalysis_Args::new();
                args.executable = self.raw();
                // SAFETY: the executable is live; `args` is initialised.
                let error = unsafe { (cost.f)(&mut args) };
                api.check(cost.name, error)?;
                // SAFETY: the properties (and the strings they point to) live as long as the
                // executable, which outlives this copy.
                let properties = unsafe { borrowed_slice(args.properties, args.num_properties) };
                Ok(cost_from_properties(
                    properties.iter().map(read_named_value),
                ))
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_properties_become_fields_and_a_negative_estimate_is_unknown() {
        let cost = cost_from_properties([
            ("flops".to_owned(), Value::Float(2.5e8)),
            ("bytes accessed".to_owned(), Value::Float(4096.0)),
            ("bytes accessed0{}".to_owned(), Value::Float(1024.0)),
            ("transcendentals".to_owned(), Value::Int64(32)),
            ("optimal_seconds".to_owned(), Value::Float(-1.0)),
            ("name".to_owned(), Value::String("main".to_owned())),
            ("utilization1{}".to_owned(), Value::Float(f32::NAN)),
        ]);
        assert_eq!(cost.flops, Some(2.5e8));
        assert_eq!(cost.bytes_accessed, Some(4096.0));
        assert_eq!(cost.transcendentals, Some(32.0));
        assert_eq!(cost.optimal_seconds, None);
        assert_eq!(
            cost.properties,
            BTreeMap::from([("bytes accessed0{}".to_owned(), 1024.0)])
        );
        let known = cost_from_properties([("optimal_seconds".to_owned(), Value::Float(6.9e-5))]);
        assert_eq!(known.optimal_seconds, Some(f64::from(6.9e-5f32)));
    }

    #[test]
    fn fields_newer_than_the_plugin_are_absent() {
        let mut args = ffi::PJRT_Executable_GetCompiledMemoryStats_Args::new();
        args.argument_size_in_bytes = 64;
        args.peak_memory_in_bytes = 128;
        args.total_size_in_bytes = 256;
        let old = memory_from_args(
            &args,
            ApiVersion {
                major: 0,
                minor: 80,
            },
        );
        assert_eq!((old.argument_bytes, old.peak_bytes), (64, Some(128)));
        assert_eq!(old.total_bytes, None);
        let new = memory_from_args(
            &args,
            ApiVersion {
                major: 0,
                minor: 116,
            },
        );
        assert_eq!(new.total_bytes, Some(256));
    }

    #[test]
    fn only_missing_or_unimplemented_calls_are_optional() {
        let unsupported = Error::Unsupported {
            function: "PJRT_Executable_GetCostAnalysis",
            version: ApiVersion {
                major: 0,
                minor: 60,
            },
        };
        assert_eq!(optional::<()>(Err(unsupported)).unwrap(), None);
        let plugin = |code| Error::Plugin {
            function: "PJRT_Executable_GetCostAnalysis",
            code,
            message: String::new(),
        };
        assert_eq!(
            optional::<()>(Err(plugin(ErrorCode::Unimplemented))).unwrap(),
            None
        );
        assert!(optional::<()>(Err(plugin(ErrorCode::Internal))).is_err());
    }
}
