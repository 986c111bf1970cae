//! SCM speed (issue 4). Chrono's SCMTerrain publishes about 2.1 ms per step for one
//! wheel on a 20 mm grid and 8.6 ms on a 10 mm grid (4 threads, desktop CPU).
//! - `scm_single_wheel/<ds>`: one 1 ms step of the rig with the generated wheel
//!   (r = 0.25 m, width 0.2 m, 12 grousers of 1 cm, 200 N, 20 % slip) on DLR-A soil:
//!   contact forces + soil update + rig dynamics + outputs, after 1 s of driving;
//!   `<ds>_soil_every_5ms`: the same with the soil updated every 5 ms (the paper's
//!   second clock; contact forces still every step);
//! - `scm_rover_step`: the six kinematic wheels of `scm_rover_wheels` at ds = 10 mm;
//! - `scm_kinematic_wheel/<ds>`: the contact FMU of the co-simulated loop
//!   (`cosim_scm_contact`): the same wheel as a kinematic body, its pose and velocities
//!   set every step as a master sets them (rolling at 0.2 m/s and 1 rad/s, the hub at
//!   z = 0.237 m: the grouser tips 2.3 cm below the fresh soil's top), one fmi2SetReal
//!   and one fmi2DoStep per step: no pose is known ahead, so each evaluation
//!   scan-converts;
//! - `scm_field_instantiate`: a World with a 1 km x 1 km field at 1 cm.
//!
//! Each prints the grid spacing and the footprint node count beside the time.
//!
//! `SCM_STEP_TIMES=n` (e.g. `SCM_STEP_TIMES=10000 cargo bench --bench scm --
//! scm_single_wheel`): the single-wheel rows time each of `n` steps on its own instead
//! (the same restarts) and print their quantiles. On this project's VM criterion's
//! means take the slow tail of the host's noisy phases; the step medians do not, so
//! two builds compare better by them (run alternately). `SCM_STEP_ROW=ds_5mm` (a row's
//! name) times that row alone, e.g. under a profiler. They also print the quantiles of
//! the steps with the two cores near and far (see `round_trip_64k`).

use contact_fmu::cosim::variables::{Phase, VarType};
use contact_fmu::cosim::World;
use contact_fmu::scenario;
use criterion::{criterion_group, criterion_main, Criterion};
use std::path::Path;
use std::time::{Duration, Instant};

fn world(name: &str, params: &[(&str, f64)]) -> World {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}.json"));
    let s = scenario::load(&path).unwrap();
    let mut w = World::new(&s, path.parent()).unwrap();
    w.enter_initialization();
    for (n, x) in params {
        set(&mut w, n, *x, Phase::Initialization);
    }
    w.exit_initialization().unwrap();
    w
}

fn set(w: &mut World, name: &str, x: f64, phase: Phase) {
    let var = w.table().by_name(name).unwrap().clone();
    assert_eq!(var.ty, VarType::Real);
    w.set_reals(&[var.vr], &[x], phase).unwrap();
}

/// The value references of `names`, looked up once, as an importer resolves them from
/// modelDescription.xml.
fn value_refs<S: AsRef<str>>(w: &World, names: &[S]) -> Vec<u32> {
    names
        .iter()
        .map(|n| w.table().by_name(n.as_ref()).unwrap().vr)
        .collect()
}

fn get(w: &mut World, name: &str) -> f64 {
    let var = w.table().by_name(name).unwrap().clone();
    if var.ty == VarType::Integer {
        let mut o = [0];
        w.get_integers(&[var.vr], &mut o).unwrap();
        return o[0] as f64;
    }
    let mut o = [0.0];
    w.get_reals(&[var.vr], &mut o).unwrap();
    o[0]
}

