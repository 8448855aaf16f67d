//! `dynd`: try datashape types, pattern matching and broadcasting from a shell.
//!
//! ```text
//! dynd type parse '3 * var * int32'
//! dynd type match '(M * N * T, N * R * T)' '(2 * 3 * int32, 3 * 5 * int32)'
//! dynd type info '{x: int8, y: float64}'
//! dynd broadcast '2 * var * int32' '2 * 3 * float32'
//! dynd array '[[1, 2], [3]]'
//! dynd cast --errmode overflow '[1.5, 300]' '2 * int16'
//! ```
//!
//! Values are JSON both ways: NA is `null`, complex is `[re, im]`, strings
//! are JSON strings. `--json` output is strict JSON: floats keep a fraction
//! (`1.0`) and non-finite ones are the strings `"NaN"`, `"Infinity"`,
//! `"-Infinity"`; input also takes the bare words (and `nan`, `inf`,
//! `-inf`).
//!
//! Every command takes `--json` and then prints one JSON object on stdout:
//! `{"ok": true, ...}` on success, `{"ok": false, "error": "...", "offset": N}`
//! on failure (with exit status 1). Without `--json`, results go to stdout
//! and errors, with a caret under the problem, to stderr.
//!
//! ## Layering
//!
//! | floor | modules |
//! |---|---|
//! | 1 | `eval` |

// A dependency nobody uses cannot linger (CI denies warnings).
#![cfg_attr(not(test), warn(unused_crate_dependencies))]
#![forbid(unsafe_code)]

use dynd::nd::ArrayOps;
use std::process::ExitCode;

mod eval;

use clap::{Args, CommandFactory, Parser, Subcommand};
use dynd::nd::{Array, ErrorMode, Value as NdValue};
use dynd::ndt::{self, BroadcastMode, ParseError, Type};
use serde_json::{json, Map, Value};

#[derive(Parser)]
#[command(
    name = "dynd",
    version,
    about = "Try dynd-rs datashape types from a shell"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Datashape types: parse, match, describe.
    #[command(subcommand)]
    Type(TypeCommand),
    /// Broadcast argument types to the result type of an elementwise call.
    Broadcast {
        #[command(flatten)]
        out: Output,
        /// Strict (SlangPy) broadcasting: only 0-d values extend to more dimensions.
        #[arg(long)]
        strict: bool,
        /// The argument types.
        #[arg(required = true, num_args = 1..)]
        types: Vec<String>,
    },
    /// Make an array from a JSON value and print its value and type.
    Array {
        #[command(flatten)]
        out: Output,
        /// The array's type (default: inferred from the value).
        #[arg(long = "type", value_name = "TYPE")]
        ty: Option<String>,
        /// The value, as JSON (ragged lists give var dimensions).
        #[arg(allow_negative_numbers = true)]
        value: String,
    },
    /// Evaluate an expression (fused): infix arithmetic and comparisons,
    /// calls of builtins, JSON literals and inputs bound with --let, e.g.
    /// `dynd eval --let x='[[1], [2, 3]]' 'x * 2 + 1 > 3'`.
    Eval {
        #[command(flatten)]
        out: Output,
        /// Strict (SlangPy) broadcasting: only 0-d values extend to more dimensions.
        #[arg(long)]
        strict: bool,
        /// An input: NAME=JSON, or NAME=@FILE for a JSON file (repeatable).
        #[arg(long = "let", value_name = "NAME=JSON")]
        inputs: Vec<String>,
        /// The expression.
        #[arg(allow_hyphen_values = true)]
        expr: String,
    },
    /// The output type of a signature lifted elementwise over argument types.
    Resolve {
        #[command(flatten)]
        out: Output,
        /// Strict (SlangPy) broadcasting of the leading dimensions.
        #[arg(long)]
        strict: bool,
        /// The signature, e.g. '(M * N * T, N * P * T) -> M * P * T'.
        signature: String,
        /// The argument types.
        #[arg(num_args = 0..)]
        types: Vec<String>,
    },
    /// List every builtin callable with its signatures.
    List {
        #[command(flatten)]
        out: Output,
    },
    /// SQL over Parquet, CSV and Arrow IPC files with dynd's functions in
    /// Apache DataFusion: runs the `dynd-sql` tool (crates/dynd-datafusion),
    /// found next to this program or on PATH, e.g. `dynd sql --table
    /// s=sessions.parquet 'SELECT row_mean(durations) FROM s'`.
    #[command(disable_help_flag = true)]
    Sql {
        /// dynd-sql's arguments (`dynd sql --help` lists them).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
        args: Vec<String>,
    },
    /// Assign a value to a new array of another type, under an error mode.
    Cast {
        #[command(flatten)]
        out: Output,
        /// nocheck, overflow, fractional (the default) or inexact.
        #[arg(long, default_value = "fractional")]
        errmode: String,
        /// The value's type (default: inferred).
        #[arg(long, value_name = "TYPE")]
        from: Option<String>,
        /// The value, as JSON.
        #[arg(allow_negative_numbers = true)]
        value: String,
        /// The type to cast to.
        #[arg(value_name = "TYPE")]
        ty: String,
    },
}

