//! Progress on stderr through `indicatif`, only when stderr is a terminal
//! (logs and tests see the plain lines alone).
//!
//! A slow step shows a spinner with the elapsed time while it runs and
//! leaves one line such as `building OBB tree… 1.3 s` when it ends; quick
//! steps leave nothing. Frame loops show a bar with the count, the rate
//! and the time left, and print their table rows above it.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

/// Steps shorter than this leave no line.
const QUIET_FOR: Duration = Duration::from_secs(1);

/// Runs `work`, showing `label` and the elapsed time while it runs.
pub fn with_progress<T>(label: &str, work: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let spinner = ProgressBar::new_spinner().with_message(format!("{label}…"));
    spinner.set_style(
        ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("a valid template"),
    );
    spinner.enable_steady_tick(Duration::from_millis(100));
    let result = work();
    spinner.finish_and_clear();
    let elapsed = start.elapsed();
    if elapsed >= QUIET_FOR {
        eprintln!("{label}… {:.1} s", elapsed.as_secs_f64());
    }
    result
}

/// A bar over a loop of `len` steps (`unit`: "frames"), cleared when dropped.
pub struct Bar(ProgressBar);

impl Bar {
    pub fn new(label: &str, len: usize, unit: &str) -> Bar {
        let bar = ProgressBar::new(len as u64).with_message(label.to_string());
        let template =
            format!("{{msg}} [{{bar:30}}] {{pos}}/{{len}} {unit}, {{per_sec}}, {{eta}} left");
        bar.set_style(
            ProgressStyle::with_template(&template)
                .expect("a valid template")
                .progress_chars("=> "),
        );
        Bar(bar)
    }

    /// Prints a table row on stdout, above the bar.
    pub fn row(&self, line: String) {
        self.0.suspend(|| println!("{line}"));
    }

    /// One step done.
    pub fn step(&self) {
        self.0.inc(1);
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}