/// Times `iters` calls of `step`, putting the world back to where the measurement
/// started every `RESTART` steps (untimed), so that however long criterion runs, the
/// wheels drive the same 0.5 s of the same rut and never off the field.
fn timed_steps(w: &mut World, iters: u64, mut step: impl FnMut(&mut World)) -> Duration {
    const RESTART: u64 = 500;
    let start = w.snapshot();
    let t0 = w.time();
    let mut total = Duration::ZERO;
    for k in 0..iters {
        if k > 0 && k % RESTART == 0 {
            w.restore(&start).unwrap();
            w.set_time(t0);
        }
        let t = Instant::now();
        step(w);
        total += t.elapsed();
    }
    w.restore(&start).unwrap();
    w.set_time(t0);
    total
}

/// The step count of `SCM_STEP_TIMES`, if set (and above zero).
fn step_times() -> Option<u64> {
    let n = std::env::var("SCM_STEP_TIMES").ok()?;
    let n = n.parse().expect("SCM_STEP_TIMES: a step count");
    (n > 0).then_some(n)
}

/// Whether `SCM_STEP_TIMES` times the single-wheel row `name`: all of them, or the one
/// `SCM_STEP_ROW` names (e.g. `ds_5mm`; for profilers, which then see that row alone).
fn step_row(name: &str) -> bool {
    std::env::var("SCM_STEP_ROW").map_or(true, |only| only == name)
}

/// Times each of `n` 1 ms steps of `w` on its own (with [`timed_steps`]' restarts) and
/// prints the quantiles of their times, in µs; and the same split by the cores'
/// placement (see [`round_trip_64k`]), measured before every block of
/// [`PLACEMENT_BLOCK`] steps (untimed): `near` where a round trip took at most
/// [`NEAR_ROUND_TRIP_US`].
fn print_step_quantiles(name: &str, w: &mut World, n: u64) {
    let mut times = Vec::with_capacity(n as usize);
    // (round trip of the block, µs; NaN: not measured)
    let mut trips = Vec::new();
    let (mut k, mut meter) = (0, true);
    timed_steps(w, n, |w| {
        if k % PLACEMENT_BLOCK == 0 {
            // (not again once the helper did not answer: one thread)
            let trip = if meter { round_trip_64k() } else { None };
            meter &= trip.is_some();
            trips.push(trip.unwrap_or(f64::NAN));
        }
        k += 1;
        let t = Instant::now();
        w.do_step(1e-3).unwrap();
        times.push(t.elapsed());
    });
    let line = |times: &mut Vec<Duration>| {
        times.sort_unstable();
        let last = (times.len() - 1) as f64;
        let q = |f: f64| times[(last * f).round() as usize].as_secs_f64() * 1e6;
        format!(
            "p10 {:.2}, p25 {:.2}, median {:.2}, p75 {:.2}, p90 {:.2} µs",
            q(0.1),
            q(0.25),
            q(0.5),
            q(0.75),
            q(0.9)
        )
    };
    let (mut near, mut far) = (Vec::new(), Vec::new());
    for (b, block) in times.chunks(PLACEMENT_BLOCK as usize).enumerate() {
        if trips[b] <= NEAR_ROUND_TRIP_US {
            near.extend_from_slice(block);
        } else if trips[b].is_finite() {
            far.extend_from_slice(block);
        }
    }
    eprintln!("{name}: {n} steps each timed: {}", line(&mut times));
    trips.retain(|t| t.is_finite());
    trips.sort_by(f64::total_cmp);
    if let (Some(lo), Some(hi)) = (trips.first(), trips.last()) {
        eprintln!(
            "{name}: 64 KB round trip between the cores {lo:.1}-{hi:.1} µs over {} blocks",
            trips.len()
        );
    }
    for (what, mut t) in [("near", near), ("far", far)] {
        if !t.is_empty() {
            let steps = t.len();
            eprintln!("{name}: cores {what}: {steps} steps: {}", line(&mut t));
        }
    }
}

/// Steps per placement measurement of [`print_step_quantiles`].
const PLACEMENT_BLOCK: u64 = 250;

