//! Builds the variable table of a scenario and remembers where each model quantity
//! lives in it (the value references of every parameter, input and output).

use super::variables::{Bounds, Variability, VariableTable};
use crate::scenario::{Body, Material, Motion, Scenario, Shape, Terrain};

/// Value references of a contact material.
#[derive(Debug, Clone, Copy)]
pub struct MaterialVrs {
    pub e: usize,
    pub nu: usize,
    pub zeta: usize,
    pub mu: usize,
}

/// Value references that depend on how a body moves.
#[derive(Debug, Clone)]
pub enum MotionVrs {
    /// Inputs from the importing tool.
    Kinematic {
        r: [usize; 3],
        q: [usize; 4],
        v: [usize; 3],
        w: [usize; 3],
    },
    /// Parameters, external-load inputs and state outputs of a free body.
    Free {
        mass: usize,
        inertia: [usize; 3],
        r0: [usize; 3],
        q0: [usize; 4],
        v0: [usize; 3],
        w0: [usize; 3],
        f_ext: [usize; 3],
        t_ext: [usize; 3],
        r: [usize; 3],
        q: [usize; 4],
        v: [usize; 3],
        w: [usize; 3],
    },
}

/// Value references of one body.
#[derive(Debug, Clone)]
pub struct BodyVrs {
    pub radius: usize,
    pub contact_length: usize,
    pub material: MaterialVrs,
    pub motion: MotionVrs,
    pub f: [usize; 3],
    pub t: [usize; 3],
    pub penetration: usize,
    /// Boolean value reference.
    pub contact: usize,
}

/// Where everything lives in the variable table.
#[derive(Debug, Clone)]
pub struct Layout {
    pub model_step: usize,
    pub gravity: [usize; 3],
    pub terrain_height: usize,
    pub terrain_material: MaterialVrs,
    pub v_d: usize,
    pub impact_velocity_min: usize,
    pub bodies: Vec<BodyVrs>,
    /// Contact pairs: the body index touching the terrain.
    pub ground_pairs: Vec<usize>,
}

fn material(t: &mut VariableTable, prefix: &str, m: &Material) -> MaterialVrs {
    use Variability::Tunable;
    MaterialVrs {
        e: t.real_parameter(
            format!("{prefix}.E"),
            Tunable,
            "Pa",
            m.E,
            Bounds::POSITIVE,
            "Young's modulus E (Buse 2023 eq. (3))",
        ),
        nu: t.real_parameter(
            format!("{prefix}.nu"),
            Tunable,
            "1",
            m.nu,
            Bounds {
                min: Some(0.0),
                max: Some(0.5),
                positive: false,
            },
            "Poisson ratio nu (Buse 2023 eq. (3))",
        ),
        zeta: t.real_parameter(
            format!("{prefix}.zeta"),
            Tunable,
            "1",
            m.zeta,
            Bounds {
                min: Some(0.0),
                max: Some(1.0),
                positive: true,
            },
            "coefficient of restitution zeta (Buse 2023 eq. (2)); a pair uses the harmonic mean",
        ),
        mu: t.real_parameter(
            format!("{prefix}.mu"),
            Tunable,
            "1",
            m.mu,
            Bounds::NON_NEGATIVE,
            "Coulomb friction coefficient mu (Buse 2023 eq. (4)); a pair uses the harmonic mean",
        ),
    }
}

fn vec3_param(
    t: &mut VariableTable,
    name: &str,
    unit: &'static str,
    start: [f64; 3],
    what: &str,
) -> [usize; 3] {
    t.real_array(name, |t, n, i| {
        t.real_parameter(
            n,
            Variability::Fixed,
            unit,
            start[i],
            Bounds::ANY,
            format!("{what}, component {}", i + 1),
        )
    })
}

fn vec3_output(t: &mut VariableTable, name: &str, unit: &'static str, what: &str) -> [usize; 3] {
    t.real_array(name, |t, n, i| {
        t.real_output(n, unit, format!("{what}, component {}", i + 1))
    })
}

