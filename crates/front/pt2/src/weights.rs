//! The weight table: every parameter, buffer and lifted constant mapped through the payload
//! configs to its storage file, with the view validated against the storage.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::DType;
use crate::archive::{Reader, input_payloads};
use crate::error::{Pt2Error, Result};
use crate::schema::{
    Device, ExportedProgram, InputSpec, LAYOUT_STRIDED, PayloadMeta, SymInt, TensorMeta,
};
use crate::subclass::{self, Subclass};
use crate::tensor::{WeightKind, extent};
use crate::zip::{ZipEntry, ZipIndex};

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
    /// The record of a tensor stored inside a nested `torch.save` archive (a subclass's inner
    /// tensor), whose CRC-32 guards it; `None` for a record of the archive itself.
    pub(crate) nested: Option<ZipEntry>,
    /// Index of its record in the archive's storages.
    pub(crate) storage_id: usize,
}

/// A storage record, shared by the weights that view it (tied weights, views).
#[derive(Debug)]
pub(crate) struct Storage {
    /// The zip record, with the CRC-32 that guards its bytes.
    pub entry: ZipEntry,
    pub range: Range<usize>,
    /// The CRC-32 of the bytes, computed on their first read.
    pub crc32: OnceLock<u32>,
}

/// The distinct storage records of `weights`, in first-use order; sets each `storage_id`.
pub(crate) fn storages(zip: &ZipIndex, weights: &mut [Weight]) -> Vec<Storage> {
    let mut storages = Vec::new();
    let mut ids = HashMap::new();
    for weight in weights {
        let entry = weight.nested.clone().unwrap_or_else(|| {
            zip.get(&weight.entry)
                .expect("validated weights name an entry of the archive")
                .clone()
        });
        weight.storage_id = *ids.entry(weight.entry.clone()).or_insert_with(|| {
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

/// The weights of a program: plain ones, and the inner tensors of subclass weights (with the
/// subclasses themselves).
pub(crate) struct Resolved {
    pub weights: Vec<Weight>,
    pub subclasses: Vec<Subclass>,
}

pub(crate) fn resolve(
    reader: &Reader<'_>,
    root: &str,
    model: &str,
    program: &ExportedProgram,
) -> Result<Resolved> {
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

    let mut resolved = Resolved {
        weights: Vec::new(),
        subclasses: Vec::new(),
    };
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
        let payload = Payload {
            entry: format!("{root}/data/{folder}/{}", meta.path_name),
            fqn,
            kind,
            placeholder: Some(placeholder),
        };
        payload.validate(reader, meta, &mut resolved)?;
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
                let payload = Payload {
                    entry: format!("{root}/data/{}/{}", FOLDERS[i], meta.path_name),
                    fqn,
                    kind,
                    placeholder: None,
                };
                payload.validate(reader, meta, &mut resolved)?;
            }
        }
    }
    Ok(resolved)
}

/// One payload of a config, on its way to becoming weights.
struct Payload<'a> {
    entry: String,
    fqn: &'a str,
    kind: WeightKind,
    placeholder: Option<&'a str>,
}

/// Where a tensor's bytes are: a record of the archive, or one nested in a record.
struct Record {
    name: String,
    range: Range<usize>,
    nested: Option<ZipEntry>,
}

