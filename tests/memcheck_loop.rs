//! Issue 26, item 3: the loop valgrind checks (`ci/memcheck.sh`). Every example FMU is
//! loaded through the FMI C API and instantiated, initialized, stepped, its state got,
//! serialized, deserialized and set, reset, stepped again and freed, twice. Run alone
//! it checks that the calls succeed; under valgrind memcheck that nothing leaks and no
//! read or write is invalid.

mod common;

use common::*;
use fmi::fmi2::instance::{CoSimulation, Common};
use fmi::traits::{FmiImport, FmiStatus};
use std::path::PathBuf;

/// The example FMUs to loop over: MEMCHECK_FMUS (a folder of packaged FMUs) or the
/// examples packaged here.
fn fmus() -> (Option<tempfile::TempDir>, Vec<PathBuf>) {
    if let Ok(dir) = std::env::var("MEMCHECK_FMUS") {
        return (None, fmus_in(&dir));
    }
    let (dir, fmu) = package_example("bbcc_sphere_drop");
    (Some(dir), vec![fmu])
}

#[test]
#[ignore = "run by ci/memcheck.sh under valgrind (MEMCHECK_FMUS=target/fmu)"]
fn instantiate_step_state_reset_free_every_example() {
    let (_keep, fmus) = fmus();
    for fmu in &fmus {
        let import = load(fmu);
        let h = import
            .model_description()
            .default_experiment
            .as_ref()
            .and_then(|d| d.step_size)
            .unwrap_or(1e-3);
        for round in 0..2 {
            let mut inst = start(&import, "memcheck");
            let mut t = 0.0;
            for _ in 0..3 {
                step(&mut inst, t, h);
                t += h;
            }
            let s = inst.get_fmu_state().unwrap();
            let bytes = inst.serialize_fmu_state(&s).unwrap();
            let back = inst.deserialize_fmu_state(&bytes).unwrap();
            inst.set_fmu_state(&back).ok().unwrap();
            CoSimulation::do_step(&mut inst, t, h, true).unwrap();
            Common::reset(&mut inst).unwrap();
            Common::setup_experiment(&mut inst, None, 0.0, None).unwrap();
            Common::enter_initialization_mode(&mut inst).unwrap();
            Common::exit_initialization_mode(&mut inst).unwrap();
            step(&mut inst, 0.0, h);
            Common::terminate(&mut inst).unwrap();
            eprintln!("{} round {round}: ok", fmu.display());
        }
    }
}

/// Resident set size of this process, bytes (Linux: /proc/self/statm, in pages).
fn rss() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

#[test]
fn ten_thousand_instantiate_free_cycles_keep_the_resident_memory_flat() {
    // issue 26: 10 000 fmi2Instantiate/fmi2FreeInstance cycles of one FMU (with
    // initialization and a step each); the resident size after the first 1 000 (the
    // allocator's pools warm) and after all 10 000 differ by less than 2 MB
    let (_dir, fmu) = package_example("bbcc_sphere_drop");
    let import = load(&fmu);
    let mut after_warmup = 0;
    for k in 0..10_000 {
        let mut inst = start(&import, "cycle");
        step(&mut inst, 0.0, 1e-3);
        drop(inst);
        if k == 999 {
            after_warmup = rss();
        }
    }
    let end = rss();
    eprintln!(
        "resident size after 1 000 cycles {:.1} MB, after 10 000 {:.1} MB",
        after_warmup as f64 / 1e6,
        end as f64 / 1e6
    );
    assert!(
        end < after_warmup + 2_000_000,
        "{after_warmup} -> {end} bytes"
    );
}
