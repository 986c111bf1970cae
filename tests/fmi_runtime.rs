//! FMI 2.0 behaviour of the runtime through the real C API: state machine, GUID check,
//! refused values and recovery, FMU state get/set/serialize, independent instances.

mod common;

use common::*;
use fmi::fmi2::instance::{CoSimulation, Common, InstanceCS};
use fmi::fmi2::Fmi2Error;
use fmi::traits::{FmiImport, FmiStatus};
use std::io::{Read, Write};

/// Asserts that an FMI call returned fmi2Error.
#[track_caller]
fn assert_error<T: std::fmt::Debug>(r: Result<T, Fmi2Error>) {
    assert!(
        matches!(r, Err(Fmi2Error::Error)),
        "expected fmi2Error, got {r:?}"
    );
}

/// Free-body outputs of the drop example, to compare runs.
fn drop_outputs(import: &fmi::fmi2::import::Fmi2Import) -> Vec<u32> {
    let mut v = vrs(import, "ball.r", 3);
    v.extend(vrs(import, "ball.q", 4));
    v.extend(vrs(import, "ball.v", 3));
    v.extend(vrs(import, "ball.w", 3));
    v.extend(vrs(import, "ball.f", 3));
    v
}

/// Steps `n` times by `h` from `t0`, returning all outputs after each step (as bits).
fn run(inst: &mut InstanceCS, outputs: &[u32], t0: f64, h: f64, n: usize) -> Vec<Vec<u64>> {
    let mut t = t0;
    let mut trace = vec![];
    for _ in 0..n {
        step(inst, t, h);
        t += h;
        trace.push(get(inst, outputs).iter().map(|x| x.to_bits()).collect());
    }
    trace
}

#[test]
fn calls_in_the_wrong_state_return_error_and_reset_recovers() {
    let (_dir, fmu) = package_example("bbcc_sphere_drop");
    let import = load(&fmu);
    let z = vr(&import, "ball.r[3]");
    let mut inst = import.instantiate_cs("wrong-state", false, false).unwrap();
    // fmi2DoStep before initialization
    assert_error(CoSimulation::do_step(&inst, 0.0, 1e-3, true));
    Common::reset(&mut inst).unwrap();
    // fmi2ExitInitializationMode without entering it
    assert_error(Common::exit_initialization_mode(&mut inst));
    Common::reset(&mut inst).unwrap();
    // fmi2GetReal before initialization mode
    let mut out = [0.0];
    assert_error(Common::get_real(&mut inst, &[z], &mut out));
    Common::reset(&mut inst).unwrap();
    Common::setup_experiment(&mut inst, None, 0.0, None).unwrap();
    // fmi2SetupExperiment twice is fine before initialization; entering twice is not
    Common::enter_initialization_mode(&mut inst).unwrap();
    assert_error(Common::enter_initialization_mode(&mut inst));
    Common::reset(&mut inst).unwrap();
    Common::setup_experiment(&mut inst, None, 0.0, None).unwrap();
    Common::enter_initialization_mode(&mut inst).unwrap();
    Common::exit_initialization_mode(&mut inst).unwrap();
    // an output cannot be set, a fixed parameter not after initialization
    assert_error(Common::set_real(&mut inst, &[z], &[1.0]));
    Common::reset(&mut inst).unwrap();
    inst = start(&import, "wrong-state-2");
    let mass = vr(&import, "ball.mass");
    assert_error(Common::set_real(&mut inst, &[mass], &[2.0]));
    Common::reset(&mut inst).unwrap();
    inst = start(&import, "wrong-state-3");
    // cancel without a running step; terminate, then step
    assert_error(CoSimulation::cancel_step(&inst));
    Common::reset(&mut inst).unwrap();
    inst = start(&import, "wrong-state-4");
    step(&mut inst, 0.0, 1e-3);
    Common::terminate(&mut inst).unwrap();
    assert_error(CoSimulation::do_step(&inst, 1e-3, 1e-3, true));
    // after all that, a reset instance runs normally
    Common::reset(&mut inst).unwrap();
    Common::setup_experiment(&mut inst, None, 0.0, None).unwrap();
    Common::enter_initialization_mode(&mut inst).unwrap();
    Common::exit_initialization_mode(&mut inst).unwrap();
    step(&mut inst, 0.0, 1e-3);
    assert!(get(&mut inst, &[z])[0] < 0.5);
}

