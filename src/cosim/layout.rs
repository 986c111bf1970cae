//! Builds the variable table of a scenario: the world's own variables (time step,
//! gravity, terrain, bodies), then each model's of the list it is handed (the crate's:
//! [`crate::registry`]).

use crate::geometry::primitive;
use super::model::{Declare, DeclareFn, Model};
use super::references::{BodyOutputs, BodyVrs, JointVrs, Layout, MotionVrs, ShapeVrs, TerrainVrs};
use super::variables::{Bounds, Variability, VariableTable};
use crate::scenario::types::{Body, Motion, Scenario, Shape, SurfaceSpec};

use Variability::{Fixed, Tunable};

pub fn vec3_param(
    t: &mut VariableTable,
    name: &str,
    unit: &'static str,
    start: [f64; 3],
    what: &str,
) -> [usize; 3] {
    t.real_array(name, |t, n, i| {
        t.real_parameter(
            n,
            Fixed,
            unit,
            start[i],
            Bounds::ANY,
            format!("{what}, component {}", i + 1),
        )
    })
}

pub fn vec3_output(
    t: &mut VariableTable,
    name: &str,
    unit: &'static str,
    what: &str,
) -> [usize; 3] {
    t.real_array(name, |t, n, i| {
        t.real_output(n, unit, format!("{what}, component {}", i + 1))
    })
}

pub fn vec3_input(
    t: &mut VariableTable,
    name: &str,
    unit: &'static str,
    start: [f64; 3],
    what: &str,
) -> [usize; 3] {
    t.real_array(name, |t, n, i| {
        t.real_input(n, unit, start[i], format!("{what}, component {}", i + 1))
    })
}

fn terrain(t: &mut VariableTable, s: &Scenario) -> TerrainVrs {
    const ANGLE: Bounds = Bounds {
        min: Some(-1.4),
        max: Some(1.4),
        positive: false,
    };
    match &s.terrain.surface {
        SurfaceSpec::Flat { height } => TerrainVrs::Flat {
            height: t.real_parameter(
                "terrain.height",
                Fixed,
                "m",
                *height,
                Bounds::ANY,
                "height of the flat ground (z = height, normal +z)",
            ),
        },
        SurfaceSpec::Inclined { height, angle } => TerrainVrs::Inclined {
            height: t.real_parameter(
                "terrain.height",
                Fixed,
                "m",
                *height,
                Bounds::ANY,
                "ground height at x = 0",
            ),
            angle: t.real_parameter(
                "terrain.angle",
                Fixed,
                "rad",
                *angle,
                ANGLE,
                "inclination of the ground about y, rising along +x",
            ),
        },
        SurfaceSpec::Ramps { height, ramps } => {
            let height = t.real_parameter(
                "terrain.height",
                Fixed,
                "m",
                *height,
                Bounds::ANY,
                "height of the flat ground before the first ramp",
            );
            let mut starts = vec![];
            let mut angles = vec![];
            for (i, r) in ramps.iter().enumerate() {
                starts.push(t.real_parameter(
                    format!("terrain.slope{}_x", i + 1),
                    Fixed,
                    "m",
                    r.x,
                    Bounds::ANY,
                    format!("x where ramp {} starts", i + 1),
                ));
                angles.push(t.real_parameter(
                    format!("terrain.slope{}_angle", i + 1),
                    Fixed,
                    "rad",
                    r.angle,
                    ANGLE,
                    format!("inclination of ramp {}, uphill along +x positive", i + 1),
                ));
            }
            TerrainVrs::Ramps {
                height,
                starts,
                angles,
            }
        }
        SurfaceSpec::Profile { points } => {
            let xs = points
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    t.real_parameter(
                        format!("terrain.profile_x[{}]", i + 1),
                        Fixed,
                        "m",
                        p[0],
                        Bounds::ANY,
                        "x of a profile point (increasing)",
                    )
                })
                .collect();
            let zs = points
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    t.real_parameter(
                        format!("terrain.profile_z[{}]", i + 1),
                        Fixed,
                        "m",
                        p[1],
                        Bounds::ANY,
                        "ground height at the profile point",
                    )
                })
                .collect();
            TerrainVrs::Profile { xs, zs }
        }
        SurfaceSpec::Generated(_) => TerrainVrs::Generated,
    }
}

