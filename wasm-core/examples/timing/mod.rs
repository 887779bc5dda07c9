//! Timing helpers shared by the examples that benchmark (`mod timing;` in each): a warm-up,
//! then the median and 95th percentile of many runs.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Median and 95th percentile of `runs` calls of `f`, after `runs / 10` warm-up calls.
pub fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, Duration) {
    for _ in 0..runs / 10 {
        black_box(f());
    }
    let mut samples: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .collect();
    samples.sort();
    (samples[runs / 2], samples[runs * 95 / 100])
}

/// Milliseconds with three decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}
