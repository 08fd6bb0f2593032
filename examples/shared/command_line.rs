//! What every example's command line shares: arguments as UTF-8 strings
//! (an error, not a panic, when one is not), and a closed output pipe
//! (`… | head`) ending the program quietly, as Unix tools end, instead of
//! a panic in `println!`.

/// The arguments after the program's name, or the first that is not
/// UTF-8 as an error message.
#[allow(dead_code)]
pub fn arguments() -> Result<Vec<String>, String> {
    std::env::args_os()
        .skip(1)
        .map(|arg| {
            arg.into_string()
                .map_err(|bad| format!("argument {bad:?} is not UTF-8"))
        })
        .collect()
}

/// An error message when the example was given any argument but `--help`
/// (which prints `usage` and asks the caller to stop): for the examples
/// that take none.
#[allow(dead_code)]
pub fn no_arguments(usage: &str) -> Result<bool, String> {
    match arguments()?.as_slice() {
        [] => Ok(false),
        [help] if help == "--help" || help == "-h" => {
            println!("{usage}");
            Ok(true)
        }
        [first, ..] => Err(format!(
            "this example takes no arguments (got {first:?})\n{usage}"
        )),
    }
}

/// Restores the default action of SIGPIPE, which Rust's runtime ignores
/// (so that a write to a closed pipe fails, and `println!` panics).
pub fn quiet_on_closed_pipe() {
    #[cfg(target_os = "linux")]
    // SAFETY: `signal` with the default action changes only how the process
    // ends on a closed pipe; it is called first thing in `main`, before any
    // thread exists that could race on the signal disposition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