/// The variables of scenario body `b`: its shape's parameters, its motion's
/// parameters, inputs and outputs, and its contact wrench outputs.
fn body(t: &mut VariableTable, b: &Body) -> BodyVrs {
    let n = &b.name;
    let shape = match &b.shape {
        Shape::Plate { radius, thickness } => ShapeVrs::Plate {
            radius: t.real_parameter(
                format!("{n}.radius"),
                Fixed,
                "m",
                *radius,
                Bounds::POSITIVE,
                "plate radius",
            ),
            thickness: t.real_parameter(
                format!("{n}.thickness"),
                Fixed,
                "m",
                *thickness,
                Bounds::POSITIVE,
                "plate thickness (along body z, above the origin)",
            ),
        },
        Shape::Sphere(primitive::Sphere { radius }) => ShapeVrs::Sphere {
            radius: t.real_parameter(
                format!("{n}.radius"),
                Fixed,
                "m",
                *radius,
                Bounds::POSITIVE,
                "sphere radius",
            ),
        },
        Shape::Wheel { radius, width } => ShapeVrs::Wheel {
            radius: t.real_parameter(
                format!("{n}.radius"),
                Fixed,
                "m",
                *radius,
                Bounds::POSITIVE,
                "wheel radius r",
            ),
            width: t.real_parameter(
                format!("{n}.width"),
                Fixed,
                "m",
                *width,
                Bounds::POSITIVE,
                "wheel width w",
            ),
        },
        Shape::Cuboid(primitive::Cuboid { size }) => ShapeVrs::Cuboid {
            size: t.real_array(&format!("{n}.size"), |t, name, i| {
                t.real_parameter(
                    name,
                    Fixed,
                    "m",
                    size[i],
                    Bounds::POSITIVE,
                    format!("edge length along body axis {}", i + 1),
                )
            }),
        },
        Shape::Cylinder(primitive::Cylinder { radius, height }) => ShapeVrs::Cylinder {
            radius: t.real_parameter(
                format!("{n}.radius"),
                Fixed,
                "m",
                *radius,
                Bounds::POSITIVE,
                "cylinder radius",
            ),
            height: t.real_parameter(
                format!("{n}.height"),
                Fixed,
                "m",
                *height,
                Bounds::POSITIVE,
                "cylinder length along its axis (body y)",
            ),
        },
        Shape::GrouserWheel(primitive::GrouserWheel {
            radius,
            width,
            count,
            grouser_height,
            grouser_thickness,
        }) => ShapeVrs::GrouserWheel {
            radius: t.real_parameter(
                format!("{n}.radius"),
                Fixed,
                "m",
                *radius,
                Bounds::POSITIVE,
                "rim radius",
            ),
            width: t.real_parameter(
                format!("{n}.width"),
                Fixed,
                "m",
                *width,
                Bounds::POSITIVE,
                "wheel width (along body y)",
            ),
            count: t.integer_parameter(
                format!("{n}.grouser_count"),
                Fixed,
                *count as i32,
                Bounds {
                    min: Some(0.0),
                    max: Some(360.0),
                    positive: false,
                },
                "number of grousers on the rim",
            ),
            height: t.real_parameter(
                format!("{n}.grouser_height"),
                Fixed,
                "m",
                *grouser_height,
                Bounds::NON_NEGATIVE,
                "grouser height above the rim",
            ),
            thickness: t.real_parameter(
                format!("{n}.grouser_thickness"),
                Fixed,
                "m",
                *grouser_thickness,
                Bounds::POSITIVE,
                "grouser thickness (tangential)",
            ),
        },
        Shape::Torus {
            major_radius,
            minor_radius,
        } => ShapeVrs::Torus {
            major: t.real_parameter(
                format!("{n}.major_radius"),
                Fixed,
                "m",
                *major_radius,
                Bounds::POSITIVE,
                "radius of the torus tube's centre circle (about body z)",
            ),
            minor: t.real_parameter(
                format!("{n}.minor_radius"),
                Fixed,
                "m",
                *minor_radius,
                Bounds::POSITIVE,
                "radius of the torus tube",
            ),
        },
        Shape::ConvexMesh { .. }
        | Shape::Mesh { .. }
        | Shape::Compound { .. }
        | Shape::CuboidGrid { .. }
        | Shape::Generated { .. } => ShapeVrs::Given,
    };
    let geometry_start = crate::cosim::bodies::spec_geometry(&b.shape);
    let motion = match &b.motion {
        Motion::Kinematic {
            position,
            orientation,
            velocity,
            angular_velocity,
            ..
        } => MotionVrs::Kinematic {
            // declared after the body's outputs (below): the value references of the
            // variables FMUs had before it stay as they were
            extrapolate: usize::MAX,
            r: vec3_input(
                t,
                &format!("{n}.r"),
                "m",
                *position,
                "position of the body origin, world frame",
            ),
            q: t.real_array(&format!("{n}.q"), |t, name, i| {
                t.real_input(
                    name,
                    "1",
                    orientation[i],
                    format!(
                        "orientation quaternion (w, x, y, z), body to world, component {}",
                        i + 1
                    ),
                )
            }),
            v: vec3_input(
                t,
                &format!("{n}.v"),
                "m/s",
                *velocity,
                "velocity of the body origin, world frame",
            ),
            w: vec3_input(
                t,
                &format!("{n}.w"),
                "rad/s",
                *angular_velocity,
                "angular velocity, world frame",
            ),
        },
        Motion::Fixed { position, orientation, incline } => MotionVrs::Fixed {
            r0: vec3_param(t, &format!("{n}.r0"), "m", *position, "position, world frame"),
            q0: t.real_array(&format!("{n}.q0"), |t, name, i| t.real_parameter(name, Fixed, "1", orientation[i], Bounds::ANY, format!("orientation quaternion (w, x, y, z), body to world, component {}", i + 1))),
            incline: incline.map(|a| {
                t.real_parameter(format!("{n}.incline"), Fixed, "rad", a, Bounds { min: Some(-1.4), max: Some(1.4), positive: false }, "rotation of the body about the world y axis on top of q0 (positive: its +x side rises)")
            }),
        },
        Motion::Free { mass, inertia, position, orientation, velocity, angular_velocity, locked, joint, external_load } => {
            let inertia = inertia.unwrap_or_else(|| geometry_start.as_ref().and_then(|g| crate::geometry::shape::default_inertia(g, *mass)).unwrap_or([1.0; 3]));
            MotionVrs::Free {
                locked: t.boolean_parameter(format!("{n}.locked"), Fixed, *locked, "the body cannot rotate"),
                mass: t.real_parameter(format!("{n}.mass"), Fixed, "kg", *mass, Bounds::POSITIVE, "mass"),
                inertia: t.real_array(&format!("{n}.inertia"), |t, name, i| t.real_parameter(name, Fixed, "kg.m2", inertia[i], Bounds::POSITIVE, format!("principal moment of inertia about body axis {}", i + 1))),
                r0: vec3_param(t, &format!("{n}.r0"), "m", *position, "initial position, world frame"),
                q0: t.real_array(&format!("{n}.q0"), |t, name, i| t.real_parameter(name, Fixed, "1", orientation[i], Bounds::ANY, format!("initial orientation quaternion (w, x, y, z), body to world, component {}", i + 1))),
                v0: vec3_param(t, &format!("{n}.v0"), "m/s", *velocity, "initial velocity, world frame"),
                w0: vec3_param(t, &format!("{n}.w0"), "rad/s", *angular_velocity, "initial angular velocity, world frame"),
                f_ext: external_load.then(|| vec3_input(t, &format!("{n}.f_ext"), "N", [0.0; 3], "external force on the body origin, world frame")),
                t_ext: external_load.then(|| vec3_input(t, &format!("{n}.t_ext"), "N.m", [0.0; 3], "external torque about the body origin, world frame")),
                r: vec3_output(t, &format!("{n}.r"), "m", "position of the body origin, world frame"),
                q: t.real_array(&format!("{n}.q"), |t, name, i| t.real_output(name, "1", format!("orientation quaternion (w, x, y, z), body to world, component {}", i + 1))),
                v: vec3_output(t, &format!("{n}.v"), "m/s", "velocity of the body origin, world frame"),
                w: vec3_output(t, &format!("{n}.w"), "rad/s", "angular velocity, world frame"),
                joint: joint.as_ref().map(|j| JointVrs {
                    vx: j.vx.map(|vx| {
                        (
                            t.real_input(format!("{n}.joint.vx"), "m/s", vx, "prescribed speed of the body along world x (planar joint to the world)"),
                            t.real_output(format!("{n}.joint.fx"), "N", "force the joint applies along world x to hold joint.vx, mean over the last communication step"),
                        )
                    }),
                    omega: j.omega.map(|om| {
                        (
                            t.real_input(format!("{n}.joint.omega"), "rad/s", om, "prescribed angular rate of the body about world y (planar joint to the world)"),
                            t.real_output(format!("{n}.joint.my"), "N.m", "torque the joint applies about world y to hold joint.omega, mean over the last communication step"),
                        )
                    }),
                }),
            }
        }
    };
    let f = vec3_output(
        t,
        &format!("{n}.f"),
        "N",
        "contact force on the body, world frame",
    );
    let tq = vec3_output(
        t,
        &format!("{n}.t"),
        "N.m",
        "contact torque on the body about its origin, world frame",
    );
    let contact = t.boolean_output(format!("{n}.contact"), "the body touches something");
    let mut motion = motion;
    if let (
        MotionVrs::Kinematic {
            extrapolate: vr, ..
        },
        Motion::Kinematic { extrapolate, .. },
    ) = (&mut motion, &b.motion)
    {
        *vr = t.boolean_parameter(
            format!("{n}.extrapolate"),
            Fixed,
            *extrapolate,
            "within a communication step, move the body on from the pose inputs with the velocity inputs instead of holding the pose",
        );
    }
    BodyVrs {
        name: n.clone(),
        spec: b.shape.clone(),
        shape,
        motion,
        outputs: Some(BodyOutputs { f, t: tq, contact }),
        contact_model: None,
    }
}

