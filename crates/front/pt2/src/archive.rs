//! Opening an archive: layout detection, the program JSON, and the weight table.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::ops::{Deref, Range};
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use serde::de::DeserializeOwned;

use crate::error::{Pt2Error, Result};
use crate::graph::IoValue;
use crate::schema::{
    ExportedProgram, Graph, GraphSignature, InputSpec, PayloadConfig, RangeConstraint,
    SchemaVersion,
};
use crate::subclass::Subclass;
use crate::tensor::{StorageBytes, TensorView, WeightKind};
use crate::weights::{self, Storage, Weight};
use crate::zip::ZipIndex;

/// Largest JSON record the reader parses (1 GiB).
pub const MAX_JSON_BYTES: u64 = 1 << 30;

/// The schema major version this reader understands.
pub const SCHEMA_MAJOR: i64 = 8;
/// The first torch release whose archives this reader reads (schema 8, raw weight records).
pub const OLDEST_TORCH: &str = "2.9";
/// The newest torch release this reader is tested with (the fixtures' exporter).
pub const NEWEST_TORCH: &str = "2.15";

/// The IR dialect of a program (`ExportedProgram.verifiers`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// `torch.export.export` output: high-level ops, maybe in-place ops and HOP wrappers.
    Training,
    /// After `run_decompositions()`: core ATen, functional.
    Aten,
    /// Any other verifier list, comma-joined.
    Other(String),
}

impl Dialect {
    fn from_verifiers(verifiers: &[String]) -> Dialect {
        match verifiers {
            // torch's reader uses the default (ATen) verifier when none is recorded.
            [] => Dialect::Aten,
            [one] if one == "TRAINING" => Dialect::Training,
            [one] if one == "ATEN" => Dialect::Aten,
            other => Dialect::Other(other.join(",")),
        }
    }

    /// The verifier name as torch writes it (`TRAINING`, `ATEN`).
    pub fn name(&self) -> &str {
        match self {
            Dialect::Training => "TRAINING",
            Dialect::Aten => "ATEN",
            Dialect::Other(name) => name,
        }
    }
}

/// The archive's bytes: a read-only file mapping, or a buffer given by the caller.
enum Bytes {
    Mapped(Mmap),
    Owned(Vec<u8>),
}

impl Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Owned(bytes) => bytes,
        }
    }
}

/// An opened `.pt2` archive: the parsed program and lazily read, validated weights.
pub struct Archive {
    path: PathBuf,
    bytes: Bytes,
    zip: ZipIndex,
    root: String,
    model: String,
    program: ExportedProgram,
    dialect: Dialect,
    weights: Vec<Weight>,
    storages: Vec<Storage>,
    by_fqn: HashMap<String, usize>,
    subclasses: Vec<Subclass>,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Archive")
            .field("path", &self.path)
            .field("model", &self.model)
            .field("torch_version", &self.program.torch_version)
            .field("weights", &self.weights.len())
            .finish_non_exhaustive()
    }
}

impl Archive {
    /// Maps and opens the archive's program (`model`, or the only one).
    pub fn open(path: impl AsRef<Path>) -> Result<Archive> {
        Archive::open_model(path, None)
    }