fn vec3_input(
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

/// Longest edge of the body's bounding box, m: the paper's R_i estimate.
fn longest_edge(shape: &Shape) -> f64 {
    match shape {
        Shape::Sphere { radius } => 2.0 * radius,
    }
}

fn body(t: &mut VariableTable, b: &Body) -> BodyVrs {
    let n = &b.name;
    let Shape::Sphere { radius } = b.shape;
    let radius_vr = t.real_parameter(
        format!("{n}.radius"),
        Variability::Fixed,
        "m",
        radius,
        Bounds::POSITIVE,
        "sphere radius",
    );
    let contact_length = t.real_parameter(
        format!("{n}.contact_length"),
        Variability::Tunable,
        "m",
        longest_edge(&b.shape),
        Bounds::POSITIVE,
        "R_i of Buse 2023 eq. (3): the body's longest edge; a pair uses 1/R = 1/R_1 + 1/R_2 (the ground counts as infinite)",
    );
    let material = material(t, n, &b.material);
    let motion = match &b.motion {
        Motion::Kinematic {
            position,
            orientation,
            velocity,
            angular_velocity,
        } => MotionVrs::Kinematic {
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
        Motion::Free {
            mass,
            inertia,
            position,
            orientation,
            velocity,
            angular_velocity,
        } => {
            let inertia = inertia.unwrap_or_else(|| {
                let j = 0.4 * mass * radius * radius; // solid sphere
                [j, j, j]
            });
            MotionVrs::Free {
                mass: t.real_parameter(format!("{n}.mass"), Variability::Fixed, "kg", *mass, Bounds::POSITIVE, "mass"),
                inertia: t.real_array(&format!("{n}.inertia"), |t, name, i| t.real_parameter(name, Variability::Fixed, "kg.m2", inertia[i], Bounds::POSITIVE, format!("principal moment of inertia about body axis {}", i + 1))),
                r0: vec3_param(t, &format!("{n}.r0"), "m", *position, "initial position, world frame"),
                q0: t.real_array(&format!("{n}.q0"), |t, name, i| t.real_parameter(name, Variability::Fixed, "1", orientation[i], Bounds::ANY, format!("initial orientation quaternion (w, x, y, z), body to world, component {}", i + 1))),
                v0: vec3_param(t, &format!("{n}.v0"), "m/s", *velocity, "initial velocity, world frame"),
                w0: vec3_param(t, &format!("{n}.w0"), "rad/s", *angular_velocity, "initial angular velocity, world frame"),
                f_ext: vec3_input(t, &format!("{n}.f_ext"), "N", [0.0; 3], "external force on the body origin, world frame"),
                t_ext: vec3_input(t, &format!("{n}.t_ext"), "N.m", [0.0; 3], "external torque about the body origin, world frame"),
                r: vec3_output(t, &format!("{n}.r"), "m", "position of the body origin, world frame"),
                q: t.real_array(&format!("{n}.q"), |t, name, i| t.real_output(name, "1", format!("orientation quaternion (w, x, y, z), body to world, component {}", i + 1))),
                v: vec3_output(t, &format!("{n}.v"), "m/s", "velocity of the body origin, world frame"),
                w: vec3_output(t, &format!("{n}.w"), "rad/s", "angular velocity, world frame"),
            }
        }
    };
    BodyVrs {
        radius: radius_vr,
        contact_length,
        material,
        motion,
        f: vec3_output(
            t,
            &format!("{n}.f"),
            "N",
            "contact force on the body, world frame",
        ),
        t: vec3_output(
            t,
            &format!("{n}.t"),
            "N.m",
            "contact torque on the body about its origin, world frame",
        ),
        penetration: t.real_output(
            format!("{n}.penetration"),
            "m",
            "deepest penetration of the body into what it touches",
        ),
        contact: t.boolean_output(format!("{n}.contact"), "the body touches something"),
    }
}

/// The variable table and layout of `s`.
pub fn build(s: &Scenario) -> (VariableTable, Layout) {
    let mut t = VariableTable::default();
    let model_step = t.real_parameter(
        "world.model_step",
        Variability::Fixed,
        "s",
        s.model_step,
        Bounds::POSITIVE,
        "internal integration step: fmi2DoStep takes equal sub-steps no longer than this",
    );
    let gravity = t.real_array("world.gravity", |t, n, i| {
        t.real_parameter(
            n,
            Variability::Tunable,
            "m/s2",
            s.gravity[i],
            Bounds::ANY,
            format!("gravity, world frame, component {}", i + 1),
        )
    });
    let Terrain::Flat {
        height,
        material: tm,
    } = &s.terrain;
    let terrain_height = t.real_parameter(
        "terrain.height",
        Variability::Fixed,
        "m",
        *height,
        Bounds::ANY,
        "height of the flat ground surface (z = height, normal +z)",
    );
    let terrain_material = material(&mut t, "terrain", tm);
    let bbcc = s.bbcc.clone().unwrap_or(crate::scenario::BbccSettings {
        v_d: crate::scenario::BbccSettings::default_v_d(),
        impact_velocity_min: crate::scenario::BbccSettings::default_impact_velocity_min(),
        pairs: vec![],
    });
    let v_d = t.real_parameter(
        "bbcc.v_d",
        Variability::Tunable,
        "m/s",
        bbcc.v_d,
        Bounds::POSITIVE,
        "velocity dead band v_d of the regularized Coulomb friction (Buse 2023 eq. (4))",
    );
    let impact_velocity_min = t.real_parameter("bbcc.impact_velocity_min", Variability::Tunable, "m/s", bbcc.impact_velocity_min, Bounds::POSITIVE, "lower bound of the pre-impact velocity in the damping of Buse 2023 eq. (2); keeps it finite for contacts that start at rest");
    let bodies = s.bodies.iter().map(|b| body(&mut t, b)).collect();
    let ground_pairs = bbcc
        .pairs
        .iter()
        .filter_map(|[a, b]| {
            let other = if a == "terrain" { b } else { a };
            s.body_index(other)
        })
        .collect();
    (
        t,
        Layout {
            model_step,
            gravity,
            terrain_height,
            terrain_material,
            v_d,
            impact_velocity_min,
            bodies,
            ground_pairs,
        },
    )
}
