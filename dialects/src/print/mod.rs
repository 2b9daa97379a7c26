//! Printers: the canonical generic form (handed to PJRT, hashed by the cache) and the pretty
//! form people read. Both are deterministic: the same module prints to the same bytes.

mod attrs;
mod names;
mod pretty;
pub(crate) mod syntax;

use std::collections::HashMap;
use std::fmt::Write;

use crate::function::{BlockId, Function, OpId, RegionId};
use crate::location::Location;
use crate::module::Module;
use crate::op::{FUNCTION_OP, MESH_OP};
use names::Names;

/// How locations are printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LocationStyle {
    /// No locations (the canonical form for cache keys).
    #[default]
    Strip,
    /// `loc("model.py":12:0)` after every op.
    Inline,
    /// `loc(#loc3)` after every op, `#loc3 = loc(...)` definitions after the module.
    Aliases,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PrintOptions {
    pub locations: LocationStyle,
}

impl PrintOptions {
    pub fn with_locations(locations: LocationStyle) -> Self {
        Self { locations }
    }
}

/// Every op in the generic form `"stablehlo.add"(%0, %1) : (...) -> ...`.
pub fn generic(module: &Module, options: &PrintOptions) -> String {
    Printer::new(Form::Generic, options).module(module)
}

/// The readable form StableHLO's own printer produces (`%0 = stablehlo.add %arg0, %arg1 : ...`).
pub fn pretty(module: &Module, options: &PrintOptions) -> String {
    Printer::new(Form::Pretty, options).module(module)
}

/// The pretty form without locations.
impl std::fmt::Display for Module {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&pretty(self, &PrintOptions::default()))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Generic,
    Pretty,
}

struct Printer<'o> {
    form: Form,
    options: &'o PrintOptions,
    out: String,
    aliases: Vec<String>,
    alias_ids: HashMap<String, usize>,
    /// How many op regions enclose the op being printed (0 in a function body).
    region_depth: usize,
}

/// What printing one function's ops needs.
struct FnCx<'f> {
    f: &'f Function,
    names: Names,
}

impl<'o> Printer<'o> {
    fn new(form: Form, options: &'o PrintOptions) -> Self {
        Self {
            form,
            options,
            out: String::new(),
            aliases: Vec::new(),
            alias_ids: HashMap::new(),
            region_depth: 0,
        }
    }

    fn module(mut self, module: &Module) -> String {
        self.out.push_str("module");
        if let Some(name) = &module.name {
            let _ = write!(self.out, " {}", syntax::symbol(name));
        }
        let mut attrs = Vec::new();
        if let Some(n) = module.num_partitions {
            attrs.push(("mhlo.num_partitions".to_string(), format!("{n} : i32")));
        }
        if let Some(n) = module.num_replicas {
            attrs.push(("mhlo.num_replicas".to_string(), format!("{n} : i32")));
        }
        for (name, value) in module.attrs.iter() {
            attrs.push((syntax::attr_name(name), syntax::attribute(value)));
        }
        if !attrs.is_empty() {
            let _ = write!(self.out, " attributes {}", syntax::dict(attrs));
        }
        self.out.push_str(" {\n");
        for mesh in &module.meshes {
            let _ = writeln!(
                self.out,
                "  {MESH_OP} {} = {}",
                syntax::symbol(&mesh.name),
                syntax::mesh_body(mesh)
            );
        }
        for function in &module.functions {
            self.function(function);
        }
        self.out.push('}');
        let loc = self.location(&module.location);
        self.out.push_str(&loc);
        self.out.push('\n');
        for (i, body) in std::mem::take(&mut self.aliases).iter().enumerate() {
            let _ = writeln!(self.out, "{} = loc({body})", alias_name(i));
        }
        self.out
    }