    /// Maps and opens the named program of an archive (`models/<model>.json`).
    pub fn open_model(path: impl AsRef<Path>, model: Option<&str>) -> Result<Archive> {
        let path = path.as_ref();
        let io = |source| Pt2Error::Io {
            archive: path.to_owned(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let metadata = file.metadata().map_err(io)?;
        if metadata.is_dir() {
            return Err(Pt2Error::Directory {
                archive: path.to_owned(),
            });
        }
        let len = metadata.len();
        let bytes = if len == 0 {
            Bytes::Owned(Vec::new())
        } else {
            // SAFETY: the file is opened read-only and the mapping is only ever read as bytes.
            // Every offset into it is bounds-checked against its length. If another process
            // truncates the file while it is mapped, reads of the lost pages fault (SIGBUS);
            // that is the documented cost of reading weights without copying them.
            #[allow(unsafe_code)]
            let map = unsafe { Mmap::map(&file) }.map_err(io)?;
            Bytes::Mapped(map)
        };
        Archive::from_bytes_inner(path.to_owned(), bytes, model)
    }

    /// Opens an archive held in memory; `name` is used in messages.
    pub fn from_bytes(name: impl Into<PathBuf>, bytes: Vec<u8>) -> Result<Archive> {
        Archive::from_bytes_inner(name.into(), Bytes::Owned(bytes), None)
    }

    fn from_bytes_inner(path: PathBuf, bytes: Bytes, model: Option<&str>) -> Result<Archive> {
        let zip = ZipIndex::read(&path, &bytes)?;
        let reader = Reader {
            path: &path,
            bytes: &bytes,
            zip: &zip,
        };
        let root = reader.root()?;
        let model = reader.choose_model(&root, model)?;
        let program = reader.program(&root, &model)?;
        let weights::Resolved {
            mut weights,
            subclasses,
        } = weights::resolve(&reader, &root, &model, &program)?;
        let storages = weights::storages(&zip, &mut weights);
        let by_fqn = weights
            .iter()
            .enumerate()
            .map(|(i, w)| (w.fqn.clone(), i))
            .collect();
        let dialect = Dialect::from_verifiers(&program.verifiers);
        Ok(Archive {
            path,
            bytes,
            zip,
            root,
            model,
            program,
            dialect,
            weights,
            storages,
            by_fqn,
            subclasses,
        })
    }

    /// The path (or name) the archive was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder all records sit in (`mlp` for `mlp.pt2`).
    pub fn root(&self) -> &str {
        &self.root
    }

    /// The program's name in the archive (`model` for `torch.export.save`).
    pub fn model_name(&self) -> &str {
        &self.model
    }

    /// The whole parsed program.
    pub fn program(&self) -> &ExportedProgram {
        &self.program
    }

    /// The top-level graph.
    pub fn graph(&self) -> &Graph {
        &self.program.graph_module.graph
    }

    /// How graph inputs and outputs map to parameters, buffers, constants and user values.
    pub fn signature(&self) -> &GraphSignature {
        &self.program.graph_module.signature
    }

    /// The torch that wrote the program, e.g. `2.15.0+cu132`.
    pub fn torch_version(&self) -> &str {
        &self.program.torch_version
    }

    /// The export schema version of the program JSON (8.x).
    pub fn schema_version(&self) -> SchemaVersion {
        self.program.schema_version
    }

    /// `TRAINING` (default export) or `ATEN` (after `run_decompositions()`).
    pub fn dialect(&self) -> &Dialect {
        &self.dialect
    }

    /// Bounds of the symbols in dynamic shapes, by symbol name (`s77`).
    pub fn range_constraints(&self) -> &BTreeMap<String, RangeConstraint> {
        &self.program.range_constraints
    }

    /// The user inputs with their metadata, in call order.
    pub fn user_inputs(&self) -> Vec<IoValue<'_>> {
        let graph = self.graph();
        self.signature()
            .user_inputs()
            .map(|arg| IoValue::new(graph, arg))
            .collect()
    }

    /// The user outputs with their metadata, in order.
    pub fn user_outputs(&self) -> Vec<IoValue<'_>> {
        let graph = self.graph();
        self.signature()
            .user_outputs()
            .map(|arg| IoValue::new(graph, arg))
            .collect()
    }

    /// Every stored tensor (parameters, buffers, constants), in signature order.
    pub fn weights(&self) -> impl ExactSizeIterator<Item = &Weight> {
        self.weights.iter()
    }

    /// The stored tensor named `fqn`.
    pub fn weight(&self, fqn: &str) -> Option<&Weight> {
        self.by_fqn.get(fqn).map(|&i| &self.weights[i])
    }

    /// The weight `fqn` when it is stored as a tensor subclass; its inner tensors are weights
    /// named `<fqn>.<attribute>`.
    pub fn subclass(&self, fqn: &str) -> Option<&Subclass> {
        self.subclasses.iter().find(|s| s.fqn == fqn)
    }

