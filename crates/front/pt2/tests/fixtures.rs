//! Every fixture listed in testdata/manifest.json, both variants, against the facts torch recorded
//! when it generated them: signature, op histograms, and the sha256 of every weight's bytes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};
use tpuc_pt2::schema::OutputSpec;
use tpuc_pt2::{Archive, DType, Dialect, Dim, SymExpr, WeightKind};

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../testdata")
}

fn manifest() -> Value {
    let text =
        std::fs::read_to_string(testdata().join("manifest.json")).expect("testdata/manifest.json");
    serde_json::from_str(&text).expect("manifest is JSON")
}

/// (model, variant, path) for every archive the manifest lists.
fn fixtures(manifest: &Value) -> Vec<(String, String, PathBuf)> {
    let mut out = Vec::new();
    for (model, entry) in manifest["models"].as_object().expect("models") {
        for variant in ["pt2", "core"] {
            let file = entry["files"][variant].as_str().expect("file path");
            out.push((model.clone(), variant.to_owned(), testdata().join(file)));
        }
    }
    assert!(!out.is_empty(), "the manifest lists no models");
    out
}

/// Compares a dimension with the manifest's (an int, or sympy `str` text for symbolic ones) by
/// evaluating both at a few symbol values.
fn assert_dim(what: &str, dim: &Dim, expected: &Value) {
    match (dim, expected) {
        (Dim::Static(size), Value::Number(n)) => assert_eq!(Some(*size), n.as_i64(), "{what}"),
        (Dim::Symbolic { expr, .. }, Value::String(text)) => {
            let want =
                SymExpr::parse(text).unwrap_or_else(|e| panic!("{what}: manifest dim {text}: {e}"));
            assert_eq!(expr.free_symbols(), want.free_symbols(), "{what}");
            for value in [1, 2, 7, 64] {
                let env: HashMap<String, i64> = expr
                    .free_symbols()
                    .into_iter()
                    .map(|s| (s.to_owned(), value))
                    .collect();
                assert_eq!(
                    expr.eval(&env),
                    want.eval(&env),
                    "{what}: {expr} vs {text} at {value}"
                );
            }
        }
        _ => panic!("{what}: dim {dim} vs manifest {expected}"),
    }
}

fn assert_shape(what: &str, shape: &[Dim], expected: &Value) {
    let expected = expected.as_array().expect("shape");
    assert_eq!(shape.len(), expected.len(), "{what}: rank");
    for (i, (dim, want)) in shape.iter().zip(expected).enumerate() {
        assert_dim(&format!("{what} dim {i}"), dim, want);
    }
}

fn dtype(value: &Value) -> DType {
    DType::from_name(value.as_str().expect("dtype name")).expect("known dtype")
}

fn histogram(value: &Value) -> BTreeMap<String, usize> {
    value
        .as_object()
        .expect("histogram")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().expect("count") as usize))
        .collect()
}

fn owned(map: BTreeMap<&str, usize>) -> BTreeMap<String, usize> {
    map.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
}

