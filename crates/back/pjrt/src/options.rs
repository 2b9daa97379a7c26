//! What to compile ([`Program`]) and how ([`CompileOptions`], serialised as
//! `xla.CompileOptionsProto`).

use std::borrow::Cow;
use std::collections::BTreeMap;

use prost::Message;

/// A program for `PJRT_Client_Compile` / `PJRT_Compile`.
#[derive(Debug, Clone)]
pub struct Program<'a> {
    format: &'static str,
    code: Cow<'a, [u8]>,
}

impl<'a> Program<'a> {
    /// MLIR text (pretty or generic form) of a StableHLO module.
    pub fn mlir(text: &'a str) -> Self {
        Self::mlir_bytes(text.as_bytes())
    }

    /// MLIR in any form the plugin parses: text, bytecode or a StableHLO portable artifact.
    pub fn mlir_bytes(code: &'a [u8]) -> Self {
        Program {
            format: "mlir",
            code: Cow::Borrowed(code),
        }
    }

    pub fn format(&self) -> &'static str {
        self.format
    }

    pub fn code(&self) -> &[u8] {
        &self.code
    }
}

/// Compile options: replicas, SPMD partitions, partitioner, device assignment and XLA option
/// overrides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileOptions {
    num_replicas: i64,
    num_partitions: i64,
    use_spmd_partitioning: bool,
    use_shardy_partitioner: bool,
    /// `[computation][replica]` device ids.
    device_assignment: Option<Vec<Vec<i64>>>,
    /// XLA debug options by name (`env_option_overrides`), applied over the plugin's defaults.
    overrides: BTreeMap<String, OptionValue>,
}

/// The value of an XLA debug option override.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OptionValue {
    Bool(bool),
    /// A string, parsed as XLA parses the option's flag (a list option takes a comma-separated
    /// list; an empty string is the empty list).
    Text(String),
}

/// Overrides every compile carries: StableHLO's semantics where an XLA backend departs from
/// them by default. XLA:CPU's fast `minimum`/`maximum` drop NaN; the spec propagates it (and
/// so does torch, whose max-pool tpuc lowers to a plain windowed `maximum`).
const SPEC_SEMANTICS: &[(&str, bool)] = &[("xla_cpu_enable_fast_min_max", false)];

/// Overrides that keep XLA:CPU from copying arguments handed to it in place: its YNNPACK dot
/// fusions repack a dot's operand into a new buffer on every execution (unless its shape
/// happens to suit YNNPACK), which holds a second copy of a model's weights while it runs.
const IN_PLACE_ARGUMENTS: &[(&str, &str)] = &[("xla_cpu_experimental_ynn_fusion_type", "")];

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            num_replicas: 1,
            num_partitions: 1,
            use_spmd_partitioning: false,
            use_shardy_partitioner: false,
            device_assignment: None,
            overrides: SPEC_SEMANTICS
                .iter()
                .map(|&(name, value)| (name.to_owned(), OptionValue::Bool(value)))
                .chain(
                    IN_PLACE_ARGUMENTS.iter().map(|&(name, value)| {
                        (name.to_owned(), OptionValue::Text(value.to_owned()))
                    }),
                )
                .collect(),
        }
    }
}

impl CompileOptions {
    /// One replica, one partition.
    pub fn new() -> Self {
        Self::default()
    }

    pub fn replicas(mut self, count: i64) -> Self {
        self.num_replicas = count;
        self
    }

    /// `count` SPMD partitions (turns SPMD partitioning on when `count > 1`).
    pub fn partitions(mut self, count: i64) -> Self {
        self.num_partitions = count;
        self.use_spmd_partitioning |= count > 1;
        self
    }

    pub fn spmd(mut self, on: bool) -> Self {
        self.use_spmd_partitioning = on;
        self
    }

    /// Use the Shardy partitioner, needed for `sdy.mesh` / `sdy.sharding` annotations.
    pub fn shardy(mut self, on: bool) -> Self {
        self.use_shardy_partitioner = on;
        self
    }

    /// One replica, one partition per listed device: partition `i` runs on `devices[i]`.
    /// Sets the partition count to match and turns SPMD partitioning on for several devices.
    pub fn partition_devices(self, devices: &[i64]) -> Self {
        let assignment = devices.iter().map(|&id| vec![id]).collect();
        self.partitions(devices.len() as i64)
            .device_assignment(assignment)
    }

    /// A full device assignment: `devices[computation][replica]` is a device id.
    pub fn device_assignment(mut self, devices: Vec<Vec<i64>>) -> Self {
        self.device_assignment = Some(devices);
        self
    }

    /// Sets an XLA debug option by name for this compile (`xla_cpu_enable_fast_min_max`, ...).
    pub fn option(mut self, name: &str, value: OptionValue) -> Self {
        self.overrides.insert(name.to_owned(), value);
        self
    }

