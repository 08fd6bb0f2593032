//! Which optional x86-64 instructions this CPU has, for the kernels that
//! are compiled twice: once for the x86-64 baseline (SSE2) and once with
//! `#[target_feature]` for AVX2, chosen per query. Users need no build
//! flags, and one binary runs everywhere.

#[cfg(target_arch = "x86_64")]
use std::sync::atomic::{AtomicU8, Ordering};

/// 0: not checked yet; 1: no; 2: yes.
#[cfg(target_arch = "x86_64")]
static AVX2: AtomicU8 = AtomicU8::new(0);

/// True when the CPU has AVX2 and the companions every AVX2 CPU ships
/// (FMA, BMI1, BMI2, LZCNT), which the AVX2 kernels are compiled for.
/// Checked once; later calls are one relaxed load.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn has_avx2() -> bool {
    match AVX2.load(Ordering::Relaxed) {
        0 => {
            let found = std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("fma")
                && std::is_x86_feature_detected!("bmi1")
                && std::is_x86_feature_detected!("bmi2")
                && std::is_x86_feature_detected!("lzcnt");
            AVX2.store(1 + u8::from(found), Ordering::Relaxed);
            found
        }
        known => known == 2,
    }
}