/// The most a 64 KB round trip takes with the cores near, µs. On this project's VM it
/// takes 9-12 µs in the host's near placement and 33-35 µs in its far one, which
/// lasts seconds to minutes: the SCM step's two threads are then no faster than one
/// (docs/performance.md, "The VM's two placements").
const NEAR_ROUND_TRIP_US: f64 = 25.0;

/// The median time, µs, for one of the model's threads to write 64 KB and the other
/// (the helper of `contact_fmu::parallel`, as in a step) to read it and answer, over 15
/// round trips; `None` when the helper did not answer (one thread).
fn round_trip_64k() -> Option<f64> {
    use std::sync::atomic::{AtomicU64, Ordering::*};
    const WORDS: usize = 8192;
    const TRIPS: u64 = 15;
    let buf: Vec<AtomicU64> = (0..WORDS).map(|_| AtomicU64::new(0)).collect();
    let flag = AtomicU64::new(0);
    let give_up = Duration::from_millis(20);
    let wait = |want: u64| {
        let t = Instant::now();
        while flag.load(Acquire) != want {
            if t.elapsed() > give_up {
                return false;
            }
            std::hint::spin_loop();
        }
        true
    };
    // (a first job wakes a parked helper)
    contact_fmu::parallel::join(|| (), || ());
    let (mut times, _) = contact_fmu::parallel::join(
        || {
            let mut times = Vec::new();
            for r in 0..TRIPS {
                let t = Instant::now();
                for (i, x) in buf.iter().enumerate() {
                    x.store(r + i as u64, Relaxed);
                }
                flag.store(2 * r + 1, Release);
                if !wait(2 * r + 2) {
                    break;
                }
                times.push(t.elapsed().as_secs_f64() * 1e6);
            }
            // (tells the other side to stop, if it waits)
            flag.store(u64::MAX, Release);
            times
        },
        || {
            for r in 0..TRIPS {
                if !wait(2 * r + 1) {
                    return;
                }
                let sum = buf
                    .iter()
                    .fold(0u64, |a, x| a.wrapping_add(x.load(Relaxed)));
                buf[0].store(sum, Relaxed);
                flag.store(2 * r + 2, Release);
            }
        },
    );
    if times.len() < TRIPS as usize {
        return None;
    }
    times.sort_by(f64::total_cmp);
    Some(times[times.len() / 2])
}

fn single_wheel(c: &mut Criterion) {
    let mut g = c.benchmark_group("scm_single_wheel");
    // every step a soil update (the worst case), and the paper's second clock at 5 ms
    for (ds, update) in [(0.01, 0.0), (0.005, 0.0), (0.005, 0.005)] {
        let name = if update > 0.0 {
            format!("ds_{}mm_soil_every_{}ms", ds * 1e3, update * 1e3)
        } else {
            format!("ds_{}mm", ds * 1e3)
        };
        if step_times().is_some() && !step_row(&name) {
            continue;
        }
        let mut w = world(
            "scm_single_wheel",
            &[("soil.ds", ds), ("soil.update_interval", update)],
        );
        for _ in 0..1000 {
            w.do_step(1e-3).unwrap();
        }
        eprintln!(
            "scm_single_wheel ds = {} mm: {} footprint nodes, sinkage {:.4} m",
            ds * 1e3,
            get(&mut w, "wheel.contact_nodes"),
            get(&mut w, "wheel.sinkage")
        );
        if let Some(n) = step_times() {
            print_step_quantiles(&format!("scm_single_wheel/{name}"), &mut w, n);
            continue;
        }
        g.bench_function(name, |b| {
            b.iter_custom(|iters| timed_steps(&mut w, iters, |w| w.do_step(1e-3).unwrap()))
        });
    }
    g.finish();
}

