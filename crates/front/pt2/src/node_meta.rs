//! Reading the string metadata torch attaches to nodes, for diagnostics that point at user code.

use serde::Serialize;

use crate::schema::Node;

/// One Python frame of a node's `stack_trace`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Frame<'a> {
    /// Source file as recorded (often relative to the exporting script).
    pub file: &'a str,
    /// 1-based line number.
    pub line: u32,
    /// Enclosing Python function.
    pub function: &'a str,
    /// The source line, trimmed, if the trace has it.
    pub code: Option<&'a str>,
}

/// One `nn_module_stack` entry: the module's key, attribute path and class.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModuleFrame<'a> {
    /// torch's unique key for the module call (`L__self__fc1`).
    pub key: &'a str,
    /// Attribute path from the root module, e.g. `layers.0.attn`; empty for the root.
    pub path: &'a str,
    /// Qualified class name, e.g. `torch.nn.modules.linear.Linear`.
    pub type_name: &'a str,
}

impl Node {
    /// The named metadata string (`stack_trace`, `nn_module_stack`, `torch_fn`, `from_node`, ...).
    pub fn meta(&self, key: &str) -> Option<&str> {
        self.metadata.get(key).map(String::as_str)
    }

    /// The frames of `stack_trace`, outermost (the user's code) first.
    pub fn stack_frames(&self) -> Vec<Frame<'_>> {
        self.meta("stack_trace")
            .map(parse_stack_trace)
            .unwrap_or_default()
    }

    /// The first frame of `stack_trace`: the user's line that produced this node.
    pub fn user_frame(&self) -> Option<Frame<'_>> {
        self.stack_frames().into_iter().next()
    }

    /// The innermost frame of `stack_trace` outside torch itself: the line that made the op,
    /// in the user's code or a model library (transformers, torchvision), rather than the
    /// model's top-level `forward`. The innermost frame if every frame is torch's.
    pub fn innermost_user_frame(&self) -> Option<Frame<'_>> {
        let frames = self.stack_frames();
        let user = frames
            .iter()
            .rposition(|frame| !is_torch_internal(frame.file));
        let index = user.or(frames.len().checked_sub(1))?;
        frames.into_iter().nth(index)
    }

    /// The modules the node was traced in, outermost first.
    pub fn module_stack(&self) -> Vec<ModuleFrame<'_>> {
        self.meta("nn_module_stack")
            .map(parse_module_stack)
            .unwrap_or_default()
    }

    /// The innermost module's attribute path (`fc1`), if the node was traced inside a submodule.
    pub fn module_path(&self) -> Option<&str> {
        self.module_stack()
            .last()
            .map(|frame| frame.path)
            .filter(|path| !path.is_empty())
    }

    /// The node's name: the `name` field (schema 8.20+), else its first output's name.
    pub fn display_name(&self) -> Option<&str> {
        self.name
            .as_deref()
            .or_else(|| self.outputs.first().and_then(|o| o.value_name()))
    }
}

/// Whether a stack-trace file is torch's own code (`torch/nn/modules/linear.py`, an
/// installed `.../site-packages/torch/...`) or code torch generated (`<eval_with_key>.3`).
fn is_torch_internal(file: &str) -> bool {
    file.starts_with("torch/") || file.contains("/torch/") || file.starts_with('<')
}

/// Parses `File "x.py", line 45, in forward\n    code` frames.
pub fn parse_stack_trace(trace: &str) -> Vec<Frame<'_>> {
    let mut frames = Vec::new();
    let mut lines = trace.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(rest) = line.trim_start().strip_prefix("File \"") else {
            continue;
        };
        let Some((file, rest)) = rest.split_once("\", line ") else {
            continue;
        };
        let (number, function) = rest.split_once(", in ").unwrap_or((rest, ""));
        let Ok(line_number) = number.trim().parse() else {
            continue;
        };
        let code = lines
            .peek()
            .filter(|next| !next.trim_start().starts_with("File \""))
            .map(|next| next.trim())
            .filter(|code| !code.is_empty());
        if code.is_some() {
            lines.next();
        }
        frames.push(Frame {
            file,
            line: line_number,
            function: function.trim(),
            code,
        });
    }
    frames
}

/// Parses `key,path,type;key,path,type`; paths may hold `,`/`;` inside brackets.
pub fn parse_module_stack(stack: &str) -> Vec<ModuleFrame<'_>> {
    split_top_level(stack, ';')
        .into_iter()
        .filter(|entry| !entry.is_empty())
        .filter_map(|entry| {
            let (key, rest) = entry.split_once(',')?;
            let (path, type_name) = rest.rsplit_once(',')?;
            Some(ModuleFrame {
                key,
                path,
                type_name,
            })
        })
        .collect()
}

fn split_top_level(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            c if c == separator && depth <= 0 => {
                parts.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_trace_frames() {
        let trace = "File \"make_models.py\", line 45, in forward\n    return self.fc2(self.act(self.fc1(x)))\n  File \".../torch/nn/modules/linear.py\", line 134, in forward\n    return F.linear(input, self.weight, self.bias)";
        let frames = parse_stack_trace(trace);
        assert_eq!(frames.len(), 2);
        assert_eq!(
            frames[0],
            Frame {
                file: "make_models.py",
                line: 45,
                function: "forward",
                code: Some("return self.fc2(self.act(self.fc1(x)))"),
            }
        );
        assert_eq!(frames[1].line, 134);
        assert!(parse_stack_trace("garbage\nFile \"x\", line many, in f").is_empty());
    }

    #[test]
    fn the_innermost_user_frame_skips_torch() {
        let trace = "File \"testdata/generate.py\", line 335, in forward\n    return self.inner(x)\n  File \"transformers/models/gpt2/modeling_gpt2.py\", line 569, in forward\n    inputs_embeds = self.wte(input_ids)\n  File \"torch/nn/modules/sparse.py\", line 189, in forward\n    return F.embedding(";
        let node = |trace: &str| Node {
            metadata: [("stack_trace".to_owned(), trace.to_owned())].into(),
            ..Node::default()
        };
        let gpt2 = node(trace);
        let frame = gpt2.innermost_user_frame().unwrap();
        assert_eq!(
            (frame.file, frame.line),
            ("transformers/models/gpt2/modeling_gpt2.py", 569)
        );
        let torch_only =
            "File \"torch/a.py\", line 1, in f\n  File \"<eval_with_key>.3\", line 7, in g";
        assert_eq!(node(torch_only).innermost_user_frame().unwrap().line, 7);
        assert_eq!(Node::default().innermost_user_frame(), None);
    }

    #[test]
    fn module_stack_entries() {
        let stack = "L__self__,,__main__.MLP;L__self__layers_slice_None__2__None__,layers.slice(None, 2, None),torch.nn.Sequential;L__self__fc1,fc1,torch.nn.modules.linear.Linear";
        let frames = parse_module_stack(stack);
        assert_eq!(frames.len(), 3);
        assert_eq!(frames[0].path, "");
        assert_eq!(frames[1].path, "layers.slice(None, 2, None)");
        assert_eq!(frames[2].type_name, "torch.nn.modules.linear.Linear");
        let node = Node {
            metadata: [("nn_module_stack".to_owned(), stack.to_owned())].into(),
            ..Node::default()
        };
        assert_eq!(node.module_path(), Some("fc1"));
    }
}