    /// Every weight stored as a tensor subclass.
    pub fn subclasses(&self) -> impl ExactSizeIterator<Item = &Subclass> {
        self.subclasses.iter()
    }

    /// A view of the stored tensor `fqn` (a state-dict or constant name such as `fc1.weight`).
    pub fn tensor(&self, fqn: &str) -> Result<TensorView<'_>> {
        let weight = self.weight(fqn).ok_or_else(|| Pt2Error::UnknownTensor {
            archive: self.path.clone(),
            fqn: fqn.to_owned(),
        })?;
        Ok(self.view(weight))
    }

    /// A view of a weight of this archive. Making it reads no weight bytes; the view's byte
    /// accessors check the storage's CRC-32 on its first read.
    pub fn view<'a>(&'a self, weight: &'a Weight) -> TensorView<'a> {
        let storage = &self.storages[weight.storage_id];
        TensorView::new(
            &weight.fqn,
            weight.dtype,
            &weight.sizes,
            &weight.strides,
            weight.storage_offset,
            StorageBytes {
                archive: &self.path,
                entry: &storage.entry,
                bytes: &self.bytes[storage.range.clone()],
                crc32: &storage.crc32,
            },
        )
    }

    /// Total bytes of distinct storage records (shared storages counted once).
    pub fn storage_bytes(&self) -> u64 {
        self.storages.iter().map(|s| s.range.len() as u64).sum()
    }

    /// Names of the records in the archive, in file order.
    pub fn entry_names(&self) -> impl Iterator<Item = &str> {
        self.zip.entries().iter().map(|e| e.name.as_str())
    }

    /// The UTF-8 text of `extra/<name>` (written by `torch.export.save(..., extra_files=...)`).
    pub fn extra_file(&self, name: &str) -> Result<Option<&str>> {
        let full = format!("{}/extra/{name}", self.root);
        let Some(entry) = self.zip.get(&full) else {
            return Ok(None);
        };
        let data = self.zip.data(&self.path, &self.bytes, entry)?;
        Ok(std::str::from_utf8(data).ok())
    }
}

/// The torch release that wrote a legacy flat archive, from its schema version
/// (2.5: 7.x, 2.6: 8.0-8.2, 2.7: 8.3-8.7).
fn legacy_torch_version(schema_version: &str) -> &'static str {
    let mut parts = schema_version.split('.').map(str::parse::<u32>);
    match (parts.next(), parts.next()) {
        (Some(Ok(major)), _) if major < 8 => "2.5 or earlier",
        (Some(Ok(8)), Some(Ok(minor))) if minor <= 2 => "2.6",
        (Some(Ok(8)), Some(Ok(_))) => "2.7",
        _ => "2.7 or earlier",
    }
}

/// What to do with a program of another schema major.
fn schema_help(major: i64) -> String {
    if major > SCHEMA_MAJOR {
        format!(
            "a newer tpuc may read it; otherwise export and save the program again with torch \
             {OLDEST_TORCH} to {NEWEST_TORCH} (`pip install \"torch=={NEWEST_TORCH}.*\"`)"
        )
    } else {
        format!(
            "load it with a torch from {OLDEST_TORCH} to {NEWEST_TORCH} and save it again \
             (`torch.export.save(torch.export.load(path), path)`)"
        )
    }
}

/// Borrowed state while opening.
pub(crate) struct Reader<'a> {
    pub path: &'a Path,
    pub bytes: &'a [u8],
    pub zip: &'a ZipIndex,
}

/// The fields of a program JSON needed to name the torch that wrote it.
#[derive(serde::Deserialize)]
struct ProgramHeader {
    #[serde(default)]
    schema_version: Option<SchemaVersion>,
    #[serde(default)]
    torch_version: Option<String>,
}