fn rover(c: &mut Criterion) {
    let mut w = world("scm_rover_wheels", &[]);
    let names: Vec<String> = ["l1", "r1", "l2", "r2", "l3", "r3"]
        .iter()
        .map(|s| format!("wheel_{s}.r[1]"))
        .collect();
    let x0: Vec<f64> = names.iter().map(|n| get(&mut w, n)).collect();
    let vrs = value_refs(&w, &names);
    let mut x = x0.clone();
    // the wheels move at 0.1 m/s; positions from the time, so a restore puts them back;
    // one fmi2SetReal of the six inputs, one fmi2DoStep
    let mut step = |w: &mut World| {
        let t = w.time() + 1e-3;
        for (x, x0) in x.iter_mut().zip(&x0) {
            *x = x0 + 0.1 * t;
        }
        w.set_reals(&vrs, &x, Phase::Stepping).unwrap();
        w.do_step(1e-3).unwrap();
    };
    for _ in 0..500 {
        step(&mut w);
    }
    eprintln!(
        "scm_rover_step ds = 10 mm: {} footprint nodes per wheel",
        get(&mut w, "wheel_l1.contact_nodes")
    );
    c.bench_function("scm_rover_step", |b| {
        b.iter_custom(|iters| timed_steps(&mut w, iters, &mut step))
    });
}

fn kinematic_wheel(c: &mut Criterion) {
    let mut g = c.benchmark_group("scm_kinematic_wheel");
    for ds in [0.01, 0.005] {
        let mut w = world("cosim_scm_contact", &[("soil.ds", ds)]);
        let names = [
            "r[1]", "r[2]", "r[3]", "q[1]", "q[2]", "q[3]", "q[4]", "v[1]", "v[2]", "v[3]",
            "w[1]", "w[2]", "w[3]",
        ]
        .map(|s| format!("wheel.{s}"));
        let vrs = value_refs(&w, &names);
        // the pose from the time, so a restore puts the wheel back
        let mut step = |w: &mut World| {
            let t = w.time() + 1e-3;
            let (v, omega) = (0.2, 1.0);
            let half = 0.5 * omega * t;
            let x = [
                v * t,
                0.0,
                0.237,
                half.cos(),
                0.0,
                half.sin(),
                0.0,
                v,
                0.0,
                0.0,
                0.0,
                omega,
                0.0,
            ];
            w.set_reals(&vrs, &x, Phase::Stepping).unwrap();
            w.do_step(1e-3).unwrap();
        };
        for _ in 0..1000 {
            step(&mut w);
        }
        eprintln!(
            "scm_kinematic_wheel ds = {} mm: {} footprint nodes",
            ds * 1e3,
            get(&mut w, "wheel.contact_nodes")
        );
        g.bench_function(format!("ds_{}mm", ds * 1e3), |b| {
            b.iter_custom(|iters| timed_steps(&mut w, iters, &mut step))
        });
    }
    g.finish();
}

fn field(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/scm_rover_wheels.json");
    let mut s = scenario::load(&path).unwrap();
    let scm = s.scm.as_mut().unwrap();
    scm.extent = [-500.0, 500.0, -500.0, 500.0];
    scm.soil.ds = 0.01;
    c.bench_function("scm_field_instantiate_1km_1cm", |b| {
        b.iter(|| World::new(&s, path.parent()).unwrap())
    });
    let w = World::new(&s, path.parent()).unwrap();
    let d = w.snapshot();
    let soil = d
        .model::<contact_fmu::models::scm::scene::SoilState>()
        .unwrap();
    eprintln!(
        "1 km x 1 km at 1 cm: {} nodes, {} tiles stored, {} bytes of soil, snapshot {} bytes",
        soil.grid.extent.len(),
        soil.grid.tile_count(),
        soil.grid.memory_bytes(),
        contact_fmu::cosim::snapshot::encode("g", 0, &w.snapshot()).len()
    );
}

criterion_group!(benches, single_wheel, rover, kinematic_wheel, field);
criterion_main!(benches);
