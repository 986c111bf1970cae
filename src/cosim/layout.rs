//! Builds the variable table of a scenario and remembers where each model quantity
//! lives in it (the value references of every parameter, input and output).

use super::variables::{
    Bounds, Causality, Initial, Start, VarType, Variability, Variable, VariableTable,
};
use crate::scenario::{
    Body, Material, Motion, RigSoilModel, RigSpec, Scenario, Shape, SurfaceSpec, TerraSettings,
};

/// Value references of a contact material.
#[derive(Debug, Clone, Copy)]
pub struct MaterialVrs {
    pub e: usize,
    pub nu: usize,
    pub zeta: usize,
    pub mu: usize,
    /// Bengisu-Akay (mu_s, xi), eq. (5), when given.
    pub stiction: Option<(usize, usize)>,
}

/// Value references of the terrain surface's parameters.
#[derive(Debug, Clone)]
pub enum TerrainVrs {
    Flat {
        height: usize,
    },
    Inclined {
        height: usize,
        angle: usize,
    },
    Ramps {
        height: usize,
        starts: Vec<usize>,
        angles: Vec<usize>,
    },
    Profile {
        xs: Vec<usize>,
        zs: Vec<usize>,
    },
    /// A procedural surface: fixed by the scenario, no parameters.
    Generated,
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
    /// Pose parameters of a body that does not move.
    Fixed {
        r0: [usize; 3],
        q0: [usize; 4],
        incline: Option<usize>,
    },
    /// Parameters, external-load inputs and state outputs of a free body.
    Free {
        /// Boolean parameter: rotation locked.
        locked: usize,
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

/// Value references of a body's shape.
#[derive(Debug, Clone, Copy)]
pub enum ShapeVrs {
    Sphere {
        radius: usize,
    },
    Wheel {
        radius: usize,
        width: usize,
    },
    Cuboid {
        size: [usize; 3],
    },
    Cylinder {
        radius: usize,
        height: usize,
    },
    /// `count` is an Integer value reference.
    GrouserWheel {
        radius: usize,
        width: usize,
        count: usize,
        height: usize,
        thickness: usize,
    },
    /// Flat circular plate (axis body z, origin at the bottom face centre).
    Plate {
        radius: usize,
        thickness: usize,
    },
    /// Geometry from the scenario (meshes, compounds, grids): no parameters.
    Given,
}

/// Outputs of a body with SCM contact.
#[derive(Debug, Clone, Copy)]
pub struct ScmBodyVrs {
    pub sinkage: usize,
    /// Integer value reference.
    pub contact_nodes: usize,
    pub footprint_area: usize,
    pub b_eff: usize,
}

/// SCM soil parameters (`soil.*`).
#[derive(Debug, Clone, Copy)]
pub struct ScmVrs {
    pub ds: usize,
    pub n: usize,
    pub kc: usize,
    pub kphi: usize,
    pub c: usize,
    pub phi: usize,
    pub repose: usize,
    pub mu: usize,
    pub k_e: usize,
    pub damping: usize,
    pub v_shear: usize,
    pub k_shear: usize,
    pub density: usize,
    /// Integer value reference.
    pub erosion_sweeps: usize,
    pub extent: [usize; 4],
    pub update_interval: usize,
    /// Boolean value references.
    pub deformation: usize,
    pub side_pressure: usize,
    /// String value reference.
    pub export_dir: usize,
    pub export_interval: usize,
    /// Real outputs: soil volume above the base surface, and stored tiles.
    pub volume: usize,
}

/// Tunable parameters of one SCM soil class (`soil.class<c>.*`, `scm.soil_map`): one
/// for each value the class sets; `None` where it takes the `soil.*` parameter.
#[derive(Debug, Clone, Copy, Default)]
pub struct SoilClassVrs {
    pub n: Option<usize>,
    pub kc: Option<usize>,
    pub kphi: Option<usize>,
    pub c: Option<usize>,
    pub phi: Option<usize>,
    pub repose: Option<usize>,
}

/// Outputs of a wheel-soil model (TerRA), shared by force-element wheels and the rig.
#[derive(Debug, Clone, Copy)]
pub struct WheelSoilVrs {
    pub sinkage: usize,
    pub z_eff: usize,
    pub z_s: usize,
    pub z_peak: usize,
    pub slip: usize,
    pub j_m: usize,
    pub f_n: usize,
    pub f_t: usize,
}

/// Value references of one body.
#[derive(Debug, Clone)]
pub struct BodyVrs {
    pub shape: ShapeVrs,
    /// BBCC's R_i (spheres with a material).
    pub contact_length: Option<usize>,
    pub material: Option<MaterialVrs>,
    pub motion: MotionVrs,
    pub f: [usize; 3],
    pub t: [usize; 3],
    /// Deepest penetration (BBCC bodies).
    pub penetration: Option<usize>,
    /// Integer output: number of touching partners (BBCC bodies).
    pub contacts: Option<usize>,
    /// Boolean value reference.
    pub contact: usize,
    /// TerRA force element: mass estimate parameter and outputs.
    pub terra: Option<(usize, WheelSoilVrs)>,
    /// SCM contact outputs.
    pub scm: Option<ScmBodyVrs>,
}

/// BBCC constants.
#[derive(Debug, Clone, Copy)]
pub struct BbccVrs {
    pub v_d: usize,
    pub impact_velocity_min: usize,
}

/// TerRA constants (`terra.*`, `soil.*`).
#[derive(Debug, Clone, Copy)]
pub struct TerraVrs {
    pub k_c: usize,
    pub k_exp: usize,
    pub k_d: usize,
    pub k_el: usize,
    pub k_s0: usize,
    pub k_s_exp: usize,
    pub k_s_max: usize,
    pub k_j: usize,
    pub t_pt1: usize,
    pub v_thresh: usize,
    pub k_p: usize,
    pub k_i: usize,
    pub k_awu: usize,
    pub c: usize,
    pub phi: usize,
    pub rho: usize,
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
    /// SCM outputs and the generated wheel's grousers (Integer count, height,
    /// thickness) (soil_model scm).
    pub scm: Option<(ScmBodyVrs, usize, usize, usize, usize)>,
}

/// Where everything lives in the variable table.
#[derive(Debug, Clone)]
pub struct Layout {
    pub model_step: usize,
    pub gravity: [usize; 3],
    pub terrain: TerrainVrs,
    pub terrain_material: Option<MaterialVrs>,
    pub bbcc: Option<BbccVrs>,
    pub bodies: Vec<BodyVrs>,
    /// BBCC contact pairs: the body index touching the terrain.
    pub ground_pairs: Vec<usize>,
    /// BBCC body-body pairs (i < j) allowed to touch.
    pub bbcc_pairs: Vec<(usize, usize)>,
    /// The bodies' shapes as in the scenario.
    pub shapes: Vec<Shape>,
    pub terra: Option<TerraVrs>,
    /// Bodies with a TerRA force element.
    pub terra_wheels: Vec<usize>,
    pub rig: Option<RigVrs>,
    pub scm: Option<ScmVrs>,
    /// Soil classes 1, 2, ... of `scm.soil_map`.
    pub scm_classes: Vec<SoilClassVrs>,
    /// Bodies with SCM contact.
    pub scm_bodies: Vec<usize>,
}

use Variability::{Fixed, Tunable};

/// An angle strictly between 0 and 90 degrees, rad (friction, repose).
const ACUTE: Bounds = Bounds {
    min: Some(0.0),
    max: Some(std::f64::consts::FRAC_PI_2),
    positive: true,
};

fn material(t: &mut VariableTable, prefix: &str, m: &Material) -> MaterialVrs {
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
        stiction: match (m.mu_s, m.xi) {
            (Some(mu_s), Some(xi)) => Some((
                t.real_parameter(
                    format!("{prefix}.mu_s"),
                    Tunable,
                    "1",
                    mu_s,
                    Bounds::NON_NEGATIVE,
                    "static friction coefficient mu_s of the Bengisu-Akay law (Buse 2023 eq. (5))",
                ),
                t.real_parameter(
                    format!("{prefix}.xi"),
                    Tunable,
                    "s/m",
                    xi,
                    Bounds::NON_NEGATIVE,
                    "decay xi of the Bengisu-Akay law (Buse 2023 eq. (5))",
                ),
            )),
            _ => None,
        },
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
            Fixed,
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

/// Longest edge of the body's bounding box, m: the paper's R_i estimate.
fn longest_edge(shape: &Shape) -> f64 {
    match shape {
        Shape::Sphere { radius } => 2.0 * radius,
        Shape::Wheel { radius, width }
        | Shape::Cylinder {
            radius,
            height: width,
        } => (2.0 * radius).max(*width),
        Shape::GrouserWheel {
            radius,
            width,
            grouser_height,
            ..
        } => (2.0 * (radius + grouser_height)).max(*width),
        Shape::Cuboid { size } => size[0].max(size[1]).max(size[2]),
        Shape::Plate { radius, thickness } => (2.0 * radius).max(*thickness),
        // from the built shape's bounding box at initialization (see World)
        Shape::ConvexMesh { .. }
        | Shape::Compound { .. }
        | Shape::CuboidGrid { .. }
        | Shape::Generated { .. } => 0.0,
    }
}

fn wheel_soil_outputs(t: &mut VariableTable, n: &str) -> WheelSoilVrs {
    WheelSoilVrs {
        sinkage: t.real_output(format!("{n}.sinkage"), "m", "depth of the lowest wheel point below the undisturbed surface, z (Barthelmes 2018 eq. (1))"),
        z_eff: t.real_output(format!("{n}.z_eff"), "m", "effective sinkage z_eff = z - z_s (Barthelmes 2018 eq. (1))"),
        z_s: t.real_output(format!("{n}.z_s"), "m", "slip-sinkage z_s (Barthelmes 2018 eq. (18))"),
        z_peak: t.real_output(format!("{n}.z_peak"), "m", "peak sinkage z_peak (Barthelmes 2018 eq. (16))"),
        slip: t.real_output(format!("{n}.slip"), "1", "(omega r - v)/(omega r) driving, (omega r - v)/v braking; v along the terrain"),
        j_m: t.real_output(format!("{n}.j_m"), "m", "slip length j_m (Barthelmes 2018 eq. (21))"),
        f_n: t.real_output(format!("{n}.Fn"), "N", "TerRA normal force F_n along the terrain normal (Barthelmes 2018 eq. (7))"),
        f_t: t.real_output(format!("{n}.Ft"), "N", "TerRA tangential force F_t along the wheel's forward direction (Barthelmes 2018 eq. (26))"),
    }
}

/// SCM outputs of body (or rig wheel) `n`, its sinkage described by `sinkage`.
fn scm_body_outputs(t: &mut VariableTable, n: &str, sinkage: &str) -> ScmBodyVrs {
    ScmBodyVrs {
        sinkage: t.real_output(format!("{n}.sinkage"), "m", sinkage),
        contact_nodes: t.push(Variable {
            name: format!("{n}.contact_nodes"),
            vr: 0,
            ty: VarType::Integer,
            causality: Causality::Output,
            variability: Variability::Discrete,
            initial: Some(Initial::Calculated),
            unit: None,
            description: "SCM: soil grid nodes in the footprint".into(),
            start: None,
            bounds: Bounds::ANY,
        }),
        footprint_area: t.real_output(
            format!("{n}.footprint_area"),
            "m2",
            "SCM: footprint area A (Krenn 2009 eq. (4))",
        ),
        b_eff: t.real_output(
            format!("{n}.b_eff"),
            "m",
            "SCM: effective contact width b_eff = 2A/L (Krenn 2009 eq. (3))",
        ),
    }
}

/// `soil.class<c>.<name>` for each value soil class c of `scm.soil_map` sets, with the
/// unit and bounds of `soil.<name>`.
fn scm_classes(t: &mut VariableTable, s: &crate::scenario::ScmSettings) -> Vec<SoilClassVrs> {
    let Some(map) = &s.soil_map else {
        return vec![];
    };
    let angle = ACUTE;
    let mut out = vec![];
    for (k, class) in map.classes.iter().enumerate() {
        let c = k + 1;
        let mut p =
            |value: Option<f64>, name: &str, unit: Option<&'static str>, bounds, what: &str| {
                value.map(|v| {
                    t.push(Variable {
                        name: format!("soil.class{c}.{name}"),
                        vr: 0,
                        ty: VarType::Real,
                        causality: Causality::Parameter,
                        variability: Tunable,
                        initial: Some(Initial::Exact),
                        unit,
                        description: format!("soil class {c} of scm.soil_map: {what}"),
                        start: Some(Start::Real(v)),
                        bounds,
                    })
                })
            };
        out.push(SoilClassVrs {
            n: p(
                class.n,
                "n",
                Some("1"),
                Bounds::POSITIVE,
                "exponent of sinkage n",
            ),
            kc: p(
                class.kc,
                "kc",
                None,
                Bounds::NON_NEGATIVE,
                "cohesive modulus k_c, N/m^(n+1)",
            ),
            kphi: p(
                class.kphi,
                "kphi",
                None,
                Bounds::NON_NEGATIVE,
                "frictional modulus k_phi, N/m^(n+2)",
            ),
            c: p(class.c, "c", Some("Pa"), Bounds::NON_NEGATIVE, "cohesion c"),
            phi: p(
                class.phi,
                "phi",
                Some("rad"),
                angle,
                "angle of internal friction phi",
            ),
            repose: p(
                class.repose,
                "repose",
                Some("rad"),
                angle,
                "maximum angle of repose psi",
            ),
        });
    }
    out
}

fn scm_constants(t: &mut VariableTable, s: &crate::scenario::ScmSettings) -> ScmVrs {
    let soil = &s.soil;
    let mut p = |name: &str,
                 unit: Option<&'static str>,
                 variability: Variability,
                 v: f64,
                 bounds: Bounds,
                 what: &str| {
        t.push(Variable {
            name: name.into(),
            vr: 0,
            ty: VarType::Real,
            causality: Causality::Parameter,
            variability,
            initial: Some(Initial::Exact),
            unit,
            description: what.into(),
            start: Some(Start::Real(v)),
            bounds,
        })
    };
    let angle = ACUTE;
    let ds = p(
        "soil.ds",
        Some("m"),
        Fixed,
        soil.ds,
        Bounds::POSITIVE,
        "SCM grid spacing ds (Krenn 2009 section 3.1)",
    );
    let n = p(
        "soil.n",
        Some("1"),
        Tunable,
        soil.n,
        Bounds::POSITIVE,
        "exponent of sinkage n (Krenn 2009 Table 1)",
    );
    let kc = p(
        "soil.kc",
        None,
        Tunable,
        soil.kc,
        Bounds::NON_NEGATIVE,
        "cohesive modulus k_c, N/m^(n+1) (Krenn 2009 Table 1)",
    );
    let kphi = p(
        "soil.kphi",
        None,
        Tunable,
        soil.kphi,
        Bounds::NON_NEGATIVE,
        "frictional modulus k_phi, N/m^(n+2) (Krenn 2009 Table 1)",
    );
    let c = p(
        "soil.c",
        Some("Pa"),
        Tunable,
        soil.c,
        Bounds::NON_NEGATIVE,
        "cohesion c (Krenn 2009 Table 1, eq. (8))",
    );
    let phi = p(
        "soil.phi",
        Some("rad"),
        Tunable,
        soil.phi,
        angle,
        "angle of internal friction phi (Krenn 2009 Table 1, eq. (8))",
    );
    let repose = p(
        "soil.repose",
        Some("rad"),
        Tunable,
        soil.repose,
        angle,
        "maximum angle of repose psi (Krenn 2009 section 3.1): erosion levels steeper slopes",
    );
    let mu = p(
        "soil.mu",
        Some("1"),
        Tunable,
        soil.mu,
        Bounds::NON_NEGATIVE,
        "Coulomb friction coefficient mu between soil and body (Krenn 2009 eq. (8))",
    );
    let k_e = p(
        "soil.k_e",
        Some("Pa/m"),
        Tunable,
        soil.k_e,
        Bounds::POSITIVE,
        "elastic unloading/reloading stiffness of the soil",
    );
    let damping = p(
        "soil.damping",
        Some("Pa.s/m"),
        Tunable,
        soil.damping,
        Bounds::NON_NEGATIVE,
        "linear velocity damping of the contact pressure (Krenn 2009 section 5)",
    );
    let v_shear = p(
        "soil.v_shear",
        Some("m/s"),
        Tunable,
        soil.v_shear,
        Bounds::POSITIVE,
        "sliding speed over which the shear direction is regularized (tanh)",
    );
    let k_shear = p(
        "soil.k_shear",
        Some("m"),
        Tunable,
        soil.k_shear,
        Bounds::POSITIVE,
        "shear deformation modulus K of Janosi and Hanamoto: shear mobilized as 1 - exp(-j/K)",
    );
    let density = p(
        "soil.density",
        Some("kg/m3"),
        Tunable,
        soil.density,
        Bounds::NON_NEGATIVE,
        "bulk density of the soil: its unit weight (with world.gravity) in the passive earth pressure on side faces",
    );
    let ext = ["x_min", "x_max", "y_min", "y_max"];
    let extent = [0, 1, 2, 3].map(|i| {
        p(
            &format!("soil.extent[{}]", i + 1),
            Some("m"),
            Fixed,
            s.extent[i],
            Bounds::ANY,
            &format!("soil field bounds [x_min, x_max, y_min, y_max]: {}", ext[i]),
        )
    });
    let update_interval = p("soil.update_interval", Some("s"), Tunable, s.update_interval, Bounds::NON_NEGATIVE, "soil deformation update interval (0: every model step); contact forces are computed every model step at the current poses, the soil update yields to each kinematic body's pose at the end of the previous sub-step (its last known position, Buse 2023 section 4.2)");
    let export_interval = p(
        "soil.export_interval",
        Some("s"),
        Tunable,
        s.export_interval,
        Bounds::NON_NEGATIVE,
        "soil surface export interval (0: only at fmi2Terminate)",
    );
    let deformation = t.push(Variable {
        name: "soil.deformation".into(),
        vr: 0,
        ty: VarType::Boolean,
        causality: Causality::Parameter,
        variability: Tunable,
        initial: Some(Initial::Exact),
        unit: None,
        description:
            "plastic soil deformation on (Krenn 2009 section 3.3); off, the soil keeps its shape"
                .into(),
        start: Some(Start::Boolean(s.deformation)),
        bounds: Bounds::ANY,
    });
    let side_pressure = t.push(Variable {
        name: "soil.side_pressure".into(),
        vr: 0,
        ty: VarType::Boolean,
        causality: Causality::Parameter,
        variability: Tunable,
        initial: Some(Initial::Exact),
        unit: None,
        description: "passive earth pressure on body faces no vertical ray sees (a wheel's side against a rut's wall; Leite 2010 eq. (3.9))".into(),
        start: Some(Start::Boolean(soil.side_pressure)),
        bounds: Bounds::ANY,
    });
    let erosion_sweeps = t.push(Variable {
        name: "soil.erosion_sweeps".into(),
        vr: 0,
        ty: VarType::Integer,
        causality: Causality::Parameter,
        variability: Tunable,
        initial: Some(Initial::Exact),
        unit: None,
        description: "erosion sweeps per soil update: 0 erodes until no slope exceeds the angle of repose (Krenn 2009 section 3.3); a positive number caps them for speed, the rest continues next update".into(),
        start: Some(Start::Integer(soil.erosion_sweeps.min(i32::MAX as u32) as i32)), // checked by validate
        bounds: Bounds::NON_NEGATIVE,
    });
    let export_dir = t.push(Variable {
        name: "soil.export_dir".into(),
        vr: 0,
        ty: VarType::String,
        causality: Causality::Parameter,
        variability: Fixed,
        initial: Some(Initial::Exact),
        unit: None,
        description: "folder for the soil surface export (PNG height image, PLY mesh); empty: none"
            .into(),
        start: Some(Start::String(s.export_dir.clone())),
        bounds: Bounds::ANY,
    });
    let volume = t.real_output(
        "soil.volume",
        "m3",
        "soil volume above the base surface (conserved by the deformation)",
    );
    ScmVrs {
        ds,
        n,
        kc,
        kphi,
        c,
        phi,
        repose,
        mu,
        k_e,
        damping,
        v_shear,
        k_shear,
        density,
        erosion_sweeps,
        extent,
        update_interval,
        deformation,
        side_pressure,
        export_dir,
        export_interval,
        volume,
    }
}

fn body(t: &mut VariableTable, b: &Body, terra_mass: Option<f64>, scm: bool) -> BodyVrs {
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
        Shape::Sphere { radius } => ShapeVrs::Sphere {
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
        Shape::Cuboid { size } => ShapeVrs::Cuboid {
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
        Shape::Cylinder { radius, height } => ShapeVrs::Cylinder {
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
        Shape::GrouserWheel {
            radius,
            width,
            count,
            grouser_height,
            grouser_thickness,
        } => ShapeVrs::GrouserWheel {
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
            count: t.push(Variable {
                name: format!("{n}.grouser_count"),
                vr: 0,
                ty: VarType::Integer,
                causality: Causality::Parameter,
                variability: Fixed,
                initial: Some(Initial::Exact),
                unit: None,
                description: "number of grousers on the rim".into(),
                start: Some(Start::Integer(*count as i32)),
                bounds: Bounds {
                    min: Some(0.0),
                    max: Some(360.0),
                    positive: false,
                },
            }),
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
        Shape::ConvexMesh { .. }
        | Shape::Compound { .. }
        | Shape::CuboidGrid { .. }
        | Shape::Generated { .. } => ShapeVrs::Given,
    };
    let (contact_length, material) = match &b.material {
        Some(m) => (
            Some(t.real_parameter(
                format!("{n}.contact_length"),
                Tunable,
                "m",
                longest_edge(&b.shape),
                Bounds::NON_NEGATIVE,
                "R_i of Buse 2023 eq. (3): the body's longest edge (0: the longest edge of its bounding box); a pair uses 1/R = 1/R_1 + 1/R_2 (the ground counts as infinite)",
            )),
            Some(material(t, n, m)),
        ),
        None => (None, None),
    };
    let geometry_start = crate::cosim::bodies::spec_geometry(&b.shape);
    let terra_mass_vr = terra_mass.map(|m| {
        t.real_parameter(
            format!("{n}.mass_estimate"),
            Tunable,
            "kg",
            m,
            Bounds::POSITIVE,
            "mass estimate m of the TerRA wheel (Barthelmes 2018 eq. (6), (10))",
        )
    });
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
        Motion::Fixed { position, orientation, incline } => MotionVrs::Fixed {
            r0: vec3_param(t, &format!("{n}.r0"), "m", *position, "position, world frame"),
            q0: t.real_array(&format!("{n}.q0"), |t, name, i| t.real_parameter(name, Fixed, "1", orientation[i], Bounds::ANY, format!("orientation quaternion (w, x, y, z), body to world, component {}", i + 1))),
            incline: incline.map(|a| {
                t.real_parameter(format!("{n}.incline"), Fixed, "rad", a, Bounds { min: Some(-1.4), max: Some(1.4), positive: false }, "rotation of the body about the world y axis on top of q0 (positive: its +x side rises)")
            }),
        },
        Motion::Free { mass, inertia, position, orientation, velocity, angular_velocity, locked } => {
            let inertia = inertia.unwrap_or_else(|| geometry_start.as_ref().and_then(|g| crate::models::bbcc::shapes::default_inertia(g, *mass)).unwrap_or([1.0; 3]));
            MotionVrs::Free {
                locked: t.push(Variable {
                    name: format!("{n}.locked"),
                    vr: 0,
                    ty: VarType::Boolean,
                    causality: Causality::Parameter,
                    variability: Fixed,
                    initial: Some(Initial::Exact),
                    unit: None,
                    description: "the body cannot rotate".into(),
                    start: Some(Start::Boolean(*locked)),
                    bounds: Bounds::ANY,
                }),
                mass: t.real_parameter(format!("{n}.mass"), Fixed, "kg", *mass, Bounds::POSITIVE, "mass"),
                inertia: t.real_array(&format!("{n}.inertia"), |t, name, i| t.real_parameter(name, Fixed, "kg.m2", inertia[i], Bounds::POSITIVE, format!("principal moment of inertia about body axis {}", i + 1))),
                r0: vec3_param(t, &format!("{n}.r0"), "m", *position, "initial position, world frame"),
                q0: t.real_array(&format!("{n}.q0"), |t, name, i| t.real_parameter(name, Fixed, "1", orientation[i], Bounds::ANY, format!("initial orientation quaternion (w, x, y, z), body to world, component {}", i + 1))),
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
    let penetration = b.material.as_ref().map(|_| {
        t.real_output(
            format!("{n}.penetration"),
            "m",
            "deepest penetration of the body into what it touches",
        )
    });
    let contact = t.boolean_output(format!("{n}.contact"), "the body touches something");
    let contacts = b.material.as_ref().map(|_| {
        t.push(Variable {
            name: format!("{n}.contacts"),
            vr: 0,
            ty: VarType::Integer,
            causality: Causality::Output,
            variability: Variability::Discrete,
            initial: Some(Initial::Calculated),
            unit: None,
            description: "number of touching BBCC partners".into(),
            start: None,
            bounds: Bounds::ANY,
        })
    });
    let terra = terra_mass_vr.map(|m| (m, wheel_soil_outputs(t, n)));
    let scm = scm.then(|| {
        scm_body_outputs(t, n, "SCM: deepest footprint node sinkage below its level before loading (Krenn 2009 eq. (7))")
    });
    BodyVrs {
        scm,
        shape,
        contact_length,
        material,
        motion,
        f,
        t: tq,
        penetration,
        contacts,
        contact,
        terra,
    }
}

fn terra_constants(t: &mut VariableTable, s: &TerraSettings) -> TerraVrs {
    let m = &s.model;
    let mut p = |name: &str, unit: Option<&'static str>, v: f64, bounds: Bounds, what: &str| {
        t.push(Variable {
            name: name.into(),
            vr: 0,
            ty: VarType::Real,
            causality: Causality::Parameter,
            variability: Tunable,
            initial: Some(Initial::Exact),
            unit,
            description: what.into(),
            start: Some(Start::Real(v)),
            bounds,
        })
    };
    let pos = Bounds::POSITIVE;
    let nonneg = Bounds::NON_NEGATIVE;
    TerraVrs {
        // k_c's unit N/m^k_exp depends on k_exp: no fixed SI unit to declare.
        k_c: p(
            "terra.k_c",
            None,
            m.k_c,
            pos,
            "spring constant k_c, N/m^k_exp (Barthelmes 2018 eq. (2))",
        ),
        k_exp: p(
            "terra.k_exp",
            Some("1"),
            m.k_exp,
            pos,
            "spring exponent k_exp (eq. (2))",
        ),
        k_d: p(
            "terra.k_d",
            Some("1"),
            m.k_d,
            nonneg,
            "damping ratio k_d < 1 (eq. (6))",
        ),
        k_el: p(
            "terra.k_el",
            Some("N/m"),
            m.k_el,
            pos,
            "elastic layer stiffness k_el (eq. (3), (5))",
        ),
        k_s0: p(
            "terra.k_s0",
            Some("m"),
            m.k_s0,
            pos,
            "sinkage k_s,0 where the slip-sinkage rate reaches zero (eq. (9))",
        ),
        k_s_exp: p(
            "terra.k_s_exp",
            Some("1"),
            m.k_s_exp,
            nonneg,
            "slip-sinkage nonlinearity k_s,exp (eq. (9))",
        ),
        k_s_max: p(
            "terra.k_s_max",
            Some("1"),
            m.k_s_max,
            nonneg,
            "slip-sinkage scaling k_s,max at zero sinkage (eq. (9))",
        ),
        k_j: p(
            "terra.k_j",
            Some("m"),
            m.k_j,
            pos,
            "Janosi-Hanamoto shear deformation modulus k_j (eq. (20))",
        ),
        t_pt1: p(
            "terra.t_pt1",
            Some("s"),
            m.t_pt1,
            pos,
            "time constant of the PT1 filter of x_m (eq. (22))",
        ),
        v_thresh: p(
            "terra.v_thresh",
            Some("m/s"),
            m.v_thresh,
            pos,
            "slip velocity of the tanh regularization of the traction (eq. (26))",
        ),
        k_p: p(
            "terra.k_p",
            Some("s/m"),
            m.k_p,
            pos,
            "gain k_P of the limited PI resistance (eq. (25))",
        ),
        k_i: p(
            "terra.k_i",
            Some("1/s"),
            m.k_i,
            nonneg,
            "integral gain k_I of the resistance (eq. (25))",
        ),
        k_awu: p(
            "terra.k_awu",
            Some("1"),
            m.k_awu,
            pos,
            "anti-windup factor k_awu (eq. (25))",
        ),
        c: p(
            "soil.c",
            Some("Pa"),
            s.soil.c,
            nonneg,
            "soil cohesion c (eq. (19), (24))",
        ),
        phi: p(
            "soil.phi",
            Some("rad"),
            s.soil.phi,
            Bounds {
                min: Some(0.0),
                max: Some(std::f64::consts::FRAC_PI_2),
                positive: true,
            },
            "soil internal friction angle phi (eq. (12), (24))",
        ),
        rho: p(
            "soil.rho",
            Some("kg/m3"),
            s.soil.rho,
            pos,
            "soil bulk density rho (eq. (24))",
        ),
    }
}

fn rig(t: &mut VariableTable, r: &RigSpec) -> RigVrs {
    let mode = t.push(Variable {
        name: "rig.mode".into(),
        vr: 0,
        ty: VarType::Integer,
        causality: Causality::Parameter,
        variability: Fixed,
        initial: Some(Initial::Exact),
        unit: None,
        description: "1: slip-controlled (carriage speed rig.vx prescribed), 2: force-controlled (carriage free in x, pulled back by rig.drawbar_force)".into(),
        start: Some(Start::Integer(r.mode)),
        bounds: Bounds { min: Some(1.0), max: Some(2.0), positive: false },
    });
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
        scm: (r.soil_model == RigSoilModel::Scm).then(|| {
            let g = r.grousers.clone().unwrap_or(crate::scenario::Grousers {
                count: 0,
                height: 0.0,
                thickness: 0.01,
            });
            let count = t.push(Variable {
                name: "wheel.grouser_count".into(),
                vr: 0,
                ty: VarType::Integer,
                causality: Causality::Parameter,
                variability: Fixed,
                initial: Some(Initial::Exact),
                unit: None,
                description: "grousers on the generated SCM wheel".into(),
                start: Some(Start::Integer(g.count as i32)),
                bounds: Bounds {
                    min: Some(0.0),
                    max: Some(360.0),
                    positive: false,
                },
            });
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
            let outputs = scm_body_outputs(
                t,
                "wheel",
                "depth of the lowest rim point below the undisturbed surface",
            );
            (outputs, count, height, thickness, slip)
        }),
    }
}

/// The variable table and layout of `s`.
pub fn build(s: &Scenario) -> (VariableTable, Layout) {
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
    let terrain_material = s
        .terrain
        .material
        .as_ref()
        .map(|m| material(&mut t, "terrain", m));
    let bbcc = s.bbcc.as_ref().map(|b| BbccVrs {
        v_d: t.real_parameter("bbcc.v_d", Tunable, "m/s", b.v_d, Bounds::POSITIVE, "velocity dead band v_d of the regularized Coulomb friction (Buse 2023 eq. (4))"),
        impact_velocity_min: t.real_parameter("bbcc.impact_velocity_min", Tunable, "m/s", b.impact_velocity_min, Bounds::POSITIVE, "lower bound of the pre-impact velocity in the damping of Buse 2023 eq. (2); keeps it finite for contacts that start at rest"),
    });
    let terra = s.terra.as_ref().map(|ts| terra_constants(&mut t, ts));
    let terra_mass = |name: &str| {
        s.terra.as_ref().and_then(|ts| {
            ts.wheels
                .iter()
                .find(|w| w.body == name)
                .map(|w| w.mass_estimate)
        })
    };
    let bodies = s
        .bodies
        .iter()
        .map(|b| {
            let on_scm = s.scm.as_ref().is_some_and(|x| x.bodies.contains(&b.name));
            body(&mut t, b, terra_mass(&b.name), on_scm)
        })
        .collect();
    // Expand the pairs of bodies and collections into body pairs, sorted and unique.
    let members = |name: &str| -> Vec<usize> {
        match s.body_index(name) {
            Some(i) => vec![i],
            None => s
                .bodies
                .iter()
                .enumerate()
                .filter(|(_, b)| b.group.as_deref() == Some(name))
                .map(|(i, _)| i)
                .collect(),
        }
    };
    let mut ground_pairs: Vec<usize> = vec![];
    let mut bbcc_pairs: Vec<(usize, usize)> = vec![];
    for [a, b] in s.bbcc.iter().flat_map(|b| b.pairs.iter()) {
        if a == "terrain" || b == "terrain" {
            ground_pairs.extend(members(if a == "terrain" { b } else { a }));
            continue;
        }
        for i in members(a) {
            for j in members(b) {
                if i != j {
                    bbcc_pairs.push((i.min(j), i.max(j)));
                }
            }
        }
    }
    ground_pairs.sort_unstable();
    ground_pairs.dedup();
    bbcc_pairs.sort_unstable();
    bbcc_pairs.dedup();
    let terra_wheels = s
        .terra
        .iter()
        .flat_map(|ts| ts.wheels.iter())
        .filter_map(|w| s.body_index(&w.body))
        .collect();
    let scm = s.scm.as_ref().map(|x| scm_constants(&mut t, x));
    let scm_classes = s
        .scm
        .as_ref()
        .map(|x| scm_classes(&mut t, x))
        .unwrap_or_default();
    let scm_bodies = s
        .scm
        .iter()
        .flat_map(|x| x.bodies.iter())
        .filter_map(|n| s.body_index(n))
        .collect();
    let rig = s.rig.as_ref().map(|r| rig(&mut t, r));
    let shapes = s.bodies.iter().map(|b| b.shape.clone()).collect();
    (
        t,
        Layout {
            model_step,
            gravity,
            terrain,
            terrain_material,
            bbcc,
            bodies,
            ground_pairs,
            bbcc_pairs,
            shapes,
            terra,
            terra_wheels,
            rig,
            scm,
            scm_classes,
            scm_bodies,
        },
    )
}
