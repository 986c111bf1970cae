//! The single-wheel test rig (DESIGN.md): the hub moves in the rig's x-z plane, its
//! vertical motion free under the rig load, the wheel turning about y at a commanded
//! rate. Integrated with the semi-implicit Euler method.

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
    /// Advances by `dt` (s) under the soil force on the wheel `(fx, fz)` (N, world).
    pub fn step(&mut self, d: &RigDrive, fx: f64, fz: f64, dt: f64) {
        match d.mode {
            RigMode::SlipControlled => self.vx = d.vx,
            RigMode::ForceControlled => self.vx += dt * (fx - d.drawbar_force) / d.load_mass,
        }
        self.vz += dt * (fz / d.load_mass - d.g);
        self.x += dt * self.vx;
        self.z += dt * self.vz;
        self.angle += dt * d.omega;
    }
}
