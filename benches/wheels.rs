//! The Bekker-family wheels' speed (issue 24 asks under 2 us per wheel step, and under
//! 3 us for the rig's FMI communication step):
//! - `bekker_wheel_step`, `bjh_wheel_step`, `rheological_wheel_step`: one force
//!   evaluation of the model on a wheel (r 0.25 m, b 0.2 m) 3 cm deep at 30 % slip,
//!   DLR-A, in process (BJH with the default 8 Gauss points per arc; the rheological
//!   wheel sliding, its state advanced by 1 ms);
//! - `leite_soft_step` (issue 24 asks under 10 us with 10 slices): Leite's soft-soil
//!   forces on the same wheel, 10 slices of 4 Gauss points per half arc (the default), the wheel
//!   cambered by 0.05 rad (so that no two slices are alike) and slipping sideways at
//!   0.02 m/s (so that the side mesh is summed), its state advanced by 1 ms;
//!   `leite_soft_step_upright` the same wheel upright and without side slip (all
//!   slices alike: one is evaluated for all);
//! - `bekker_rig_fmi_step`, `leite_rig_fmi_step`: one communication step of the
//!   packaged `bekker_single_wheel` / `leite_single_wheel` FMU through the FMI C API:
//!   fmi2SetReal of the inputs, fmi2DoStep of 1 ms (one sub-step), fmi2GetReal of the
//!   outputs;
//! - `leite_rock_rig_fmi_step`: the same with `leite_rock`'s wheel standing on the
//!   generated rock (driven onto it for 11 s, then held): the wheel-rock contact
//!   (GJK/EPA of the cylinder against the rock's hull) on top of the model.

use contact_fmu::models::bekker::{bjh, pure, BekkerModel, BekkerSoil, BjhModel};
use contact_fmu::models::leite::shape::StressShape;
use contact_fmu::models::leite::soft::{self, SideMesh, Soft, SoftModel, SoftSetup};
use contact_fmu::models::quadrature::GaussLegendre;
use contact_fmu::models::rheological::{model as rheological, RheologicalModel, Stiction};
use contact_fmu::models::wheel::WheelInput;
use contact_fmu::packager;
use criterion::{black_box, criterion_group, criterion_main, Criterion};
use fmi::fmi2::import::Fmi2Import;
use fmi::fmi2::instance::{CoSimulation, Common};
use fmi::traits::FmiImport;
use std::path::Path;

fn input() -> WheelInput {
    WheelInput {
        z: 0.03,
        z_rate: 0.001,
        omega: 1.0,
        forward_velocity: 0.175,
        slope: 0.0,
        ..Default::default()
    }
}

fn wheel_steps(c: &mut Criterion) {
    let soil = BekkerSoil::default();
    let pure_model = BekkerModel::default();
    let bjh_model = BjhModel::default();
    let rule = GaussLegendre::new(bjh_model.points as usize);
    let i = input();
    c.bench_function("bekker_wheel_step", |b| {
        b.iter(|| pure::forces(black_box(&soil), &pure_model, 0.25, 0.2, black_box(&i)))
    });
    c.bench_function("bjh_wheel_step", |b| {
        b.iter(|| {
            bjh::forces(
                black_box(&soil),
                &bjh_model,
                0.25,
                0.2,
                &rule,
                black_box(&i),
            )
        })
    });
    let rheo = RheologicalModel::default();
    let mut state = Stiction::default();
    c.bench_function("rheological_wheel_step", |b| {
        b.iter(|| {
            rheological::step(
                black_box(&soil),
                &rheo,
                0.25,
                0.2,
                9.81,
                &mut state,
                black_box(&i),
                1e-3,
            )
        })
    });
    let (leite, shape, mesh) = (
        SoftModel::default(),
        StressShape::default(),
        SideMesh::default(),
    );
    let setup = SoftSetup {
        soil: &soil,
        model: &leite,
        shape: &shape,
        mesh: &mesh,
        slices: 10,
        g: 9.81,
    };
    let tilted = WheelInput {
        camber: 0.05,
        lateral_velocity: 0.02,
        ..i
    };
    let mut soft_state = Soft::default();
    c.bench_function("leite_soft_step_upright", |b| {
        b.iter(|| {
            soft::forces(
                black_box(&setup),
                0.25,
                0.2,
                &mut soft_state,
                black_box(&i),
                1e-3,
            )
        })
    });
    c.bench_function("leite_soft_step", |b| {
        b.iter(|| {
            soft::forces(
                black_box(&setup),
                0.25,
                0.2,
                &mut soft_state,
                black_box(&tilted),
                1e-3,
            )
        })
    });
}

fn rig_fmi_step(c: &mut Criterion) {
    rig_fmi(
        c,
        "bekker_single_wheel",
        "bekker_rig_fmi_step",
        [1.0, 0.2],
        2000,
    );
    rig_fmi(
        c,
        "leite_single_wheel",
        "leite_rig_fmi_step",
        [0.0617, 0.0108],
        2000,
    );
    rig_fmi(
        c,
        "leite_rock",
        "leite_rock_rig_fmi_step",
        [0.0, 0.0],
        11000,
    );
}

/// One communication step of the packaged `example` at `rig.omega`, `rig.vx` =
/// `drive`, after `settle` steps of 1 ms at the example's own drive.
fn rig_fmi(c: &mut Criterion, example: &str, name: &str, drive: [f64; 2], settle: usize) {
    let dir = tempfile::tempdir().unwrap();
    let runtime = packager::find_runtime(None).expect("runtime cdylib built with the benchmarks");
    let scenario = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{example}.json"));
    let fmu = packager::package(&scenario, dir.path(), &runtime).unwrap();
    let import: Fmi2Import = fmi::import::from_path(&fmu).unwrap();
    let md = import.model_description();
    let vr = |n: &str| md.model_variable_by_name(n).unwrap().value_reference;
    let inputs = [vr("rig.omega"), vr("rig.vx")];
    let outputs: Vec<u32> = [
        "wheel.x",
        "wheel.z",
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
    let (mut t, h) = (0.0, 1e-3);
    // settle into the soil first
    for _ in 0..settle {
        CoSimulation::do_step(&inst, t, h, true).unwrap();
        t += h;
    }
    let mut out = vec![0.0; outputs.len()];
    c.bench_function(name, |b| {
        b.iter(|| {
            Common::set_real(&mut inst, &inputs, &drive).unwrap();
            CoSimulation::do_step(&inst, t, h, true).unwrap();
            t += h;
            Common::get_real(&mut inst, &outputs, &mut out).unwrap();
            black_box(&out);
        })
    });
}

criterion_group!(benches, wheel_steps, rig_fmi_step);
criterion_main!(benches);
