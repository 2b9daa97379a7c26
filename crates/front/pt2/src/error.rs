//! Everything that can go wrong opening or reading an archive, with what to do about it.

use std::path::PathBuf;

use miette::Diagnostic;
use thiserror::Error;

use crate::archive::{NEWEST_TORCH, OLDEST_TORCH, SCHEMA_MAJOR};

/// An archive that cannot be read, and why.
#[derive(Debug, Error, Diagnostic)]
pub enum Pt2Error {
    #[error("cannot read `{archive}`: {source}")]
    #[diagnostic(
        code(tpuc::pt2::io),
        help("check that the file exists and is readable")
    )]
    Io {
        archive: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("`{archive}` is a directory, not a .pt2 archive")]
    #[diagnostic(
        code(tpuc::pt2::directory),
        help("pass the .pt2 file `torch.export.save` wrote, not the directory holding it")
    )]
    Directory { archive: PathBuf },

    // ---- zip container ----
    #[error("`{archive}` is not a zip archive: {reason}")]
    #[diagnostic(
        code(tpuc::pt2::zip::not_a_zip),
        help(
            "the file is truncated or is not a .pt2 archive; save the program again with `torch.export.save(ep, \"model.pt2\")`"
        )
    )]
    NotAZip { archive: PathBuf, reason: String },
    #[error("`{archive}` has a corrupt zip directory: {reason}")]
    #[diagnostic(
        code(tpuc::pt2::zip::corrupt),
        help("the archive is damaged (truncated download or edited bytes); save or copy it again")
    )]
    CorruptZip { archive: PathBuf, reason: String },
    #[error("entry `{entry}` of `{archive}` lies outside the file: {reason}")]
    #[diagnostic(
        code(tpuc::pt2::zip::entry_out_of_bounds),
        help("the archive is truncated or damaged; save or copy it again")
    )]
    EntryOutOfBounds {
        archive: PathBuf,
        entry: String,
        reason: String,
    },
    #[error(
        "the local header of entry `{entry}` in `{archive}` disagrees with the central directory: {reason}"
    )]
    #[diagnostic(
        code(tpuc::pt2::zip::local_header),
        help("the archive is damaged or was edited after torch wrote it; save or copy it again")
    )]
    LocalHeaderMismatch {
        archive: PathBuf,
        entry: String,
        reason: String,
    },
    #[error(
        "entry `{entry}` of `{archive}` is corrupt: its CRC-32 is {actual:#010x}, the central directory records {expected:#010x}"
    )]
    #[diagnostic(
        code(tpuc::pt2::zip::checksum),
        help(
            "the bytes of the record changed after torch wrote it (a bad disk, copy or download); copy the archive again or save the program again"
        )
    )]
    ChecksumMismatch {
        archive: PathBuf,
        entry: String,
        expected: u32,
        actual: u32,
    },
    #[error("entry name `{entry}` in `{archive}` is unsafe: {reason}")]
    #[diagnostic(
        code(tpuc::pt2::zip::unsafe_name),
        help(
            "torch never writes such names; do not use this file, it may be crafted to escape a directory"
        )
    )]
    UnsafeEntryName {
        archive: PathBuf,
        entry: String,
        reason: &'static str,
    },
    #[error("entry `{entry}` appears twice in `{archive}`")]
    #[diagnostic(
        code(tpuc::pt2::zip::duplicate_entry),
        help("torch never writes duplicate names; the archive is damaged or crafted")
    )]
    DuplicateEntry { archive: PathBuf, entry: String },
    #[error("entry `{entry}` of `{archive}` is compressed (zip method {method})")]
    #[diagnostic(
        code(tpuc::pt2::zip::compressed),
        help(
            "tpuc memory-maps .pt2 entries and reads only uncompressed (STORED) ones, as torch.export.save writes them; do not re-zip the archive, save it again with torch.export.save"
        )
    )]
    CompressedEntry {
        archive: PathBuf,
        entry: String,
        method: u16,
    },
    #[error("entry `{entry}` of `{archive}` is encrypted")]
    #[diagnostic(
        code(tpuc::pt2::zip::encrypted),
        help("save the program again with torch.export.save, without encryption")
    )]
    EncryptedEntry { archive: PathBuf, entry: String },
    #[error("entry `{entry}` of `{archive}` is {size} bytes, more than the {limit}-byte limit")]
    #[diagnostic(
        code(tpuc::pt2::entry_too_large),
        help("JSON records of real programs are far smaller; the archive is damaged or crafted")
    )]
    EntryTooLarge {
        archive: PathBuf,
        entry: String,
        size: u64,
        limit: u64,
    },

    // ---- archive layout ----
    #[error(
        "`{archive}` was written by torch {torch_version} (legacy flat zip, schema {schema_version})"
    )]
    #[diagnostic(
        code(tpuc::pt2::legacy_flat_archive),
        help(
            "this layout keeps weights in pickles, which tpuc never loads; load it with torch and save it again with torch >= 2.9 (`torch.export.save(torch.export.load(path), path)`)"
        )
    )]
    LegacyFlatArchive {
        archive: PathBuf,
        schema_version: String,
        torch_version: &'static str,
    },
    #[error(
        "`{archive}` was written by torch {torch_version}, which pickles weights into `{entry}`"
    )]
    #[diagnostic(
        code(tpuc::pt2::pickled_weights),
        help(
            "tpuc never unpickles; load the file with torch and save it again with torch >= 2.9, which stores raw weight bytes"
        )
    )]
    PickledWeights {
        archive: PathBuf,
        entry: String,
        torch_version: String,
    },
    #[error("`{archive}` is an AOTInductor package, not an exported program")]
    #[diagnostic(
        code(tpuc::pt2::aoti_package),
        help(
            "tpuc compiles the exported program itself; pass the .pt2 from `torch.export.save(ep, path)` instead of `torch._inductor.aoti_compile_and_package`"
        )
    )]
    AotiPackage { archive: PathBuf },
    #[error("`{archive}` is not a PT2 archive: {reason}")]
    #[diagnostic(
        code(tpuc::pt2::not_pt2),
        help("pass a file written by `torch.export.save(ep, \"model.pt2\")`")
    )]
    NotPt2 { archive: PathBuf, reason: String },
    #[error("`{archive}` has no program `{entry}`")]
    #[diagnostic(
        code(tpuc::pt2::missing_model),
        help(
            "the archive holds the models {available:?}; choose one of those, or save the program again"
        )
    )]
    MissingModel {
        archive: PathBuf,
        entry: String,
        available: Vec<String>,
    },
    #[error("`{archive}` holds several programs: {available:?}")]
    #[diagnostic(
        code(tpuc::pt2::ambiguous_model),
        help("name the program to open (`Archive::open_model`)")
    )]
    AmbiguousModel {
        archive: PathBuf,
        available: Vec<String>,
    },
    #[error("the program in `{archive}` has two nodes named `{}`", crate::quoted(.name))]
    #[diagnostic(
        code(tpuc::pt2::duplicate_node),
        help(
            "every graph torch writes names each node and value once; the archive is damaged or \
             was edited: export and save the program again"
        )
    )]
    DuplicateNode { archive: PathBuf, name: String },
    #[error("`{archive}` lacks the record `{entry}`")]
    #[diagnostic(
        code(tpuc::pt2::missing_entry),
        help("the archive is incomplete or damaged; save the program again")
    )]
    MissingEntry { archive: PathBuf, entry: String },
    #[error("`{archive}` stores {byteorder}-endian weights")]
    #[diagnostic(
        code(tpuc::pt2::byteorder),
        help("tpuc reads little-endian weights; save the program on a little-endian machine")
    )]
    ByteOrder { archive: PathBuf, byteorder: String },

    // ---- JSON ----
    #[error("invalid JSON in `{entry}` of `{archive}`: {source}")]
    #[diagnostic(
        code(tpuc::pt2::json),
        help(
            "the record does not match the torch.export schema 8.x; the archive is damaged, or was written by an unsupported torch version"
        )
    )]
    Json {
        archive: PathBuf,
        entry: String,
        #[source]
        source: serde_json::Error,
    },
    #[error(
        "`{archive}` was written by torch {torch_version} with export schema {major}.{minor}, {}; \
         tpuc reads export schema {SCHEMA_MAJOR}.x, which torch {OLDEST_TORCH} to {NEWEST_TORCH} write",
        if *major > SCHEMA_MAJOR { "newer than this tpuc knows" } else { "older than tpuc reads" }
    )]
    #[diagnostic(code(tpuc::pt2::schema_version))]
    SchemaVersion {
        archive: PathBuf,
        major: i64,
        minor: i64,
        torch_version: String,
        #[help]
        help: String,
    },

    // ---- payloads ----
    #[error("`{fqn}` in `{archive}` is a pickle tpuc does not read (`{entry}`): {reason}")]
    #[diagnostic(
        code(tpuc::pt2::pickled_payload),
        help(
            "tpuc reads the tensor subclasses of torchao's Int8Tensor, IntxUnpackedToInt8Tensor and Float8Tensor, through a pickle reader that never runs anything; for other subclasses (DTensor, other quantized layouts), unwrap them into plain tensors (e.g. int8 data plus scales as buffers) before torch.export, or export the decomposed program (`run_decompositions()`), which unwraps torchao's subclasses"
        )
    )]
    PickledPayload {
        archive: PathBuf,
        entry: String,
        fqn: String,
        reason: String,
    },
    #[error("`{fqn}` in `{archive}` is a custom object (`{entry}`)")]
    #[diagnostic(
        code(tpuc::pt2::custom_object),
        help(
            "TorchBind and opaque script objects are pickles that tpuc cannot lower; export a model that holds only tensors"
        )
    )]
    CustomObject {
        archive: PathBuf,
        entry: String,
        fqn: String,
    },
    #[error("`{fqn}` in `{archive}` has unknown dtype code {code}")]
    #[diagnostic(
        code(tpuc::pt2::unknown_dtype),
        help(
            "the archive uses a dtype this tpuc does not know (newer torch?) or is damaged; cast the tensor to a standard dtype before export"
        )
    )]
    UnknownDtype {
        archive: PathBuf,
        fqn: String,
        code: i64,
    },
    #[error("`{fqn}` in `{archive}` has an invalid tensor description: {reason}")]
    #[diagnostic(
        code(tpuc::pt2::bad_tensor_meta),
        help(
            "weights must be dense (strided) tensors with constant, non-negative sizes and strides; the archive is damaged or holds a sparse tensor"
        )
    )]
    BadTensorMeta {
        archive: PathBuf,
        fqn: String,
        reason: String,
    },
    #[error("`{fqn}` in `{archive}` has a negative {what} ({value})")]
    #[diagnostic(
        code(tpuc::pt2::negative_dimension),
        help(
            "torch never stores negative sizes, strides or offsets; the archive is damaged or crafted"
        )
    )]
    NegativeDimension {
        archive: PathBuf,
        fqn: String,
        what: &'static str,
        value: i64,
    },
    #[error("the shape of `{fqn}` in `{archive}` overflows 64-bit arithmetic")]
    #[diagnostic(
        code(tpuc::pt2::shape_overflow),
        help("no real tensor is this large; the archive is damaged or crafted")
    )]
    ShapeOverflow { archive: PathBuf, fqn: String },
    #[error(
        "`{fqn}` in `{archive}` reads element {needed_elements} of a storage `{entry}` that holds {storage_elements}"
    )]
    #[diagnostic(
        code(tpuc::pt2::view_out_of_bounds),
        help(
            "the view (sizes, strides, storage_offset) reaches past its storage; the archive is damaged"
        )
    )]
    ViewOutOfBounds {
        archive: PathBuf,
        entry: String,
        fqn: String,
        needed_elements: u64,
        storage_elements: u64,
    },
    #[error(
        "storage `{entry}` of `{fqn}` in `{archive}` is {len} bytes, not a multiple of the {itemsize}-byte {dtype} element"
    )]
    #[diagnostic(
        code(tpuc::pt2::storage_size),
        help("the storage file is truncated or the dtype is wrong; the archive is damaged")
    )]
    StorageSize {
        archive: PathBuf,
        entry: String,
        fqn: String,
        len: u64,
        itemsize: usize,
        dtype: crate::DType,
    },
    #[error(
        "`{fqn}` is named in the signature of `{archive}` but has no payload in the weights or constants config"
    )]
    #[diagnostic(
        code(tpuc::pt2::missing_weight),
        help("the archive is incomplete; save the program again with torch.export.save")
    )]
    MissingWeight { archive: PathBuf, fqn: String },
    #[error("`{archive}` has no tensor `{fqn}`")]
    #[diagnostic(
        code(tpuc::pt2::unknown_tensor),
        help("list the archive's weights (`Archive::weights`) for the valid names")
    )]
    UnknownTensor { archive: PathBuf, fqn: String },
    #[error("materialising `{fqn}` would take {bytes} bytes, more than the {limit}-byte limit")]
    #[diagnostic(
        code(tpuc::pt2::view_too_large),
        help(
            "the view broadcasts a small storage to a huge shape; stream it with `TensorView::write_contiguous` instead"
        )
    )]
    ViewTooLarge { fqn: String, bytes: u64, limit: u64 },
}

/// The result type of this crate.
pub type Result<T, E = Pt2Error> = std::result::Result<T, E>;

impl Pt2Error {
    /// The diagnostic code, e.g. `tpuc::pt2::zip::compressed`.
    pub fn code_str(&self) -> String {
        Diagnostic::code(self)
            .map(|code| code.to_string())
            .unwrap_or_default()
    }
}