impl Payload<'_> {
    fn validate(
        &self,
        reader: &Reader<'_>,
        payload: &PayloadMeta,
        out: &mut Resolved,
    ) -> Result<()> {
        let archive = || reader.path.to_owned();
        let fqn = self.fqn;
        if payload.path_name.starts_with("custom_obj_")
            || payload.path_name.starts_with("opaque_obj_")
        {
            return Err(Pt2Error::CustomObject {
                archive: archive(),
                entry: self.entry.clone(),
                fqn: fqn.to_owned(),
            });
        }
        let Some(meta) = &payload.tensor_meta else {
            return Err(Pt2Error::CustomObject {
                archive: archive(),
                entry: self.entry.clone(),
                fqn: fqn.to_owned(),
            });
        };
        if payload.path_name.is_empty() || payload.path_name.contains('/') {
            return Err(self.bad(
                reader,
                format!("payload path `{}` is not a file name", payload.path_name),
            ));
        }
        let range = reader
            .range(&self.entry)
            .ok_or_else(|| Pt2Error::MissingEntry {
                archive: archive(),
                entry: self.entry.clone(),
            })??;
        if payload.use_pickle {
            return self.subclass(reader, meta, range, out);
        }
        let record = Record {
            name: self.entry.clone(),
            range,
            nested: None,
        };
        let weight = self.weight(reader, meta, record)?;
        out.weights.push(weight);
        Ok(())
    }

    fn bad(&self, reader: &Reader<'_>, reason: String) -> Pt2Error {
        Pt2Error::BadTensorMeta {
            archive: reader.path.to_owned(),
            fqn: self.fqn.to_owned(),
            reason,
        }
    }

    /// A subclass weight: its pickle read, each inner tensor a weight of its own.
    fn subclass(
        &self,
        reader: &Reader<'_>,
        meta: &TensorMeta,
        range: Range<usize>,
        out: &mut Resolved,
    ) -> Result<()> {
        let unreadable = |reason: String| Pt2Error::PickledPayload {
            archive: reader.path.to_owned(),
            entry: self.entry.clone(),
            fqn: self.fqn.to_owned(),
            reason,
        };
        let outer = &reader.bytes[range.clone()];
        // Errors inside the nested archive name the record they are in.
        let nested_path = PathBuf::from(format!("{} › {}", reader.path.display(), self.entry));
        let zip = ZipIndex::read(&nested_path, outer)
            .map_err(|_| unreadable("the record is not a torch.save archive".into()))?;
        let pickle = zip
            .entries()
            .iter()
            .find(|e| e.name.ends_with("/data.pkl") && e.name.matches('/').count() == 1)
            .ok_or_else(|| unreadable("the nested archive has no data.pkl".into()))?;
        let prefix = pickle.name.trim_end_matches("data.pkl").to_owned();
        let bytes = zip.data(&nested_path, outer, pickle)?;
        let layout = crate::pickle::read(bytes)
            .and_then(|object| subclass::layout(&object))
            .map_err(unreadable)?;
        let presented = meta.sizes.iter().map(SymInt::as_int).collect::<Vec<_>>();
        let sizes = layout
            .sizes
            .iter()
            .map(|&s| i64::try_from(s).ok())
            .collect::<Vec<_>>();
        if meta.dtype() != Some(layout.dtype) || presented != sizes {
            return Err(unreadable(format!(
                "the pickle presents {} {:?}, the config {:?} {:?}",
                layout.dtype,
                layout.sizes,
                meta.dtype(),
                presented
            )));
        }
        let mut inner = Vec::new();
        for tensor in &layout.inner {
            let name = format!("{prefix}data/{}", tensor.key);
            let entry = zip.get(&name).ok_or_else(|| {
                unreadable(format!(
                    "`{}`'s storage `{name}` is missing",
                    tensor.attribute
                ))
            })?;
            let at = zip.data_range(&nested_path, outer, entry)?;
            let mut nested = entry.clone();
            nested.name = format!("{}/{name}", self.entry);
            let record = Record {
                name: nested.name.clone(),
                range: range.start + at.start..range.start + at.end,
                nested: Some(nested),
            };
            let fqn = format!("{}.{}", self.fqn, tensor.attribute);
            let strided = |values: &[usize]| {
                values
                    .iter()
                    .map(|&v| SymInt::AsInt(v as i64))
                    .collect::<Vec<_>>()
            };
            let meta = TensorMeta {
                dtype_code: tensor.dtype.code().unwrap_or_default(),
                sizes: strided(&tensor.sizes),
                requires_grad: false,
                device: Device {
                    kind: "cpu".into(),
                    index: None,
                },
                strides: strided(&tensor.strides),
                storage_offset: SymInt::AsInt(tensor.storage_offset as i64),
                layout: LAYOUT_STRIDED,
            };
            let weight = Payload {
                entry: record.name.clone(),
                fqn: &fqn,
                kind: self.kind,
                placeholder: None,
            }
            .weight(reader, &meta, record)?;
            out.weights.push(weight);
            inner.push((tensor.attribute.clone(), fqn));
        }
        out.subclasses.push(Subclass {
            fqn: self.fqn.to_owned(),
            placeholder: self.placeholder.map(str::to_owned),
            class: layout.class,
            dtype: layout.dtype,
            sizes: layout.sizes,
            inner,
            target_dtype: layout.target_dtype,
        });
        Ok(())
    }

    /// A plain tensor's view, checked against its storage record.
    fn weight(&self, reader: &Reader<'_>, meta: &TensorMeta, record: Record) -> Result<Weight> {
        let fqn = self.fqn;
        let archive = || reader.path.to_owned();
        let entry = record.name;
        let dtype = meta.dtype().ok_or_else(|| Pt2Error::UnknownDtype {
            archive: archive(),
            fqn: fqn.to_owned(),
            code: meta.dtype_code,
        })?;
        if meta.layout != LAYOUT_STRIDED {
            return Err(self.bad(reader, format!("layout {} is not strided (7)", meta.layout)));
        }
        if meta.sizes.len() != meta.strides.len() {
            return Err(self.bad(
                reader,
                format!(
                    "{} sizes but {} strides",
                    meta.sizes.len(),
                    meta.strides.len()
                ),
            ));
        }
        let constant = |what: &'static str, value: &SymInt| -> Result<usize> {
            let value = value
                .as_int()
                .ok_or_else(|| self.bad(reader, format!("{what} is symbolic")))?;
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
        let len = record.range.len() as u64;
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
            kind: self.kind,
            placeholder: self.placeholder.map(str::to_owned),
            entry,
            meta: meta.clone(),
            dtype,
            sizes,
            strides,
            storage_offset,
            storage: record.range,
            nested: record.nested,
            storage_id: 0,
        })
    }
}