#[test]
fn a_guid_mismatch_is_refused_at_instantiate() {
    let (dir, fmu) = package_example("bbcc_sphere_drop");
    // Edit resources/scenario.json inside the FMU: the runtime's GUID no longer matches
    // the one in modelDescription.xml.
    let mut archive = zip::ZipArchive::new(std::fs::File::open(&fmu).unwrap()).unwrap();
    let tampered = dir.path().join("tampered.fmu");
    let mut out = zip::ZipWriter::new(std::fs::File::create(&tampered).unwrap());
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).unwrap();
        let name = entry.name().to_string();
        let mut bytes = vec![];
        entry.read_to_end(&mut bytes).unwrap();
        if name == "resources/scenario.json" {
            bytes = String::from_utf8(bytes)
                .unwrap()
                .replace("\"mass\": 1.0", "\"mass\": 2.0")
                .into_bytes();
        }
        let opts = zip::write::SimpleFileOptions::default()
            .unix_permissions(entry.unix_mode().unwrap_or(0o644));
        out.start_file(name, opts).unwrap();
        out.write_all(&bytes).unwrap();
    }
    out.finish().unwrap();
    let import = load(&tampered);
    assert!(import.instantiate_cs("tampered", false, false).is_err());
    // the original still instantiates
    assert!(load(&fmu).instantiate_cs("original", false, false).is_ok());
}

#[test]
fn a_nan_input_is_refused_and_the_master_goes_on_from_a_saved_state() {
    let (_dir, fmu) = package_example("bbcc_sphere_drop");
    let import = load(&fmu);
    let outputs = drop_outputs(&import);
    let f_ext = vrs(&import, "ball.f_ext", 3);
    let h = 1e-3;

    let mut reference = start(&import, "reference");
    run(&mut reference, &outputs, 0.0, h, 200);
    let expected = run(&mut reference, &outputs, 0.2, h, 300);

    let mut inst = start(&import, "nan");
    run(&mut inst, &outputs, 0.0, h, 200);
    let saved = inst.get_fmu_state().unwrap();
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_error(Common::set_real(&mut inst, &f_ext, &[0.0, bad, 0.0]));
        // in Error state the FMU refuses to step...
        assert_error(CoSimulation::do_step(&inst, 0.2, h, true));
        // ...but restores the saved state and goes on as if nothing happened
        inst.set_fmu_state(&saved).ok().unwrap();
    }
    // an unknown value reference is refused the same way
    assert_error(Common::set_real(&mut inst, &[100_000], &[1.0]));
    inst.set_fmu_state(&saved).ok().unwrap();
    assert_eq!(run(&mut inst, &outputs, 0.2, h, 300), expected);
}

#[test]
fn fmu_state_get_set_and_serialize_continue_bit_identically() {
    let (_dir, fmu) = package_example("bbcc_sphere_drop");
    let import = load(&fmu);
    let outputs = drop_outputs(&import);
    let h = 1e-3;
    let mut inst = start(&import, "state");
    // into the first impact, so that a contact memory is live in the state
    run(&mut inst, &outputs, 0.0, h, 290);
    let s = inst.get_fmu_state().unwrap();
    let bytes = inst.serialize_fmu_state(&s).unwrap();
    let expected = run(&mut inst, &outputs, 0.29, h, 400);

    // restore in place
    inst.set_fmu_state(&s).ok().unwrap();
    assert_eq!(run(&mut inst, &outputs, 0.29, h, 400), expected);

    // deserialize into the same instance
    let d = inst.deserialize_fmu_state(&bytes).unwrap();
    inst.set_fmu_state(&d).ok().unwrap();
    assert_eq!(run(&mut inst, &outputs, 0.29, h, 400), expected);

    // deserialize into a fresh instance: it continues where the other was
    let mut other = start(&import, "other");
    let d2 = other.deserialize_fmu_state(&bytes).unwrap();
    other.set_fmu_state(&d2).ok().unwrap();
    assert_eq!(run(&mut other, &outputs, 0.29, h, 400), expected);

    // overwrite a saved state (fmi2GetFMUstate with a state given)
    let later = inst.get_fmu_state().unwrap();
    assert!(inst.update_fmu_state(&later).ok().is_ok());

    // truncated and foreign buffers are refused
    assert!(other
        .deserialize_fmu_state(&bytes[..bytes.len() / 2])
        .is_err());
    assert!(other.deserialize_fmu_state(b"not a state at all").is_err());
    let (_dir2, fmu2) = package_example("bbcc_sphere_kinematic");
    let import2 = load(&fmu2);
    let mut foreign = start(&import2, "foreign");
    assert!(foreign.deserialize_fmu_state(&bytes).is_err());
}

