//! The single-wheel rig's adapter (DESIGN.md, "Single-wheel test rig"): the rig's
//! variables, its hub state, and its wheel's soil: TerRA inside the rig
//! ([`super::single_wheel`]), or another soil model (SCM, the Bekker wheels) acting on
//! the rig's wheel as a body of the world that the rig drives (`contact_model` is the
//! soil model's key).

use crate::geometry::primitive;
use super::single_wheel::{self, RigForces, RigReport};
use super::{RigDrive, RigMode, RigState};
use crate::cosim::references::{BodyVrs, MotionVrs, ShapeVrs};
use crate::cosim::model::{self, Declare, Frame, Model, ModelState};
use crate::cosim::feedthrough::{Feedthrough, Group, VarRef};
use crate::cosim::variables::{Bounds, Causality, VarType, Variability, VariableTable};
use crate::cosim::WorldError;
use crate::rigid_body::RigidBodyState;
use crate::models::terra::adapter::{
    self as terra_adapter, wheel_soil_outputs, TerraVrs, WheelSoilVrs,
};
use crate::models::terra::{self, TerraParams, TerraState};
use crate::scenario::types::{RigSoilModel, RigSpec, Shape};
use nalgebra::Vector3;
use std::any::Any;
use Variability::Fixed;

/// The rig's SCM wheel: its grousers and the rig's own outputs.
#[derive(Debug, Clone, Copy)]
pub struct RigScmVrs {
    /// Integer: `wheel.grouser_count`.
    pub count: usize,
    pub height: usize,
    pub thickness: usize,
    /// The scenario's grousers (the body's geometry spec).
    grousers: u32,
    grouser_height: f64,
    grouser_thickness: f64,
    /// `wheel.sinkage`: the lowest rim point below the undisturbed surface.
    pub sinkage: usize,
    pub slip: usize,
}

/// The single-wheel rig's variables (DESIGN.md contract).
#[derive(Debug, Clone, Copy)]
pub struct RigVrs {
    /// Integer value reference.
    pub mode: usize,
    pub load_mass: usize,
    pub g: usize,
    pub omega_in: usize,
    pub vx_in: usize,
    pub drawbar_force: usize,
    pub radius: usize,
    pub width: usize,
    pub x0: usize,
    pub z0: usize,
    pub x: usize,
    pub z: usize,
    pub vx: usize,
    pub vz: usize,
    pub omega: usize,
    pub fx: usize,
    pub fz: usize,
    pub my: usize,
    /// TerRA outputs (soil_model terra).
    pub soil: Option<WheelSoilVrs>,
    /// soil_model scm: the grousers of its wheel and the rig's outputs beside SCM's.
    pub scm: Option<RigScmVrs>,
    /// Every soil model but TerRA: the wheel as a body of the world (named `wheel`),
    /// driven by the rig, that the soil model acts on.
    pub wheel_body: Option<usize>,
}

