//! A TerRA wheel on the single-wheel rig over a rigid terrain surface: contact
//! geometry in the rig plane, the TerRA forces, and the rig dynamics, for one step.

use crate::pmath;
use super::{RigDrive, RigState};
use crate::models::terra::{self, TerraInput, TerraOutput, TerraParams, TerraRates, TerraState};
use crate::geometry::terrain::Surface;
use nalgebra::Vector3;

/// Everything the rig reports after a step (world frame, rig plane x-z).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RigReport {
    /// Total sinkage of the lowest wheel point below the surface, m.
    pub sinkage: f64,
    /// Slip (see [`terra::slip`]), with the hub velocity along the terrain.
    pub slip: f64,
    /// Soil force on the wheel along world x, N.
    pub fx: f64,
    /// Soil force on the wheel along world z, N.
    pub fz: f64,
    /// Soil torque on the wheel about its axle (y), N m.
    pub my: f64,
    /// TerRA's own outputs.
    pub terra: TerraOutput,
}

/// Contact geometry of a wheel (axle along y, hub at `hub`, radius `radius`) over
/// `surface`: the TerRA input and the contact frame (normal, forward direction).
pub fn wheel_contact(
    surface: &Surface,
    hub: &Vector3<f64>,
    hub_velocity: &Vector3<f64>,
    omega: f64,
    radius: f64,
) -> (TerraInput, Vector3<f64>, Vector3<f64>) {
    let sp = surface.disc_contact(hub, radius);
    let n = sp.normal;
    // forward direction: axle x normal (axle = +y)
    let f = Vector3::y().cross(&n).normalize();
    let input = TerraInput {
        z: radius - sp.distance,
        z_rate: -hub_velocity.dot(&n),
        omega,
        forward_velocity: hub_velocity.dot(&f),
        slope: pmath::asin(f.z),
        lateral_velocity: hub_velocity.dot(&n.cross(&f)),
        camber: pmath::asin(n.y.clamp(-1.0, 1.0)),
        position: [hub.x, hub.y],
    };
    (input, n, f)
}

/// dh/dx of a surface with normal `n` in the x-z plane (0 where the normal is
/// horizontal: a wall has no height to follow).
pub fn surface_slope(n: &Vector3<f64>) -> f64 {
    if n.z > 1e-3 {
        -n.x / n.z
    } else {
        0.0
    }
}

/// TerRA's forces on the rig's wheel at one state, and what advancing needs.
#[derive(Debug, Clone, Copy)]
pub struct RigForces {
    /// TerRA's input (contact frame).
    pub input: TerraInput,
    /// Terrain normal and forward direction at the contact (world frame).
    pub n: Vector3<f64>,
    pub f: Vector3<f64>,
    /// TerRA's forces and the rates of its states.
    pub out: TerraOutput,
    pub rates: TerraRates,
    /// Soil force on the wheel (world frame), N.
    pub force: Vector3<f64>,
}

/// The forces at the rig's and TerRA's current states; changes nothing. `z_ideal`:
/// TerRA's ideal sinkage ([`terra::sinkage::ideal_sinkage`] of `p`), m.
pub fn forces(
    rig: &RigState,
    state: &TerraState,
    p: &TerraParams,
    z_ideal: f64,
    drive: &RigDrive,
    surface: &Surface,
) -> RigForces {
    let hub = Vector3::new(rig.x, 0.0, rig.z);
    let v = Vector3::new(rig.vx, 0.0, rig.vz);
    let (input, n, f) = wheel_contact(surface, &hub, &v, drive.omega, p.radius);
    let (out, rates) = terra::evaluate_at(p, z_ideal, state, &input);
    let force = n * out.normal_force + f * out.tangential_force;
    RigForces {
        input,
        n,
        f,
        out,
        rates,
        force,
    }
}

/// Advances TerRA's states and the rig's motion by `dt` (s) under the forces `e` of
/// their current states ([`forces`]).
pub fn advance(
    rig: &mut RigState,
    state: &mut TerraState,
    p: &TerraParams,
    drive: &RigDrive,
    e: &RigForces,
    dt: f64,
) -> RigReport {
    terra::advance(p, state, &e.rates, dt);
    // The sinkage grows as the hub goes down: dF_z/dz_hub = -k n_z^2.
    let nz2 = e.n.z * e.n.z;
    rig.step(
        drive,
        e.force.x,
        e.force.z,
        e.out.normal_stiffness * nz2,
        e.out.normal_damping * nz2,
        surface_slope(&e.n),
        &Default::default(),
        dt,
    );
    RigReport {
        sinkage: e.input.z,
        slip: terra::slip(drive.omega * p.radius, e.input.forward_velocity),
        fx: e.force.x,
        fz: e.force.z,
        my: -p.radius * e.out.traction,
        terra: e.out,
    }
}

/// One rig step of `dt` (s): TerRA forces at the current state, then TerRA states and
/// rig motion advance.
pub fn step(
    rig: &mut RigState,
    state: &mut TerraState,
    p: &TerraParams,
    drive: &RigDrive,
    surface: &Surface,
    dt: f64,
) -> RigReport {
    let e = forces(rig, state, p, terra::sinkage::ideal_sinkage(p), drive, surface);
    advance(rig, state, p, drive, &e, dt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::rig::RigMode;

    /// Mean world-z soil force on a slip-controlled TerRA wheel climbing a plane of
    /// `angle` at 0.2 m/s and 30 % slip, over the last second of 8 s (1 ms steps).
    fn climbing_fz(angle: f64) -> (f64, f64) {
        let p = TerraParams::table1();
        let surface = Surface::Plane { height: 0.0, angle };
        let vx = 0.2;
        let drive = RigDrive {
            mode: RigMode::SlipControlled,
            load_mass: 10.0,
            g: 9.81,
            omega: vx / (p.radius * 0.7),
            vx,
            drawbar_force: 0.0,
        };
        let mut rig = RigState {
            z: p.radius / pmath::cos(angle),
            ..Default::default()
        };
        let mut s = TerraState::default();
        let (mut sum, mut vz) = (0.0, 0.0);
        for k in 0..8000 {
            let r = step(&mut rig, &mut s, &p, &drive, &surface, 1e-3);
            if k >= 7000 {
                sum += r.fz;
                vz += rig.vz;
            }
        }
        (sum / 1000.0, vz / 1000.0)
    }

    /// Climbing at a steady vertical speed, the soil carries the load: the mean world-z
    /// force is m g. Before the rig's implicit step followed the ground's rise, it
    /// reported 110.8 N on the 8 degree slope. Tolerance 0.2 %: the TerRA states still
    /// creep (slip-sinkage), which the mean vertical acceleration bounds.
    #[test]
    fn a_wheel_climbing_a_slope_at_steady_speed_reports_its_load() {
        let mg = 10.0 * 9.81;
        for deg in [0.0f64, 8.0, 20.0] {
            let a = deg.to_radians();
            let (fz, vz) = climbing_fz(a);
            assert!(
                (vz - 0.2 * pmath::tan(a)).abs() < 1e-3,
                "{deg} deg: the hub climbs at {vz} m/s"
            );
            assert!(
                (fz - mg).abs() < 2e-3 * mg,
                "{deg} deg: mean Fz {fz} N against m g {mg} N"
            );
        }
    }
}
