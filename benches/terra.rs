//! TerRA speed (Barthelmes 2018 reports ~1e-5 s per 1 ms step including the multibody
//! solver):
//! - `terra_wheel_step`: one TerRA step of the Table 1 wheel, in process;
//! - `rig_step`: one single-wheel rig step (geometry + TerRA + rig dynamics);
//! - `fmi_call_path`: one communication step through the packaged FMU and the FMI C
//!   API: fmi2SetReal of the inputs, fmi2DoStep of 1 ms, fmi2GetReal of the outputs.

use contact_fmu::models::rig::{RigDrive, RigMode, RigState};
use contact_fmu::models::single_wheel;
use contact_fmu::models::terra::{self, TerraInput, TerraParams, TerraState};
use contact_fmu::geometry::terrain::Surface;
use contact_fmu::packager;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation, Common};
use fmi::traits::FmiImport;
use std::path::Path;

fn terra_wheel_step(c: &mut Criterion) {
    let p = TerraParams::table1();
    let mut s = TerraState {
        z_peak: 0.012,
        z_s: 0.003,
        j_m: 0.05,
        x_m: 0.1,
        pi_integrator: 0.0,
    };
    let input = TerraInput {
        z: 0.014,
        z_rate: 0.001,
        omega: 0.5,
        forward_velocity: 0.05,
        slope: 0.1,
        lateral_velocity: 0.0,
        camber: 0.0,
        position: [0.0, 0.0],
    };
    c.bench_function("terra_wheel_step", |b| {
        b.iter(|| {
            let out = terra::step(black_box(&p), &mut s, black_box(&input), 1e-6);
            black_box(out)
        })
    });
}

fn rig_step(c: &mut Criterion) {
    let p = TerraParams::table1();
    let surface = Surface::Plane {
        height: 0.0,
        angle: 0.0,
    };
    let drive = RigDrive {
        mode: RigMode::ForceControlled,
        load_mass: 10.0,
        g: 9.81,
        omega: 0.5,
        vx: 0.0,
        drawbar_force: 10.0,
    };
    let mut rig = RigState {
        z: 0.11,
        ..Default::default()
    };
    let mut s = TerraState::default();
    for _ in 0..3000 {
        single_wheel::step(&mut rig, &mut s, &p, &drive, &surface, 1e-3);
    }
    c.bench_function("rig_step", |b| {
        b.iter(|| {
            let (mut r, mut st) = (rig, s);
            black_box(single_wheel::step(
                &mut r, &mut st, &p, &drive, &surface, 1e-3,
            ))
        })
    });
}

fn fmi_call_path(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let runtime = packager::find_runtime(None).expect("runtime cdylib built with the benchmarks");
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/terra_single_wheel.json");
    let fmu = packager::package(&scenario, dir.path(), &runtime).unwrap();
    let import: Fmi2Import = fmi::import::from_path(&fmu).unwrap();
    let md = import.model_description();
    let vr = |n: &str| md.model_variable_by_name(n).unwrap().value_reference;
    let inputs = [vr("rig.omega"), vr("rig.vx"), vr("rig.drawbar_force")];
    let outputs: Vec<u32> = [
        "wheel.x",
        "wheel.z",
        "wheel.vx",
        "wheel.vz",
        "wheel.sinkage",
        "wheel.slip",
        "wheel.Fx",
        "wheel.Fz",
        "wheel.My",
    ]
    .iter()
    .map(|n| vr(n))
    .collect();
    let mut inst = import.instantiate_cs("bench", false, false).unwrap();
    Common::setup_experiment(&mut inst, None, 0.0, None).unwrap();
    Common::enter_initialization_mode(&mut inst).unwrap();
    Common::exit_initialization_mode(&mut inst).unwrap();
    let mut t = 0.0;
    let h = 1e-3;
    let mut out = vec![0.0; outputs.len()];
    c.bench_function("fmi_call_path", |b| {
        b.iter(|| {
            Common::set_real(&mut inst, &inputs, &[0.5, 0.0, 10.0]).unwrap();
            CoSimulation::do_step(&inst, t, h, true).unwrap();
            t += h;
            Common::get_real(&mut inst, &outputs, &mut out).unwrap();
            black_box(&out);
        })
    });
}

criterion_group!(benches, terra_wheel_step, rig_step, fmi_call_path);
criterion_main!(benches);
