//! Issue 26, item 5: a long run. The six grouser wheels of examples/scm_rover_wheels.json
//! (kinematic, DLR-A at ds = 1 cm) drive 1 km straight at 1 m/s and 20 % slip, one
//! 1 cm step per 10 ms communication step (model step 10 ms: a node per sub-step).
//! Every 100 m: the soil's stored memory and the process's resident size (they must
//! grow with the rut, not faster), the mean wall time per step (it must stay flat),
//! and the soil volume (conserved). Ignored in the suite (20 s in release):
//!
//!     cargo test --release --test scm_long_run -- --ignored --nocapture

mod common;

use common::{root, world_get as get, world_set as set};
use contact_fmu::cosim::variables::Phase;
use contact_fmu::cosim::World;
use contact_fmu::models::scm::scene::SoilState;
use contact_fmu::scenario;
use std::time::Instant;

fn rss_mb() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: f64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096.0 / 1e6
}

#[test]
#[ignore = "1 km of six SCM wheels: 20 s in release"]
fn six_wheels_drive_a_kilometre_with_flat_step_time_and_memory_in_the_rut() {
    let path = root().join("examples/scm_rover_wheels.json");
    let s = scenario::load(&path).unwrap();
    let mut w = World::new(&s, path.parent()).unwrap();
    w.enter_initialization();
    for (k, v) in [-2.0, 1002.0, -2.0, 2.0].iter().enumerate() {
        set(
            &mut w,
            &format!("soil.extent[{}]", k + 1),
            *v,
            Phase::Initialization,
        );
    }
    set(&mut w, "world.model_step", 0.01, Phase::Initialization);
    let wheels = ["l1", "r1", "l2", "r2", "l3", "r3"];
    let (speed, omega) = (1.0, 1.0 / (0.2 * 0.8));
    for n in wheels {
        set(
            &mut w,
            &format!("wheel_{n}.v[1]"),
            speed,
            Phase::Initialization,
        );
        set(
            &mut w,
            &format!("wheel_{n}.w[2]"),
            omega,
            Phase::Initialization,
        );
    }
    w.exit_initialization().unwrap();
    let vrs: Vec<u32> = wheels
        .iter()
        .map(|n| w.table().by_name(&format!("wheel_{n}.r[1]")).unwrap().vr)
        .collect();
    let x0: Vec<f64> = wheels
        .iter()
        .map(|n| get(&mut w, &format!("wheel_{n}.r[1]")))
        .collect();
    let h = 0.01;
    let steps_per_100m = (100.0 / (speed * h)) as usize;
    let mut rows = vec![];
    let mut x = x0.clone();
    let mut step = 0usize;
    let (rss0, volume0) = (rss_mb(), get(&mut w, "soil.volume"));
    for segment in 1..=10 {
        let t0 = Instant::now();
        for _ in 0..steps_per_100m {
            step += 1;
            for (x, x0) in x.iter_mut().zip(&x0) {
                *x = x0 + speed * h * step as f64;
            }
            w.set_reals(&vrs, &x, Phase::Stepping).unwrap();
            w.do_step(h).unwrap();
        }
        let per_step = t0.elapsed().as_secs_f64() / steps_per_100m as f64;
        // the resident size before the snapshot below copies the soil
        let rss = rss_mb();
        let soil_mb = {
            let snapshot = w.snapshot();
            snapshot.model::<SoilState>().unwrap().grid.memory_bytes() as f64 / 1e6
        };
        let volume = get(&mut w, "soil.volume");
        let sinkage = get(&mut w, "wheel_l1.sinkage");
        eprintln!(
            "{:4} m: {:7.1} us/step, soil {:6.1} MB, resident {:6.1} MB (+{:5.1}), volume {:+.2e} m3, sinkage {:.1} mm",
            segment * 100,
            per_step * 1e6,
            soil_mb,
            rss,
            rss - rss0,
            volume - volume0,
            sinkage * 1e3
        );
        rows.push((per_step, soil_mb, volume - volume0));
    }
    // memory in proportion to the rut: the soil's memory per 100 m stays within 10 % of
    // its mean; step time flat: the last 100 m within 25 % of the first (a noisy VM);
    // volume conserved to 1e-9 m3
    let growth: Vec<f64> = rows.windows(2).map(|r| r[1].1 - r[0].1).collect();
    let mean = growth.iter().sum::<f64>() / growth.len() as f64;
    assert!(
        growth.iter().all(|g| (g - mean).abs() < 0.1 * mean),
        "{growth:?}"
    );
    assert!(rows[9].0 < 1.25 * rows[0].0, "{rows:?}");
    assert!(rows.iter().all(|r| r.2.abs() < 1e-9), "{rows:?}");
}
