//! Packaging speed (issue 54, row "packaging one scenario"): `package_fmi` of an
//! example into a folder whose runtime cache (`.runtime-cache`) is warm, the way a
//! sweep packages its variants one after another:
//! - `package_terra_single_wheel`: FMI 2.0, the host runtime;
//! - `package_terra_single_wheel_fmi3`: the same as FMI 3.0;
//! - `package_three_platforms`: with every runtime found beside the host's
//!   (`$CONTACT_FMU_RUNTIMES`, else target/release/runtimes, where `bash ci/cross.sh`
//!   puts them); skipped when there are none.

use contact_fmu::cosim::fmi3::Layout;
use contact_fmu::packager::{self, platforms, FmiVersion};
use criterion::{criterion_group, criterion_main, Criterion};
use std::path::PathBuf;

fn example(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}.json"))
}

fn packaging(c: &mut Criterion) {
    let host = packager::find_runtime(None).expect("the runtime cdylib is built with the benches");
    let out = tempfile::tempdir().unwrap();
    let scenario = example("terra_single_wheel");
    for (id, fmi) in [
        ("package_terra_single_wheel", FmiVersion::V2),
        (
            "package_terra_single_wheel_fmi3",
            FmiVersion::V3(Layout::Arrays),
        ),
    ] {
        c.bench_function(id, |b| {
            b.iter(|| packager::package_fmi(&scenario, &[], out.path(), &host, fmi).unwrap())
        });
    }
    let all = platforms::Runtimes::discover(&host, &platforms::runtime_dirs(None));
    match all {
        Ok(r) if r.libraries.len() > 1 => {
            c.bench_function("package_three_platforms", |b| {
                b.iter(|| packager::package_fmi(&scenario, &[], out.path(), r.clone(), FmiVersion::V2).unwrap())
            });
        }
        _ => eprintln!("package_three_platforms: skipped (set CONTACT_FMU_RUNTIMES to a folder of other platforms' runtimes)"),
    }
}

criterion_group!(benches, packaging);
criterion_main!(benches);
