//! The scenario pipeline under libFuzzer: any bytes as a scenario file in the examples
//! folder (its side files resolve), through what `contact-fmu check` does
//! (`packager::check_text`), the FMU contents and one model step. A panic, an abort,
//! a timeout (-timeout) or memory beyond -rss_limit_mb is a finding.
#![no_main]

use contact_fmu::cosim::World;
use contact_fmu::packager;
use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples"));
    let Ok(s) = packager::check_text(text, "fuzzed.json", dir) else {
        return;
    };
    let _ = packager::contents(&s, "2026-01-01T00:00:00Z");
    let mut w = World::new(&s, Some(dir)).expect("check_text instantiated it");
    w.enter_initialization();
    if w.exit_initialization().is_ok() {
        let _ = w.do_step(s.model_step);
    }
});