#[test]
fn every_fixture_matches_the_manifest() {
    let manifest = manifest();
    let mut checked_weights = 0;
    for (model, variant, path) in fixtures(&manifest) {
        let what = format!("{model}.{variant}");
        let expected = &manifest["models"][&model];
        let facts = &expected["variants"][&variant];
        let archive =
            Archive::open(&path).unwrap_or_else(|e| panic!("{what}: {:?}", miette::Report::new(e)));

        // Provenance and dialect.
        assert_eq!(archive.schema_version().major, 8, "{what}");
        assert_eq!(
            archive.torch_version(),
            expected["torch_version"].as_str().unwrap(),
            "{what}"
        );
        let dialect = match facts["dialect"].as_str().unwrap() {
            "TRAINING" => Dialect::Training,
            "ATEN" => Dialect::Aten,
            other => Dialect::Other(other.to_owned()),
        };
        assert_eq!(archive.dialect(), &dialect, "{what}");
        let stem = path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .strip_suffix(".pt2")
            .unwrap();
        assert_eq!(archive.root(), stem, "{what}");

        // User inputs: names, dtypes, shapes (symbolic too) and range constraints.
        let inputs = archive.user_inputs();
        let want_inputs = expected["inputs"].as_array().unwrap();
        assert_eq!(inputs.len(), want_inputs.len(), "{what}: inputs");
        for (input, want) in inputs.iter().zip(want_inputs) {
            let name = want["name"].as_str().unwrap();
            assert_eq!(input.name, Some(name), "{what}");
            let meta = input
                .meta
                .unwrap_or_else(|| panic!("{what}: no meta for {name}"));
            assert_eq!(meta.dtype(), Some(dtype(&want["dtype"])), "{what}: {name}");
            assert_shape(
                &format!("{what} input {name}"),
                &meta.shape().unwrap(),
                &want["shape"],
            );
        }
        let ranges: BTreeMap<String, (Option<i64>, Option<i64>)> = archive
            .range_constraints()
            .iter()
            .map(|(k, r)| (k.clone(), (r.min_val, r.max_val)))
            .collect();
        let want_ranges: BTreeMap<String, (Option<i64>, Option<i64>)> =
            expected["range_constraints"]
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), (v[0].as_i64(), v[1].as_i64())))
                .collect();
        assert_eq!(ranges, want_ranges, "{what}: range constraints");

        // User outputs and buffer mutations.
        let outputs = archive.user_outputs();
        let want_outputs = expected["outputs"].as_array().unwrap();
        assert_eq!(outputs.len(), want_outputs.len(), "{what}: outputs");
        for (i, (output, want)) in outputs.iter().zip(want_outputs).enumerate() {
            let meta = output
                .meta
                .unwrap_or_else(|| panic!("{what}: output {i} has no meta"));
            assert_eq!(
                meta.dtype(),
                Some(dtype(&want["dtype"])),
                "{what}: output {i}"
            );
            assert_shape(
                &format!("{what} output {i}"),
                &meta.shape().unwrap(),
                &want["shape"],
            );
        }
        let mutations: Vec<&str> = archive
            .signature()
            .buffer_mutations()
            .map(|m| m.buffer_name.as_str())
            .collect();
        let want_mutations: Vec<&str> = facts["buffer_mutations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert_eq!(mutations, want_mutations, "{what}: buffer mutations");
        let first_user_output = archive
            .signature()
            .output_specs
            .iter()
            .position(|s| matches!(s, OutputSpec::UserOutput(_)));
        if let Some(first) = first_user_output {
            assert!(first >= mutations.len(), "{what}: mutations come first");
        }

        // Op histograms, top level and inside higher-order-op subgraphs.
        let (top, sub) = archive.graph().op_histograms();
        assert_eq!(owned(top), histogram(&facts["ops"]), "{what}: ops");
        assert_eq!(
            owned(sub),
            histogram(&facts["subgraph_ops"]),
            "{what}: subgraph ops"
        );

        // Weights: kinds, dtypes, shapes and the sha256 of their contiguous bytes.
        // A program with tensor-subclass weights lists its own (the subclasses' inner tensors).
        let want_weights = facts
            .get("weights")
            .unwrap_or(&expected["weights"])
            .as_object()
            .unwrap();
        let fqns: BTreeSet<&str> = archive.weights().map(|w| w.fqn()).collect();
        let want_fqns: BTreeSet<&str> = want_weights.keys().map(String::as_str).collect();
        assert_eq!(fqns, want_fqns, "{what}: weights");
        for weight in archive.weights() {
            let fqn = weight.fqn();
            let want = &want_weights[fqn];
            let kind = match (want["kind"].as_str().unwrap(), want["persistent"].as_bool()) {
                ("parameter", _) => WeightKind::Parameter,
                ("buffer", persistent) => WeightKind::Buffer {
                    persistent: persistent.unwrap(),
                },
                ("constant", _) => WeightKind::Constant,
                (other, _) => panic!("{what}: kind {other}"),
            };
            assert_eq!(weight.kind(), kind, "{what}: {fqn}");
            if let Some(parent) = want.get("subclass").and_then(|p| p.as_str()) {
                let subclass = archive.subclass(parent).expect("a subclass weight");
                let attribute = fqn.strip_prefix(&format!("{parent}.")).unwrap();
                assert_eq!(subclass.inner(attribute), Some(fqn), "{what}: {fqn}");
            }
            let view = archive.tensor(fqn).unwrap();
            assert_eq!(view.dtype, dtype(&want["dtype"]), "{what}: {fqn}");
            let shape: Vec<usize> = want["shape"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d.as_u64().unwrap() as usize)
                .collect();
            assert_eq!(view.sizes, shape.as_slice(), "{what}: {fqn}");
            let bytes = view.to_contiguous_bytes().unwrap();
            assert_eq!(bytes.len(), view.nbytes(), "{what}: {fqn}");
            let digest = format!("{:x}", Sha256::digest(&bytes));
            assert_eq!(
                digest,
                want["sha256"].as_str().unwrap(),
                "{what}: {fqn} bytes"
            );
            let mut streamed = Vec::new();
            view.write_contiguous(&mut streamed).unwrap();
            assert_eq!(streamed, &*bytes, "{what}: {fqn} streamed");
            checked_weights += 1;
        }
        // Tensors torch saw sharing a storage share one record.
        for group in facts
            .get("tied")
            .unwrap_or(&expected["tied"])
            .as_array()
            .unwrap()
        {
            let entries: BTreeSet<&str> = group
                .as_array()
                .unwrap()
                .iter()
                .map(|fqn| {
                    archive
                        .weight(fqn.as_str().unwrap())
                        .unwrap()
                        .storage_entry()
                })
                .collect();
            assert_eq!(
                entries.len(),
                1,
                "{what}: tied group {group} spans {entries:?}"
            );
        }
        let distinct: u64 = archive
            .weights()
            .map(|w| (w.storage_entry(), w.storage_len() as u64))
            .collect::<BTreeMap<_, _>>()
            .values()
            .sum();
        assert_eq!(archive.storage_bytes(), distinct, "{what}: storage bytes");
    }
    assert!(checked_weights > 0);
}

