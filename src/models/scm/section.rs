//! The `scm` section of a scenario: its serde types (their field docs become the JSON
//! Schema's descriptions and the field reference in docs/scenario-format.md) and the
//! value checks serde cannot express, each problem with its field path.
//!
//! Read by [`super::adapter`], which turns it into FMI parameters `soil.*` and the
//! soil grid.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::scenario::{Checker, Motion, Scenario, Shape};

/// The most soil nodes one SCM body may span ((size / ds)^2): 1e7 (a 3 m body at 1 mm).
/// Bodies beyond it make steps of many seconds (the scenario fuzzer's 40 m and 400 m
/// wheels sunk into the 2e6 nodes of a 20 m x 10 m field at 1 cm: 13 s and 18 s for
/// the first step) and soil state of gigabytes.
pub const MAX_BODY_NODES: f64 = 1e7;

/// SCM settings (Krenn 2009; Buse 2023, section 4.2). All values are start values of
/// FMI parameters (`soil.*`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScmSettings {
    /// Soil parameters.
    #[serde(default)]
    pub soil: ScmSoil,
    /// The soil field `[x_min, x_max, y_min, y_max]` over the terrain surface, m
    /// (`soil.extent[1..4]`). Memory grows with the area touched, not with this.
    #[serde(default = "ScmSettings::default_extent")]
    pub extent: [f64; 4],
    /// Soil update interval, s: the second sampled clock of Buse 2023, section 4.2
    /// (contact forces every model step, soil deformation at this rate); 0 updates at
    /// every model step (`soil.update_interval`).
    #[serde(default)]
    pub update_interval: f64,
    /// Plastic soil deformation on (`soil.deformation`); off, the soil keeps its shape.
    #[serde(default = "yes")]
    pub deformation: bool,
    /// Bodies (kinematic or free) with SCM contact.
    #[serde(default)]
    pub bodies: Vec<String>,
    /// Folder the soil surface is exported to (PNG height image and PLY mesh) at
    /// terminate and every `export_interval`; empty: no export (`soil.export_dir`).
    #[serde(default)]
    pub export_dir: String,
    /// Export interval, s; 0: only at terminate (`soil.export_interval`).
    #[serde(default)]
    pub export_interval: f64,
    /// Soil classes per node: a map whose value at a node selects the soil there
    /// (0: `soil`, k: `classes[k - 1]`). None: one soil everywhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soil_map: Option<ScmSoilMap>,
}

/// A map of soil classes over the field (Krenn 2009, Table 1 per node): a file of
/// whole numbers, pixel (i, j) at `origin` + (i, j) `cell` (m; rows along y, columns
/// along x), each grid node taking the nearest pixel's class. Class 0 is the soil of
/// the FMI parameters `soil.*`, class k is `classes[k - 1]`; nodes outside the map
/// are class 0. The file: an 8-bit grayscale PNG (the pixel value is the class) or a
/// CSV of integers, relative to the scenario (the packager copies it). The classes
/// are fixed in the scenario (no FMI parameters).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScmSoilMap {
    pub file: String,
    /// Pixel spacing, m.
    pub cell: f64,
    /// World (x, y) of pixel (0, 0), m.
    #[serde(default)]
    pub origin: [f64; 2],
    /// Classes 1, 2, ...: a value left out is that of `soil` (the FMI parameter's).
    pub classes: Vec<ScmSoilClass>,
}

/// One soil class of a [`ScmSoilMap`]: the Bekker parameters and the angle of repose;
/// each left out takes the value of the FMI parameter `soil.<name>`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScmSoilClass {
    /// Exponent of sinkage n, 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<f64>,
    /// Cohesive modulus k_c, N/m^(n+1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kc: Option<f64>,
    /// Frictional modulus k_phi, N/m^(n+2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kphi: Option<f64>,
    /// Cohesion c, Pa.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<f64>,
    /// Angle of internal friction phi, rad.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phi: Option<f64>,
    /// Maximum angle of repose, rad.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repose: Option<f64>,
}

impl ScmSettings {
    /// Default field: 100 m x 100 m around the origin.
    pub fn default_extent() -> [f64; 4] {
        [-50.0, 50.0, -50.0, 50.0]
    }
}

