//! `docs/ops.md`, generated from the registry.

use crate::registry::Registry;

/// The Markdown of `docs/ops.md`: every supported target with its signature.
pub fn ops_markdown() -> String {
    let mut out = String::from(
        "# Supported ops\n\n\
         Generated from tpuc-lower's op registry; do not edit. Regenerate with\n\
         `UPDATE_OPS_DOC=1 cargo test -p tpuc-lower --test ops_doc`.\n\n\
         Arguments torch.export does not serialize take the defaults of these signatures.\n\n\
         | target | signature |\n|---|---|\n",
    );
    for (target, entry) in Registry::get().entries() {
        let signature = entry
            .signature
            .map(|s| format!("`{}`", s.replace('|', "\\|")))
            .unwrap_or_else(|| "positional arguments".to_owned());
        out.push_str(&format!("| `{target}` | {signature} |\n"));
    }
    out
}