#[test]
fn placeholders_pair_with_graph_inputs() {
    let manifest = manifest();
    for (model, variant, path) in fixtures(&manifest) {
        let archive = Archive::open(&path).unwrap();
        let graph = archive.graph();
        let specs = &archive.signature().input_specs;
        assert_eq!(graph.inputs.len(), specs.len(), "{model}.{variant}");
        let inner: Vec<&str> = archive
            .subclasses()
            .flat_map(|s| s.attributes().filter_map(|a| s.inner(a)))
            .collect();
        let placed = archive.weights().filter_map(|w| {
            let Some(placeholder) = w.placeholder() else {
                assert!(inner.contains(&w.fqn()), "{model}.{variant}: {}", w.fqn());
                return None;
            };
            Some((placeholder, w.dtype(), w.sizes()))
        });
        // A subclass weight's graph input presents the subclass's type.
        let subclasses = archive.subclasses().map(|s| {
            let placeholder = s
                .placeholder()
                .expect("every fixture weight is a graph input");
            (placeholder, s.dtype(), s.sizes())
        });
        for (placeholder, dtype, sizes) in placed.chain(subclasses) {
            assert!(
                graph
                    .inputs
                    .iter()
                    .any(|i| i.value_name() == Some(placeholder)),
                "{model}.{variant}: {placeholder}"
            );
            // The graph's metadata for the placeholder agrees with the payload's.
            let meta = &graph.tensor_values[placeholder];
            assert_eq!(
                meta.dtype(),
                Some(dtype),
                "{model}.{variant}: {placeholder}"
            );
            assert_eq!(
                meta.static_sizes().unwrap(),
                sizes.iter().map(|&s| s as i64).collect::<Vec<_>>()
            );
        }
    }
}

#[test]
fn nodes_point_at_user_code() {
    let manifest = manifest();
    for (model, variant, path) in fixtures(&manifest) {
        let archive = Archive::open(&path).unwrap();
        let mut with_frames = 0;
        for (_, node) in archive.graph().walk() {
            if let Some(frame) = node.user_frame() {
                assert!(
                    frame.line > 0 && !frame.file.is_empty(),
                    "{model}.{variant}: {frame:?}"
                );
                with_frames += 1;
            }
            assert!(
                node.display_name().is_some() || node.outputs.is_empty(),
                "{model}.{variant}"
            );
        }
        assert!(
            with_frames > 0,
            "{model}.{variant}: no node has a stack trace"
        );
    }
}
