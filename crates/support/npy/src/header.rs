//! The header: magic, version, and the dictionary literal numpy writes, e.g.
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`.

use crate::dtype::{ByteOrder, Dtype};
use crate::error::Problem;

/// Longest header this reader accepts (numpy itself refuses more than 10,000 bytes by default).
pub const MAX_HEADER_LEN: usize = 1 << 16;

const MAGIC: &[u8] = b"\x93NUMPY";

/// numpy aligns the start of the data to this many bytes.
const ALIGN: usize = 64;

/// numpy leaves room for the first dimension to grow to this many digits in place.
const GROWTH_DIGITS: usize = 21;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Header {
    pub dtype: Dtype,
    pub order: ByteOrder,
    pub fortran_order: bool,
    pub shape: Vec<u64>,
}

/// Splits a file into its header and its data.
pub(crate) fn parse(bytes: &[u8]) -> Result<(Header, &[u8]), Problem> {
    if bytes.len() < MAGIC.len() + 2 || !bytes.starts_with(MAGIC) {
        return Err(
            if MAGIC.starts_with(&bytes[..bytes.len().min(MAGIC.len())]) {
                Problem::Truncated("magic string")
            } else {
                Problem::Magic
            },
        );
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let len_width = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => return Err(Problem::Version { major, minor }),
    };
    let start = 8 + len_width;
    let len_bytes = bytes
        .get(8..start)
        .ok_or(Problem::Truncated("header length"))?;
    let len = len_bytes
        .iter()
        .rev()
        .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
    if len > MAX_HEADER_LEN {
        return Err(Problem::HeaderTooLong {
            len,
            max: MAX_HEADER_LEN,
        });
    }
    let text = bytes
        .get(start..start + len)
        .ok_or(Problem::Truncated("header"))?;
    // Versions 1 and 2 are latin-1; only ASCII occurs in a valid header, so both are read as
    // UTF-8 here, which is version 3's encoding.
    let text = std::str::from_utf8(text).map_err(|e| Problem::Header {
        offset: e.valid_up_to(),
        message: "the header is not text".to_owned(),
    })?;
    let header = Parser { text, pos: 0 }.header()?;
    Ok((header, &bytes[start + len..]))
}

/// The header bytes `numpy.save` writes for a little-endian C-order array.
pub(crate) fn format(dtype: Dtype, shape: &[usize]) -> Vec<u8> {
    let dims = match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut dict = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {dims}, }}",
        dtype.descr()
    );
    if let Some(first) = shape.first() {
        let growth = GROWTH_DIGITS.saturating_sub(first.to_string().len());
        dict.extend(std::iter::repeat_n(' ', growth));
    }
    let (version, len_width) = if dict.len() + 1 + MAGIC.len() + 4 <= u16::MAX as usize {
        (1u8, 2)
    } else {
        (2u8, 4)
    };
    let unpadded = MAGIC.len() + 2 + len_width + dict.len() + 1;
    let padding = (ALIGN - unpadded % ALIGN) % ALIGN;
    let len = dict.len() + padding + 1;
    let mut out = Vec::with_capacity(unpadded + padding);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    out.extend_from_slice(&(len as u32).to_le_bytes()[..len_width]);
    out.extend_from_slice(dict.as_bytes());
    out.resize(out.len() + padding, b' ');
    out.push(b'\n');
    out
}

/// A value of the header dictionary.
enum Literal {
    Str(String),
    Bool(bool),
    Tuple(Vec<u64>),
}

/// A recursive-descent parser for the subset of Python literals a header uses.
struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    fn header(mut self) -> Result<Header, Problem> {
        let (mut descr, mut fortran_order, mut shape) = (None, None, None);
        self.expect('{')?;
        loop {
            self.skip_space();
            if self.eat('}') {
                break;
            }
            let key_at = self.pos;
            let key = self.string()?;
            self.expect(':')?;
            self.skip_space();
            let value_at = self.pos;
            let value = self.literal()?;
            let slot = match key.as_str() {
                "descr" => match value {
                    Literal::Str(s) => descr.replace(s).is_some(),
                    _ => return Err(self.error_at(value_at, "descr must be a type string")),
                },
                "fortran_order" => match value {
                    Literal::Bool(b) => fortran_order.replace(b).is_some(),
                    _ => return Err(self.error_at(value_at, "fortran_order must be True or False")),
                },
                "shape" => match value {
                    Literal::Tuple(dims) => shape.replace(dims).is_some(),
                    _ => return Err(self.error_at(value_at, "shape must be a tuple of integers")),
                },
                other => return Err(self.error_at(key_at, &format!("unexpected key {other:?}"))),
            };
            if slot {
                return Err(self.error_at(key_at, &format!("duplicate key {key:?}")));
            }
            self.skip_space();
            if !self.eat(',') {
                self.expect('}')?;
                break;
            }
        }
        self.skip_space();
        if self.pos != self.text.len() {
            return Err(self.error("unexpected text after the dictionary"));
        }
        let missing = |key: &str| self.error_at(0, &format!("the header has no {key:?}"));
        let descr = descr.ok_or_else(|| missing("descr"))?;
        let (dtype, order) = Dtype::from_descr(&descr).ok_or(Problem::Dtype(descr))?;
        Ok(Header {
            dtype,
            order,
            fortran_order: fortran_order.ok_or_else(|| missing("fortran_order"))?,
            shape: shape.ok_or_else(|| missing("shape"))?,
        })
    }

    fn literal(&mut self) -> Result<Literal, Problem> {
        match self.peek() {
            Some('\'' | '"') => self.string().map(Literal::Str),
            Some('(') => self.tuple().map(Literal::Tuple),
            Some('[') => Err(self.error("structured (record) dtypes are not supported")),
            _ if self.eat_word("True") => Ok(Literal::Bool(true)),
            _ if self.eat_word("False") => Ok(Literal::Bool(false)),
            _ => Err(self.error("expected a string, a tuple, True or False")),
        }
    }

    fn tuple(&mut self) -> Result<Vec<u64>, Problem> {
        self.expect('(')?;
        let mut dims = Vec::new();
        loop {
            self.skip_space();
            if self.eat(')') {
                return Ok(dims);
            }
            dims.push(self.integer()?);
            self.skip_space();
            if !self.eat(',') {
                self.expect(')')?;
                return Ok(dims);
            }
        }
    }

    fn integer(&mut self) -> Result<u64, Problem> {
        let start = self.pos;
        let digits = self.text[start..]
            .bytes()
            .take_while(u8::is_ascii_digit)
            .count();
        if digits == 0 {
            return Err(self.error("expected a non-negative integer"));
        }
        self.pos += digits;
        self.text[start..self.pos]
            .parse()
            .map_err(|_| self.error_at(start, "dimension too large"))
    }

    fn string(&mut self) -> Result<String, Problem> {
        let quote = match self.peek() {
            Some(q @ ('\'' | '"')) => q,
            _ => return Err(self.error("expected a quoted string")),
        };
        self.pos += 1;
        let start = self.pos;
        let len = self.text[start..]
            .find([quote, '\\', '\n'])
            .ok_or_else(|| self.error("unterminated string"))?;
        self.pos += len;
        if !self.eat(quote) {
            return Err(self.error("escapes and line breaks are not allowed in header strings"));
        }
        Ok(self.text[start..start + len].to_owned())
    }

    fn skip_space(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start_matches([' ', '\t', '\n', '\r']).len();
    }

    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn eat(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(c);
        if hit {
            self.pos += c.len_utf8();
        }
        hit
    }

    fn eat_word(&mut self, word: &str) -> bool {
        let hit = self.text[self.pos..].starts_with(word);
        if hit {
            self.pos += word.len();
        }
        hit
    }

    fn expect(&mut self, c: char) -> Result<(), Problem> {
        self.skip_space();
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.error(&format!("expected {c:?}")))
        }
    }

    fn error(&self, message: &str) -> Problem {
        self.error_at(self.pos, message)
    }

    fn error_at(&self, offset: usize, message: &str) -> Problem {
        Problem::Header {
            offset,
            message: message.to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(header: &str) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&[1, 0]);
        bytes.extend_from_slice(&(header.len() as u16).to_le_bytes());
        bytes.extend_from_slice(header.as_bytes());
        bytes
    }

    #[test]
    fn parses_what_numpy_writes() {
        let bytes = format(Dtype::F32, &[2, 3]);
        assert_eq!(bytes.len() % ALIGN, 0);
        let (header, data) = parse(&bytes).unwrap();
        assert!(data.is_empty());
        assert_eq!(
            header,
            Header {
                dtype: Dtype::F32,
                order: ByteOrder::Little,
                fortran_order: false,
                shape: vec![2, 3]
            }
        );
        for shape in [vec![], vec![7], vec![1, 0, 5]] {
            let (header, _) = parse(&format(Dtype::Bool, &shape)).unwrap();
            let expected: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
            assert_eq!(header.shape, expected);
        }
        let (header, _) = parse(&file(
            "{\"shape\":(4,),\"fortran_order\":True,\"descr\":\">c16\"}",
        ))
        .unwrap();
        assert_eq!((header.dtype, header.order), (Dtype::C128, ByteOrder::Big));
        assert!(header.fortran_order);
    }

    #[test]
    fn rejects_hostile_headers() {
        let cases = [
            ("{'descr': '<f4', 'fortran_order': False}", "no \"shape\""),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }",
                "non-negative",
            ),
            (
                "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,), }",
                "True or False",
            ),
            (
                "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}",
                "duplicate",
            ),
            (
                "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}",
                "structured",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'x': True}",
                "unexpected key",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': ()} junk",
                "after the dictionary",
            ),
            (
                "{'descr': '<f4', 'fortran_order': __import__('os'), 'shape': ()}",
                "expected a string",
            ),
            (
                "{'descr': '<f4\\x', 'fortran_order': False, 'shape': ()}",
                "escapes",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
                "too large",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2",
                "expected ')'",
            ),
        ];
        for (header, expected) in cases {
            let error = parse(&file(header)).unwrap_err().to_string();
            assert!(error.contains(expected), "{header}: {error}");
        }
        assert!(matches!(
            parse(&file("{'descr': '<U3', 'fortran_order': False, 'shape': ()}")),
            Err(Problem::Dtype(d)) if d == "<U3"
        ));
        assert!(matches!(parse(b"PK\x03\x04 not npy"), Err(Problem::Magic)));
        assert!(matches!(parse(b"\x93NUM"), Err(Problem::Truncated(_))));
        assert!(matches!(
            parse(b"\x93NUMPY\x04\x00\x00\x00"),
            Err(Problem::Version { major: 4, minor: 0 })
        ));
        let mut long = b"\x93NUMPY\x02\x00".to_vec();
        long.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(parse(&long), Err(Problem::HeaderTooLong { .. })));
        let mut short = file("{'descr': '<f4', 'fortran_order': False, 'shape': ()}");
        short.truncate(30);
        assert!(matches!(parse(&short), Err(Problem::Truncated("header"))));
    }
}