fn rig(t: &mut VariableTable, r: &RigSpec) -> RigVrs {
    let mode = t.integer_parameter("rig.mode", Fixed, r.mode, Bounds { min: Some(1.0), max: Some(2.0), positive: false }, "1: slip-controlled (carriage speed rig.vx prescribed), 2: force-controlled (carriage free in x, pulled back by rig.drawbar_force)");
    RigVrs {
        mode,
        load_mass: t.real_parameter(
            "rig.load_mass",
            Fixed,
            "kg",
            r.load_mass,
            Bounds::POSITIVE,
            "vertical load on the wheel, wheel included",
        ),
        g: t.real_parameter(
            "rig.g",
            Fixed,
            "m/s2",
            r.g,
            Bounds::POSITIVE,
            "gravity (along -z)",
        ),
        radius: t.real_parameter(
            "wheel.radius",
            Fixed,
            "m",
            r.radius,
            Bounds::POSITIVE,
            "wheel radius r",
        ),
        width: t.real_parameter(
            "wheel.width",
            Fixed,
            "m",
            r.width,
            Bounds::POSITIVE,
            "wheel width w",
        ),
        x0: t.real_parameter(
            "wheel.x0",
            Fixed,
            "m",
            r.position[0],
            Bounds::ANY,
            "initial hub x",
        ),
        z0: t.real_parameter(
            "wheel.z0",
            Fixed,
            "m",
            r.position[1],
            Bounds::ANY,
            "initial hub z",
        ),
        omega_in: t.real_input(
            "rig.omega",
            "rad/s",
            r.omega,
            "commanded wheel angular velocity, positive drives forward (+x)",
        ),
        vx_in: t.real_input("rig.vx", "m/s", r.vx, "commanded carriage speed in mode 1"),
        drawbar_force: t.real_input(
            "rig.drawbar_force",
            "N",
            r.drawbar_force,
            "force opposing forward motion (along -x) in mode 2",
        ),
        x: t.real_output("wheel.x", "m", "hub x"),
        z: t.real_output("wheel.z", "m", "hub z"),
        vx: t.real_output("wheel.vx", "m/s", "hub velocity along x"),
        vz: t.real_output("wheel.vz", "m/s", "hub velocity along z"),
        omega: t.real_output("wheel.omega", "rad/s", "wheel angular velocity"),
        fx: t.real_output(
            "wheel.Fx",
            "N",
            "soil force on the wheel along the rig's x (drawbar pull)",
        ),
        fz: t.real_output("wheel.Fz", "N", "soil force on the wheel along z"),
        my: t.real_output(
            "wheel.My",
            "N.m",
            "soil torque on the wheel about its axle (y)",
        ),
        soil: (r.soil_model == RigSoilModel::Terra).then(|| wheel_soil_outputs(t, "wheel")),
        wheel_body: None,
        scm: (r.soil_model == RigSoilModel::Scm).then(|| {
            let g = r.grousers.clone().unwrap_or(crate::scenario::types::Grousers {
                count: 0,
                height: 0.0,
                thickness: 0.01,
            });
            let count = t.integer_parameter(
                "wheel.grouser_count",
                Fixed,
                g.count as i32,
                Bounds {
                    min: Some(0.0),
                    max: Some(360.0),
                    positive: false,
                },
                "grousers on the generated SCM wheel",
            );
            let height = t.real_parameter(
                "wheel.grouser_height",
                Fixed,
                "m",
                g.height,
                Bounds::NON_NEGATIVE,
                "grouser height above the rim",
            );
            let thickness = t.real_parameter(
                "wheel.grouser_thickness",
                Fixed,
                "m",
                g.thickness,
                Bounds::POSITIVE,
                "grouser thickness (tangential)",
            );
            let slip = t.real_output(
                "wheel.slip",
                "1",
                "(omega r - v)/(omega r) driving, (omega r - v)/v braking",
            );
            let sinkage = t.real_output(
                "wheel.sinkage",
                "m",
                "depth of the lowest rim point below the undisturbed surface",
            );
            RigScmVrs {
                count,
                height,
                thickness,
                grousers: g.count,
                grouser_height: g.height,
                grouser_thickness: g.thickness,
                sinkage,
                slip,
            }
        }),
    }
}

/// The single-wheel rig.
pub struct Rig {
    vrs: RigVrs,
    /// TerRA's constants, when the scenario has a TerRA section (else Table 1).
    terra: Option<TerraVrs>,
    /// Hub state and its wheel's TerRA state (unused on SCM soil).
    state: (RigState, TerraState),
    /// The last TerRA evaluation and the wheel's state it implies, for the outputs.
    last: (RigReport, TerraState),
    /// TerRA's constants and its ideal sinkage (m), from the parameters (until one is
    /// set).
    params: Option<(TerraParams, f64)>,
    /// The evaluation for the outputs at the end of a communication step, which serves
    /// the next step's first sub-step while the states, inputs and parameters stay as
    /// they were.
    fresh: Option<RigForces>,
}

/// Declares the rig when the scenario has a `rig` section; on SCM soil its wheel
/// becomes a body of the world (named `wheel`) that SCM acts on.
pub fn declare(d: &mut Declare) -> Option<Box<dyn Model>> {
    let spec = d.scenario.rig.as_ref()?;
    let mut vrs = rig(d.table, spec);
    if spec.soil_model != RigSoilModel::Terra {
        let (spec_shape, shape) = match &vrs.scm {
            Some(scm) => (
                Shape::GrouserWheel(primitive::GrouserWheel {
                    radius: spec.radius,
                    width: spec.width,
                    count: scm.grousers,
                    grouser_height: scm.grouser_height,
                    grouser_thickness: scm.grouser_thickness,
                }),
                ShapeVrs::GrouserWheel {
                    radius: vrs.radius,
                    width: vrs.width,
                    count: scm.count,
                    height: scm.height,
                    thickness: scm.thickness,
                },
            ),
            None => (
                Shape::Wheel {
                    radius: spec.radius,
                    width: spec.width,
                },
                ShapeVrs::Wheel {
                    radius: vrs.radius,
                    width: vrs.width,
                },
            ),
        };
        vrs.wheel_body = Some(d.bodies.len());
        d.bodies.push(BodyVrs {
            name: "wheel".into(),
            spec: spec_shape,
            shape,
            motion: MotionVrs::Driven,
            outputs: None,
            contact_model: Some(spec.soil_model.key()),
        });
    }
    Some(Box::new(Rig {
        vrs,
        terra: TerraVrs::find(d.table),
        state: Default::default(),
        last: Default::default(),
        params: None,
        fresh: None,
    }))
}

