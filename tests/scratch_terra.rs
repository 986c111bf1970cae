use contact_fmu::models::rig::*;
use contact_fmu::models::single_wheel;
use contact_fmu::models::terra::*;
use contact_fmu::models::terrain::*;

#[test]
#[ignore]
fn scratch() {
    let e = |k: &str, d: f64| std::env::var(k).ok().and_then(|s| s.parse().ok()).unwrap_or(d);
    let p = TerraParams { phi: e("PHI", 30.0f64).to_radians(), c: e("C", 200.0), rho: e("RHO", 1500.0), k_j: e("KJ", 0.02), ..TerraParams::table1() };
    let s1: f64 = std::env::var("S1").ok().and_then(|s| s.parse().ok()).unwrap_or(100.0);
    let s2: f64 = std::env::var("S2").ok().and_then(|s| s.parse().ok()).unwrap_or(200.0);
    let surface = Surface::Profile { points: ramps_profile(0.0, &[s1, s2], &[8f64.to_radians(), 20f64.to_radians()], 50.0) };
    let mut rig = RigState { x: 0.0, z: 1.1 * p.radius, ..Default::default() };
    let mut st = TerraState::default();
    let dt = 1e-3;
    for k in 0..40000 {
        let t = k as f64 * dt;
        let drive = RigDrive { mode: RigMode::ForceControlled, load_mass: 10.0, g: 9.81, omega: if t >= 2.0 { 0.5 } else { 0.0 }, vx: 0.0, drawbar_force: if t >= 2.0 { 10.0 } else { 0.0 } };
        let r = single_wheel::step(&mut rig, &mut st, &p, &drive, &surface, dt);
        if k % (e("EVERY", 500.0) as usize) == 0 {
            println!("t {t:5.1} x {:.4} vx {:.4} z {:.4} slip {:.3} sink {:.4} zeff {:.4} zs {:.4} zpk {:.4} Fn {:.1} Ft {:.1} tr {:.1} res {:.1} jm {:.3} xm {:.3}",
                rig.x, rig.vx, rig.z, r.slip, r.sinkage, r.terra.z_eff, st.z_s, st.z_peak, r.terra.normal_force, r.terra.tangential_force, r.terra.traction, r.terra.resistance, st.j_m, st.x_m);
        }
    }
}
