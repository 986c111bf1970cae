//! The fit description under libFuzzer: any bytes as a fit description for the
//! example TerRA drop model, through what `contact-fmu fit` does before its first
//! evaluation (`FitSpec::parse`, `fit::preflight::check`). A panic, an abort, a
//! timeout or memory beyond -rss_limit_mb is a finding.
#![no_main]

use contact_fmu::fit::{preflight, FitSpec, Model};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        Model::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../examples/fit/terra_drop.json"
        )))
        .expect("the example model loads")
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(spec) = FitSpec::parse(text) {
        let _ = preflight::check(&spec, model(), "terra_drop.json");
    }
});
