//! The top level: location aliases, the module (pretty `module @m attributes {..} {..}` or
//! generic `"builtin.module"() ...`), its functions and Shardy meshes.

use super::attr::{Attr, AttrValue, dict_to_named};
use super::cursor::PResult;
use super::lexer::Token;
use super::location::LocAliases;
use super::ops::{Entry, LocTarget, Parser};
use super::spans::OpSpans;
use crate::attr::{Mesh, NamedAttrs};
use crate::function::{Function, Visibility};
use crate::module::Module;
use crate::op::{FUNCTION_OP, MESH_OP};
use crate::types::Type;

pub(crate) fn parse(src: &str) -> PResult<(Module, OpSpans)> {
    let mut p = Parser::new(src);
    let mut aliases = LocAliases::default();
    let mut module: Option<Module> = None;
    loop {
        let token = p.c.peek_spanned()?.clone();
        match &token.token {
            Token::Eof => break,
            Token::Hash(name) => {
                p.c.next()?;
                p.c.expect(Token::Equal, "after the alias name")?;
                if !p.c.is_ident("loc")? {
                    return Err(p.c.error_here(
                        "only location aliases (`#name = loc(...)`) are supported at the top level",
                    ));
                }
                let expr = p.c.loc()?;
                aliases.define(src, name.clone(), expr, token.start, token.end)?;
            }
            Token::Bang(name) => {
                return Err(p.c.error_at(
                    token.start,
                    token.end,
                    format!("type aliases (`!{name} = ...`) are not supported"),
                ));
            }
            _ if module.is_some() => {
                return Err(p.c.error_at(token.start, token.end, format!(
                    "unexpected {} after the module: a file holds one module and location aliases",
                    token.token.describe()
                )));
            }
            Token::Ident(word) if word == "module" => module = Some(pretty_module(&mut p)?),
            Token::Str(word) if word == "builtin.module" => module = Some(generic_module(&mut p)?),
            Token::Ident(word) | Token::Str(word) if word == FUNCTION_OP || word == MESH_OP => {
                let mut implicit = Module::new();
                while !matches!(p.c.peek()?, Token::Eof | Token::Hash(_)) {
                    item(&mut p, &mut implicit)?;
                }
                module = Some(implicit);
            }
            _ => return Err(p.c.expected("`module`", "at the top level")),
        }
    }
    let Some(mut module) = module else {
        return Err(p.c.expected("`module`", "at the top level"));
    };
    for (target, expr) in std::mem::take(&mut p.pending) {
        let location = aliases.resolve(src, &expr)?;
        match target {
            LocTarget::Op(function, op) => module.functions[function].set_op_location(op, location),
            LocTarget::Function(function) => module.functions[function].location = location,
            LocTarget::Arg(function, arg) => {
                module.functions[function].arg_locations[arg] = location
            }
            LocTarget::Module => module.location = location,
            LocTarget::Discard => {}
        }
    }
    let names: Vec<&str> = module.functions.iter().map(|f| f.name.as_str()).collect();
    let spans = OpSpans::new(&p.spans, &names);
    Ok((module, spans))
}

/// `module [@name] [attributes {..}] { items } [loc(..)]`
fn pretty_module(p: &mut Parser<'_>) -> PResult<Module> {
    p.c.next()?;
    let mut module = Module::new();
    if let Token::Symbol(_) = p.c.peek()? {
        module.name = Some(p.c.symbol("")?.0);
    }
    if p.c.eat_ident("attributes")? {
        let entries = p.c.attr_dict()?;
        module_attrs(p, &mut module, entries)?;
    }
    p.c.expect(Token::LBrace, "to start the module body")?;
    while !p.c.eat(&Token::RBrace)? {
        item(p, &mut module)?;
    }
    if let Some(loc) = p.c.opt_loc()? {
        p.pending.push((LocTarget::Module, loc));
    }
    Ok(module)
}

