//! A verified cache entry laid out for C: the payload, and every string and shape of the
//! manifest as NUL-terminated or contiguous data whose addresses stay fixed while it lives.

use std::ffi::CString;

use tpuc_cache::{Binding, Hit};

/// One binding's C-visible data.
pub(crate) struct BindingData {
    pub kind: CString,
    pub name: Option<CString>,
    pub index: i64,
    pub dtype: CString,
    pub shape: Vec<i64>,
    /// Per dimension the mesh axes it is split over, as JSON (`[["tp"],[]]`).
    pub sharding: Option<CString>,
}

pub struct Entry {
    pub(crate) executable: Vec<u8>,
    pub(crate) target: CString,
    pub(crate) manifest_json: CString,
    pub(crate) arguments: Vec<BindingData>,
    pub(crate) results: Vec<BindingData>,
}

/// Text from the manifest as a C string; a NUL inside (which tpuc never writes) ends it there.
fn c_string(text: &str) -> CString {
    let end = text.find('\0').unwrap_or(text.len());
    CString::new(&text[..end]).unwrap_or_default()
}

fn binding(binding: &Binding) -> BindingData {
    BindingData {
        kind: c_string(&binding.kind),
        name: binding.name.as_deref().map(c_string),
        index: binding
            .index
            .and_then(|i| i64::try_from(i).ok())
            .unwrap_or(-1),
        dtype: c_string(&binding.dtype),
        shape: binding.shape.clone(),
        sharding: binding
            .sharding
            .as_ref()
            .map(|axes| c_string(&serde_json::to_string(axes).expect("axis lists serialize"))),
    }
}

impl Entry {
    pub(crate) fn new(hit: Hit) -> Entry {
        let manifest = &hit.envelope.manifest;
        let manifest_json = String::from_utf8_lossy(&hit.envelope.bytes);
        Entry {
            target: c_string(&manifest.target),
            manifest_json: c_string(&manifest_json),
            arguments: manifest.signature.arguments.iter().map(binding).collect(),
            results: manifest.signature.results.iter().map(binding).collect(),
            executable: hit.payload,
        }
    }
}