fn yes() -> bool {
    true
}

/// SCM soil parameters (Krenn 2009, Table 1 and section 3.1). Defaults: the Mars soil
/// simulant DLR-A of the paper's section 4 (n, k_c, k_phi) and our values for the rest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ScmSoil {
    /// Grid spacing ds, m (`soil.ds`).
    pub ds: f64,
    /// Exponent of sinkage n, 1 (`soil.n`).
    pub n: f64,
    /// Cohesive modulus k_c, N/m^(n+1) (`soil.kc`).
    pub kc: f64,
    /// Frictional modulus k_phi, N/m^(n+2) (`soil.kphi`).
    pub kphi: f64,
    /// Cohesion c, Pa (`soil.c`).
    pub c: f64,
    /// Angle of internal friction phi, rad (`soil.phi`).
    pub phi: f64,
    /// Maximum angle of repose psi, rad (`soil.repose`).
    pub repose: f64,
    /// Coulomb friction coefficient mu between soil and body (`soil.mu`).
    pub mu: f64,
    /// Elastic unloading/reloading stiffness, Pa/m (`soil.k_e`).
    pub k_e: f64,
    /// Linear velocity damping of the pressure (Krenn 2009, section 5), Pa s/m
    /// (`soil.damping`).
    pub damping: f64,
    /// Sliding speed over which the shear direction is regularized (tanh), m/s
    /// (`soil.v_shear`).
    pub v_shear: f64,
    /// Shear deformation modulus K of Janosi and Hanamoto, m (`soil.k_shear`).
    pub k_shear: f64,
    /// Erosion sweeps per soil update (`soil.erosion_sweeps`): 0 erodes until no slope
    /// exceeds the angle of repose (Krenn 2009 section 3.3); a positive number caps
    /// the sweeps for speed, and what remains continues in the next update.
    pub erosion_sweeps: u32,
    /// Bulk density of the soil, kg/m^3 (`soil.density`): with the world's gravity
    /// its unit weight in the passive earth pressure on side faces.
    pub density: f64,
    /// Passive earth pressure on the side faces of the bodies (`soil.side_pressure`):
    /// the soil beside a face no vertical ray sees (a wheel's side against a rut's
    /// wall) resists its motion (Leite 2010, eq. (3.9)).
    pub side_pressure: bool,
    /// Erosion stops at the bodies' undersides (`soil.erosion_stops_at_bodies`): soil
    /// slumping towards a body does not fill the space the body takes. Off (the
    /// default, as in Krenn 2009), a body resting in its crater is lifted by the
    /// walls slumping under it (docs/models/scm.md).
    pub erosion_stops_at_bodies: bool,
}

impl Default for ScmSoil {
    fn default() -> Self {
        let p = crate::models::scm::SoilParams::dlr_a();
        ScmSoil {
            ds: 0.01,
            n: p.n,
            kc: p.k_c,
            kphi: p.k_phi,
            c: p.c,
            phi: p.phi,
            repose: p.repose,
            mu: p.mu,
            k_e: p.k_e,
            damping: p.damping,
            v_shear: p.v_shear,
            k_shear: p.k_shear,
            erosion_sweeps: p.erosion_sweeps,
            density: p.density,
            side_pressure: p.side_pressure,
            erosion_stops_at_bodies: p.erosion_stops_at_bodies,
        }
    }
}

/// Value checks of the scenario's `scm` section (none without one), each problem with
/// its field path; registered beside the model in [`crate::cosim::registry`].
pub(crate) fn check(c: &mut Checker, s: &Scenario) {
    if let Some(section) = &s.scm {
        scm_settings(c, s, section);
    }
}