/// The variable table, the world's layout and the models of `s`: each of `models`
/// (declare functions, in call order) that the scenario uses.
pub fn build(
    s: &Scenario,
    models: impl IntoIterator<Item = DeclareFn>,
) -> (VariableTable, Layout, Vec<Box<dyn Model>>) {
    let mut t = VariableTable::default();
    let model_step = t.real_parameter(
        "world.model_step",
        Fixed,
        "s",
        s.model_step,
        Bounds::POSITIVE,
        "internal integration step: fmi2DoStep takes equal sub-steps no longer than this",
    );
    let gravity = t.real_array("world.gravity", |t, n, i| {
        t.real_parameter(
            n,
            Tunable,
            "m/s2",
            s.gravity[i],
            Bounds::ANY,
            format!("gravity, world frame, component {}", i + 1),
        )
    });
    let terrain = terrain(&mut t, s);
    let mut bodies: Vec<BodyVrs> = s.bodies.iter().map(|b| body(&mut t, b)).collect();
    let mut built: Vec<Box<dyn Model>> = vec![];
    let mut model_vars = vec![];
    for declare in models {
        let first = t.variables.len();
        let mut d = Declare {
            table: &mut t,
            bodies: &mut bodies,
            scenario: s,
        };
        if let Some(m) = declare(&mut d) {
            built.push(m);
            model_vars.push(first..t.variables.len());
        }
    }
    // the scenario's start values over the fields' (checked by the scenario's validation)
    for (name, v) in &s.start_values {
        if let Ok(start) = t.start_override(name, *v) {
            t.set_start(name, start);
        }
    }
    (
        t,
        Layout {
            model_step,
            gravity,
            terrain,
            bodies,
            model_vars,
        },
        built,
    )
}