impl Reader<'_> {
    /// Where the named record's bytes are, its local header checked; `None` if absent. The bytes
    /// are not read: views check their CRC-32 on first use.
    pub fn range(&self, name: &str) -> Option<Result<Range<usize>>> {
        let entry = self.zip.get(name)?;
        Some(self.zip.data_range(self.path, self.bytes, entry))
    }

    /// Reads and parses a JSON record, bounded in size; `None` if absent.
    pub fn json<T: DeserializeOwned>(&self, name: &str) -> Result<Option<T>> {
        let Some(entry) = self.zip.get(name) else {
            return Ok(None);
        };
        if entry.size > MAX_JSON_BYTES {
            return Err(Pt2Error::EntryTooLarge {
                archive: self.path.to_owned(),
                entry: name.to_owned(),
                size: entry.size,
                limit: MAX_JSON_BYTES,
            });
        }
        let data = self.zip.data(self.path, self.bytes, entry)?;
        serde_json::from_slice(data)
            .map(Some)
            .map_err(|source| Pt2Error::Json {
                archive: self.path.to_owned(),
                entry: name.to_owned(),
                source,
            })
    }

    /// A small text record, if present and UTF-8; an error if its bytes are damaged.
    fn text(&self, name: &str) -> Result<Option<&str>> {
        let Some(entry) = self.zip.get(name).filter(|e| e.size <= 4096) else {
            return Ok(None);
        };
        let data = self.zip.data(self.path, self.bytes, entry)?;
        Ok(std::str::from_utf8(data).ok().map(str::trim))
    }

    /// The single top-level folder of the records, after rejecting other layouts.
    fn root(&self) -> Result<String> {
        let entries = self.zip.entries();
        if self.zip.get("serialized_exported_program.json").is_some() {
            let schema_version = self
                .text("version")
                .ok()
                .flatten()
                .unwrap_or("unknown")
                .to_owned();
            return Err(Pt2Error::LegacyFlatArchive {
                archive: self.path.to_owned(),
                torch_version: legacy_torch_version(&schema_version),
                schema_version,
            });
        }
        let not_pt2 = |reason: String| Pt2Error::NotPt2 {
            archive: self.path.to_owned(),
            reason,
        };
        let first = entries
            .first()
            .ok_or_else(|| not_pt2("the archive is empty".into()))?;
        let Some((root, _)) = first.name.split_once('/') else {
            return Err(not_pt2(format!(
                "record `{}` is not in a folder",
                first.name
            )));
        };
        if let Some(stray) = entries
            .iter()
            .find(|e| !(e.name.starts_with(root) && e.name[root.len()..].starts_with('/')))
        {
            return Err(not_pt2(format!(
                "record `{}` is outside the archive folder `{root}`",
                stray.name
            )));
        }
        if let Some(format) = self.text(&format!("{root}/archive_format"))?
            && format != "pt2"
        {
            return Err(not_pt2(format!("archive_format is `{format}`, not `pt2`")));
        }
        if let Some(order) = self.text(&format!("{root}/byteorder"))?
            && order != "little"
        {
            return Err(Pt2Error::ByteOrder {
                archive: self.path.to_owned(),
                byteorder: order.to_owned(),
            });
        }
        let aoti = format!("{root}/data/aotinductor/");
        if entries.iter().any(|e| e.name.starts_with(&aoti)) {
            return Err(Pt2Error::AotiPackage {
                archive: self.path.to_owned(),
            });
        }
        Ok(root.to_owned())
    }

    /// The program to open: `requested`, else `model`, else the only one.
    fn choose_model(&self, root: &str, requested: Option<&str>) -> Result<String> {
        let prefix = format!("{root}/models/");
        let available: Vec<String> = self
            .zip
            .entries()
            .iter()
            .filter_map(|e| e.name.strip_prefix(&prefix)?.strip_suffix(".json"))
            .filter(|name| !name.contains('/'))
            .map(str::to_owned)
            .collect();
        let missing = |name: &str| Pt2Error::MissingModel {
            archive: self.path.to_owned(),
            entry: format!("{prefix}{name}.json"),
            available: available.clone(),
        };
        match requested {
            Some(name) if available.iter().any(|a| a == name) => Ok(name.to_owned()),
            Some(name) => Err(missing(name)),
            None if available.iter().any(|a| a == "model") => Ok("model".to_owned()),
            None if available.len() == 1 => Ok(available[0].clone()),
            None if available.is_empty() => Err(missing("model")),
            None => Err(Pt2Error::AmbiguousModel {
                archive: self.path.to_owned(),
                available,
            }),
        }
    }

    fn program(&self, root: &str, model: &str) -> Result<ExportedProgram> {
        let name = format!("{root}/models/{model}.json");
        for folder in ["weights", "constants"] {
            let pickled = format!("{root}/data/{folder}/{model}.pt");
            let config = format!("{root}/data/{folder}/{model}_{folder}_config.json");
            if self.zip.get(&pickled).is_some() && self.zip.get(&config).is_none() {
                let header: Option<ProgramHeader> = self.json(&name).ok().flatten();
                return Err(Pt2Error::PickledWeights {
                    archive: self.path.to_owned(),
                    entry: pickled,
                    torch_version: header
                        .and_then(|h| h.torch_version)
                        .unwrap_or_else(|| "2.8".to_owned()),
                });
            }
        }
        let version_error = |header: ProgramHeader| {
            let version = header.schema_version?;
            (version.major != SCHEMA_MAJOR).then(|| Pt2Error::SchemaVersion {
                archive: self.path.to_owned(),
                major: version.major,
                minor: version.minor,
                torch_version: header.torch_version.unwrap_or_else(|| "unknown".to_owned()),
                help: schema_help(version.major),
            })
        };
        let program = match self.json::<ExportedProgram>(&name) {
            Ok(Some(program)) => program,
            Ok(None) => {
                return Err(Pt2Error::MissingEntry {
                    archive: self.path.to_owned(),
                    entry: name,
                });
            }
            Err(error @ Pt2Error::Json { .. }) => {
                // A program from another schema major may not parse at all; say that instead.
                if let Ok(Some(header)) = self.json::<ProgramHeader>(&name)
                    && let Some(version_error) = version_error(header)
                {
                    return Err(version_error);
                }
                return Err(error);
            }
            Err(other) => return Err(other),
        };
        if let Some(error) = version_error(ProgramHeader {
            schema_version: Some(program.schema_version),
            torch_version: Some(program.torch_version.clone()),
        }) {
            return Err(error);
        }
        if let Some(name) = program.graph_module.graph.duplicate_name() {
            return Err(Pt2Error::DuplicateNode {
                archive: self.path.to_owned(),
                name: name.to_owned(),
            });
        }
        Ok(program)
    }

    /// The payload config of a folder (`weights` or `constants`), empty if absent.
    pub fn payload_config(&self, root: &str, model: &str, folder: &str) -> Result<PayloadConfig> {
        let name = format!("{root}/data/{folder}/{model}_{folder}_config.json");
        Ok(self.json(&name)?.unwrap_or_default())
    }
}