#[test]
fn two_instances_on_two_threads_give_the_results_of_one_alone() {
    let (_dir, fmu) = package_example("bbcc_sphere_drop");
    let import = std::sync::Arc::new(load(&fmu));
    let outputs = drop_outputs(&import);
    let h = 1e-3;
    let mut alone = start(&import, "alone");
    let expected = run(&mut alone, &outputs, 0.0, h, 1500);
    drop(alone);

    /// The fmi crate's instance holds raw pointers; our runtime has no global state, so
    /// moving an instance to another thread is sound.
    struct SendInstance(InstanceCS);
    unsafe impl Send for SendInstance {}

    let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
    let handles: Vec<_> = (0..2)
        .map(|i| {
            let inst = SendInstance(start(&import, &format!("thread{i}")));
            let outputs = outputs.clone();
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                // move the whole wrapper in (not just its field)
                let mut inst = inst;
                let mut t = 0.0;
                let mut trace = vec![];
                for _ in 0..1500 {
                    // lock-step: both threads step at the same time
                    barrier.wait();
                    step(&mut inst.0, t, h);
                    t += h;
                    trace.push(
                        get(&mut inst.0, &outputs)
                            .iter()
                            .map(|x| x.to_bits())
                            .collect::<Vec<u64>>(),
                    );
                }
                trace
            })
        })
        .collect();
    for hdl in handles {
        assert_eq!(hdl.join().unwrap(), expected);
    }

    // interleaved on one thread as well
    let mut a = start(&import, "a");
    let mut b = start(&import, "b");
    let mut t = 0.0;
    for expected_k in &expected {
        step(&mut a, t, h);
        step(&mut b, t, h);
        t += h;
        let ea: Vec<u64> = get(&mut a, &outputs).iter().map(|x| x.to_bits()).collect();
        let eb: Vec<u64> = get(&mut b, &outputs).iter().map(|x| x.to_bits()).collect();
        assert_eq!(&ea, expected_k);
        assert_eq!(&eb, expected_k);
    }
}

#[test]
fn variable_step_sizes_and_accumulated_rounding_are_accepted() {
    let (_dir, fmu) = package_example("bbcc_sphere_drop");
    let import = load(&fmu);
    let z = vr(&import, "ball.r[3]");
    let mut inst = start(&import, "variable");
    let mut t = 0.0;
    // 0.1 is not representable: t drifts from the exact sum, as in every master.
    for k in 0..100 {
        let h = [1e-3, 2.5e-3, 0.1e-3, 7e-3][k % 4];
        step(&mut inst, t, h);
        t += h;
    }
    let mut out = [0.0];
    assert!(CoSimulation::last_successful_time(&mut inst).unwrap() - t < 1e-12);
    Common::get_real(&mut inst, &[z], &mut out).unwrap();
    // still in free fall (first impact at 0.286 s): z = z0 - g t^2 / 2, up to the
    // symplectic Euler offset g t dt / 2 <= 1.3e-4 m for sub-steps dt <= 1e-4 s
    assert!(t > 0.26 && t < 0.28);
    let free_fall = 0.5 - 0.5 * 9.81 * t * t;
    assert!(
        (out[0] - free_fall).abs() < 2e-4,
        "z = {} vs {free_fall}",
        out[0]
    );
    // a communication point that is off by more than rounding is refused
    assert_error(CoSimulation::do_step(&inst, t + 1e-3, 1e-3, true));
    let mut inst = start(&import, "zero-step");
    assert_error(CoSimulation::do_step(&inst, 0.0, 0.0, true));
    let mut inst2 = start(&import, "rounding");
    step(&mut inst2, 0.0, 0.1);
    step(&mut inst2, 0.1 + 1e-15, 0.1);
    let _ = &mut inst;
}

#[test]
fn stop_time_is_honoured_with_rounding_tolerance() {
    let (_dir, fmu) = package_example("bbcc_sphere_drop");
    let import = load(&fmu);
    let mut inst = import.instantiate_cs("stop", false, false).unwrap();
    Common::setup_experiment(&mut inst, None, 0.0, Some(0.3)).unwrap();
    Common::enter_initialization_mode(&mut inst).unwrap();
    Common::exit_initialization_mode(&mut inst).unwrap();
    let mut t = 0.0;
    for _ in 0..3 {
        step(&mut inst, t, 0.1);
        t += 0.1; // 0.30000000000000004 after three steps
    }
    assert_error(CoSimulation::do_step(&inst, t, 0.1, true));
}

#[test]
fn debug_logging_categories_are_checked() {
    let (_dir, fmu) = package_example("bbcc_sphere_drop");
    let import = load(&fmu);
    let mut inst = import.instantiate_cs("log", false, false).unwrap();
    assert!(Common::set_debug_logging(&mut inst, true, &["logEvents", "logCalls"]).is_ok());
    assert!(Common::set_debug_logging(&mut inst, true, &[]).is_ok());
    assert_error(Common::set_debug_logging(&mut inst, true, &["logNonsense"]));
    assert_eq!(import.model_description().fmi_version, "2.0");
}