/// `"builtin.module"() <{sym_name = ..}> ({ items }) {attrs} : () -> () [loc(..)]`
fn generic_module(p: &mut Parser<'_>) -> PResult<Module> {
    p.c.next()?;
    let mut module = Module::new();
    empty_operands(p, "builtin.module")?;
    let mut entries = Vec::new();
    if p.c.eat(&Token::Less)? {
        for (key, value) in p.c.attr_dict()? {
            match (key.as_str(), &value.value) {
                ("sym_name", AttrValue::Str(name)) => module.name = Some(name.clone()),
                _ => entries.push((key, value)),
            }
        }
        p.c.expect(Token::Greater, "to close the properties `<{...}>`")?;
    }
    p.c.expect(Token::LParen, "before the module region")?;
    p.c.expect(Token::LBrace, "to start the module body")?;
    while !p.c.eat(&Token::RBrace)? {
        item(p, &mut module)?;
    }
    p.c.expect(Token::RParen, "after the module region")?;
    if p.c.is(&Token::LBrace)? {
        entries.extend(p.c.attr_dict()?);
    }
    module_attrs(p, &mut module, entries)?;
    unit_type(p, "builtin.module")?;
    if let Some(loc) = p.c.opt_loc()? {
        p.pending.push((LocTarget::Module, loc));
    }
    Ok(module)
}

fn empty_operands(p: &mut Parser<'_>, op: &str) -> PResult<()> {
    p.c.expect(Token::LParen, &format!("after \"{op}\""))?;
    p.c.expect(Token::RParen, &format!("(\"{op}\" takes no operands)"))?;
    Ok(())
}

/// `: () -> ()`
fn unit_type(p: &mut Parser<'_>, op: &str) -> PResult<()> {
    p.c.expect(Token::Colon, &format!("before the type of \"{op}\""))?;
    let start = p.c.here()?;
    let (inputs, results) = p.c.function_type(&format!("as the type of \"{op}\""))?;
    if !inputs.is_empty() || !results.is_empty() {
        return Err(p
            .c
            .error_at(start, p.c.last_end, format!("\"{op}\" has type `() -> ()`")));
    }
    Ok(())
}

fn module_attrs(
    p: &mut Parser<'_>,
    module: &mut Module,
    entries: Vec<(String, Attr)>,
) -> PResult<()> {
    for (key, value) in entries {
        let count = match (key.as_str(), &value.value) {
            ("mhlo.num_partitions" | "mhlo.num_replicas", AttrValue::Int { value: n, .. }) => {
                Some(u32::try_from(*n).map_err(|_| {
                    p.c.error_at(value.start, value.end, format!("`{key}` is out of range"))
                })?)
            }
            _ => None,
        };
        match (key.as_str(), count) {
            ("mhlo.num_partitions", Some(n)) => module.num_partitions = Some(n),
            ("mhlo.num_replicas", Some(n)) => module.num_replicas = Some(n),
            _ => module.attrs.0.push((key, value.to_attribute(p.src()))),
        }
    }
    Ok(())
}

/// One item of the module body: a function or a mesh.
fn item(p: &mut Parser<'_>, module: &mut Module) -> PResult<()> {
    let token = p.c.peek_spanned()?.clone();
    match &token.token {
        Token::Ident(word) if word == FUNCTION_OP => pretty_function(p, module),
        Token::Str(word) if word == FUNCTION_OP => generic_function(p, module),
        Token::Ident(word) if word == MESH_OP => {
            p.c.next()?;
            let (name, _, _) = p.c.symbol("as the mesh name")?;
            p.c.expect(Token::Equal, "after the mesh name")?;
            p.c.expect(Token::Less, "before the mesh axes")?;
            let axes = p.c.mesh_axes()?;
            p.c.expect(Token::Greater, "after the mesh axes")?;
            if let Some(loc) = p.c.opt_loc()? {
                p.pending.push((LocTarget::Discard, loc));
            }
            module.meshes.push(Mesh { name, axes });
            Ok(())
        }
        Token::Str(word) if word == MESH_OP => {
            p.c.next()?;
            empty_operands(p, MESH_OP)?;
            p.c.expect(Token::Less, "before the mesh properties")?;
            let mut name = None;
            let mut axes = None;
            for (key, value) in p.c.attr_dict()? {
                match (key.as_str(), value.value) {
                    ("sym_name", AttrValue::Str(text)) => name = Some(text),
                    ("mesh", AttrValue::Mesh(list)) => axes = Some(list),
                    _ => {
                        return Err(p.c.error_at(
                            value.start,
                            value.end,
                            format!("unexpected property `{key}` of \"sdy.mesh\""),
                        ));
                    }
                }
            }
            p.c.expect(Token::Greater, "after the mesh properties")?;
            unit_type(p, MESH_OP)?;
            if let Some(loc) = p.c.opt_loc()? {
                p.pending.push((LocTarget::Discard, loc));
            }
            let (Some(name), Some(axes)) = (name, axes) else {
                return Err(p.c.error_at(
                    token.start,
                    token.end,
                    "\"sdy.mesh\" needs `sym_name` and `mesh` properties",
                ));
            };
            module.meshes.push(Mesh { name, axes });
            Ok(())
        }
        _ => Err(p
            .c
            .expected("`func.func` or `sdy.mesh`", "in the module body")),
    }
}

