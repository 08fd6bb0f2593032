//! A progress line on stderr for steps that take more than about a second.
//!
//! Quick steps print nothing. A slow step shows a spinner with the elapsed
//! time while it runs (when stderr is a terminal) and leaves one line such as
//! `building OBB tree… 1.3 s` when it ends, so logs stay readable.

use std::io::{IsTerminal, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Steps shorter than this print nothing.
const QUIET_FOR: Duration = Duration::from_secs(1);

/// Runs `work`, showing `label` and the elapsed time on stderr if it takes more than a second.
pub fn with_progress<T>(label: &str, work: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let terminal = std::io::stderr().is_terminal();
    let (done, finished) = mpsc::channel::<()>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            let frames = ['|', '/', '-', '\\'];
            let mut shown = false;
            for frame in frames.iter().cycle() {
                if finished.recv_timeout(Duration::from_millis(100))
                    != Err(mpsc::RecvTimeoutError::Timeout)
                {
                    break;
                }
                if terminal && start.elapsed() >= QUIET_FOR {
                    eprint!("\r{frame} {label}… {:.1} s ", start.elapsed().as_secs_f64());
                    let _ = std::io::stderr().flush();
                    shown = true;
                }
            }
            let elapsed = start.elapsed();
            if elapsed >= QUIET_FOR {
                let lead = if shown { "\r" } else { "" };
                eprintln!("{lead}{label}… {:.1} s   ", elapsed.as_secs_f64());
            }
        });
        let result = work();
        let _ = done.send(());
        result
    })
}
