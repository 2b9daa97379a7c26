//! The weight table: every parameter, buffer and lifted constant mapped through the payload
//! configs to its storage file, with the view validated against the storage.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::OnceLock;

use crate::DType;
use crate::archive::{Reader, input_payloads};
use crate::error::{Pt2Error, Result};
use crate::schema::{ExportedProgram, InputSpec, LAYOUT_STRIDED, PayloadMeta, SymInt, TensorMeta};
use crate::tensor::{WeightKind, extent};
use crate::zip::ZipIndex;

/// A stored tensor of the program.
#[derive(Clone, Debug)]
pub struct Weight {
    pub(crate) fqn: String,
    pub(crate) kind: WeightKind,
    pub(crate) placeholder: Option<String>,
    pub(crate) entry: String,
    pub(crate) meta: TensorMeta,
    pub(crate) dtype: DType,
    pub(crate) sizes: Vec<usize>,
    pub(crate) strides: Vec<usize>,
    pub(crate) storage_offset: usize,
    pub(crate) storage: Range<usize>,
    /// Index of its record in the archive's storages.
    pub(crate) storage_id: usize,
}

/// A storage record, shared by the weights that view it (tied weights, views).
#[derive(Debug)]
pub(crate) struct Storage {
    /// Index of the record in the zip directory.
    pub entry: usize,
    pub range: Range<usize>,
    /// The CRC-32 of the bytes, computed on their first read.
    pub crc32: OnceLock<u32>,
}

/// The distinct storage records of `weights`, in first-use order; sets each `storage_id`.
pub(crate) fn storages(zip: &ZipIndex, weights: &mut [Weight]) -> Vec<Storage> {
    let mut storages = Vec::new();
    let mut ids = HashMap::new();
    for weight in weights {
        let entry = zip
            .index(&weight.entry)
            .expect("validated weights name an entry of the archive");
        weight.storage_id = *ids.entry(entry).or_insert_with(|| {
            storages.push(Storage {
                entry,
                range: weight.storage.clone(),
                crc32: OnceLock::new(),
            });
            storages.len() - 1
        });
    }
    storages
}

impl Weight {
    /// The state-dict or constant name, e.g. `fc1.weight`.
    pub fn fqn(&self) -> &str {
        &self.fqn
    }

    /// Parameter, buffer or constant.
    pub fn kind(&self) -> WeightKind {
        self.kind
    }

    /// The graph input that receives it (`p_fc1_weight`), if the signature names one.
    pub fn placeholder(&self) -> Option<&str> {
        self.placeholder.as_deref()
    }

    /// The archive record holding its storage, e.g. `mlp/data/weights/weight_0`. Tensors that share
    /// a storage (tied weights, views) name the same record.
    pub fn storage_entry(&self) -> &str {
        &self.entry
    }

    /// The payload's tensor metadata as stored in the config.
    pub fn meta(&self) -> &TensorMeta {
        &self.meta
    }

    /// Element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Sizes, in elements.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// Strides, in elements.
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }

    /// Offset of the first element in the storage, in elements.
    pub fn storage_offset(&self) -> usize {
        self.storage_offset
    }

    /// Byte length of the storage record.
    pub fn storage_len(&self) -> usize {
        self.storage.len()
    }
}

const FOLDERS: [&str; 2] = ["weights", "constants"];

pub(crate) fn resolve(
    reader: &Reader<'_>,
    root: &str,
    model: &str,
    program: &ExportedProgram,
) -> Result<Vec<Weight>> {
    let configs = [
        reader.payload_config(root, model, FOLDERS[0])?,
        reader.payload_config(root, model, FOLDERS[1])?,
    ];
    let signature = &program.graph_module.signature;
    if let Some(InputSpec::CustomObj(obj)) = signature
        .input_specs
        .iter()
        .find(|spec| matches!(spec, InputSpec::CustomObj(_)))
    {
        return Err(Pt2Error::CustomObject {
            archive: reader.path.to_owned(),
            entry: obj.arg.class_fqn.clone(),
            fqn: obj.custom_obj_name.clone(),
        });
    }

    let mut weights = Vec::new();
    let mut seen = HashSet::new();
    for (fqn, placeholder, kind) in input_payloads(signature) {
        if !seen.insert(fqn.to_owned()) {
            continue;
        }
        let first = match kind {
            WeightKind::Parameter | WeightKind::Buffer { persistent: true } => 0,
            _ => 1,
        };
        let found = [first, 1 - first]
            .into_iter()
            .find_map(|i| configs[i].config.get(fqn).map(|meta| (FOLDERS[i], meta)));
        let Some((folder, meta)) = found else {
            return Err(Pt2Error::MissingWeight {
                archive: reader.path.to_owned(),
                fqn: fqn.to_owned(),
            });
        };
        weights.push(validate(
            reader,
            root,
            folder,
            fqn,
            kind,
            Some(placeholder),
            meta,
        )?);
    }
    // Payloads the signature does not name (torch writes none today) are still listed.
    for (i, config) in configs.iter().enumerate() {
        for (fqn, meta) in &config.config {
            if seen.insert(fqn.clone()) {
                let kind = match (i, meta.is_param) {
                    (_, true) => WeightKind::Parameter,
                    (0, false) => WeightKind::Buffer { persistent: true },
                    _ => WeightKind::Constant,
                };
                weights.push(validate(reader, root, FOLDERS[i], fqn, kind, None, meta)?);
            }
        }
    }
    Ok(weights)
}