fn add_function(
    p: &mut Parser<'_>,
    module: &mut Module,
    function: Function,
    start: usize,
    end: usize,
) -> PResult<()> {
    let name = function.name.clone();
    module.add_function(function).map_err(|_| {
        p.c.error_at(start, end, format!("redefinition of function @{name}"))
    })
}

fn visibility(p: &mut Parser<'_>, word: &str, start: usize, end: usize) -> PResult<Visibility> {
    match word {
        "public" => Ok(Visibility::Public),
        "private" => Ok(Visibility::Private),
        _ => Err(p.c.error_at(
            start,
            end,
            format!("unsupported function visibility `{word}` (expected `public` or `private`)"),
        )),
    }
}

/// `func.func public @f(%a: T {attrs} loc(..)) -> (T {attrs}) attributes {..} { body } loc(..)`
fn pretty_function(p: &mut Parser<'_>, module: &mut Module) -> PResult<()> {
    p.c.next()?;
    let mut vis = Visibility::Public;
    if let Token::Ident(_) = p.c.peek()? {
        let (word, start, end) = p.c.ident("")?;
        vis = visibility(p, &word, start, end)?;
    }
    let (name, name_start, name_end) = p.c.symbol("as the function name")?;
    p.c.expect(Token::LParen, "to start the function arguments")?;
    let mut args = Vec::new();
    let mut arg_attrs = Vec::new();
    if !p.c.eat(&Token::RParen)? {
        loop {
            let token = p.c.next()?;
            let Token::Value {
                name: arg,
                index: None,
            } = token.token
            else {
                return Err(p.c.error_at(
                    token.start,
                    token.end,
                    format!(
                        "expected an argument like `%arg0: tensor<f32>`, found {}",
                        token.token.describe()
                    ),
                ));
            };
            p.c.expect(Token::Colon, "after the argument name")?;
            let ty = p.c.ty("as the argument type")?;
            let attrs = if p.c.is(&Token::LBrace)? {
                p.c.attr_dict()?
            } else {
                Vec::new()
            };
            if let Some(loc) = p.c.opt_loc()? {
                let target = LocTarget::Arg(module.functions.len(), args.len());
                p.pending.push((target, loc));
            }
            args.push((arg, ty, token.start, token.end));
            arg_attrs.push(dict_to_named(&attrs, p.src()));
            if p.c.eat(&Token::RParen)? {
                break;
            }
            p.c.expect(Token::Comma, "between function arguments")?;
        }
    }
    let mut results = Vec::new();
    let mut result_attrs = Vec::new();
    if p.c.eat(&Token::Arrow)? {
        if p.c.eat(&Token::LParen)? {
            if !p.c.eat(&Token::RParen)? {
                loop {
                    results.push(p.c.ty("as a result type")?);
                    let attrs = if p.c.is(&Token::LBrace)? {
                        p.c.attr_dict()?
                    } else {
                        Vec::new()
                    };
                    result_attrs.push(dict_to_named(&attrs, p.src()));
                    if p.c.eat(&Token::RParen)? {
                        break;
                    }
                    p.c.expect(Token::Comma, "between result types")?;
                }
            }
        } else {
            results.push(p.c.ty("as the result type")?);
            result_attrs.push(NamedAttrs::new());
        }
    }
    let attrs = if p.c.eat_ident("attributes")? {
        p.c.attr_dict()?
    } else {
        Vec::new()
    };
    if !p.c.is(&Token::LBrace)? {
        return Err(p
            .c
            .expected("'{'", "to start the function body")
            .with_help("function declarations without a body are not supported"));
    }
    let arg_types: Vec<Type> = args.iter().map(|a| a.1.clone()).collect();
    let mut function = Function::new(name, vis, arg_types, results);
    function.arg_attrs = arg_attrs;
    function.result_attrs = result_attrs;
    function.attrs = dict_to_named(&attrs, p.src());
    p.func_index = module.functions.len();
    p.reset_scopes();
    let values = function.args().to_vec();
    for ((arg, _, start, end), value) in args.iter().zip(values) {
        p.bind(arg, vec![value], *start, *end)?;
    }
    let (body, entry) = (function.body(), function.entry_block());
    p.region(&mut function, body, Entry::Existing(entry))?;
    if let Some(loc) = p.c.opt_loc()? {
        p.pending.push((LocTarget::Function(p.func_index), loc));
    }
    add_function(p, module, function, name_start, name_end)
}

