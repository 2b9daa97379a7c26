//! A pickle reader that never runs anything: it turns the opcodes of a `torch.save` pickle into a
//! tree of [`Object`]s, where a call (`REDUCE`, `NEWOBJ`, `BUILD`) is recorded, not made. Only
//! the globals torch's tensor serialization and torchao's quantized tensors use may be named;
//! any other global stops the reading. What the tree means is [`crate::subclass`]'s to decide.

use std::cell::RefCell;
use std::rc::Rc;

/// Largest pickle read: tensor-subclass metadata is a few kilobytes.
pub const MAX_PICKLE_BYTES: usize = 1 << 20;

/// A value built by the pickle program.
#[derive(Debug)]
#[allow(
    dead_code,
    reason = "the tree holds every value a pickle makes; a layout reads only some of them"
)]
pub enum Object {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    Tuple(Vec<Rc<Object>>),
    List(RefCell<Vec<Rc<Object>>>),
    Dict(RefCell<Vec<(Rc<Object>, Rc<Object>)>>),
    /// `module.name`, one of the allowed globals.
    Global {
        module: String,
        name: String,
    },
    /// `callable(*args)`, as `REDUCE` or `NEWOBJ` would make it.
    Call {
        callable: Rc<Object>,
        args: Rc<Object>,
    },
    /// `object.__setstate__(state)`, as `BUILD` would make it.
    Build {
        object: Rc<Object>,
        state: Rc<Object>,
    },
    /// A persistent id (`torch.save` storages).
    Persistent(Rc<Object>),
}

impl Object {
    pub fn is_global(&self, module: &str, name: &str) -> bool {
        matches!(self, Object::Global { module: m, name: n } if m == module && n == name)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Object::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_int(&self) -> Option<i64> {
        match self {
            Object::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The items of a tuple or a list.
    pub fn items(&self) -> Option<Vec<Rc<Object>>> {
        match self {
            Object::Tuple(items) => Some(items.clone()),
            Object::List(items) => Some(items.borrow().clone()),
            _ => None,
        }
    }

    /// The entries of a dict, or of a `collections.OrderedDict()` call (which builds an empty one).
    pub fn entries(&self) -> Option<Vec<(Rc<Object>, Rc<Object>)>> {
        match self {
            Object::Dict(entries) => Some(entries.borrow().clone()),
            Object::Call { callable, args }
                if callable.is_global("collections", "OrderedDict")
                    && args.items().is_some_and(|a| a.is_empty()) =>
            {
                Some(Vec::new())
            }
            _ => None,
        }
    }
}

/// Whether a pickle may name `module.name`: torch's tensor rebuilding, storages and dtypes,
/// `collections.OrderedDict`, and torchao's classes (its tensor subclasses and the enums and
/// configs they carry as metadata). Naming is all a global can do here: nothing is called.
fn allowed(module: &str, name: &str) -> bool {
    match module {
        "torch._tensor" => name == "_rebuild_from_type_v2",
        "torch._utils" => matches!(
            name,
            "_rebuild_wrapper_subclass" | "_rebuild_tensor_v2" | "_rebuild_tensor_v3"
        ),
        "torch.serialization" => name == "_get_layout",
        "torch.storage" => name == "UntypedStorage",
        "torch" => name == "device" || name.ends_with("Storage") || is_dtype_name(name),
        "collections" => name == "OrderedDict",
        _ => module == "torchao" || module.starts_with("torchao."),
    }
}

/// `torch.<name>` is an element type (`float32`, `int4`, `float8_e4m3fn`, ...).
fn is_dtype_name(name: &str) -> bool {
    const PREFIXES: [&str; 7] = ["float", "int", "uint", "bfloat", "complex", "bool", "half"];
    PREFIXES.iter().any(|p| name.starts_with(p))
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Runs the pickle program in `bytes` and returns what it leaves on its stack.
pub fn read(bytes: &[u8]) -> Result<Rc<Object>, String> {
    if bytes.len() > MAX_PICKLE_BYTES {
        return Err(format!(
            "the pickle is {} bytes, more than the {MAX_PICKLE_BYTES} tpuc reads",
            bytes.len()
        ));
    }
    Machine {
        bytes,
        at: 0,
        stack: Vec::new(),
        marks: Vec::new(),
        memo: Vec::new(),
    }
    .run()
}

struct Machine<'a> {
    bytes: &'a [u8],
    at: usize,
    stack: Vec<Rc<Object>>,
    marks: Vec<usize>,
    memo: Vec<Option<Rc<Object>>>,
}

impl Machine<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end =
            end.ok_or_else(|| format!("the pickle ends inside an opcode at byte {}", self.at))?;
        let bytes = &self.bytes[self.at..end];
        self.at = end;
        Ok(bytes)
    }

    fn u8(&mut self) -> Result<usize, String> {
        Ok(usize::from(self.take(1)?[0]))
    }

    fn u32(&mut self) -> Result<usize, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }

    fn u64(&mut self) -> Result<usize, String> {
        let b = self.take(8)?;
        let mut word = [0; 8];
        word.copy_from_slice(b);
        usize::try_from(u64::from_le_bytes(word)).map_err(|_| "a length overflows".to_owned())
    }

    fn line(&mut self) -> Result<String, String> {
        let rest = &self.bytes[self.at..];
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or("a GLOBAL line has no end")?;
        let line = std::str::from_utf8(&rest[..end]).map_err(|_| "a GLOBAL line is not UTF-8")?;
        self.at += end + 1;
        Ok(line.to_owned())
    }

    fn text(&mut self, len: usize) -> Result<Object, String> {
        let bytes = self.take(len)?;
        let text = std::str::from_utf8(bytes).map_err(|_| "a string is not UTF-8")?;
        Ok(Object::Str(text.to_owned()))
    }

    fn pop(&mut self) -> Result<Rc<Object>, String> {
        if self.marks.last().is_some_and(|&m| m >= self.stack.len()) {
            return Err("an opcode pops past a MARK".into());
        }
        self.stack.pop().ok_or_else(|| "the stack is empty".into())
    }

    fn pop_mark(&mut self) -> Result<Vec<Rc<Object>>, String> {
        let mark = self.marks.pop().ok_or("no MARK to pop to")?;
        Ok(self.stack.split_off(mark))
    }

    fn top(&self) -> Result<&Rc<Object>, String> {
        self.stack.last().ok_or_else(|| "the stack is empty".into())
    }

    fn push(&mut self, object: Object) {
        self.stack.push(Rc::new(object));
    }

    fn global(&mut self, module: String, name: String) -> Result<(), String> {
        if !allowed(&module, &name) {
            return Err(format!(
                "it names `{module}.{name}`, which is not part of a tensor layout tpuc knows"
            ));
        }
        self.push(Object::Global { module, name });
        Ok(())
    }

    fn memoize(&mut self, index: usize) -> Result<(), String> {
        if index > MAX_PICKLE_BYTES {
            return Err(format!("memo index {index} is out of range"));
        }
        let top = self.top()?.clone();
        if self.memo.len() <= index {
            self.memo.resize(index + 1, None);
        }
        self.memo[index] = Some(top);
        Ok(())
    }

    fn recall(&mut self, index: usize) -> Result<(), String> {
        let object = self
            .memo
            .get(index)
            .cloned()
            .flatten()
            .ok_or_else(|| format!("memo entry {index} was never stored"))?;
        self.stack.push(object);
        Ok(())
    }

    fn extend(&mut self, items: Vec<Rc<Object>>) -> Result<(), String> {
        match &**self.top()? {
            Object::List(list) => {
                list.borrow_mut().extend(items);
                Ok(())
            }
            _ => Err("APPEND to something that is not a list".into()),
        }
    }

    fn set_items(&mut self, items: Vec<Rc<Object>>) -> Result<(), String> {
        if !items.len().is_multiple_of(2) {
            return Err("SETITEMS with an odd number of items".into());
        }
        match &**self.top()? {
            Object::Dict(dict) => {
                let mut dict = dict.borrow_mut();
                for pair in items.chunks(2) {
                    dict.push((pair[0].clone(), pair[1].clone()));
                }
                Ok(())
            }
            _ => Err("SETITEM on something that is not a dict".into()),
        }
    }