fn validate(
    reader: &Reader<'_>,
    root: &str,
    folder: &str,
    fqn: &str,
    kind: WeightKind,
    placeholder: Option<&str>,
    payload: &PayloadMeta,
) -> Result<Weight> {
    let archive = || reader.path.to_owned();
    let entry = format!("{root}/data/{folder}/{}", payload.path_name);
    let bad = |reason: String| Pt2Error::BadTensorMeta {
        archive: archive(),
        fqn: fqn.to_owned(),
        reason,
    };
    if payload.path_name.starts_with("custom_obj_") || payload.path_name.starts_with("opaque_obj_")
    {
        return Err(Pt2Error::CustomObject {
            archive: archive(),
            entry,
            fqn: fqn.to_owned(),
        });
    }
    if payload.use_pickle {
        return Err(Pt2Error::PickledPayload {
            archive: archive(),
            entry,
            fqn: fqn.to_owned(),
        });
    }
    let Some(meta) = &payload.tensor_meta else {
        return Err(Pt2Error::CustomObject {
            archive: archive(),
            entry,
            fqn: fqn.to_owned(),
        });
    };
    if payload.path_name.is_empty() || payload.path_name.contains('/') {
        return Err(bad(format!(
            "payload path `{}` is not a file name",
            payload.path_name
        )));
    }
    let dtype = meta.dtype().ok_or_else(|| Pt2Error::UnknownDtype {
        archive: archive(),
        fqn: fqn.to_owned(),
        code: meta.dtype_code,
    })?;
    if meta.layout != LAYOUT_STRIDED {
        return Err(bad(format!("layout {} is not strided (7)", meta.layout)));
    }
    if meta.sizes.len() != meta.strides.len() {
        return Err(bad(format!(
            "{} sizes but {} strides",
            meta.sizes.len(),
            meta.strides.len()
        )));
    }
    let constant = |what: &'static str, value: &SymInt| -> Result<usize> {
        let value = value
            .as_int()
            .ok_or_else(|| bad(format!("{what} is symbolic")))?;
        usize::try_from(value).map_err(|_| Pt2Error::NegativeDimension {
            archive: archive(),
            fqn: fqn.to_owned(),
            what,
            value,
        })
    };
    let sizes = meta
        .sizes
        .iter()
        .map(|s| constant("size", s))
        .collect::<Result<Vec<_>>>()?;
    let strides = meta
        .strides
        .iter()
        .map(|s| constant("stride", s))
        .collect::<Result<Vec<_>>>()?;
    let storage_offset = constant("storage offset", &meta.storage_offset)?;
    let last_element =
        extent(&sizes, &strides, storage_offset, dtype.itemsize()).ok_or_else(|| {
            Pt2Error::ShapeOverflow {
                archive: archive(),
                fqn: fqn.to_owned(),
            }
        })?;

    let storage = reader
        .range(&entry)
        .ok_or_else(|| Pt2Error::MissingEntry {
            archive: archive(),
            entry: entry.clone(),
        })??;
    let len = storage.len() as u64;
    let itemsize = dtype.itemsize() as u64;
    if !len.is_multiple_of(itemsize) {
        return Err(Pt2Error::StorageSize {
            archive: archive(),
            entry,
            fqn: fqn.to_owned(),
            len,
            itemsize: dtype.itemsize(),
            dtype,
        });
    }
    let storage_elements = len / itemsize;
    // A 0-byte payload stands for a tensor without data (zeros); anything else must hold the view.
    if let Some(last) = last_element
        && len > 0
        && last >= storage_elements
    {
        return Err(Pt2Error::ViewOutOfBounds {
            archive: archive(),
            entry,
            fqn: fqn.to_owned(),
            needed_elements: last,
            storage_elements,
        });
    }
    Ok(Weight {
        fqn: fqn.to_owned(),
        kind,
        placeholder: placeholder.map(str::to_owned),
        entry,
        meta: meta.clone(),
        dtype,
        sizes,
        strides,
        storage_offset,
        storage,
        storage_id: 0,
    })
}