/// Where signature inputs expect their payload: the kind, and the config folder to look in first.
pub(crate) fn input_payloads(signature: &GraphSignature) -> Vec<(&str, &str, WeightKind)> {
    signature
        .input_specs
        .iter()
        .filter_map(|spec| match spec {
            InputSpec::Parameter(p) => Some((
                p.parameter_name.as_str(),
                p.arg.name.as_str(),
                WeightKind::Parameter,
            )),
            InputSpec::Buffer(b) => Some((
                b.buffer_name.as_str(),
                b.arg.name.as_str(),
                WeightKind::Buffer {
                    persistent: b.persistent,
                },
            )),
            InputSpec::TensorConstant(c) => Some((
                c.tensor_constant_name.as_str(),
                c.arg.name.as_str(),
                WeightKind::Constant,
            )),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{Archive, legacy_torch_version};

    #[test]
    fn archives_can_be_shared_across_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Archive>();
    }

    #[test]
    fn legacy_schema_names_its_torch() {
        assert_eq!(legacy_torch_version("7.3"), "2.5 or earlier");
        assert_eq!(legacy_torch_version("8.2"), "2.6");
        assert_eq!(legacy_torch_version("8.7"), "2.7");
        assert_eq!(legacy_torch_version("junk"), "2.7 or earlier");
    }
}