impl Rig {
    fn drive(&self, w: &Frame) -> RigDrive {
        let r = &self.vrs;
        RigDrive {
            mode: RigMode::from_code(w.integer(r.mode)).unwrap_or(RigMode::ForceControlled),
            load_mass: w.real(r.load_mass),
            g: w.real(r.g),
            omega: w.real(r.omega_in),
            vx: w.real(r.vx_in),
            drawbar_force: w.real(r.drawbar_force),
        }
    }

    /// The wheel body's state from the hub's: at (x, 0, z), turned by its angle about
    /// y, turning at the commanded rate.
    fn sync_body(&self, w: &mut Frame) {
        let Some(body) = self.vrs.wheel_body else {
            return;
        };
        let rig = &self.state.0;
        w.states[body] = RigidBodyState {
            r: Vector3::new(rig.x, 0.0, rig.z),
            q: crate::pmath::quat_from_scaled_axis(Vector3::y() * rig.angle),
            v: Vector3::new(rig.vx, 0.0, rig.vz),
            w: Vector3::new(0.0, w.real(self.vrs.omega_in), 0.0),
        };
    }
}

impl Model for Rig {
    fn key(&self) -> &'static str {
        "rig"
    }

    /// The hub's position and velocity are its state; `wheel.omega` is `rig.omega`.
    /// With a wheel body the soil model's load on it is the force output, and the
    /// body turns at `rig.omega`; on TerRA the rig evaluates the soil itself from all
    /// three commands.
    fn feedthrough(&self, f: &mut Feedthrough) {
        let r = &self.vrs;
        let real = |vrs: &[usize]| -> Vec<VarRef> { vrs.iter().map(|&v| (VarType::Real, v)).collect() };
        if let Some(body) = r.wheel_body {
            f.drives(body, real(&[r.omega_in]));
        }
        let commands = real(&[r.omega_in, r.vx_in, r.drawbar_force]);
        // in initialization every output follows the rig's parameters (the wheel's
        // initial hub position and size are the rig's)
        let params = f.own(Causality::Parameter);
        let mut group = |mut g: Group| {
            g.vars.extend(&params);
            f.group(g);
        };
        group(Group {
            outputs: real(&[r.x, r.z, r.vx, r.vz]),
            ..Group::default()
        });
        group(Group {
            outputs: real(&[r.omega]),
            vars: real(&[r.omega_in]),
            ..Group::default()
        });
        match r.wheel_body {
            Some(body) => {
                group(Group {
                    outputs: real(&[r.fx, r.fz, r.my]),
                    loads_of: vec![body],
                    ..Group::default()
                });
                if let Some(s) = &r.scm {
                    group(Group {
                        outputs: real(&[s.sinkage]),
                        ..Group::default()
                    });
                    group(Group {
                        outputs: real(&[s.slip]),
                        vars: real(&[r.omega_in]),
                        ..Group::default()
                    });
                }
            }
            None => {
                let mut outputs = real(&[r.fx, r.fz, r.my]);
                if let Some(s) = &r.soil {
                    outputs.extend(real(&[s.sinkage, s.z_eff, s.z_s, s.z_peak, s.slip, s.j_m, s.f_n, s.f_t]));
                }
                group(Group {
                    outputs,
                    vars: commands,
                    ..Group::default()
                });
            }
        }
    }

    fn build(&mut self, w: &mut Frame) -> Result<(), WorldError> {
        let r = &self.vrs;
        let mode = w.integer(r.mode);
        if RigMode::from_code(mode).is_none() {
            return Err(WorldError::BadParameter {
                name: "rig.mode".into(),
                reason: format!("must be 1 (slip-controlled) or 2 (force-controlled), got {mode}"),
            });
        }
        let rig = RigState {
            x: w.real(r.x0),
            z: w.real(r.z0),
            ..Default::default()
        };
        self.state = (rig, TerraState::default());
        self.params = None;
        self.fresh = None;
        self.sync_body(w);
        Ok(())
    }

    fn inputs_changed(&mut self) {
        self.params = None;
        self.fresh = None;
    }

    fn evaluate(&mut self, w: &mut Frame, dt: f64) {
        if self.vrs.wheel_body.is_some() {
            // the soil model evaluates the wheel body; the rig moves after it did
            self.sync_body(w);
            return;
        }
        let drive = self.drive(w);
        // the fields apart: the cached constants and evaluation are used in place
        let Self {
            vrs: r,
            terra,
            state,
            last,
            params,
            fresh,
        } = self;
        let (p, z_ideal) = params.get_or_insert_with(|| {
            let p = terra_adapter::params(
                w,
                terra.as_ref(),
                w.real(r.radius),
                w.real(r.width),
                drive.load_mass,
                drive.g,
            );
            (p, terra::sinkage::ideal_sinkage(&p))
        });
        let e = fresh.get_or_insert_with(|| {
            single_wheel::forces(&state.0, &state.1, p, *z_ideal, &drive, w.surface)
        });
        // dt = 0 advances copies: the states stay as they are (the copy of TerRA's is
        // the state the outputs report)
        let (mut rig, mut s) = *state;
        last.0 = single_wheel::advance(&mut rig, &mut s, p, &drive, e, dt);
        last.1 = s;
        if dt > 0.0 {
            *state = (rig, s);
            *fresh = None;
        }
    }

    fn after_forces(&mut self, w: &mut Frame, dt: f64) {
        let Some(body) = self.vrs.wheel_body else {
            return;
        };
        let drive = self.drive(w);
        let load = w.loads[body];
        let rig = &mut self.state.0;
        let hub = Vector3::new(rig.x, 0.0, rig.z);
        let n = w.surface.disc_contact(&hub, w.real(self.vrs.radius)).normal;
        let slope = single_wheel::surface_slope(&n);
        rig.step(
            &drive,
            load.force.x,
            load.force.z,
            load.k_zz,
            load.c_zz,
            slope,
            &load.obstacles,
            dt,
        );
        self.sync_body(w);
    }

    fn write_outputs(&self, w: &mut Frame) {
        let r = &self.vrs;
        let (rig, _) = self.state;
        let (rep, state) = self.last;
        let omega = w.real(r.omega_in);
        let radius = w.real(r.radius);
        let vals = &mut w.values.reals;
        vals[r.x] = rig.x;
        vals[r.z] = rig.z;
        vals[r.vx] = rig.vx;
        vals[r.vz] = rig.vz;
        vals[r.omega] = omega;
        vals[r.fx] = rep.fx;
        vals[r.fz] = rep.fz;
        vals[r.my] = rep.my;
        if let Some(s) = &r.soil {
            vals[s.sinkage] = rep.sinkage;
            vals[s.z_eff] = rep.terra.z_eff;
            vals[s.z_s] = state.z_s;
            vals[s.z_peak] = state.z_peak;
            vals[s.slip] = rep.slip;
            vals[s.j_m] = state.j_m;
            vals[s.f_n] = rep.terra.normal_force;
            vals[s.f_t] = rep.terra.tangential_force;
        }
        if let Some(body) = r.wheel_body {
            let load = w.loads[body];
            vals[r.fx] = load.force.x;
            vals[r.fz] = load.force.z;
            vals[r.my] = load.torque.y;
        }
        if let Some(s) = &r.scm {
            // the rim's lowest point below the undisturbed (base) surface
            vals[s.sinkage] = w.surface.height(rig.x) - (rig.z - radius);
            vals[s.slip] = terra::slip(omega * radius, rig.vx);
        }
    }

    fn save(&self) -> Option<ModelState> {
        Some(ModelState::new(self.state))
    }

    fn save_into(&self, target: &mut ModelState) {
        target.set(&self.state);
    }

    fn decode_state(&self, bytes: &[u8]) -> Result<ModelState, String> {
        model::decode::<(RigState, TerraState)>(self.key(), bytes)
    }

    fn fits(&self, state: Option<&ModelState>) -> Result<(), String> {
        match state.and_then(|s| s.get::<(RigState, TerraState)>()) {
            Some(_) => Ok(()),
            None => Err("the FMU state does not belong to this model (it has no rig state)".into()),
        }
    }

    fn restore(&mut self, state: &ModelState) {
        self.params = None;
        self.fresh = None;
        if let Some(s) = state.get::<(RigState, TerraState)>() {
            self.state = *s;
        }
    }

    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}