#[derive(Subcommand)]
enum TypeCommand {
    /// Parse a datashape and print its canonical form.
    Parse {
        #[command(flatten)]
        out: Output,
        /// The datashape, e.g. '3 * var * int32'.
        datashape: String,
    },
    /// Match a pattern against a type and print the typevar bindings.
    Match {
        #[command(flatten)]
        out: Output,
        /// The pattern, e.g. 'N * T' or '(Dims... * int32, Dims... * float32)'.
        pattern: String,
        /// The type to match against it.
        candidate: String,
    },
    /// Describe a datashape: dimensions, data type, size and alignment.
    Info {
        #[command(flatten)]
        out: Output,
        /// The datashape.
        datashape: String,
    },
}

#[derive(Args, Clone, Copy)]
struct Output {
    /// Print one JSON object on stdout.
    #[arg(long)]
    json: bool,
}

/// A failure: the message, its offset in the input (for parse errors), and
/// which argument it concerns.
struct Failure {
    message: String,
    rendered: String,
    offset: Option<usize>,
    argument: Option<String>,
}

impl Failure {
    fn plain(message: String) -> Failure {
        Failure {
            rendered: message.clone(),
            message,
            offset: None,
            argument: None,
        }
    }

    fn parse(e: &ParseError, argument: &str) -> Failure {
        Failure {
            message: e.message(),
            rendered: format!("in {argument}: {e}"),
            offset: Some(e.offset()),
            argument: Some(argument.to_string()),
        }
    }
}

fn parse(text: &str, argument: &str) -> Result<Type, Failure> {
    Type::parse(text).map_err(|e| Failure::parse(&e, argument))
}

/// What a successful command prints: text for people, fields for `--json`.
struct Success {
    text: String,
    fields: Map<String, Value>,
    /// An array value, printed in full as strict JSON under "value"; the
    /// text shows it summarised past 1000 elements.
    value: Option<Array>,
}

fn success(text: String, fields: Value) -> Success {
    let Value::Object(fields) = fields else {
        unreachable!("commands build JSON objects")
    };
    Success {
        text,
        fields,
        value: None,
    }
}

/// The output of `array` and `cast`: the value and its type.
fn array_success(a: &Array) -> Success {
    Success {
        text: format!("{a}\ntype: {}", a.ty()),
        fields: json!({"type": a.ty().to_string()})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        value: Some(a.clone()),
    }
}

fn make_array(value: &str, ty: Option<&str>, argument: &str) -> Result<Array, Failure> {
    let ty = ty.map(|t| parse(t, "--type")).transpose()?;
    let v =
        NdValue::parse_json(value).map_err(|e| Failure::plain(format!("in {argument}: {e}")))?;
    Array::from_value(&v, ty.as_ref()).map_err(|e| Failure::plain(e.to_string()))
}

