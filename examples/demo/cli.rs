//! Command lines of the file examples, on `lexopt`: `--help`, positional
//! files, and errors that name the argument (`--mesh=FILE` and `--mesh
//! FILE` both work where options take values).

/// The positional arguments (at most `max`), or `None` when `-h`/`--help`
/// was given. Options other than help are errors.
pub fn positional(args: &[String], max: usize) -> Result<Option<Vec<String>>, String> {
    use lexopt::prelude::*;
    let mut parser = lexopt::Parser::from_args(args.iter());
    let mut found = Vec::new();
    while let Some(arg) = parser.next().map_err(|e| e.to_string())? {
        match arg {
            Short('h') | Long("help") => return Ok(None),
            Value(value) if found.len() < max => {
                found.push(value.string().map_err(|e| e.to_string())?)
            }
            other => return Err(other.unexpected().to_string()),
        }
    }
    Ok(Some(found))
}

/// Prints `help` to stdout, ignoring a closed pipe (`--help | head`).
pub fn print_help(help: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout(), "{help}");
}
