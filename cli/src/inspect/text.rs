//! The human-readable form of an inspect [`Report`].

use std::fmt::Write;

use super::report::{GraphListing, Report, ShapeDim, Tally, Value};

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_report(&mut out, report);
    out
}

fn write_report(out: &mut String, r: &Report) -> std::fmt::Result {
    writeln!(out, "{}", r.path)?;
    writeln!(
        out,
        "  torch {}, schema {}, dialect {}",
        r.torch_version, r.schema_version, r.dialect
    )?;

    section(out, "inputs")?;
    write_values(out, &r.inputs)?;
    if !r.symbols.is_empty() {
        section(out, "symbols")?;
        for s in &r.symbols {
            let bound = |v: Option<i64>| v.map_or("∞".to_owned(), |v| v.to_string());
            write!(out, "  {} in [{}, {}]", s.name, bound(s.min), bound(s.max))?;
            if let Some(example) = s.example {
                write!(out, ", example {example}")?;
            }
            if !s.axes.is_empty() {
                write!(out, ", input axis {}", s.axes.join(", "))?;
            }
            writeln!(out)?;
        }
    }

    section(out, "weights")?;
    let w = &r.weights;
    tally(out, "parameters", &w.parameters)?;
    tally(out, "buffers (persistent)", &w.persistent_buffers)?;
    tally(out, "buffers (non-persistent)", &w.non_persistent_buffers)?;
    tally(out, "constants", &w.constants)?;
    writeln!(
        out,
        "  {:<26} {:>6}",
        "storage in archive",
        bytes(w.storage_bytes)
    )?;
    for shared in &w.shared_storages {
        writeln!(
            out,
            "  shared storage {}: {}",
            shared.storage,
            shared.tensors.join(", ")
        )?;
    }

    section(out, "outputs")?;
    write_values(out, &r.outputs)?;
    if !r.buffer_mutations.is_empty() || !r.user_input_mutations.is_empty() {
        section(out, "mutations")?;
        for m in &r.buffer_mutations {
            writeln!(out, "  buffer {} <- %{}", m.target, m.value)?;
        }
        for m in &r.user_input_mutations {
            writeln!(out, "  input {} <- %{}", m.target, m.value)?;
        }
    }

    section(out, "ops")?;
    write_histogram(out, &r.ops, "  ")?;
    if !r.subgraphs.is_empty() {
        section(out, "subgraphs")?;
        for s in &r.subgraphs {
            let indent = "  ".repeat(s.depth);
            writeln!(
                out,
                "{indent}{} of %{} ({}): {} nodes",
                s.name,
                s.owner,
                short_target(&s.target),
                s.node_count
            )?;
            write_histogram(out, &s.ops, &format!("{indent}  "))?;
        }
    }

    if let Some(composites) = &r.composites {
        section(out, "composites (with --fuse)")?;
        write_histogram(out, composites, "  ")?;
    }

    if let Some(graph) = &r.graph {
        section(out, "graph")?;
        write_graph(out, graph, 1)?;
    }
    Ok(())
}

fn section(out: &mut String, title: &str) -> std::fmt::Result {
    writeln!(out, "\n{title}")
}

fn write_values(out: &mut String, values: &[Value]) -> std::fmt::Result {
    if values.is_empty() {
        return writeln!(out, "  (none)");
    }
    for v in values {
        let name = v
            .name
            .as_deref()
            .map_or("(literal)".to_owned(), |n| format!("%{n}"));
        match (&v.dtype, &v.shape, &v.literal) {
            (Some(dtype), Some(shape), _) => writeln!(out, "  {name:<24} {dtype}{}", dims(shape))?,
            (_, _, Some(literal)) => writeln!(out, "  {name:<24} {literal}")?,
            _ => writeln!(out, "  {name:<24} {}", v.kind)?,
        }
    }
    Ok(())
}

fn dims(shape: &[ShapeDim]) -> String {
    let parts: Vec<String> = shape
        .iter()
        .map(|d| match d {
            ShapeDim::Static(n) => n.to_string(),
            ShapeDim::Symbolic(s) => s.clone(),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

fn tally(out: &mut String, label: &str, t: &Tally) -> std::fmt::Result {
    match t.count {
        0 => writeln!(out, "  {label:<26} {:>6}", 0),
        n => writeln!(out, "  {label:<26} {n:>6}  {}", bytes(t.bytes)),
    }
}

fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut value = n as f64;
    let mut unit = "B";
    for u in UNITS {
        if value < 1024.0 {
            break;
        }
        value /= 1024.0;
        unit = u;
    }
    format!("{value:.1} {unit}")
}

fn write_histogram(
    out: &mut String,
    ops: &std::collections::BTreeMap<String, usize>,
    indent: &str,
) -> std::fmt::Result {
    let mut rows: Vec<(&String, &usize)> = ops.iter().collect();
    rows.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (target, count) in rows {
        writeln!(out, "{indent}{count:>5}  {}", short_target(target))?;
    }
    Ok(())
}

fn short_target(target: &str) -> &str {
    target.strip_prefix("torch.ops.").unwrap_or(target)
}

fn write_graph(out: &mut String, g: &GraphListing, depth: usize) -> std::fmt::Result {
    let indent = "  ".repeat(depth);
    writeln!(out, "{indent}inputs: {}", g.inputs.join(", "))?;
    for node in &g.nodes {
        let args: Vec<String> = node
            .inputs
            .iter()
            .map(|a| match a.name.as_str() {
                "" => a.value.clone(),
                name => format!("{name}={}", a.value),
            })
            .collect();
        let results = match node.outputs.as_slice() {
            [] => String::new(),
            [one] => format!("{one} = "),
            many => format!("({}) = ", many.join(", ")),
        };
        writeln!(
            out,
            "{indent}{results}{}({})",
            short_target(&node.target),
            args.join(", ")
        )?;
        if let Some(src) = &node.source {
            write!(out, "{indent}    at {}:{}", src.file, src.line)?;
            if let Some(code) = &src.code {
                write!(out, ": {code}")?;
            }
            writeln!(out)?;
            // The frames that led to the line, nearest first.
            let depth = node.stack.iter().position(|frame| frame == src);
            let callers: Vec<String> = node.stack[..depth.unwrap_or(0)]
                .iter()
                .rev()
                .map(|frame| format!("{}:{} ({})", frame.file, frame.line, frame.function))
                .collect();
            if !callers.is_empty() {
                writeln!(out, "{indent}    called from {}", callers.join(", "))?;
            }
        }
        for sub in &node.subgraphs {
            writeln!(out, "{indent}  {}:", sub.name)?;
            write_graph(out, &sub.graph, depth + 2)?;
        }
    }
    writeln!(out, "{indent}return {}", g.outputs.join(", "))
}
