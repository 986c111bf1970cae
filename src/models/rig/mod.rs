//! The single-wheel test rig (DESIGN.md): the hub moves in the rig's x-z plane, its
//! vertical motion free under the rig load, the wheel turning about y at a commanded
//! rate. Integrated with the semi-implicit Euler method; the vertical motion linearly
//! implicit in the soil's stiffness and damping, so that the stiff elastic layer of a
//! wheel-soil model (TerRA's k_el) does not ring undamped, as it would not under the
//! implicit solvers of the paper's Modelica setting.

pub mod adapter;
pub mod check;
pub mod section;
pub mod single_wheel;

use crate::rigid_body::ObstacleRates;
use serde::{Deserialize, Serialize};

/// How the carriage moves along x.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RigMode {
    /// Mode 1: the carriage speed is prescribed (`rig.vx`), so the slip is set.
    SlipControlled,
    /// Mode 2: the carriage is free along x, pulled back by the drawbar force.
    ForceControlled,
}

impl RigMode {
    /// From the FMI Integer `rig.mode` (1 or 2).
    pub fn from_code(code: i32) -> Option<RigMode> {
        match code {
            1 => Some(RigMode::SlipControlled),
            2 => Some(RigMode::ForceControlled),
            _ => None,
        }
    }
}

/// Hub state in the rig plane (world x and z), and the wheel's rotation angle.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RigState {
    /// m
    pub x: f64,
    /// m
    pub z: f64,
    /// m/s
    pub vx: f64,
    /// m/s
    pub vz: f64,
    /// Wheel rotation angle about y, rad.
    pub angle: f64,
}

/// Rig inputs for one step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RigDrive {
    pub mode: RigMode,
    /// Vertical load, kg (wheel included): the moving mass.
    pub load_mass: f64,
    /// Gravity, m/s^2 (along -z).
    pub g: f64,
    /// Wheel rate, rad/s.
    pub omega: f64,
    /// Carriage speed in mode 1, m/s.
    pub vx: f64,
    /// Force opposing forward motion in mode 2 (along -x), N.
    pub drawbar_force: f64,
}

impl RigState {
    /// Advances by `dt` (s) under the soil force on the wheel `(fx, fz)` (N, world),
    /// whose vertical part changes with the hub's height above the surface by `-k_zz`
    /// (N/m) and with the vertical velocity by `-c_zz` (N s/m). `slope` is dh/dx of
    /// the surface under the wheel: moving along x by dx raises the ground by
    /// `slope dx`, so the soil's compression grows with `z' - slope x'`, not `z'`.
    ///
    /// Vertical, linearly implicit Euler:
    /// `m (v' - v) = dt (F_z - k_zz dt (v' - slope vx') - c_zz (v' - v) - m g)`.
    /// (Linearizing in `v'` alone lets a wheel climbing a ramp at a steady speed
    /// report `F_z = m g + k_zz dt slope vx`: 12 N too much on TerRA's 8 degree ramp.)
    ///
    /// Contacts on other bodies besides the soil (rocks, `o`; default: none): their
    /// stiffness and damping join the implicit step, and the rate at which their force
    /// grows from the horizontal motion, `o.f_rate`, takes the place of
    /// `k_zz slope vx` for them:
    /// `m (v' - v) = dt (F_z - k_zz dt (v' - slope vx') - c_zz (v' - v)
    ///  + dt (o.f_rate - o.k_zz v') - o.c_zz (v' - v) - m g)`.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        d: &RigDrive,
        fx: f64,
        fz: f64,
        k_zz: f64,
        c_zz: f64,
        slope: f64,
        o: &ObstacleRates,
        dt: f64,
    ) {
        match d.mode {
            RigMode::SlipControlled => self.vx = d.vx,
            RigMode::ForceControlled => self.vx += dt * (fx - d.drawbar_force) / d.load_mass,
        }
        let m = d.load_mass;
        let rise = slope * self.vx;
        // the obstacles' terms last: without obstacles they add +0 to each sum
        self.vz = (m * self.vz
            + dt * (fz - m * d.g)
            + dt * c_zz * self.vz
            + dt * dt * k_zz * rise
            + dt * (o.c_zz * self.vz + dt * o.f_rate))
            / (m + dt * c_zz + dt * dt * k_zz + dt * (o.c_zz + dt * o.k_zz));
        self.x += dt * self.vx;
        self.z += dt * self.vz;
        self.angle += dt * d.omega;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drive() -> RigDrive {
        RigDrive {
            mode: RigMode::ForceControlled,
            load_mass: 10.0,
            g: 9.81,
            omega: 0.0,
            vx: 0.0,
            drawbar_force: 0.0,
        }
    }

    #[test]
    fn free_fall_and_a_pulled_carriage() {
        let mut s = RigState {
            z: 1.0,
            ..Default::default()
        };
        let d = RigDrive {
            drawbar_force: 5.0,
            ..drive()
        };
        for _ in 0..1000 {
            s.step(&d, 0.0, 0.0, 0.0, 0.0, 0.0, &ObstacleRates::default(), 1e-3);
        }
        assert!((s.vz + 9.81).abs() < 1e-9);
        assert!((s.vx + 0.5).abs() < 1e-9);
    }

    #[test]
    fn the_implicit_vertical_step_settles_a_stiff_spring_without_ringing_forever() {
        // a 5e5 N/m spring under 10 kg, step 1 ms: omega dt = 0.22
        let k = 5e5;
        let mut s = RigState::default();
        let d = drive();
        for _ in 0..2000 {
            let fz = -k * s.z;
            s.step(&d, 0.0, fz, k, 0.0, 0.0, &ObstacleRates::default(), 1e-3);
        }
        let rest = -10.0 * 9.81 / k;
        assert!((s.z - rest).abs() < 1e-3 * rest.abs(), "{} vs {rest}", s.z);
    }
}