    /// The serialised `xla.CompileOptionsProto`.
    pub fn encode(&self) -> Vec<u8> {
        let device_assignment = self.device_assignment.as_ref().map(|computations| {
            let replica_count = computations.first().map_or(0, Vec::len);
            proto::DeviceAssignment {
                replica_count: replica_count as i32,
                computation_count: computations.len() as i32,
                computation_devices: computations
                    .iter()
                    .map(|replicas| proto::ComputationDevice {
                        replica_device_ids: replicas.clone(),
                    })
                    .collect(),
            }
        });
        proto::CompileOptions {
            executable_build_options: Some(proto::ExecutableBuildOptions {
                num_replicas: self.num_replicas,
                num_partitions: self.num_partitions,
                use_spmd_partitioning: self.use_spmd_partitioning,
                device_assignment,
                use_shardy_partitioner: self.use_shardy_partitioner,
            }),
            env_option_overrides: self
                .overrides
                .iter()
                .map(|(name, value)| {
                    let value = match value {
                        OptionValue::Bool(value) => proto::OptionOverride {
                            bool_field: Some(*value),
                            ..Default::default()
                        },
                        OptionValue::Text(value) => proto::OptionOverride {
                            string_field: Some(value.clone()),
                            ..Default::default()
                        },
                    };
                    (name.clone(), value)
                })
                .collect(),
        }
        .encode_to_vec()
    }
}

/// The fields of XLA's protobuf messages that tpuc sets, with their field numbers from
/// `xla/pjrt/proto/compile_options.proto` and `xla/xla_data.proto`.
mod proto {
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct CompileOptions {
        #[prost(message, optional, tag = "3")]
        pub executable_build_options: Option<ExecutableBuildOptions>,
        #[prost(btree_map = "string, message", tag = "7")]
        pub env_option_overrides: std::collections::BTreeMap<String, OptionOverride>,
    }

    /// `xla.OptionOverrideProto`, of which tpuc sets the string or the boolean case of the
    /// `value` oneof.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct OptionOverride {
        #[prost(string, optional, tag = "1")]
        pub string_field: Option<String>,
        #[prost(bool, optional, tag = "2")]
        pub bool_field: Option<bool>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ExecutableBuildOptions {
        #[prost(int64, tag = "4")]
        pub num_replicas: i64,
        #[prost(int64, tag = "5")]
        pub num_partitions: i64,
        #[prost(bool, tag = "6")]
        pub use_spmd_partitioning: bool,
        #[prost(message, optional, tag = "9")]
        pub device_assignment: Option<DeviceAssignment>,
        #[prost(bool, tag = "19")]
        pub use_shardy_partitioner: bool,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct DeviceAssignment {
        #[prost(int32, tag = "1")]
        pub replica_count: i32,
        #[prost(int32, tag = "2")]
        pub computation_count: i32,
        #[prost(message, repeated, tag = "3")]
        pub computation_devices: Vec<ComputationDevice>,
    }

    #[derive(Clone, PartialEq, prost::Message)]
    pub struct ComputationDevice {
        #[prost(int64, repeated, tag = "1")]
        pub replica_device_ids: Vec<i64>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_options_are_one_replica_one_partition_spec_semantics_and_no_repacking() {
        let mut expected = vec![0x1a, 0x04, 0x20, 0x01, 0x28, 0x01];
        // field 7 (map entries, in key order) { key, value = { field 2 = false } } and
        // { key, value = { field 1 = "" } }
        for (key, value) in [
            (&b"xla_cpu_enable_fast_min_max"[..], &[0x10, 0x00][..]),
            (
                &b"xla_cpu_experimental_ynn_fusion_type"[..],
                &[0x0a, 0x00][..],
            ),
        ] {
            expected.extend([0x3a, (2 + key.len() + 2 + value.len()) as u8]);
            expected.extend([0x0a, key.len() as u8]);
            expected.extend(key);
            expected.extend([0x12, value.len() as u8]);
            expected.extend(value);
        }
        assert_eq!(CompileOptions::new().encode(), expected);
    }

    #[test]
    fn two_way_spmd_with_shardy() {
        let bytes = CompileOptions::new()
            .partition_devices(&[0, 1])
            .shardy(true)
            .encode();
        let decoded = proto::CompileOptions::decode(bytes.as_slice()).unwrap();
        let build = decoded.executable_build_options.unwrap();
        assert_eq!(build.num_partitions, 2);
        assert!(build.use_spmd_partitioning && build.use_shardy_partitioner);
        let assignment = build.device_assignment.unwrap();
        assert_eq!(
            (assignment.replica_count, assignment.computation_count),
            (1, 2)
        );
        assert_eq!(assignment.computation_devices[1].replica_device_ids, [1]);
    }
}