fn cast(value: &str, from: Option<&str>, ty: &str, errmode: &str) -> Result<Success, Failure> {
    let mode: ErrorMode = errmode.parse().map_err(Failure::plain)?;
    let target = parse(ty, "TYPE")?;
    let a = make_array(value, from, "VALUE")?;
    let out = a
        .cast(&target, mode)
        .map_err(|e| Failure::plain(e.to_string()))?;
    Ok(array_success(&out))
}

fn run(command: Command) -> (Output, Result<Success, Failure>) {
    match command {
        Command::Type(TypeCommand::Parse { out, datashape }) => (
            out,
            parse(&datashape, "DATASHAPE")
                .map(|t| success(t.to_string(), json!({"type": t.to_string()}))),
        ),
        Command::Type(TypeCommand::Info { out, datashape }) => (out, info(&datashape)),
        Command::Type(TypeCommand::Match {
            out,
            pattern,
            candidate,
        }) => (out, match_types(&pattern, &candidate)),
        Command::Broadcast { out, strict, types } => (out, broadcast(&types, strict)),
        Command::Array { out, ty, value } => (
            out,
            make_array(&value, ty.as_deref(), "VALUE").map(|a| array_success(&a)),
        ),
        Command::Cast {
            out,
            errmode,
            from,
            value,
            ty,
        } => (out, cast(&value, from.as_deref(), &ty, &errmode)),
        Command::Eval {
            out,
            strict,
            inputs,
            expr,
        } => (
            out,
            inputs
                .iter()
                .map(|b| eval::binding(b))
                .collect::<Result<Vec<_>, _>>()
                .and_then(eval::distinct)
                .and_then(|inputs| {
                    eval::eval(
                        &expr,
                        if strict {
                            BroadcastMode::Strict
                        } else {
                            BroadcastMode::NumPy
                        },
                        &inputs,
                    )
                })
                .map(|a| array_success(&a))
                .map_err(Failure::plain),
        ),
        Command::Resolve {
            out,
            strict,
            signature,
            types,
        } => (out, resolve(&signature, &types, strict)),
        Command::List { out } => (out, Ok(list())),
        Command::Sql { .. } => (
            Output { json: false },
            Err(Failure::plain("`sql` runs the dynd-sql tool".into())),
        ),
    }
}

/// Runs `dynd-sql` (next to this program, else on PATH) with `args`, its
/// output and exit status passed through.
fn sql(args: &[String]) -> ExitCode {
    let beside = std::env::current_exe()
        .ok()
        .map(|exe| exe.with_file_name(format!("dynd-sql{}", std::env::consts::EXE_SUFFIX)))
        .filter(|p| p.is_file());
    let program = beside.unwrap_or_else(|| "dynd-sql".into());
    match std::process::Command::new(&program).args(args).status() {
        Ok(status) => match status.code() {
            Some(0) => ExitCode::SUCCESS,
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => {
                // Killed by a signal: say which, and exit as a shell
                // reports it (128 + the signal's number).
                #[cfg(unix)]
                {
                    use std::os::unix::process::ExitStatusExt;
                    if let Some(signal) = status.signal() {
                        eprintln!(
                            "error: dynd-sql ({}) was killed by signal {signal}{}",
                            program.display(),
                            signal_name(signal).map_or(String::new(), |n| format!(" ({n})"))
                        );
                        return ExitCode::from(u8::try_from(128 + signal).unwrap_or(1));
                    }
                }
                eprintln!(
                    "error: dynd-sql ({}) ended without an exit status",
                    program.display()
                );
                ExitCode::FAILURE
            }
        },
        Err(e) => {
            eprintln!(
                "error: `dynd sql` runs the dynd-sql tool, which could not be started ({e}); \
                 install it with `cargo install --path crates/dynd-datafusion` \
                 (DataFusion is a long build, kept out of this CLI)"
            );
            ExitCode::FAILURE
        }
    }
}

/// The usual name of a POSIX signal, for the common ones.
#[cfg(unix)]
fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL: out of memory, or killed by hand",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return None,
    })
}

