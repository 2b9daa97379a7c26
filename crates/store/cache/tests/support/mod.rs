//! Shared by the cache's tests: entries of a made-up program, and lookups that must hit.
#![allow(dead_code)]

use std::collections::BTreeMap;

use tpuc_cache::{
    Cache, Key, KeyParts, Lookup, MANIFEST_FORMAT, Manifest, Payload, PluginInfo, Signature,
    TargetId, sha256,
};
use tpuc_report::{CostAnalysis, ExecutableReport, MemoryStats};

pub fn manifest(module: &str, payload: &[u8]) -> Manifest {
    let key_parts = KeyParts {
        module_sha256: sha256(module.as_bytes()),
        compile_options: "1a0420012801".into(),
        target: TargetId {
            platform: "cpu".into(),
            platform_version: "cpu".into(),
            pjrt_api_version: "0.115".into(),
            plugin_sha256: sha256(b"plugin"),
            topology: "cpu:1".into(),
        },
        tpuc_version: "0.1.0".into(),
        env: BTreeMap::from([("XLA_FLAGS".to_owned(), None)]),
    };
    Manifest {
        format: MANIFEST_FORMAT.into(),
        key: key_parts.key(),
        key_parts,
        target: "cpu".into(),
        model: None,
        plugin: PluginInfo {
            file: "plugin.so".into(),
            attributes: BTreeMap::new(),
        },
        payload: Payload::of(payload),
        signature: Signature::default(),
        dims: BTreeMap::new(),
        compile_seconds: 0.5,
        created_unix: 1,
        report: libtpu_report(),
    }
}

/// What libtpu reported for a 128x256 · 256x512 matmul and tanh on `v5e:2x2`.
pub fn libtpu_report() -> ExecutableReport {
    ExecutableReport {
        memory: Some(MemoryStats {
            argument_bytes: 655_360,
            output_bytes: 262_144,
            generated_code_bytes: 55_808,
            peak_bytes: Some(1_441_792),
            total_bytes: Some(55_808),
            ..MemoryStats::default()
        }),
        cost: Some(CostAnalysis {
            flops: Some(33_554_432.0),
            bytes_accessed: Some(3_019_264.0),
            transcendentals: Some(65_536.0),
            optimal_seconds: Some(4.093025836482411e-6),
            properties: BTreeMap::from([
                ("bytes accessed0{}".to_owned(), 655_872.0),
                ("utilization0{}".to_owned(), 3.0),
            ]),
        }),
    }
}

pub fn hit(cache: &Cache, key: &Key) -> Vec<u8> {
    match cache.lookup(key).unwrap() {
        Lookup::Hit(hit) => hit.payload,
        other => panic!("expected a hit, got {other:?}"),
    }
}
