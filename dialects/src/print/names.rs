//! SSA value names, assigned the way MLIR's printer does: a region's values first (`%argN` for
//! entry block arguments, `%N` per op), then each nested region starting from the counters the
//! enclosing region ended with. Sibling regions therefore reuse numbers, as in MLIR output.

use std::collections::HashSet;

use crate::function::{Function, OpId, RegionId, Value};
use crate::op::OpKind;

pub(crate) struct Names {
    /// Per value: the name of its op's result group (without `%`) and the index in the group
    /// when the group has more than one result.
    names: Vec<Option<(String, Option<usize>)>>,
}

#[derive(Clone, Copy)]
struct Counters {
    next_value: usize,
    next_arg: usize,
    next_conflict: usize,
}

struct Namer<'f> {
    f: &'f Function,
    hints: bool,
    names: Vec<Option<(String, Option<usize>)>>,
    counters: Counters,
    /// Names visible in the current scope; `added` logs insertions so a region's names can be
    /// dropped when it is left.
    used: HashSet<String>,
    added: Vec<String>,
}

impl Names {
    /// `hints`: use MLIR's result name hints (`%cst`, `%c`, `%iterArg`, ...).
    pub(crate) fn new(function: &Function, hints: bool) -> Self {
        let mut namer = Namer {
            f: function,
            hints,
            names: vec![None; function.value_count()],
            counters: Counters {
                next_value: 0,
                next_arg: 0,
                next_conflict: 0,
            },
            used: HashSet::new(),
            added: Vec::new(),
        };
        namer.region(function.body(), None);
        Self { names: namer.names }
    }

    /// `%name` or `%name#i` for a use.
    pub(crate) fn use_of(&self, value: Value) -> String {
        match self.names.get(value.index()).and_then(Option::as_ref) {
            Some((name, Some(i))) => format!("%{name}#{i}"),
            Some((name, None)) => format!("%{name}"),
            None => format!("%<<unnamed {}>>", value.index()),
        }
    }

    /// The left-hand side of an op's definition: `%0`, `%0:2` or `%a, %b`.
    pub(crate) fn definition(&self, results: &[Value]) -> String {
        let Some(&first) = results.first() else {
            return String::new();
        };
        match self.names.get(first.index()).and_then(Option::as_ref) {
            Some((name, Some(_))) => format!("%{name}:{}", results.len()),
            _ => results
                .iter()
                .map(|&v| self.use_of(v))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

impl Namer<'_> {
    fn set(&mut self, value: Value, name: String, index: Option<usize>) {
        if let Some(slot) = self.names.get_mut(value.index()) {
            *slot = Some((name, index));
        }
    }

    fn unique(&mut self, hint: &str) -> String {
        let mut name = hint.to_string();
        while self.used.contains(&name) {
            name = format!("{hint}_{}", self.counters.next_conflict);
            self.counters.next_conflict += 1;
        }
        self.used.insert(name.clone());
        self.added.push(name.clone());
        name
    }

    fn number(&mut self) -> String {
        self.counters.next_value += 1;
        (self.counters.next_value - 1).to_string()
    }

    fn region(&mut self, region: RegionId, arg_hint: Option<&str>) {
        let f = self.f;
        let scope_start = self.added.len();
        let blocks = &f.region(region).blocks;
        for (i, &block) in blocks.iter().enumerate() {
            for &arg in &f.block(block).args {
                let name = match (i, arg_hint) {
                    (0, Some(hint)) => self.unique(hint),
                    (0, None) => {
                        self.counters.next_arg += 1;
                        format!("arg{}", self.counters.next_arg - 1)
                    }
                    _ => self.number(),
                };
                self.set(arg, name, None);
            }
            for &op in &f.block(block).ops {
                self.results(op);
            }
        }
        let end = self.counters;
        for &block in blocks {
            for &op in &f.block(block).ops {
                let op = f.op(op);
                let hint = (self.hints && matches!(op.kind, OpKind::While)).then_some("iterArg");
                for &nested in &op.regions {
                    self.region(nested, hint);
                    self.counters = end;
                }
            }
        }
        for name in self.added.drain(scope_start..) {
            self.used.remove(&name);
        }
    }

    fn results(&mut self, op: OpId) {
        let op = self.f.op(op);
        let results = &op.results;
        if results.is_empty() {
            return;
        }
        let hints = if self.hints {
            result_hints(self.f, &op.kind, results)
        } else {
            None
        };
        match hints.as_deref() {
            Some(group) if group.len() == results.len() && group.len() > 1 => {
                for (&value, hint) in results.iter().zip(group) {
                    let name = self.unique(hint);
                    self.set(value, name, None);
                }
            }
            hints => {
                let name = match hints {
                    Some([hint]) => self.unique(hint),
                    _ => self.number(),
                };
                let grouped = results.len() > 1;
                for (i, &value) in results.iter().enumerate() {
                    self.set(value, name.clone(), grouped.then_some(i));
                }
            }
        }
    }
}

fn result_hints(f: &Function, kind: &OpKind, results: &[Value]) -> Option<Vec<&'static str>> {
    match kind {
        OpKind::Constant(_) => {
            let element = results
                .first()
                .and_then(|&v| f.value_type(v).as_tensor())
                .map(|t| t.element)?;
            let integer = element.is_integer() || element.is_bool();
            Some(vec![if integer { "c" } else { "cst" }])
        }
        OpKind::RngBitGenerator { .. } => Some(vec!["output_state", "output"]),
        _ => None,
    }
}