fn match_types(pattern: &str, candidate: &str) -> Result<Success, Failure> {
    let p = parse(pattern, "PATTERN")?;
    let c = parse(candidate, "CANDIDATE")?;
    Ok(match p.match_type(&c) {
        Ok(bindings) => {
            let mut text = String::from("matches");
            let mut map = Map::new();
            for (name, binding) in bindings.iter() {
                text.push_str(&format!("\n  {name} = {binding}"));
                map.insert(name.to_string(), Value::String(binding.to_string()));
            }
            success(text, json!({"matches": true, "bindings": map}))
        }
        Err(why) => success(
            format!("no match: {why}"),
            json!({"matches": false, "reason": why.to_string()}),
        ),
    })
}

fn broadcast(types: &[String], strict: bool) -> Result<Success, Failure> {
    let parsed = types
        .iter()
        .enumerate()
        .map(|(i, t)| parse(t, &format!("TYPE {}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    let mode = if strict {
        BroadcastMode::Strict
    } else {
        BroadcastMode::NumPy
    };
    let t = ndt::broadcast(&parsed, mode).map_err(|e| Failure::plain(e.to_string()))?;
    Ok(success(t.to_string(), json!({"type": t.to_string()})))
}

fn resolve(signature: &str, types: &[String], strict: bool) -> Result<Success, Failure> {
    let sig = parse(signature, "SIGNATURE")?;
    let args = types
        .iter()
        .enumerate()
        .map(|(i, t)| parse(t, &format!("TYPE {}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    let mode = if strict {
        BroadcastMode::Strict
    } else {
        BroadcastMode::NumPy
    };
    let t =
        dynd::func::resolve_lifted(&sig, &args, mode).map_err(|e| Failure::plain(e.to_string()))?;
    Ok(success(t.to_string(), json!({"type": t.to_string()})))
}

fn list() -> Success {
    let mut text = String::new();
    let mut functions = Map::new();
    let own = eval::own();
    let mut all: Vec<&dynd::func::Callable> = dynd::func::builtins::all().collect();
    all.extend(own.iter());
    for c in all {
        let sigs: Vec<String> = c.signatures().iter().map(|s| s.to_string()).collect();
        text.push_str(&format!("{}\n", c.name()));
        for s in &sigs {
            text.push_str(&format!("    {s}\n"));
        }
        functions.insert(c.name().to_string(), json!(sigs));
        for r in [c.reduce(), c.accumulate()].into_iter().flatten() {
            let sigs: Vec<String> = r.signatures().iter().map(|s| s.to_string()).collect();
            text.push_str(&format!("{}\n", r.name()));
            for s in &sigs {
                text.push_str(&format!("    {s}\n"));
            }
            functions.insert(r.name().to_string(), json!(sigs));
        }
    }
    for (name, doc) in eval::SPECIALS {
        text.push_str(&format!("{name}\n    {doc}\n"));
        functions.insert(name.to_string(), json!([doc]));
    }
    success(text.trim_end().to_string(), json!({"functions": functions}))
}

fn info(datashape: &str) -> Result<Success, Failure> {
    let t = parse(datashape, "DATASHAPE")?;
    let (dims, dtype) = t.split_dims();
    let dims: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    let layout = t.data_layout().ok();
    let mut text = format!(
        "type:     {t}\ndims:     {}\ndtype:    {dtype}\nndim:     {}\nsymbolic: {}",
        if dims.is_empty() {
            "(none)".to_string()
        } else {
            dims.join(", ")
        },
        t.ndim(),
        t.is_symbolic()
    );
    if let Some(l) = layout {
        text.push_str(&format!(
            "\nsize:     {} bytes\nalign:    {} bytes",
            l.size, l.align
        ));
    }
    Ok(success(
        text,
        json!({
            "type": t.to_string(),
            "dims": dims,
            "dtype": dtype.to_string(),
            "ndim": t.ndim(),
            "symbolic": t.is_symbolic(),
            "size": layout.map(|l| l.size),
            "align": layout.map(|l| l.align),
        }),
    ))
}

/// The stack the commands run on: an expression is a tree one level
/// deeper per operator (`1 + 1 + ... + 1`), which lowering walks
/// recursively; [`dynd::func::MAX_OPERATORS`] levels fit in this with room
/// to spare (the library moves a long expression to a thread of its own
/// anyway; JSON and datashape parsing recurse on this one). It is address
/// space, touched only as deep as a command goes.
const STACK: usize = 1 << 30;

/// Prints `text` and a newline on stdout. A closed pipe (`dynd ... |
/// head`) is not an error: the reader has what it wanted, and the tool
/// exits quietly, as Unix tools do.
fn emit(text: impl std::fmt::Display) -> Result<(), ExitCode> {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    match writeln!(stdout, "{text}").and_then(|()| stdout.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Err(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            Err(ExitCode::FAILURE)
        }
    }
}

/// The first argument, when it names a subcommand of `dynd type` given
/// at the top level (`dynd parse …` for `dynd type parse …`).
fn type_subcommand(args: &[std::ffi::OsString]) -> Option<&str> {
    let first = args.get(1)?.to_str()?;
    Cli::command()
        .find_subcommand("type")?
        .get_subcommands()
        .any(|c| c.get_name() == first)
        .then_some(first)
}

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = match Cli::try_parse_from(&args) {
        Ok(cli) => cli,
        Err(e) => {
            if e.kind() == clap::error::ErrorKind::InvalidSubcommand {
                if let Some(sub) = type_subcommand(&args) {
                    eprint!("{}", e.render());
                    eprintln!("\n  tip: '{sub}' is a subcommand of 'type': 'dynd type {sub} ...'");
                    return ExitCode::from(2);
                }
            }
            e.exit()
        }
    };
    if let Command::Sql { args } = &cli.command {
        return sql(args);
    }
    let worker = std::thread::Builder::new()
        .name("dynd".into())
        .stack_size(STACK)
        .spawn(move || run(cli.command));
    let (out, result) = match worker.map(std::thread::JoinHandle::join) {
        Ok(Ok(done)) => done,
        // A panic has printed its message already.
        Ok(Err(_)) => return ExitCode::from(101),
        Err(e) => {
            eprintln!("error: cannot start the worker thread: {e}");
            return ExitCode::FAILURE;
        }
    };
    match print(out, result) {
        Ok(code) | Err(code) => code,
    }
}

/// Prints a command's result (or its failure) as text or JSON, and the
/// exit status for it.
fn print(out: Output, result: Result<Success, Failure>) -> Result<ExitCode, ExitCode> {
    match (result, out.json) {
        (Ok(s), false) => {
            emit(&s.text)?;
            Ok(ExitCode::SUCCESS)
        }
        (Ok(s), true) => {
            let mut fields = Map::new();
            fields.insert("ok".into(), Value::Bool(true));
            fields.extend(s.fields);
            let object = Value::Object(fields).to_string();
            match s.value {
                // The array's own JSON, spliced in: no second value tree.
                Some(a) => match a.try_to_json() {
                    Ok(json) => emit(format_args!(
                        "{},\"value\":{json}}}",
                        &object[..object.len() - 1]
                    ))?,
                    Err(e) => {
                        emit(json!({"ok": false, "error": e.to_string()}))?;
                        return Ok(ExitCode::FAILURE);
                    }
                },
                None => emit(&object)?,
            }
            Ok(ExitCode::SUCCESS)
        }
        (Err(f), false) => {
            eprintln!("error: {}", f.rendered);
            Ok(ExitCode::FAILURE)
        }
        (Err(f), true) => {
            let mut obj = json!({"ok": false, "error": f.message});
            if let Some(offset) = f.offset {
                obj["offset"] = json!(offset);
            }
            if let Some(argument) = f.argument {
                obj["argument"] = json!(argument);
            }
            emit(obj)?;
            Ok(ExitCode::FAILURE)
        }
    }
}
