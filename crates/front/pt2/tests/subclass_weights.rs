//! torchao's quantized weights, stored as tensor subclasses pickled in a nested `torch.save`
//! archive: read without running the pickle, each inner tensor a weight checked by its own
//! CRC-32.

use std::collections::BTreeMap;
use std::path::Path;

use tpuc_pt2::{Archive, DType, Pt2Error};

fn fixture() -> Vec<u8> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../testdata/models/torchao_weights.pt2");
    std::fs::read(path).expect("the torchao_weights fixture")
}

#[test]
fn every_layer_is_a_known_subclass_with_plain_inner_tensors() {
    let archive = Archive::from_bytes("torchao_weights.pt2", fixture()).unwrap();
    let classes: BTreeMap<&str, &str> = archive
        .subclasses()
        .map(|s| (s.fqn(), s.class().rsplit('.').next().unwrap()))
        .collect();
    assert_eq!(
        classes,
        BTreeMap::from([
            ("embed.weight", "IntxUnpackedToInt8Tensor"),
            ("float8.weight", "Float8Tensor"),
            ("int4.weight", "IntxUnpackedToInt8Tensor"),
            ("int8.weight", "Int8Tensor"),
            ("int8_group.weight", "Int8Tensor"),
        ])
    );
    let float8 = archive.subclass("float8.weight").unwrap();
    assert_eq!(
        (float8.dtype(), float8.sizes()),
        (DType::F32, &[32, 64][..])
    );
    let qdata = archive.tensor(float8.inner("qdata").unwrap()).unwrap();
    assert_eq!((qdata.dtype, qdata.sizes), (DType::F8E4M3FN, &[32, 64][..]));
    let int4 = archive.subclass("int4.weight").unwrap();
    let scale = archive.tensor(int4.inner("scale").unwrap()).unwrap();
    assert_eq!(scale.sizes, &[64, 2], "a scale per group of 32");
    // The subclass itself has no bytes: only its inner tensors are weights.
    assert!(archive.weight("int4.weight").is_none());
    assert!(archive.weight("int4.bias").is_some());
}

#[test]
fn damaged_inner_bytes_fail_their_own_read() {
    let bytes = fixture();
    let archive = Archive::from_bytes("torchao_weights.pt2", bytes.clone()).unwrap();
    let fqn = "int8.weight.qdata";
    let weight = archive.weight(fqn).unwrap();
    let entry = weight.storage_entry().to_owned();
    assert!(entry.ends_with("/archive/data/0"), "{entry}");
    let stored = archive
        .view(weight)
        .to_contiguous_bytes()
        .unwrap()
        .into_owned();
    let at = bytes
        .windows(stored.len())
        .position(|w| w == stored.as_slice())
        .expect("the inner tensor's bytes are stored as they are");
    let mut damaged = bytes;
    damaged[at + stored.len() / 2] ^= 0x10;

    let archive = Archive::from_bytes("damaged.pt2", damaged).expect("opening reads no weights");
    match archive.tensor(fqn).unwrap().to_contiguous_bytes() {
        Err(Pt2Error::ChecksumMismatch { entry: named, .. }) => assert_eq!(named, entry),
        other => panic!("read {other:?}"),
    }
    let intact = archive.tensor("int8.weight.scale").unwrap();
    assert!(intact.to_contiguous_bytes().is_ok());
}