fn scm_settings(c: &mut Checker, s: &Scenario, scm: &ScmSettings) {
    let soil = &scm.soil;
    c.positive("scm.soil.ds", soil.ds);
    c.positive("scm.soil.n", soil.n);
    for (name, v) in [
        ("kc", soil.kc),
        ("kphi", soil.kphi),
        ("c", soil.c),
        ("mu", soil.mu),
        ("damping", soil.damping),
    ] {
        c.non_negative(&format!("scm.soil.{name}"), v);
    }
    c.positive("scm.soil.k_e", soil.k_e);
    c.positive("scm.soil.v_shear", soil.v_shear);
    c.positive("scm.soil.k_shear", soil.k_shear);
    c.non_negative("scm.soil.density", soil.density);
    if soil.erosion_sweeps > i32::MAX as u32 {
        // an FMI Integer parameter
        c.err(
            "scm.soil.erosion_sweeps",
            "must be at most 2147483647 (0: until settled)",
        );
    }
    c.acute_angle("scm.soil.phi", soil.phi);
    c.acute_angle("scm.soil.repose", soil.repose);
    if soil.kc + soil.kphi <= 0.0 {
        c.err("scm.soil.kphi", "kc and kphi cannot both be 0");
    }
    c.vec("scm.extent", &scm.extent);
    if scm.extent[1] <= scm.extent[0] || scm.extent[3] <= scm.extent[2] {
        c.err(
            "scm.extent",
            "must be [x_min, x_max, y_min, y_max] with x_min < x_max and y_min < y_max",
        );
    } else if soil.ds > 0.0 {
        let nodes = ((scm.extent[1] - scm.extent[0]) / soil.ds)
            .max((scm.extent[3] - scm.extent[2]) / soil.ds);
        if nodes > 1e9 {
            c.err(
                "scm.extent",
                format!(
                    "{nodes:.3e} nodes along one side at ds = {}: at most 1e9",
                    soil.ds
                ),
            );
        }
    }
    c.non_negative("scm.update_interval", scm.update_interval);
    c.non_negative("scm.export_interval", scm.export_interval);
    if let Some(m) = &scm.soil_map {
        c.positive("scm.soil_map.cell", m.cell);
        c.vec("scm.soil_map.origin", &m.origin);
        if m.classes.is_empty() || m.classes.len() > 255 {
            c.err(
                "scm.soil_map.classes",
                format!("needs 1 to 255 classes, has {}", m.classes.len()),
            );
        }
        for (k, class) in m.classes.iter().enumerate() {
            let at = |name: &str| format!("scm.soil_map.classes[{k}].{name}");
            if let Some(n) = class.n {
                c.positive(&at("n"), n);
            }
            for (name, v) in [("kc", class.kc), ("kphi", class.kphi), ("c", class.c)] {
                if let Some(v) = v {
                    c.non_negative(&at(name), v);
                }
            }
            for (name, v) in [("phi", class.phi), ("repose", class.repose)] {
                if let Some(v) = v {
                    c.acute_angle(&at(name), v);
                }
            }
        }
    }
    if s.terra.is_some() {
        c.err(
            "scm",
            "a scenario has one soil: \"terra\" and \"scm\" both define soil.c and soil.phi",
        );
    }
    let mut seen: Vec<&str> = vec![];
    for (i, name) in scm.bodies.iter().enumerate() {
        let p = format!("scm.bodies[{i}]");
        match s.bodies.iter().find(|b| &b.name == name) {
            None => c.err(
                &p,
                format!(
                    "no body named '{name}' (bodies: {})",
                    crate::scenario::body_names(s)
                ),
            ),
            Some(b) => {
                // the soil nodes under one body, each evaluated every model step
                if let Some(size) = b.shape.size_bound() {
                    let nodes = (size / soil.ds).powi(2);
                    if soil.ds > 0.0 && nodes > MAX_BODY_NODES {
                        c.err(
                            &p,
                            format!(
                                "'{name}' is {size:.3} m across: {nodes:.2e} soil nodes at ds = {} m under it, at most {MAX_BODY_NODES:e} (each model step visits them); raise scm.soil.ds or make the body smaller",
                                soil.ds
                            ),
                        );
                    }
                }
                if matches!(b.motion, Motion::Fixed { .. }) {
                    c.err(
                        &p,
                        format!("'{name}' is fixed: SCM bodies are kinematic or free"),
                    );
                }
                if matches!(b.shape, Shape::CuboidGrid { .. }) {
                    c.err(
                        &p,
                        format!("'{name}': a cuboid_grid has no SCM contact mesh"),
                    );
                }
            }
        }
        if seen.contains(&name.as_str()) {
            c.err(&p, format!("'{name}' is listed twice"));
        }
        seen.push(name);
    }
}
