//! A TerRA wheel on the single-wheel rig over a rigid terrain surface: contact
//! geometry in the rig plane, the TerRA forces, and the rig dynamics, for one step.

use super::{RigDrive, RigState};
use crate::models::terra::{self, TerraInput, TerraOutput, TerraParams, TerraState};
use crate::models::terrain::Surface;
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
        slope: f.z.asin(),
    };
    (input, n, f)
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
    let hub = Vector3::new(rig.x, 0.0, rig.z);
    let v = Vector3::new(rig.vx, 0.0, rig.vz);
    let (input, n, f) = wheel_contact(surface, &hub, &v, drive.omega, p.radius);
    let out = terra::step(p, state, &input, dt);
    let force = n * out.normal_force + f * out.tangential_force;
    // The sinkage grows as the hub goes down: dF_z/dz_hub = -k n_z^2.
    let nz2 = n.z * n.z;
    rig.step(
        drive,
        force.x,
        force.z,
        out.normal_stiffness * nz2,
        out.normal_damping * nz2,
        dt,
    );
    RigReport {
        sinkage: input.z,
        slip: terra::slip(drive.omega * p.radius, input.forward_velocity),
        fx: force.x,
        fz: force.z,
        my: -p.radius * out.traction,
        terra: out,
    }
}