    fn run(mut self) -> Result<Rc<Object>, String> {
        loop {
            let at = self.at;
            let opcode = self.u8()? as u8;
            match opcode {
                0x80 => {
                    self.u8()?;
                }
                0x95 => {
                    self.u64()?;
                }
                b'.' => {
                    let result = self.pop()?;
                    return if self.stack.is_empty() && self.marks.is_empty() {
                        Ok(result)
                    } else {
                        Err("STOP leaves values on the stack".into())
                    };
                }
                b'(' => self.marks.push(self.stack.len()),
                b'0' => {
                    self.pop()?;
                }
                b'1' => {
                    self.pop_mark()?;
                }
                b'2' => {
                    let top = self.top()?.clone();
                    self.stack.push(top);
                }
                b'c' => {
                    let module = self.line()?;
                    let name = self.line()?;
                    self.global(module, name)?;
                }
                0x93 => {
                    let name = self.pop()?;
                    let module = self.pop()?;
                    match (module.as_str(), name.as_str()) {
                        (Some(m), Some(n)) => self.global(m.to_owned(), n.to_owned())?,
                        _ => return Err("STACK_GLOBAL of something that is not a name".into()),
                    }
                }
                b'q' => {
                    let i = self.u8()?;
                    self.memoize(i)?;
                }
                b'r' => {
                    let i = self.u32()?;
                    self.memoize(i)?;
                }
                0x94 => {
                    let i = self.memo.len();
                    self.memoize(i)?;
                }
                b'h' => {
                    let i = self.u8()?;
                    self.recall(i)?;
                }
                b'j' => {
                    let i = self.u32()?;
                    self.recall(i)?;
                }
                b't' => {
                    let items = self.pop_mark()?;
                    self.push(Object::Tuple(items));
                }
                b')' => self.push(Object::Tuple(Vec::new())),
                0x85..=0x87 => {
                    let n = usize::from(opcode - 0x84);
                    if self.stack.len() < n
                        || self.marks.last().is_some_and(|&m| m > self.stack.len() - n)
                    {
                        return Err("a TUPLE opcode pops past a MARK".into());
                    }
                    let items = self.stack.split_off(self.stack.len() - n);
                    self.push(Object::Tuple(items));
                }
                b']' => self.push(Object::List(RefCell::default())),
                b'l' => {
                    let items = self.pop_mark()?;
                    self.push(Object::List(RefCell::new(items)));
                }
                b'}' => self.push(Object::Dict(RefCell::default())),
                b'd' => {
                    let items = self.pop_mark()?;
                    self.push(Object::Dict(RefCell::default()));
                    self.set_items(items)?;
                }
                b'a' => {
                    let item = self.pop()?;
                    self.extend(vec![item])?;
                }
                b'e' => {
                    let items = self.pop_mark()?;
                    self.extend(items)?;
                }
                b's' => {
                    let value = self.pop()?;
                    let key = self.pop()?;
                    self.set_items(vec![key, value])?;
                }
                b'u' => {
                    let items = self.pop_mark()?;
                    self.set_items(items)?;
                }
                b'J' => {
                    let b = self.take(4)?;
                    let value = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                    self.push(Object::Int(i64::from(value)));
                }
                b'K' => {
                    let value = self.u8()?;
                    self.push(Object::Int(value as i64));
                }
                b'M' => {
                    let b = self.take(2)?;
                    let value = u16::from_le_bytes([b[0], b[1]]);
                    self.push(Object::Int(i64::from(value)));
                }
                0x8a => {
                    let n = self.u8()?;
                    let bytes = self.take(n)?;
                    if n > 8 {
                        return Err(format!("a {n}-byte integer is too long"));
                    }
                    let negative = bytes.last().is_some_and(|&b| b & 0x80 != 0);
                    let mut word = [if negative { 0xff } else { 0 }; 8];
                    word[..n].copy_from_slice(bytes);
                    self.push(Object::Int(i64::from_le_bytes(word)));
                }
                b'N' => self.push(Object::None),
                0x88 => self.push(Object::Bool(true)),
                0x89 => self.push(Object::Bool(false)),
                b'G' => {
                    let b = self.take(8)?;
                    let mut word = [0; 8];
                    word.copy_from_slice(b);
                    self.push(Object::Float(f64::from_be_bytes(word)));
                }
                b'X' => {
                    let n = self.u32()?;
                    let text = self.text(n)?;
                    self.push(text);
                }
                0x8c => {
                    let n = self.u8()?;
                    let text = self.text(n)?;
                    self.push(text);
                }
                0x8d => {
                    let n = self.u64()?;
                    let text = self.text(n)?;
                    self.push(text);
                }
                b'C' => {
                    let n = self.u8()?;
                    let bytes = self.take(n)?.to_vec();
                    self.push(Object::Bytes(bytes));
                }
                b'B' => {
                    let n = self.u32()?;
                    let bytes = self.take(n)?.to_vec();
                    self.push(Object::Bytes(bytes));
                }
                b'R' | 0x81 => {
                    let args = self.pop()?;
                    let callable = self.pop()?;
                    self.push(Object::Call { callable, args });
                }
                b'b' => {
                    let state = self.pop()?;
                    let object = self.pop()?;
                    self.push(Object::Build { object, state });
                }
                b'Q' => {
                    let id = self.pop()?;
                    self.push(Object::Persistent(id));
                }
                other => {
                    return Err(format!(
                        "opcode {other:#04x} at byte {at} is not one tpuc reads"
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_recorded_not_made() {
        // pickle.dumps(collections.OrderedDict(), protocol=2)
        let bytes = b"\x80\x02ccollections\nOrderedDict\nq\x00)Rq\x01.";
        let object = read(bytes).unwrap();
        assert!(matches!(&*object, Object::Call { callable, .. }
            if callable.is_global("collections", "OrderedDict")));
        assert_eq!(object.entries().map(|e| e.len()), Some(0));
    }

    #[test]
    fn foreign_globals_are_refused() {
        let bytes = b"\x80\x02cos\nsystem\nq\x00X\x02\x00\x00\x00ls\x85R.";
        let error = read(bytes).unwrap_err();
        assert!(error.contains("`os.system`"), "{error}");
        let bytes = b"\x80\x02ctorch\nload\nq\x00.";
        assert!(read(bytes).unwrap_err().contains("`torch.load`"));
    }

    #[test]
    fn containers_and_numbers() {
        // pickle.dumps({"a": [1, -2, 300, 70000, 2**40], "b": (None, True, 1.5)}, protocol=2)
        let bytes = b"\x80\x02}q\x00(X\x01\x00\x00\x00aq\x01]q\x02(K\x01J\xfe\xff\xff\xffM,\x01J\x70\x11\x01\x00\x8a\x06\x00\x00\x00\x00\x00\x01eX\x01\x00\x00\x00bq\x03N\x88G?\xf8\x00\x00\x00\x00\x00\x00\x87q\x04u.";
        let object = read(bytes).unwrap();
        let entries = object.entries().unwrap();
        assert_eq!(entries[0].0.as_str(), Some("a"));
        let ints: Vec<i64> = entries[0]
            .1
            .items()
            .unwrap()
            .iter()
            .map(|i| i.as_int().unwrap())
            .collect();
        assert_eq!(ints, [1, -2, 300, 70000, 1 << 40]);
        let b = entries[1].1.items().unwrap();
        assert!(matches!(*b[0], Object::None) && matches!(*b[1], Object::Bool(true)));
        assert!(matches!(*b[2], Object::Float(f) if f == 1.5));
    }

    #[test]
    fn damaged_pickles_are_errors() {
        for bytes in [
            &b"\x80\x02"[..],
            b"\x80\x02h\x05.",
            b"\x80\x02(t0.",
            b"\x80\x02K\x01K\x02.",
            b"\x80\x02\xff.",
            b"\x80\x02X\xff\xff\xff\x7fab.",
        ] {
            assert!(read(bytes).is_err(), "{bytes:?}");
        }
    }
}