    fn function(&mut self, f: &Function) {
        let cx = FnCx {
            f,
            names: Names::new(f, self.form == Form::Pretty),
        };
        let _ = write!(
            self.out,
            "  {FUNCTION_OP} {} {}(",
            f.visibility.keyword(),
            syntax::symbol(&f.name)
        );
        for (i, &arg) in f.args().iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let _ = write!(self.out, "{}: {}", cx.names.use_of(arg), f.value_type(arg));
            if let Some(attrs) = f.arg_attrs.get(i).filter(|a| !a.is_empty()) {
                let _ = write!(self.out, " {}", attr_dict(attrs));
            }
            if let Some(location) = f.arg_locations.get(i) {
                let loc = self.location(location);
                self.out.push_str(&loc);
            }
        }
        self.out.push(')');
        let results_have_attrs = f.result_attrs.iter().any(|a| !a.is_empty());
        match f.result_types.as_slice() {
            [] => {}
            [ty] if !results_have_attrs => {
                let _ = write!(self.out, " -> {ty}");
            }
            types => {
                let items: Vec<String> = types
                    .iter()
                    .enumerate()
                    .map(
                        |(i, ty)| match f.result_attrs.get(i).filter(|a| !a.is_empty()) {
                            Some(attrs) => format!("{ty} {}", attr_dict(attrs)),
                            None => ty.to_string(),
                        },
                    )
                    .collect();
                let _ = write!(self.out, " -> ({})", items.join(", "));
            }
        }
        if !f.attrs.is_empty() {
            let _ = write!(self.out, " attributes {}", attr_dict(&f.attrs));
        }
        self.out.push_str(" {\n");
        self.block_ops(&cx, f.entry_block(), 4);
        self.out.push_str("  }");
        let loc = self.location(&f.location);
        self.out.push_str(&loc);
        self.out.push('\n');
    }

    fn block_ops(&mut self, cx: &FnCx<'_>, block: BlockId, indent: usize) {
        for &op in &cx.f.block(block).ops {
            self.op(cx, op, indent);
        }
    }

    fn op(&mut self, cx: &FnCx<'_>, id: OpId, indent: usize) {
        let op = cx.f.op(id);
        push_indent(&mut self.out, indent);
        let definition = cx.names.definition(&op.results);
        if !definition.is_empty() {
            let _ = write!(self.out, "{definition} = ");
        }
        let printed = self.form == Form::Pretty && self.pretty_op(cx, id, indent);
        if !printed {
            self.generic_op(cx, id, indent);
        }
        let loc = self.location(&op.location);
        self.out.push_str(&loc);
        self.out.push('\n');
    }

    /// `"name"(operands) ({regions}) {attributes} : type`. The canonical form keeps every
    /// attribute in the dictionary; the pretty form puts inherent ones in `<{...}>` as MLIR
    /// prints properties.
    fn generic_op(&mut self, cx: &FnCx<'_>, id: OpId, indent: usize) {
        let f = cx.f;
        let op = f.op(id);
        let operands: Vec<String> = op.operands.iter().map(|&v| cx.names.use_of(v)).collect();
        let _ = write!(
            self.out,
            "{}({})",
            syntax::string(op.kind.name()),
            operands.join(", ")
        );
        let result_types: Vec<_> = op
            .results
            .iter()
            .map(|&v| f.value_type(v).clone())
            .collect();
        let mut inherent = attrs::inherent(&op.kind, &result_types);
        let mut discardable: Vec<(String, String)> = op
            .attrs
            .iter()
            .map(|(n, v)| (syntax::attr_name(n), syntax::attribute(v)))
            .collect();
        if self.form == Form::Generic {
            discardable.append(&mut inherent);
        }
        if !inherent.is_empty() {
            inherent.sort_by(|a, b| a.0.cmp(&b.0));
            let _ = write!(self.out, " <{}>", syntax::dict(inherent));
        }
        if !op.regions.is_empty() {
            self.out.push_str(" (");
            for (i, &region) in op.regions.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.region(cx, region, indent, true);
            }
            self.out.push(')');
        }
        if !discardable.is_empty() {
            discardable.sort_by(|a, b| a.0.cmp(&b.0));
            let _ = write!(self.out, " {}", syntax::dict(discardable));
        }
        let operand_types: Vec<_> = op
            .operands
            .iter()
            .map(|&v| f.value_type(v).clone())
            .collect();
        let _ = write!(
            self.out,
            " : {}",
            syntax::function_type(&operand_types, &result_types)
        );
    }

    /// `{ ... }` with the block's ops one level deeper; the entry block's header
    /// `^bb0(%a: T):` only when `header` is set and it has arguments.
    fn region(&mut self, cx: &FnCx<'_>, region: RegionId, indent: usize, header: bool) {
        self.out.push_str("{\n");
        self.region_depth += 1;
        for &block in &cx.f.region(region).blocks {
            let args = &cx.f.block(block).args;
            if header && !args.is_empty() {
                push_indent(&mut self.out, indent);
                let items: Vec<String> = args
                    .iter()
                    .map(|&a| format!("{}: {}", cx.names.use_of(a), cx.f.value_type(a)))
                    .collect();
                let _ = writeln!(self.out, "^bb0({}):", items.join(", "));
            }
            self.block_ops(cx, block, indent + 2);
        }
        self.region_depth -= 1;
        push_indent(&mut self.out, indent);
        self.out.push('}');
    }

    /// The ` loc(...)` suffix for `location`, empty when locations are stripped.
    fn location(&mut self, location: &Location) -> String {
        match self.options.locations {
            LocationStyle::Strip => String::new(),
            LocationStyle::Inline => format!(" loc({})", syntax::location_body(location)),
            LocationStyle::Aliases => {
                let body = syntax::location_body(location);
                let next = self.aliases.len();
                let id = *self.alias_ids.entry(body.clone()).or_insert(next);
                if id == next {
                    self.aliases.push(body);
                }
                format!(" loc({})", alias_name(id))
            }
        }
    }
}

fn alias_name(index: usize) -> String {
    if index == 0 {
        "#loc".to_string()
    } else {
        format!("#loc{index}")
    }
}

fn push_indent(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

fn attr_dict(attrs: &crate::attr::NamedAttrs) -> String {
    syntax::dict(
        attrs
            .iter()
            .map(|(n, v)| (syntax::attr_name(n), syntax::attribute(v))),
    )
}
