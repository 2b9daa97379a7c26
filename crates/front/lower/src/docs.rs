//! `docs/ops.md`, generated from the registry.

use crate::registry::Registry;

/// The Markdown of `docs/ops.md`: every supported target with its signature.
pub fn ops_markdown() -> String {
    let mut out = String::from(
        "# Supported ops\n\n\
         Generated from tpuc-lower's op registry; do not edit. Regenerate with\n\
         `BLESS=1 cargo test -p tpuc-lower --test ops_doc`.\n\n\
         Arguments torch.export does not serialize take the defaults of these signatures.\n\
         How torch's own OpInfo samples fare, op by op and dtype by dtype (up to 4 float32\n\
         samples per OpInfo, and up to 2 in each of bfloat16, float16, int64 or int32, and bool\n\
         that the OpInfo supports): [opinfo.md](opinfo.md).\n\n\
         | target | signature |\n|---|---|\n",
    );
    for (target, entry) in Registry::get().entries() {
        let signature = entry
            .signature
            .map(|s| format!("`{}`", s.replace('|', "\\|")))
            .unwrap_or_else(|| "positional arguments".to_owned());
        out.push_str(&format!("| `{target}` | {signature} |\n"));
    }
    out.push_str(
        "\n## In-place variants\n\n\
         Derived from the functional ops above, not listed by hand: `op_` takes `op`'s arguments,\n\
         writes the result into its first argument (cast to that argument's dtype) and returns it,\n\
         as `Tensor(a!) self -> Tensor(a!)` says. Later uses of the written tensor, and buffer and\n\
         user-input mutations, see the new value.\n\n",
    );
    let names: Vec<String> = Registry::get()
        .in_place_targets()
        .map(|t| format!("`{t}`"))
        .collect();
    out.push_str(&names.join(", "));
    out.push('\n');
    out.push_str(
        "\n## Not lowered\n\n\
         Every op of torch's core ATen opset lowers (`testdata/core_aten.json`, from\n\
         `testdata/core_aten.py`) except these, for the reasons given, which a program that\n\
         reaches one is told:\n\n\
         | target | why |\n|---|---|\n",
    );
    for (target, why) in crate::NOT_LOWERED {
        out.push_str(&format!("| `{target}` | {why} |\n"));
    }
    out
}