/// `"func.func"() <{function_type = .., sym_name = .., ..}> ({ ^bb0(..): .. }) : () -> ()`
fn generic_function(p: &mut Parser<'_>, module: &mut Module) -> PResult<()> {
    let token = p.c.next()?;
    empty_operands(p, FUNCTION_OP)?;
    p.c.expect(Token::Less, "before the function properties")?;
    let props = p.c.attr_dict()?;
    p.c.expect(Token::Greater, "after the function properties")?;
    let src = p.src();
    let mut name = None;
    let mut signature = None;
    let mut vis = Visibility::Public;
    let mut arg_attrs = None;
    let mut result_attrs = None;
    let mut attrs = NamedAttrs::new();
    let dict_list = |p: &mut Parser<'_>, value: &Attr, key: &str| -> PResult<Vec<NamedAttrs>> {
        match &value.value {
            AttrValue::Array(items) => items
                .iter()
                .map(|item| match &item.value {
                    AttrValue::Dict(entries) => Ok(dict_to_named(entries, src)),
                    _ => Err(p.c.error_at(
                        item.start,
                        item.end,
                        format!("`{key}` must be a list of dictionaries"),
                    )),
                })
                .collect(),
            _ => Err(p.c.error_at(
                value.start,
                value.end,
                format!("`{key}` must be a list of dictionaries"),
            )),
        }
    };
    for (key, value) in &props {
        match (key.as_str(), &value.value) {
            ("sym_name", AttrValue::Str(text)) => name = Some(text.clone()),
            ("function_type", AttrValue::FunctionType(inputs, results)) => {
                signature = Some((inputs.clone(), results.clone()))
            }
            ("sym_visibility", AttrValue::Str(text)) => {
                vis = visibility(p, text, value.start, value.end)?
            }
            ("arg_attrs", _) => arg_attrs = Some(dict_list(p, value, key)?),
            ("res_attrs", _) => result_attrs = Some(dict_list(p, value, key)?),
            _ => attrs.0.push((key.clone(), value.to_attribute(src))),
        }
    }
    let (Some(name), Some((inputs, results))) = (name, signature) else {
        return Err(p.c.error_at(
            token.start,
            token.end,
            "\"func.func\" needs `sym_name` and `function_type` properties",
        ));
    };
    let mut function = Function::new(name, vis, inputs, results);
    let count_error = |p: &mut Parser<'_>, key: &str| {
        p.c.error_at(
            token.start,
            token.end,
            format!("`{key}` has the wrong number of entries for the function type"),
        )
    };
    if let Some(list) = arg_attrs {
        if list.len() != function.args().len() {
            return Err(count_error(p, "arg_attrs"));
        }
        function.arg_attrs = list;
    }
    if let Some(list) = result_attrs {
        if list.len() != function.result_types.len() {
            return Err(count_error(p, "res_attrs"));
        }
        function.result_attrs = list;
    }
    p.func_index = module.functions.len();
    p.reset_scopes();
    p.c.expect(Token::LParen, "before the function body")?;
    let (body, entry) = (function.body(), function.entry_block());
    p.region(&mut function, body, Entry::Existing(entry))?;
    p.c.expect(Token::RParen, "after the function body")?;
    if p.c.is(&Token::LBrace)? {
        for (key, value) in p.c.attr_dict()? {
            attrs.0.push((key, value.to_attribute(src)));
        }
    }
    function.attrs = attrs;
    unit_type(p, FUNCTION_OP)?;
    if let Some(loc) = p.c.opt_loc()? {
        p.pending.push((LocTarget::Function(p.func_index), loc));
    }
    add_function(p, module, function, token.start, token.end)
}
