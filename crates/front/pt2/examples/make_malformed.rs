//! Rebuilds the malformed-archive corpus in `testdata/malformed/` from `testdata/models/mlp.pt2`:
//! each file is the real archive damaged in one specific way, and `expected.json` maps it to the
//! error code `tpuc-pt2` must report.
//!
//!     cargo run -p tpuc-pt2 --example make_malformed
//!
//! Deterministic: the same input archive gives byte-identical output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

#[path = "../tests/support/zip_writer.rs"]
mod zip_writer;

use zip_writer::{Entry, Layout, read_entries, write_zip};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../testdata");
    let original = std::fs::read(testdata.join("models/mlp.pt2"))?;
    let entries = read_entries(&original);
    let out_dir = testdata.join("malformed");
    std::fs::create_dir_all(&out_dir)?;
    for stale in std::fs::read_dir(&out_dir)? {
        let path = stale?.path();
        if path.extension().is_some_and(|e| e == "pt2") {
            std::fs::remove_file(path)?;
        }
    }

    let mut expected = BTreeMap::new();
    let mut emit = |name: &str, code: &str, bytes: Vec<u8>| -> std::io::Result<()> {
        expected.insert(format!("{name}.pt2"), code.to_owned());
        std::fs::write(out_dir.join(format!("{name}.pt2")), bytes)
    };

    // ---- byte edits of the real file ----
    emit("empty", "tpuc::pt2::zip::not_a_zip", Vec::new())?;
    emit(
        "truncated_half",
        "tpuc::pt2::zip::not_a_zip",
        original[..original.len() / 2].to_vec(),
    )?;
    let layout = Layout::of(&original);
    let zip64_record = layout.zip64_record.expect("torch writes zip64 end records");
    emit("eocd_wrong_entry_count", "tpuc::pt2::zip::corrupt", {
        let mut b = original.clone();
        let count = zip64_record + 32;
        let n = u64::from_le_bytes(b[count..count + 8].try_into()?) + 1;
        b[count..count + 8].copy_from_slice(&n.to_le_bytes());
        b
    })?;
    emit(
        "central_directory_beyond_file",
        "tpuc::pt2::zip::corrupt",
        {
            let mut b = original.clone();
            let at = zip64_record + 48;
            b[at..at + 8].copy_from_slice(&(original.len() as u64 + 4096).to_le_bytes());
            b
        },
    )?;
    emit("central_record_bad_signature", "tpuc::pt2::zip::corrupt", {
        let mut b = original.clone();
        b[layout.central_directory] ^= 0xFF;
        b
    })?;
    let weight_0 = layout.record("mlp/data/weights/weight_0");
    emit(
        "entry_size_beyond_file",
        "tpuc::pt2::zip::entry_out_of_bounds",
        {
            let mut b = original.clone();
            b[weight_0 + 20..weight_0 + 28]
                .copy_from_slice(&[0xF0, 0xFF, 0xFF, 0x0F, 0xF0, 0xFF, 0xFF, 0x0F]);
            b
        },
    )?;
    emit(
        "local_header_beyond_file",
        "tpuc::pt2::zip::entry_out_of_bounds",
        {
            let mut b = original.clone();
            b[weight_0 + 42..weight_0 + 46].copy_from_slice(&0x0FFF_FFF0u32.to_le_bytes());
            b
        },
    )?;
    // The case: the local header claims 64 more extra bytes than it has, so a reader that
    // trusts it hands out weights shifted by 64 bytes.
    let weight_0_local = layout.local_header(&original, "mlp/data/weights/weight_0");
    let grow_u16 = |b: &mut [u8], at: usize, by: u16| {
        let value = u16::from_le_bytes([b[at], b[at + 1]]) + by;
        b[at..at + 2].copy_from_slice(&value.to_le_bytes());
    };
    emit(
        "local_extra_length_plus_64",
        "tpuc::pt2::zip::local_header",
        {
            let mut b = original.clone();
            grow_u16(&mut b, weight_0_local + 28, 64);
            b
        },
    )?;
    // The same, with torch's alignment record grown too: the extra field stays well formed, only
    // the data offset is wrong (its data would overlap the next record).
    emit(
        "local_padding_record_plus_64",
        "tpuc::pt2::zip::local_header",
        {
            let mut b = original.clone();
            let name_len = "mlp/data/weights/weight_0".len();
            grow_u16(&mut b, weight_0_local + 28, 64);
            grow_u16(&mut b, weight_0_local + 30 + name_len + 2, 64);
            b
        },
    )?;
    // One flipped bit in a weight: the archive opens (no weight byte is read), and reading the
    // weight reports the damaged record. `read:` marks codes expected when reading weights.
    emit("weight_bit_flipped", "read:tpuc::pt2::zip::checksum", {
        let mut b = original.clone();
        b[layout.data(&original, "mlp/data/weights/weight_0") + 5] ^= 0x10;
        b
    })?;
    emit("json_bit_flipped", "tpuc::pt2::zip::checksum", {
        let mut b = original.clone();
        // Inside the opening `{"graph_module"`: still valid JSON after the flip, `{"graph_modulE"`.
        b[layout.data(&original, "mlp/models/model.json") + 13] ^= 0x20;
        b
    })?;
    let model_json = layout.record("mlp/models/model.json");
    emit("json_entry_claims_2gib", "tpuc::pt2::entry_too_large", {
        let mut b = original.clone();
        b[model_json + 20..model_json + 28].copy_from_slice(&[0, 0, 0, 0x80, 0, 0, 0, 0x80]);
        b
    })?;
    emit("encrypted_entry", "tpuc::pt2::zip::encrypted", {
        let mut b = original.clone();
        b[model_json + 8] |= 1;
        b
    })?;

    // ---- rewritten archives ----
    let edit = |f: &dyn Fn(&mut Vec<Entry>)| {
        let mut copy = entries.clone();
        f(&mut copy);
        write_zip(&copy)
    };
    let edit_json = |name: &'static str, f: &dyn Fn(&mut Value)| {
        edit(&|entries| {
            let entry = find(entries, name);
            let mut value: Value = serde_json::from_slice(&entry.data).expect("JSON record");
            f(&mut value);
            entry.data = serde_json::to_vec(&value).expect("JSON");
        })
    };
    const WEIGHTS: &str = "mlp/data/weights/model_weights_config.json";
    const CONSTANTS: &str = "mlp/data/constants/model_constants_config.json";
    const MODEL: &str = "mlp/models/model.json";
    emit("rewritten_intact", "ok", edit(&|_| {}))?;
    // The reader never opens the sample inputs (a pickle), so even a compressed junk one is fine.
    emit(
        "sample_inputs_never_opened",
        "ok",
        edit(&|e| {
            let entry = find(e, "mlp/data/sample_inputs/model.pt");
            entry.data = b"not a pickle: tpuc must never read this record".to_vec();
            entry.method = 8;
        }),
    )?;
    emit(
        "deflate_compressed_json",
        "tpuc::pt2::zip::compressed",
        edit(&|e| find(e, MODEL).method = 8),
    )?;
    emit(
        "deflate_compressed_weight",
        "tpuc::pt2::zip::compressed",
        edit(&|e| find(e, "mlp/data/weights/weight_0").method = 8),
    )?;
    emit(
        "dotdot_entry_name",
        "tpuc::pt2::zip::unsafe_name",
        edit(&|e| find(e, "mlp/byteorder").name = "mlp/../byteorder".into()),
    )?;
    emit(
        "absolute_entry_name",
        "tpuc::pt2::zip::unsafe_name",
        edit(&|e| find(e, "mlp/byteorder").name = "/mlp/byteorder".into()),
    )?;
    emit(
        "duplicate_entry",
        "tpuc::pt2::zip::duplicate_entry",
        edit(&|e| {
            let copy = find(e, "mlp/byteorder").clone();
            e.push(copy);
        }),
    )?;
    emit(
        "record_outside_root",
        "tpuc::pt2::not_pt2",
        edit(&|e| find(e, "mlp/byteorder").name = "other/byteorder".into()),
    )?;
    emit(
        "archive_format_not_pt2",
        "tpuc::pt2::not_pt2",
        edit(&|e| find(e, "mlp/archive_format").data = b"zip".to_vec()),
    )?;
    emit(
        "big_endian",
        "tpuc::pt2::byteorder",
        edit(&|e| find(e, "mlp/byteorder").data = b"big".to_vec()),
    )?;
    emit(
        "json_nesting_bomb",
        "tpuc::pt2::json",
        edit(&|e| {
            find(e, MODEL).data = [vec![b'['; 20_000], vec![b']'; 20_000]].concat();
        }),
    )?;
    emit(
        "json_truncated",
        "tpuc::pt2::json",
        edit(&|e| {
            let data = &mut find(e, MODEL).data;
            data.truncate(data.len() / 2);
        }),
    )?;
    emit(
        "missing_model_json",
        "tpuc::pt2::missing_model",
        edit(&|e| e.retain(|x| x.name != MODEL)),
    )?;
    emit(
        "missing_weight_file",
        "tpuc::pt2::missing_entry",
        edit(&|e| e.retain(|x| x.name != "mlp/data/weights/weight_0")),
    )?;
    emit(
        "weight_missing_from_config",
        "tpuc::pt2::missing_weight",
        edit_json(WEIGHTS, &|v| {
            v["config"]
                .as_object_mut()
                .expect("config")
                .remove("fc1.weight");
        }),
    )?;
    emit(
        "unknown_dtype_code",
        "tpuc::pt2::unknown_dtype",
        edit_json(WEIGHTS, &|v| {
            v["config"]["fc1.weight"]["tensor_meta"]["dtype"] = json!(99);
        }),
    )?;
    emit(
        "sparse_layout",
        "tpuc::pt2::bad_tensor_meta",
        edit_json(WEIGHTS, &|v| {
            v["config"]["fc1.weight"]["tensor_meta"]["layout"] = json!(1);
        }),
    )?;
    emit(
        "negative_stride",
        "tpuc::pt2::negative_dimension",
        edit_json(WEIGHTS, &|v| {
            v["config"]["fc1.weight"]["tensor_meta"]["strides"][1] = json!({"as_int": -1});
        }),
    )?;
    emit(
        "symbolic_weight_size",
        "tpuc::pt2::bad_tensor_meta",
        edit_json(WEIGHTS, &|v| {
            v["config"]["fc1.weight"]["tensor_meta"]["sizes"][0] = json!({"as_expr": {"expr_str": "Symbol('s0', positive=True, integer=True)", "hint": {"as_int": 8}}});
        }),
    )?;
    emit(
        "view_beyond_storage",
        "tpuc::pt2::view_out_of_bounds",
        edit_json(WEIGHTS, &|v| {
            v["config"]["fc1.weight"]["tensor_meta"]["storage_offset"] = json!({"as_int": 1000});
        }),
    )?;
    emit(
        "shape_product_overflow",
        "tpuc::pt2::shape_overflow",
        edit_json(WEIGHTS, &|v| {
            let meta = &mut v["config"]["fc1.weight"]["tensor_meta"];
            meta["sizes"] = json!([{"as_int": 1i64 << 62}, {"as_int": 1i64 << 62}]);
            meta["strides"] = json!([{"as_int": 0}, {"as_int": 0}]);
        }),
    )?;
    emit(
        "storage_not_multiple_of_itemsize",
        "tpuc::pt2::storage_size",
        edit(&|e| {
            find(e, "mlp/data/weights/weight_0").data.pop();
        }),
    )?;
    emit(
        "use_pickle_weight",
        "tpuc::pt2::pickled_payload",
        edit_json(WEIGHTS, &|v| {
            v["config"]["fc1.weight"]["use_pickle"] = json!(true);
        }),
    )?;
    emit(
        "custom_obj_constant",
        "tpuc::pt2::custom_object",
        edit(&|e| {
            let entry = find(e, CONSTANTS);
            entry.data = serde_json::to_vec(&json!({"config": {"tok": {
            "path_name": "custom_obj_0", "is_param": false, "use_pickle": true, "tensor_meta": null}}}))
        .expect("JSON");
            e.push(Entry::new(
                "mlp/data/constants/custom_obj_0",
                b"\x80\x02}q\x00.".to_vec(),
            ));
        }),
    )?;
    emit(
        "schema_major_7",
        "tpuc::pt2::schema_version",
        edit_json(MODEL, &|v| {
            v["schema_version"] = json!({"major": 7, "minor": 3});
            v["torch_version"] = json!("2.5.1");
        }),
    )?;
    emit(
        "schema_major_9_unparseable",
        "tpuc::pt2::schema_version",
        edit_json(MODEL, &|v| {
            v["schema_version"] = json!({"major": 9, "minor": 0});
            v["graph_module"] = json!("a future layout");
        }),
    )?;
    // Two nodes with one FX name, and two nodes defining one value: torch never writes either,
    // and a graph that had them would lower one node's value in place of the other's.
    emit(
        "duplicate_node_name",
        "tpuc::pt2::duplicate_node",
        edit_json(MODEL, &|v| {
            v["graph_module"]["graph"]["nodes"][2]["name"] = json!("linear");
        }),
    )?;
    emit(
        "duplicate_node_output",
        "tpuc::pt2::duplicate_node",
        edit_json(MODEL, &|v| {
            v["graph_module"]["graph"]["nodes"][2]["outputs"][0]["as_tensor"]["name"] =
                json!("linear");
        }),
    )?;
    // A size that is a 100,000-digit integer: the archive opens (sizes of graph values are
    // parsed when lowering), and the overflow diagnostic quotes a bounded part of it.
    emit(
        "sym_size_100000_digits",
        "ok",
        edit_json(MODEL, &|v| {
            let digits = "9".repeat(100_000);
            v["graph_module"]["graph"]["tensor_values"]["linear"]["sizes"][0] = json!({
                "as_expr": {"expr_str": format!("Integer({digits})"), "hint": {"as_int": 2}}
            });
        }),
    )?;
    emit("legacy_flat_2_7", "tpuc::pt2::legacy_flat_archive", {
        let model = find_in(&entries, MODEL).data.clone();
        write_zip(&[
            Entry::new("serialized_exported_program.json", model),
            Entry::new(
                "serialized_state_dict.pt",
                b"PK-pickle-placeholder".to_vec(),
            ),
            Entry::new("serialized_constants.pt", Vec::new()),
            Entry::new("serialized_example_inputs.pt", Vec::new()),
            Entry::new("version", b"8.7".to_vec()),
        ])
    })?;
    emit(
        "pickled_weights_2_8",
        "tpuc::pt2::pickled_weights",
        edit(&|e| {
            e.retain(|x| {
                !x.name.starts_with("mlp/data/weights/")
                    && !x.name.starts_with("mlp/data/constants/")
            });
            e.push(Entry::new(
                "mlp/data/weights/model.pt",
                b"\x80\x02}q\x00.".to_vec(),
            ));
            e.push(Entry::new(
                "mlp/data/constants/model.pt",
                b"\x80\x02}q\x00.".to_vec(),
            ));
            let model = find(e, MODEL);
            let mut v: Value = serde_json::from_slice(&model.data).expect("JSON");
            v["torch_version"] = json!("2.8.0+cpu");
            v["schema_version"] = json!({"major": 8, "minor": 8});
            model.data = serde_json::to_vec(&v).expect("JSON");
        }),
    )?;
    emit(
        "aotinductor_package",
        "tpuc::pt2::aoti_package",
        edit(&|e| {
            e.push(Entry::new(
                "mlp/data/aotinductor/model/model.wrapper.so",
                b"\x7fELF".to_vec(),
            ));
        }),
    )?;

    let mut table = serde_json::to_string_pretty(&expected)?;
    table.push('\n');
    std::fs::write(out_dir.join("expected.json"), table)?;
    println!(
        "wrote {} archives to {}",
        expected.len(),
        relative(&out_dir)
    );
    Ok(())
}

fn relative(path: &Path) -> String {
    let mut parts: Vec<_> = path.components().rev().take(2).collect();
    parts.reverse();
    parts.iter().collect::<PathBuf>().display().to_string()
}

fn find<'a>(entries: &'a mut [Entry], name: &str) -> &'a mut Entry {
    entries
        .iter_mut()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("mlp.pt2 has no `{name}`"))
}

fn find_in<'a>(entries: &'a [Entry], name: &str) -> &'a Entry {
    entries
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("mlp.pt2 has no `{name}`"))
}
